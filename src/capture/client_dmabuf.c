#define LOG_MODULE "dmabuf"
#include "client_dmabuf.h"

#include <drm_fourcc.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <wayland-server-protocol.h>

#include "dmabuf_read.h"
#include "egl_import.h"
#include "log.h"

struct client_dmabuf {
	struct wl_record_buffer base;
	struct dmabuf_attributes attributes; /* the fds are ours */
	bool is_dmabuf; /* a real dma-buf, not a memfd standing in for one */
	struct egl_importer *egl;
	pthread_t main_thread; /* the only one that may use `egl` */
	struct dmabuf_release_queue *queue;
	/* Bumped by every commit's lock (client_dmabuf_lock, main thread):
	 * each wl_buffer.release answers one epoch, at most once. */
	atomic_uint epoch;
	/* Main thread only. */
	struct wl_resource *resource; /* NULL once the wl_buffer is gone */
	unsigned released_epoch;
	/* Under queue->lock. */
	bool release_queued;
	unsigned queued_epoch; /* the epoch when the last lock went */
	struct client_dmabuf *next_unlocked;
};

struct dmabuf_release_queue {
	pthread_mutex_t lock;
	struct client_dmabuf *unlocked; /* buffers whose last lock went */
	bool destroyed;                 /* buffers going later free it */
	/* Buffers not yet freed, plus one for the queue itself until
	 * dmabuf_release_queue_destroy: whoever brings it to 0 frees the queue. */
	int live;
	int event_fd;
	struct wl_event_source *source;
};

/* Drops one of queue->live (under no lock); the last frees the queue. */
static void queue_unref(struct dmabuf_release_queue *queue)
{
	pthread_mutex_lock(&queue->lock);
	bool last = --queue->live == 0;
	pthread_mutex_unlock(&queue->lock);
	if (last) {
		pthread_mutex_destroy(&queue->lock);
		free(queue);
	}
}

static bool client_dmabuf_read(struct wl_record_buffer *base, uint8_t *dst, int dst_stride,
			       char *why, size_t why_size)
{
	struct client_dmabuf *buffer = wl_container_of(base, buffer, base);
	const struct dmabuf_attributes *attributes = &buffer->attributes;
	if (attributes->modifier == DRM_FORMAT_MOD_LINEAR)
		return dmabuf_read_linear(attributes, buffer->is_dmabuf, dst, dst_stride, why,
					  why_size);
	if (!buffer->egl) {
		snprintf(why, why_size, "no EGL importer for modifier 0x%016llx",
			 (unsigned long long)attributes->modifier);
		return false;
	}
	if (!pthread_equal(pthread_self(), buffer->main_thread)) {
		snprintf(why, why_size, "EGL readback only runs on the compositor thread");
		return false;
	}
	return egl_importer_read(buffer->egl, attributes, dst, dst_stride, why, why_size);
}

static const struct dmabuf_attributes *client_dmabuf_get_dmabuf(struct wl_record_buffer *base)
{
	struct client_dmabuf *buffer = wl_container_of(base, buffer, base);
	return &buffer->attributes;
}

/* Any thread: the main loop sends the release (drain_unlocked). */
static void client_dmabuf_unlocked(struct wl_record_buffer *base)
{
	struct client_dmabuf *buffer = wl_container_of(base, buffer, base);
	struct dmabuf_release_queue *queue = buffer->queue;
	pthread_mutex_lock(&queue->lock);
	buffer->queued_epoch = atomic_load(&buffer->epoch);
	if (queue->destroyed || buffer->release_queued) {
		/* The compositor is gone, or the main loop has yet to see it. */
		pthread_mutex_unlock(&queue->lock);
		return;
	}
	buffer->release_queued = true;
	wl_record_buffer_ref(base); /* the queue's, until drained */
	buffer->next_unlocked = queue->unlocked;
	queue->unlocked = buffer;
	pthread_mutex_unlock(&queue->lock);
	uint64_t one = 1;
	/* Cannot fail short of a counter overflow; the drain reads it all. */
	if (write(queue->event_fd, &one, sizeof(one)) < 0)
		LOG_ERRNO("cannot wake the main loop for a dmabuf release");
}

/* Any thread: the last reference went. */
static void client_dmabuf_destroy(struct wl_record_buffer *base)
{
	struct client_dmabuf *buffer = wl_container_of(base, buffer, base);
	struct dmabuf_release_queue *queue = buffer->queue;
	dmabuf_attributes_close(&buffer->attributes);
	free(buffer);
	queue_unref(queue);
}

static const struct wl_record_buffer_impl client_dmabuf_impl = {
	.destroy = client_dmabuf_destroy,
	.unlocked = client_dmabuf_unlocked,
	.get_dmabuf = client_dmabuf_get_dmabuf,
	.read = client_dmabuf_read,
};

struct wl_record_buffer *client_dmabuf_create(struct dmabuf_attributes *attributes,
					      struct egl_importer *egl,
					      struct dmabuf_release_queue *queue)
{
	struct client_dmabuf *buffer = calloc(1, sizeof(*buffer));
	if (!buffer) {
		dmabuf_attributes_close(attributes);
		return NULL;
	}
	wl_record_buffer_init(&buffer->base, &client_dmabuf_impl, attributes->width,
			      attributes->height, attributes->format);
	buffer->attributes = *attributes;
	dmabuf_attributes_init(attributes);
	buffer->is_dmabuf = dmabuf_fd_is_dmabuf(buffer->attributes.fd[0]);
	buffer->egl = egl;
	buffer->main_thread = pthread_self();
	buffer->queue = queue;
	pthread_mutex_lock(&queue->lock);
	queue->live++;
	pthread_mutex_unlock(&queue->lock);
	return &buffer->base;
}

void client_dmabuf_set_resource(struct wl_record_buffer *base, struct wl_resource *resource)
{
	struct client_dmabuf *buffer = wl_container_of(base, buffer, base);
	buffer->resource = resource;
}

struct wl_record_buffer *client_dmabuf_lock(struct wl_record_buffer *base)
{
	struct client_dmabuf *buffer = wl_container_of(base, buffer, base);
	atomic_fetch_add(&buffer->epoch, 1);
	return wl_record_buffer_lock(base);
}

/* Main thread: sends wl_buffer.release for buffers whose last lock went.
 * Only this thread locks a buffer nothing locks (others lock only what
 * they hold locked already), so one unlocked now stays so until the
 * release is sent. An unlock whose epoch a newer commit ended is stale:
 * the newer one's last unlock releases the buffer. */
static int drain_unlocked(int fd, uint32_t mask, void *data)
{
	struct dmabuf_release_queue *queue = data;
	uint64_t count;
	if (read(queue->event_fd, &count, sizeof(count)) < 0) {
		/* EAGAIN: drained already */
	}
	pthread_mutex_lock(&queue->lock);
	struct client_dmabuf *next = queue->unlocked;
	queue->unlocked = NULL;
	pthread_mutex_unlock(&queue->lock);
	while (next) {
		struct client_dmabuf *buffer = next;
		/* Once off the list it may be queued again (next_unlocked reused). */
		pthread_mutex_lock(&queue->lock);
		next = buffer->next_unlocked;
		unsigned epoch = buffer->queued_epoch;
		buffer->release_queued = false;
		pthread_mutex_unlock(&queue->lock);
		if (buffer->resource && epoch == atomic_load(&buffer->epoch) &&
		    epoch != buffer->released_epoch && !wl_record_buffer_is_locked(&buffer->base)) {
			buffer->released_epoch = epoch;
			wl_buffer_send_release(buffer->resource);
		}
		wl_record_buffer_unref(&buffer->base);
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
	queue->live = 1;
	queue->event_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (queue->event_fd < 0) {
		LOG_ERRNO("cannot create the dmabuf release eventfd");
		goto fail;
	}
	queue->source = wl_event_loop_add_fd(loop, queue->event_fd, WL_EVENT_READABLE,
					     drain_unlocked, queue);
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
	struct client_dmabuf *unlocked = queue->unlocked;
	queue->unlocked = NULL;
	queue->destroyed = true;
	pthread_mutex_unlock(&queue->lock);
	/* Nothing is released any more: the queue's references just go. */
	while (unlocked) {
		struct client_dmabuf *buffer = unlocked;
		unlocked = buffer->next_unlocked;
		wl_record_buffer_unref(&buffer->base);
	}
	queue_unref(queue);
}
