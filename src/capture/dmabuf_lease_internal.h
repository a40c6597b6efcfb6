#ifndef WL_RECORD_DMABUF_LEASE_INTERNAL_H
#define WL_RECORD_DMABUF_LEASE_INTERNAL_H

#include <stdbool.h>
#include <wayland-server-core.h>

#include "dmabuf_attributes.h"
#include "dmabuf_lease.h"

/* The capture side of leases: shared planes and the queue that brings
 * releases back to the main loop. */

struct egl_importer;

/* The planes of one client buffer, shared by the buffer and its leases.
 * `egl` (may be NULL) reads non-LINEAR planes on the compositor thread. */
struct dmabuf_planes *dmabuf_planes_create(struct dmabuf_attributes *attributes /* taken */,
					   struct egl_importer *egl);


struct dmabuf_release_queue;

struct dmabuf_release_queue *dmabuf_release_queue_create(struct wl_event_loop *loop);
/* Leases still held elsewhere stay valid; their releases are then dropped. */
void dmabuf_release_queue_destroy(struct dmabuf_release_queue *queue);

/* What a buffer keeps to follow its leases (main thread). */
struct dmabuf_lease_owner {
	struct wl_resource *buffer; /* wl_buffer to release when the last lease ends */
	struct wl_list leases;      /* dmabuf_lease.owner_link */
};

void dmabuf_lease_owner_init(struct dmabuf_lease_owner *owner, struct wl_resource *buffer);
/* The buffer is going away: its leases live on but release nothing. */
void dmabuf_lease_owner_finish(struct dmabuf_lease_owner *owner);

struct dmabuf_lease *dmabuf_lease_create(struct dmabuf_release_queue *queue,
					 struct dmabuf_lease_owner *owner,
					 struct dmabuf_planes *planes);

#endif
