#define LOG_MODULE "shm"
#include "shm.h"

#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wayland-server-protocol.h>

#include "log.h"
#include "sigbus_guard.h"

/* A pool lives while its wl_shm_pool or any buffer made from it does: clients
 * destroy pools right after create_buffer (Weston's screen-share does). */
struct shm_pool {
	struct wl_resource *resource; /* NULL once the client destroyed it */
	uint8_t *data;
	size_t size;
	int refs;
	bool writable; /* the fd allowed a shared writable mapping */
};

struct shm_buffer {
	struct client_buffer base;
	struct shm_pool *pool;
	int32_t offset, stride;
	uint32_t format;
};

static const struct wl_buffer_interface shm_buffer_impl;
static const struct wl_shm_pool_interface shm_pool_impl;

static void pool_unref(struct shm_pool *pool)
{
	if (--pool->refs > 0)
		return;
	if (pool->data)
		munmap(pool->data, pool->size);
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
	sigbus_guard_begin(buffer->pool->data, buffer->pool->size);
	*data = buffer->pool->data + buffer->offset;
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
	    (int64_t)offset + (int64_t)stride * height > (int64_t)pool->size) {
		wl_resource_post_error(resource, WL_SHM_ERROR_INVALID_STRIDE,
				       "invalid offset %d or stride %d for a %dx%d buffer in a "
				       "pool of %zu bytes", offset, stride, width, height, pool->size);
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
	if (size <= 0 || (size_t)size < pool->size) {
		wl_resource_post_error(resource, WL_SHM_ERROR_INVALID_FD,
				       "pools may only grow (%zu -> %d bytes)", pool->size, size);
		return;
	}
	/* Buffers find their pixels through the pool at read time, so moving
	 * the mapping is safe. */
	void *data = mremap(pool->data, pool->size, (size_t)size, MREMAP_MAYMOVE);
	if (data == MAP_FAILED) {
		wl_resource_post_error(resource, WL_SHM_ERROR_INVALID_FD,
				       "cannot grow the pool to %d bytes: %s", size, strerror(errno));
		return;
	}
	pool->data = data;
	pool->size = (size_t)size;
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
	pool->data = data;
	pool->size = (size_t)size;
	pool->refs = 1;
	pool->writable = writable;
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
	if (!buffer || !buffer->pool->writable)
		return false;
	sigbus_guard_begin_write(buffer->pool->data, buffer->pool->size);
	*pixels = (struct shm_pixels){
		.data = buffer->pool->data + buffer->offset,
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

static void shm_bind(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct wl_resource *resource = wl_resource_create(client, &wl_shm_interface, (int)version, id);
	if (!resource) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &shm_impl, NULL, NULL);
	for (int i = 0; i < client_format_count; i++)
		wl_shm_send_format(resource, client_format_shm_code(&client_formats[i]));
}

bool shm_create_global(struct wl_display *display)
{
	if (!sigbus_guard_install())
		return false;
	if (!wl_global_create(display, &wl_shm_interface, 1, NULL, shm_bind)) {
		LOG_ERR("cannot create the wl_shm global");
		return false;
	}
	return true;
}
