#define LOG_MODULE "shm"
#include "shm.h"

#include <assert.h>
#include <drm_fourcc.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wayland-server-protocol.h>

#include "client_lease.h"
#include "log.h"
#include "sigbus_guard.h"

/* A mapping of a pool's file. The pool holds the newest; each buffer holds
 * the one it was made in (which covers it: pools only grow), and so does
 * its lease, on whatever thread reads it: a pool that grows while one of
 * its mappings is shared gets a new mapping of the same pages
 * (mremap's old_size 0) instead of moving the shared one. */
struct shm_mapping {
	uint8_t *data;
	size_t size;
	atomic_int refs;
	bool writable; /* the fd allowed a shared writable mapping */
};

/* A pool lives while its wl_shm_pool or any buffer made from it does: clients
 * destroy pools right after create_buffer (Weston's screen-share does). */
struct shm_pool {
	struct wl_resource *resource; /* NULL once the client destroyed it */
	struct shm_mapping *mapping;
	struct client_release_queue *releases;
	int refs;
};

/* A wl_shm buffer's pixels lent to the frames (hold, don't copy): read
 * where the client drew them, SIGBUS-guarded, on any thread. When the
 * client would wait too long for it (shm_buffer_lease's hold_ms), it is
 * detached: its pixels are copied into memory of ours, and the client gets
 * its buffer back while frames keep the copy. */
struct shm_lease {
	struct client_lease lease;
	struct shm_mapping *mapping;
	size_t offset;
	int stride;
	/* Held (shared) through every access, so that a detach (exclusive)
	 * never pulls the memory from under a reader. */
	pthread_rwlock_t access;
	uint8_t *copy; /* detached: our own pixels, width * 4 a row */
};

struct shm_buffer {
	struct client_buffer base;
	struct shm_pool *pool;
	struct shm_mapping *mapping;
	int32_t offset, stride;
	uint32_t format;
	struct shm_lease *lease; /* NULL until first lent; the wl_buffer's reference */
	struct wl_event_source *hold_timer; /* detaches a lease held too long */
};

static const struct wl_buffer_interface shm_buffer_impl;
static const struct wl_shm_pool_interface shm_pool_impl;

static struct shm_mapping *mapping_ref(struct shm_mapping *mapping)
{
	atomic_fetch_add(&mapping->refs, 1);
	return mapping;
}

/* Any thread. */
static void mapping_unref(struct shm_mapping *mapping)
{
	if (!mapping || atomic_fetch_sub(&mapping->refs, 1) != 1)
		return;
	munmap(mapping->data, mapping->size);
	free(mapping);
}

static void pool_unref(struct shm_pool *pool)
{
	if (--pool->refs > 0)
		return;
	mapping_unref(pool->mapping);
	free(pool);
}

static struct shm_pool *pool_from_resource(struct wl_resource *resource)
{
	assert(wl_resource_instance_of(resource, &wl_shm_pool_interface, &shm_pool_impl));
	return wl_resource_get_user_data(resource);
}

struct client_buffer *shm_buffer_try_from_resource(struct wl_resource *resource)
{
	if (!wl_resource_instance_of(resource, &wl_buffer_interface, &shm_buffer_impl))
		return NULL;
	struct shm_buffer *buffer = wl_resource_get_user_data(resource);
	return &buffer->base;
}

static bool shm_buffer_begin_read(struct client_buffer *base, const uint8_t **data, int *stride)
{
	struct shm_buffer *buffer = wl_container_of(base, buffer, base);
	sigbus_guard_begin(buffer->mapping->data, buffer->mapping->size);
	*data = buffer->mapping->data + buffer->offset;
	*stride = buffer->stride;
	return true;
}

static bool shm_buffer_end_read(struct client_buffer *base)
{
	struct shm_buffer *buffer = wl_container_of(base, buffer, base);
	if (sigbus_guard_end())
		return true;
	LOG_WARN("client's shm pool shrank under a buffer (SIGBUS); disconnecting it");
	wl_resource_post_error(buffer->base.resource, WL_SHM_ERROR_INVALID_FD,
			       "error accessing SHM buffer: the pool's file is smaller than the pool");
	return false;
}

static const struct client_buffer_impl shm_client_buffer_impl = {
	.begin_read = shm_buffer_begin_read,
	.end_read = shm_buffer_end_read,
};

/* The lease (any thread). */

static bool lease_begin_access(struct wl_record_buffer *base, const uint8_t **data, int *stride)
{
	struct shm_lease *lease = wl_container_of(base, lease, lease.base);
	pthread_rwlock_rdlock(&lease->access);
	if (lease->copy) {
		*data = lease->copy;
		*stride = base->width * 4;
		return true;
	}
	sigbus_guard_begin(lease->mapping->data, lease->mapping->size);
	*data = lease->mapping->data + lease->offset;
	*stride = lease->stride;
	return true;
}

static bool lease_end_access(struct wl_record_buffer *base)
{
	struct shm_lease *lease = wl_container_of(base, lease, lease.base);
	/* `copy` cannot change while the access lasts. */
	bool intact = lease->copy ? true : sigbus_guard_end();
	pthread_rwlock_unlock(&lease->access);
	if (!intact)
		client_lease_report_fault(&lease->lease);
	return intact;
}

static void lease_destroy(struct wl_record_buffer *base)
{
	struct shm_lease *lease = wl_container_of(base, lease, lease.base);
	mapping_unref(lease->mapping);
	free(lease->copy);
	pthread_rwlock_destroy(&lease->access);
	client_lease_finish(&lease->lease);
	free(lease);
}

static const struct wl_record_buffer_impl shm_lease_impl = {
	.destroy = lease_destroy,
	.unlocked = client_lease_unlocked,
	.begin_data_ptr_access = lease_begin_access,
	.end_data_ptr_access = lease_end_access,
};

/* Main thread: the pixels go into memory of ours and the client gets its
 * buffer back now; whoever locks the lease reads the copy from then on.
 * False when a reader (the encoder) is in it: the compositor does not wait
 * for it, but tries again shortly. */
static bool lease_detach(struct shm_lease *lease)
{
	struct wl_record_buffer *base = &lease->lease.base;
	size_t row = (size_t)base->width * 4;
	if (pthread_rwlock_trywrlock(&lease->access) != 0)
		return false;
	uint8_t *copy = malloc(row * (size_t)base->height);
	if (!copy) {
		pthread_rwlock_unlock(&lease->access);
		return true; /* held on: the client waits for the frames instead */
	}
	sigbus_guard_begin(lease->mapping->data, lease->mapping->size);
	const uint8_t *from = lease->mapping->data + lease->offset;
	for (int y = 0; y < base->height; y++)
		memcpy(copy + row * (size_t)y, from + (size_t)lease->stride * (size_t)y, row);
	bool intact = sigbus_guard_end();
	if (intact)
		lease->copy = copy;
	pthread_rwlock_unlock(&lease->access);
	if (!intact) {
		free(copy);
		client_lease_report_fault(&lease->lease);
		return true;
	}
	client_lease_release_now(&lease->lease);
	return true;
}

static int handle_hold_timer(void *data)
{
	struct shm_buffer *buffer = data;
	if (buffer->lease && !buffer->lease->copy && client_lease_held(&buffer->lease->lease) &&
	    !lease_detach(buffer->lease))
		wl_event_source_timer_update(buffer->hold_timer, 1);
	return 0;
}

static struct shm_lease *lease_create(struct shm_buffer *buffer)
{
	struct shm_lease *lease = calloc(1, sizeof(*lease));
	if (!lease)
		return NULL;
	client_lease_init(&lease->lease, &shm_lease_impl, buffer->base.width, buffer->base.height,
			  buffer->format == WL_SHM_FORMAT_XRGB8888 ? DRM_FORMAT_XRGB8888
								   : DRM_FORMAT_ARGB8888,
			  buffer->pool->releases);
	lease->lease.fault_code = WL_SHM_ERROR_INVALID_FD;
	lease->lease.fault_message =
		"error accessing SHM buffer: the pool's file is smaller than the pool";
	lease->mapping = mapping_ref(buffer->mapping);
	lease->offset = (size_t)buffer->offset;
	lease->stride = buffer->stride;
	pthread_rwlock_init(&lease->access, NULL);
	client_lease_set_resource(&lease->lease, buffer->base.resource);
	return lease;
}

/* Main thread: the wl_buffer lets go of its lease (frames may keep it). */
static void buffer_drop_lease(struct shm_buffer *buffer)
{
	if (!buffer->lease)
		return;
	client_lease_set_resource(&buffer->lease->lease, NULL);
	wl_record_buffer_drop(&buffer->lease->lease.base);
	buffer->lease = NULL;
}

/* The buffer's first and last bytes, guarded: a file shrunk under the
 * buffer before this commit is caught now, as a copy would catch it (a
 * shrink later faults the frames' reads, reported from there). False after
 * posting the protocol error. */
static bool buffer_probe(struct shm_buffer *buffer)
{
	const uint8_t *data;
	int stride;
	shm_buffer_begin_read(&buffer->base, &data, &stride);
	size_t last = (size_t)stride * (size_t)(buffer->base.height - 1) +
		      (size_t)buffer->base.width * 4 - 1;
	uint8_t sum = ((const volatile uint8_t *)data)[0];
	sum ^= ((const volatile uint8_t *)data)[last];
	(void)sum;
	return shm_buffer_end_read(&buffer->base);
}

struct wl_record_buffer *shm_buffer_lease(struct client_buffer *base, int hold_ms, bool *faulted)
{
	*faulted = false;
	if (!base || base->impl != &shm_client_buffer_impl)
		return NULL;
	struct shm_buffer *buffer = wl_container_of(base, buffer, base);
	/* What frames take as they are: other formats are converted. */
	if (buffer->format != WL_SHM_FORMAT_XRGB8888 && buffer->format != WL_SHM_FORMAT_ARGB8888)
		return NULL;
	if (!buffer_probe(buffer)) {
		*faulted = true;
		return NULL;
	}
	if (buffer->lease && buffer->lease->copy) {
		/* Detached: frames keep the old copy; the new content is
		 * lent by a new lease. */
		buffer_drop_lease(buffer);
	}
	if (!buffer->lease && !(buffer->lease = lease_create(buffer)))
		return NULL;
	if (!buffer->hold_timer) {
		struct wl_event_loop *loop =
			wl_display_get_event_loop(wl_client_get_display(wl_resource_get_client(
				buffer->base.resource)));
		buffer->hold_timer = wl_event_loop_add_timer(loop, handle_hold_timer, buffer);
		if (!buffer->hold_timer)
			return NULL;
	}
	wl_event_source_timer_update(buffer->hold_timer, hold_ms > 0 ? hold_ms : 1);
	return client_lease_lock(&buffer->lease->lease);
}

/* Whether one row of `buffer` equals the same row of `lease` (`len`
 * bytes from byte `x` of row `y`), through `scratch`: each read under its
 * own guard (a guard covers one mapping). -1 when either faulted. */
static int row_same(struct shm_buffer *buffer, struct wl_record_buffer *lease, uint8_t *scratch,
		    int y, size_t x, size_t len)
{
	const uint8_t *data;
	int stride;
	wl_record_buffer_begin_data_ptr_access(lease, &data, &stride);
	memcpy(scratch, data + (size_t)stride * (size_t)y + x, len);
	if (!wl_record_buffer_end_data_ptr_access(lease))
		return -1;
	shm_buffer_begin_read(&buffer->base, &data, &stride);
	bool same = memcmp(scratch, data + (size_t)stride * (size_t)y + x, len) == 0;
	return shm_buffer_end_read(&buffer->base) ? same : -1;
}

int shm_buffer_same_as_lease(struct client_buffer *base, struct wl_record_buffer *lease,
			     const pixman_region32_t *damage)
{
	if (!base || base->impl != &shm_client_buffer_impl || lease->impl != &shm_lease_impl)
		return 0;
	struct shm_buffer *buffer = wl_container_of(base, buffer, base);
	/* The same buffer committed again was drawn into in place. */
	if (&buffer->lease->lease.base == lease || lease->width != base->width ||
	    lease->height != base->height || lease->format != buffer->lease->lease.base.format)
		return 0;
	uint8_t *scratch = malloc((size_t)base->width * 4);
	if (!scratch)
		return 0;
	int n, same = 1;
	const pixman_box32_t *boxes = pixman_region32_rectangles((pixman_region32_t *)damage, &n);
	for (int i = 0; i < n && same == 1; i++)
		for (int y = boxes[i].y1; y < boxes[i].y2 && same == 1; y++)
			same = row_same(buffer, lease, scratch, y, (size_t)boxes[i].x1 * 4,
					(size_t)(boxes[i].x2 - boxes[i].x1) * 4);
	free(scratch);
	return same;
}

bool shm_lease_is_detached(struct wl_record_buffer *base)
{
	if (base->impl != &shm_lease_impl)
		return false;
	struct shm_lease *lease = wl_container_of(base, lease, lease.base);
	pthread_rwlock_rdlock(&lease->access);
	bool detached = lease->copy != NULL;
	pthread_rwlock_unlock(&lease->access);
	return detached;
}

static void buffer_handle_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static const struct wl_buffer_interface shm_buffer_impl = {
	.destroy = buffer_handle_destroy,
};

static void buffer_resource_destroy(struct wl_resource *resource)
{
	struct shm_buffer *buffer = wl_resource_get_user_data(resource);
	if (buffer->hold_timer)
		wl_event_source_remove(buffer->hold_timer);
	buffer_drop_lease(buffer);
	mapping_unref(buffer->mapping);
	pool_unref(buffer->pool);
	free(buffer);
}

static void pool_handle_create_buffer(struct wl_client *client, struct wl_resource *resource,
				      uint32_t id, int32_t offset, int32_t width, int32_t height,
				      int32_t stride, uint32_t format)
{
	struct shm_pool *pool = pool_from_resource(resource);

	const struct client_format *known = client_format_from_shm(format);
	if (!known) {
		wl_resource_post_error(resource, WL_SHM_ERROR_INVALID_FORMAT,
				       "unsupported format 0x%08x", format);
		return;
	}
	if (width <= 0 || height <= 0 || width > SHM_MAX_BUFFER_SIDE || height > SHM_MAX_BUFFER_SIDE) {
		wl_resource_post_error(resource, WL_SHM_ERROR_INVALID_STRIDE,
				       "invalid buffer size %dx%d (1 to %d per side)", width,
				       height, SHM_MAX_BUFFER_SIDE);
		return;
	}
	/* 64-bit arithmetic: offset + stride * height overflows 32 bits easily. */
	if (offset < 0 || stride < 0 || (int64_t)stride < (int64_t)width * 4 ||
	    (int64_t)offset + (int64_t)stride * height > (int64_t)pool->mapping->size) {
		wl_resource_post_error(resource, WL_SHM_ERROR_INVALID_STRIDE,
				       "invalid offset %d or stride %d for a %dx%d buffer in a "
				       "pool of %zu bytes", offset, stride, width, height,
				       pool->mapping->size);
		return;
	}

	struct shm_buffer *buffer = calloc(1, sizeof(*buffer));
	if (!buffer) {
		wl_client_post_no_memory(client);
		return;
	}
	buffer->base.resource = wl_resource_create(client, &wl_buffer_interface, 1, id);
	if (!buffer->base.resource) {
		free(buffer);
		wl_client_post_no_memory(client);
		return;
	}
	buffer->base.impl = &shm_client_buffer_impl;
	buffer->base.width = width;
	buffer->base.height = height;
	buffer->base.opaque = known->opaque;
	buffer->base.format = known->pixman;
	buffer->offset = offset;
	buffer->stride = stride;
	buffer->format = format;
	buffer->pool = pool;
	pool->refs++;
	buffer->mapping = mapping_ref(pool->mapping);
	wl_resource_set_implementation(buffer->base.resource, &shm_buffer_impl, buffer,
				       buffer_resource_destroy);
}

static void pool_handle_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static void pool_handle_resize(struct wl_client *client, struct wl_resource *resource, int32_t size)
{
	struct shm_pool *pool = pool_from_resource(resource);

	/* wl_shm has no size error; libwayland answers a shrink with INVALID_FD. */
	struct shm_mapping *old = pool->mapping;
	if (size <= 0 || (size_t)size < old->size) {
		wl_resource_post_error(resource, WL_SHM_ERROR_INVALID_FD,
				       "pools may only grow (%zu -> %d bytes)", old->size, size);
		return;
	}
	/* Buffers and leases read through the mapping they were made in: one
	 * that only the pool holds may move; a shared one stays where it is
	 * and the pool maps the same pages again, bigger. */
	bool shared = atomic_load(&old->refs) > 1;
	struct shm_mapping *grown = shared ? calloc(1, sizeof(*grown)) : old;
	if (!grown) {
		wl_client_post_no_memory(client);
		return;
	}
	void *data = mremap(old->data, shared ? 0 : old->size, (size_t)size, MREMAP_MAYMOVE);
	if (data == MAP_FAILED) {
		if (shared)
			free(grown);
		wl_resource_post_error(resource, WL_SHM_ERROR_INVALID_FD,
				       "cannot grow the pool to %d bytes: %s", size, strerror(errno));
		return;
	}
	grown->data = data;
	grown->size = (size_t)size;
	if (shared) {
		atomic_init(&grown->refs, 1);
		grown->writable = old->writable;
		pool->mapping = grown;
		mapping_unref(old);
	}
}

static const struct wl_shm_pool_interface shm_pool_impl = {
	.create_buffer = pool_handle_create_buffer,
	.destroy = pool_handle_destroy,
	.resize = pool_handle_resize,
};

static void pool_resource_destroy(struct wl_resource *resource)
{
	struct shm_pool *pool = wl_resource_get_user_data(resource);
	pool->resource = NULL;
	pool_unref(pool);
}

static void shm_handle_create_pool(struct wl_client *client, struct wl_resource *resource,
				   uint32_t id, int32_t fd, int32_t size)
{
	if (size <= 0) {
		wl_resource_post_error(resource, WL_SHM_ERROR_INVALID_STRIDE,
				       "invalid pool size %d", size);
		close(fd);
		return;
	}

	/* Writable when the fd allows it: only copy_server writes, into
	 * buffers a client handed over for a capture. A read-only fd is still
	 * a good pool for presenting. */
	bool writable = true;
	void *data = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	/* EACCES: a read-only fd; EPERM: a memfd sealed against writes. */
	if (data == MAP_FAILED && (errno == EACCES || errno == EPERM)) {
		writable = false;
		data = mmap(NULL, (size_t)size, PROT_READ, MAP_SHARED, fd, 0);
	}
	int map_errno = errno;
	/* The mapping keeps the memory (resize uses mremap): holding one fd
	 * per pool would let one client use up wl-record's descriptors. */
	close(fd);
	if (data == MAP_FAILED) {
		wl_resource_post_error(resource, WL_SHM_ERROR_INVALID_FD,
				       "cannot map the pool's fd: %s", strerror(map_errno));
		return;
	}

	struct shm_pool *pool = calloc(1, sizeof(*pool));
	if (!pool) {
		munmap(data, (size_t)size);
		wl_client_post_no_memory(client);
		return;
	}
	pool->mapping = calloc(1, sizeof(*pool->mapping));
	if (!pool->mapping) {
		munmap(data, (size_t)size);
		free(pool);
		wl_client_post_no_memory(client);
		return;
	}
	pool->mapping->data = data;
	pool->mapping->size = (size_t)size;
	atomic_init(&pool->mapping->refs, 1);
	pool->mapping->writable = writable;
	pool->refs = 1;
	pool->releases = wl_resource_get_user_data(resource);
	pool->resource = wl_resource_create(client, &wl_shm_pool_interface,
					    wl_resource_get_version(resource), id);
	if (!pool->resource) {
		pool_unref(pool);
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(pool->resource, &shm_pool_impl, pool, pool_resource_destroy);
}

static struct shm_buffer *shm_buffer_from_any(struct wl_resource *resource)
{
	if (!wl_resource_instance_of(resource, &wl_buffer_interface, &shm_buffer_impl))
		return NULL;
	return wl_resource_get_user_data(resource);
}

static bool writer_begin(struct wl_resource *resource, struct shm_pixels *pixels)
{
	struct shm_buffer *buffer = shm_buffer_from_any(resource);
	if (!buffer || !buffer->mapping->writable)
		return false;
	sigbus_guard_begin_write(buffer->mapping->data, buffer->mapping->size);
	*pixels = (struct shm_pixels){
		.data = buffer->mapping->data + buffer->offset,
		.width = buffer->base.width,
		.height = buffer->base.height,
		.stride = buffer->stride,
		.format = buffer->format,
	};
	return true;
}

static bool writer_end(struct wl_resource *resource)
{
	return shm_buffer_end_read(&shm_buffer_from_any(resource)->base);
}

static const struct shm_writer_impl shm_writer = {
	.begin_write = writer_begin,
	.end_write = writer_end,
};

const struct shm_writer_impl *shm_buffer_writer(void)
{
	return &shm_writer;
}

static const struct wl_shm_interface shm_impl = {
	.create_pool = shm_handle_create_pool,
};

/* What the wl_shm global keeps: where leases queue their releases. */
struct shm_global {
	struct client_release_queue *releases;
	struct wl_listener display_destroy;
};

static void shm_bind(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct shm_global *shm = data;
	struct wl_resource *resource = wl_resource_create(client, &wl_shm_interface, (int)version, id);
	if (!resource) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &shm_impl, shm->releases, NULL);
	for (int i = 0; i < client_format_count; i++)
		wl_shm_send_format(resource, client_format_shm_code(&client_formats[i]));
}

static void handle_display_destroy(struct wl_listener *listener, void *data)
{
	struct shm_global *shm = wl_container_of(listener, shm, display_destroy);
	wl_list_remove(&shm->display_destroy.link);
	client_release_queue_destroy(shm->releases);
	free(shm);
}

bool shm_create_global(struct wl_display *display)
{
	if (!sigbus_guard_install())
		return false;
	struct shm_global *shm = calloc(1, sizeof(*shm));
	if (!shm) {
		LOG_ERRNO("cannot allocate the wl_shm global");
		return false;
	}
	shm->releases = client_release_queue_create(wl_display_get_event_loop(display));
	if (!shm->releases) {
		free(shm);
		return false;
	}
	if (!wl_global_create(display, &wl_shm_interface, 1, shm, shm_bind)) {
		LOG_ERR("cannot create the wl_shm global");
		client_release_queue_destroy(shm->releases);
		free(shm);
		return false;
	}
	shm->display_destroy.notify = handle_display_destroy;
	wl_display_add_destroy_listener(display, &shm->display_destroy);
	return true;
}
