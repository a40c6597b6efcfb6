#ifndef WL_RECORD_CLIENT_DMABUF_H
#define WL_RECORD_CLIENT_DMABUF_H

#include <stdbool.h>
#include <wayland-server-core.h>

#include "dmabuf_attributes.h"
#include "wl_record_buffer.h"

/* A hosted client's dmabuf as a wl_record_buffer: the fds and layout of
 * one wl_buffer, read by mmap (LINEAR) or through EGL. Frames lock it
 * instead of copying it; the client's wl_buffer.release waits for the last
 * unlock, which may happen on any thread (the encoder's): the release is
 * queued and the main loop sends it. The buffer outlives its wl_buffer
 * while locks or cache references remain. */

struct egl_importer;
struct dmabuf_release_queue;

struct dmabuf_release_queue *dmabuf_release_queue_create(struct wl_event_loop *loop);
/* Buffers still locked elsewhere stay valid; their releases are then dropped. */
void dmabuf_release_queue_destroy(struct dmabuf_release_queue *queue);

/* Takes the fds of `attributes`; one reference (the wl_buffer's, dropped
 * with wl_record_buffer_drop). `egl` (may be NULL) reads non-LINEAR planes
 * on the compositor thread. NULL without memory. Main thread. */
struct wl_record_buffer *client_dmabuf_create(struct dmabuf_attributes *attributes,
					      struct egl_importer *egl,
					      struct dmabuf_release_queue *queue);

/* A commit's lock (main thread): the wl_buffer is released after the last
 * unlock of this one and of every lock taken while it lasts. */
struct wl_record_buffer *client_dmabuf_lock(struct wl_record_buffer *buffer);

/* The wl_buffer to release after each last unlock; NULL once it is gone
 * (later unlocks release nothing). Main thread. */
void client_dmabuf_set_resource(struct wl_record_buffer *buffer, struct wl_resource *resource);

#endif
