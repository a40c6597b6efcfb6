#define LOG_MODULE "dmabuf"
#include <drm_fourcc.h>
#include <errno.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <wayland-server-protocol.h>

#include "dmabuf_lease_internal.h"
#include "dmabuf_read.h"
#include "egl_import.h"
#include "log.h"

/* A client buffer's planes, read by mmap (LINEAR) or through EGL. */
struct client_planes {
	struct dmabuf_planes base;
	bool is_dmabuf;
	struct egl_importer *egl;
	pthread_t main_thread; /* the only one that may use `egl` */
};

/* A lease on a client buffer: its end is queued to the main loop, which
 * sends wl_buffer.release once the buffer's last lease ended. */
struct client_lease {
	struct dmabuf_lease base;
	struct dmabuf_release_queue *queue;
	/* Main thread only. */
	struct dmabuf_lease_owner *owner; /* NULL once the buffer is gone */
	struct wl_list owner_link;
	/* Under queue->lock. */
	struct client_lease *next_ended;
};

struct dmabuf_release_queue {
	pthread_mutex_t lock;
	struct client_lease *ended;       /* leases whose last reference went */
	bool destroyed;                   /* leases ending later free themselves */
	int live;                         /* leases not yet freed */
	int event_fd;
	struct wl_event_source *source;
};

static bool client_planes_read(struct dmabuf_planes *base, uint8_t *dst, int dst_stride,
			       char *why, size_t why_size)
{
	struct client_planes *planes = wl_container_of(base, planes, base);
	const struct dmabuf_attributes *attributes = &base->attributes;
	if (attributes->modifier == DRM_FORMAT_MOD_LINEAR)
		return dmabuf_read_linear(attributes, planes->is_dmabuf, dst, dst_stride, why,
					  why_size);
	if (!planes->egl) {
		snprintf(why, why_size, "no EGL importer for modifier 0x%016llx",
			 (unsigned long long)attributes->modifier);
		return false;
	}
	if (!pthread_equal(pthread_self(), planes->main_thread)) {
		snprintf(why, why_size, "EGL readback only runs on the compositor thread");
		return false;
	}
	return egl_importer_read(planes->egl, attributes, dst, dst_stride, why, why_size);
}

static void client_planes_destroy(struct dmabuf_planes *base)
{
	struct client_planes *planes = wl_container_of(base, planes, base);
	dmabuf_attributes_close(&base->attributes);
	free(planes);
}

static const struct dmabuf_planes_impl client_planes_impl = {
	.read = client_planes_read,
	.destroy = client_planes_destroy,
};

struct dmabuf_planes *dmabuf_planes_create(struct dmabuf_attributes *attributes,
					   struct egl_importer *egl)
{
	struct client_planes *planes = calloc(1, sizeof(*planes));
	if (!planes) {
		dmabuf_attributes_close(attributes);
		return NULL;
	}
	dmabuf_planes_init(&planes->base, &client_planes_impl, attributes);
	dmabuf_attributes_init(attributes);
	planes->is_dmabuf = dmabuf_fd_is_dmabuf(planes->base.attributes.fd[0]);
	planes->egl = egl;
	planes->main_thread = pthread_self();
	return &planes->base;
}

void dmabuf_lease_owner_init(struct dmabuf_lease_owner *owner, struct wl_resource *buffer)
{
	owner->buffer = buffer;
	wl_list_init(&owner->leases);
}

void dmabuf_lease_owner_finish(struct dmabuf_lease_owner *owner)
{
	struct client_lease *lease, *tmp;
	wl_list_for_each_safe(lease, tmp, &owner->leases, owner_link) {
		wl_list_remove(&lease->owner_link);
		wl_list_init(&lease->owner_link);
		lease->owner = NULL;
	}
}

static void lease_free(struct client_lease *lease)
{
	dmabuf_planes_unref(lease->base.planes);
	free(lease);
}

/* Any thread: the main loop sends the release (drain_ended). */
static void client_lease_end(struct dmabuf_lease *base)
{
	struct client_lease *lease = wl_container_of(base, lease, base);
	struct dmabuf_release_queue *queue = lease->queue;
	pthread_mutex_lock(&queue->lock);
	if (queue->destroyed) {
		/* The compositor is gone: nothing to release, nobody to free the queue but us. */
		bool last = --queue->live == 0;
		pthread_mutex_unlock(&queue->lock);
		lease_free(lease);
		if (last) {
			pthread_mutex_destroy(&queue->lock);
			free(queue);
		}
		return;
	}
	lease->next_ended = queue->ended;
	queue->ended = lease;
	pthread_mutex_unlock(&queue->lock);
	uint64_t one = 1;
	/* Cannot fail short of a counter overflow; the drain reads it all. */
	if (write(queue->event_fd, &one, sizeof(one)) < 0)
		LOG_ERRNO("cannot wake the main loop for a dmabuf release");
}

static const struct dmabuf_lease_impl client_lease_impl = { .end = client_lease_end };

struct dmabuf_lease *dmabuf_lease_create(struct dmabuf_release_queue *queue,
					 struct dmabuf_lease_owner *owner,
					 struct dmabuf_planes *planes)
{
	struct client_lease *lease = calloc(1, sizeof(*lease));
	if (!lease)
		return NULL;
	dmabuf_lease_init(&lease->base, &client_lease_impl, planes);
	lease->queue = queue;
	lease->owner = owner;
	wl_list_insert(&owner->leases, &lease->owner_link);
	pthread_mutex_lock(&queue->lock);
	queue->live++;
	pthread_mutex_unlock(&queue->lock);
	return &lease->base;
}

/* Main thread: sends wl_buffer.release for buffers whose last lease ended. */
static int drain_ended(int fd, uint32_t mask, void *data)
{
	struct dmabuf_release_queue *queue = data;
	uint64_t count;
	if (read(queue->event_fd, &count, sizeof(count)) < 0) {
		/* EAGAIN: drained already */
	}
	pthread_mutex_lock(&queue->lock);
	struct client_lease *ended = queue->ended;
	queue->ended = NULL;
	pthread_mutex_unlock(&queue->lock);
	while (ended) {
		struct client_lease *lease = ended;
		ended = lease->next_ended;
		struct dmabuf_lease_owner *owner = lease->owner;
		wl_list_remove(&lease->owner_link);
		if (owner && wl_list_empty(&owner->leases))
			wl_buffer_send_release(owner->buffer);
		pthread_mutex_lock(&queue->lock);
		queue->live--;
		pthread_mutex_unlock(&queue->lock);
		lease_free(lease);
	}
	return 0;
}

struct dmabuf_release_queue *dmabuf_release_queue_create(struct wl_event_loop *loop)
{
	struct dmabuf_release_queue *queue = calloc(1, sizeof(*queue));
	if (!queue) {
		LOG_ERRNO("cannot allocate the dmabuf release queue");
		return NULL;
	}
	pthread_mutex_init(&queue->lock, NULL);
	queue->event_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (queue->event_fd < 0) {
		LOG_ERRNO("cannot create the dmabuf release eventfd");
		goto fail;
	}
	queue->source = wl_event_loop_add_fd(loop, queue->event_fd, WL_EVENT_READABLE, drain_ended,
					     queue);
	if (!queue->source) {
		LOG_ERR("cannot watch the dmabuf release eventfd");
		goto fail;
	}
	return queue;
fail:
	if (queue->event_fd >= 0)
		close(queue->event_fd);
	pthread_mutex_destroy(&queue->lock);
	free(queue);
	return NULL;
}

void dmabuf_release_queue_destroy(struct dmabuf_release_queue *queue)
{
	if (!queue)
		return;
	wl_event_source_remove(queue->source);
	close(queue->event_fd);
	pthread_mutex_lock(&queue->lock);
	struct client_lease *ended = queue->ended;
	queue->ended = NULL;
	while (ended) {
		struct client_lease *lease = ended;
		ended = lease->next_ended;
		wl_list_remove(&lease->owner_link);
		queue->live--;
		lease_free(lease);
	}
	queue->destroyed = true;
	bool last = queue->live == 0;
	pthread_mutex_unlock(&queue->lock);
	if (last) {
		pthread_mutex_destroy(&queue->lock);
		free(queue);
	}
}
