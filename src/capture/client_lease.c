#define LOG_MODULE "capture"
#include "client_lease.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <wayland-server-protocol.h>

#include "log.h"

struct client_release_queue {
	pthread_mutex_t lock;
	struct client_lease *queued; /* leases whose last lock went, or that faulted */
	bool destroyed;              /* leases going later free it */
	/* Leases not yet freed, plus one for the queue itself until
	 * client_release_queue_destroy: whoever brings it to 0 frees the queue. */
	int live;
	int event_fd;
	struct wl_event_source *source;
};

/* Drops one of queue->live (under no lock); the last frees the queue. */
static void queue_unref(struct client_release_queue *queue)
{
	pthread_mutex_lock(&queue->lock);
	bool last = --queue->live == 0;
	pthread_mutex_unlock(&queue->lock);
	if (last) {
		pthread_mutex_destroy(&queue->lock);
		free(queue);
	}
}

void client_lease_init(struct client_lease *lease, const struct wl_record_buffer_impl *impl,
		       int width, int height, uint32_t format, struct client_release_queue *queue)
{
	wl_record_buffer_init(&lease->base, impl, width, height, format);
	lease->queue = queue;
	atomic_init(&lease->epoch, 0);
	atomic_init(&lease->faulted, false);
	pthread_mutex_lock(&queue->lock);
	queue->live++;
	pthread_mutex_unlock(&queue->lock);
}

void client_lease_finish(struct client_lease *lease)
{
	queue_unref(lease->queue);
}

/* Any thread: puts the lease on the main loop's list (once). */
static void queue_lease(struct client_lease *lease)
{
	struct client_release_queue *queue = lease->queue;
	pthread_mutex_lock(&queue->lock);
	lease->queued_epoch = atomic_load(&lease->epoch);
	if (queue->destroyed || lease->queued) {
		/* The compositor is gone, or the main loop has yet to see it. */
		pthread_mutex_unlock(&queue->lock);
		return;
	}
	lease->queued = true;
	wl_record_buffer_ref(&lease->base); /* the queue's, until drained */
	lease->next_queued = queue->queued;
	queue->queued = lease;
	pthread_mutex_unlock(&queue->lock);
	uint64_t one = 1;
	/* Cannot fail short of a counter overflow; the drain reads it all. */
	if (write(queue->event_fd, &one, sizeof(one)) < 0)
		LOG_ERRNO("cannot wake the main loop for a buffer release");
}

void client_lease_unlocked(struct wl_record_buffer *base)
{
	struct client_lease *lease = wl_container_of(base, lease, base);
	queue_lease(lease);
}

void client_lease_report_fault(struct client_lease *lease)
{
	atomic_store(&lease->faulted, true);
	queue_lease(lease);
}

void client_lease_set_resource(struct client_lease *lease, struct wl_resource *resource)
{
	lease->resource = resource;
}

struct wl_record_buffer *client_lease_lock(struct client_lease *lease)
{
	atomic_fetch_add(&lease->epoch, 1);
	return wl_record_buffer_lock(&lease->base);
}

void client_lease_release_now(struct client_lease *lease)
{
	unsigned epoch = atomic_load(&lease->epoch);
	if (!lease->resource || epoch == lease->released_epoch)
		return;
	lease->released_epoch = epoch;
	wl_buffer_send_release(lease->resource);
}

bool client_lease_held(struct client_lease *lease)
{
	return lease->resource && atomic_load(&lease->epoch) != lease->released_epoch &&
	       wl_record_buffer_is_locked(&lease->base);
}

/* Main thread: what a queued lease asks for. Only this thread locks a
 * lease nothing locks (others lock only what they hold locked already), so
 * one unlocked now stays so until the release is sent. An unlock whose
 * epoch a newer commit ended is stale: the newer one's last unlock
 * releases the buffer. */
static void serve_lease(struct client_lease *lease, unsigned epoch)
{
	if (lease->resource && atomic_exchange(&lease->faulted, false)) {
		LOG_WARN("client's buffer memory went away under a read (SIGBUS); disconnecting it");
		wl_resource_post_error(lease->resource, lease->fault_code, "%s",
				       lease->fault_message ? lease->fault_message
							    : "the buffer could not be read");
		return;
	}
	if (lease->resource && epoch == atomic_load(&lease->epoch) &&
	    epoch != lease->released_epoch && !wl_record_buffer_is_locked(&lease->base)) {
		lease->released_epoch = epoch;
		wl_buffer_send_release(lease->resource);
	}
}

static int drain_queued(int fd, uint32_t mask, void *data)
{
	struct client_release_queue *queue = data;
	uint64_t count;
	if (read(queue->event_fd, &count, sizeof(count)) < 0) {
		/* EAGAIN: drained already */
	}
	pthread_mutex_lock(&queue->lock);
	struct client_lease *next = queue->queued;
	queue->queued = NULL;
	pthread_mutex_unlock(&queue->lock);
	while (next) {
		struct client_lease *lease = next;
		/* Once off the list it may be queued again (next_queued reused). */
		pthread_mutex_lock(&queue->lock);
		next = lease->next_queued;
		unsigned epoch = lease->queued_epoch;
		lease->queued = false;
		pthread_mutex_unlock(&queue->lock);
		serve_lease(lease, epoch);
		wl_record_buffer_unref(&lease->base);
	}
	return 0;
}

struct client_release_queue *client_release_queue_create(struct wl_event_loop *loop)
{
	struct client_release_queue *queue = calloc(1, sizeof(*queue));
	if (!queue) {
		LOG_ERRNO("cannot allocate the buffer release queue");
		return NULL;
	}
	pthread_mutex_init(&queue->lock, NULL);
	queue->live = 1;
	queue->event_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (queue->event_fd < 0) {
		LOG_ERRNO("cannot create the buffer release eventfd");
		goto fail;
	}
	queue->source = wl_event_loop_add_fd(loop, queue->event_fd, WL_EVENT_READABLE,
					     drain_queued, queue);
	if (!queue->source) {
		LOG_ERR("cannot watch the buffer release eventfd");
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

void client_release_queue_destroy(struct client_release_queue *queue)
{
	if (!queue)
		return;
	wl_event_source_remove(queue->source);
	close(queue->event_fd);
	pthread_mutex_lock(&queue->lock);
	struct client_lease *queued = queue->queued;
	queue->queued = NULL;
	queue->destroyed = true;
	pthread_mutex_unlock(&queue->lock);
	/* Nothing is released any more: the queue's references just go. */
	while (queued) {
		struct client_lease *lease = queued;
		queued = lease->next_queued;
		wl_record_buffer_unref(&lease->base);
	}
	queue_unref(queue);
}
