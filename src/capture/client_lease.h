#ifndef WL_RECORD_CLIENT_LEASE_H
#define WL_RECORD_CLIENT_LEASE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <wayland-server-core.h>

#include "wl_record_buffer.h"

/* What a hosted client's wl_buffer (wl_shm or linux-dmabuf) is to the frame
 * path: a wl_record_buffer that frames lock instead of copying it (hold,
 * don't copy). The client's wl_buffer.release waits for the last unlock,
 * which may happen on any thread (the encoder's): the release is queued and
 * the main loop sends it (wl_buffer_send_release is the Wayland thread's).
 * Each kind (client_dmabuf.c, shm.c) embeds a client_lease first and calls
 * client_lease_init/finish from its own create/destroy; its impl's
 * `unlocked` is client_lease_unlocked. The lease outlives its wl_buffer
 * while locks or cache references remain. */

struct client_release_queue;

struct client_release_queue *client_release_queue_create(struct wl_event_loop *loop);
/* Leases still locked elsewhere stay valid; their releases are then dropped. */
void client_release_queue_destroy(struct client_release_queue *queue);

struct client_lease {
	struct wl_record_buffer base;
	struct client_release_queue *queue;
	/* Bumped by every commit's lock (client_lease_lock, main thread):
	 * each wl_buffer.release answers one epoch, at most once. */
	atomic_uint epoch;
	/* Any thread: the client's memory faulted while read; the main loop
	 * posts the protocol error. */
	atomic_bool faulted;
	uint32_t fault_code;       /* the error posted on the wl_buffer then */
	const char *fault_message;
	/* Main thread only. */
	struct wl_resource *resource; /* NULL once the wl_buffer is gone */
	unsigned released_epoch;
	/* Under the queue's lock. */
	bool queued;
	unsigned queued_epoch; /* the epoch when the last lock went */
	struct client_lease *next_queued;
};

/* Main thread. One reference (the wl_buffer's, dropped with
 * wl_record_buffer_drop). */
void client_lease_init(struct client_lease *lease, const struct wl_record_buffer_impl *impl,
		       int width, int height, uint32_t format, struct client_release_queue *queue);
/* From the kind's destroy (any thread), after its own cleanup. */
void client_lease_finish(struct client_lease *lease);

/* The impl's `unlocked` (any thread): queues the release. */
void client_lease_unlocked(struct wl_record_buffer *buffer);

/* A commit's lock (main thread): the wl_buffer is released after the last
 * unlock of this one and of every lock taken while it lasts. */
struct wl_record_buffer *client_lease_lock(struct client_lease *lease);

/* The wl_buffer to release; NULL once it is gone (nothing is released or
 * posted any more). Main thread. */
void client_lease_set_resource(struct client_lease *lease, struct wl_resource *resource);

/* Main thread: the client gets its buffer back now, whoever still locks the
 * lease (which no longer reads the client's memory: see shm.c's detach).
 * Later unlocks of this epoch release nothing. */
void client_lease_release_now(struct client_lease *lease);

/* True while a commit's epoch waits for its release (main thread). */
bool client_lease_held(struct client_lease *lease);

/* Any thread: the client's memory faulted during a read; the main loop
 * disconnects the client (fault_code and fault_message on its wl_buffer). */
void client_lease_report_fault(struct client_lease *lease);

#endif
