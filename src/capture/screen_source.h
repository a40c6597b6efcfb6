#ifndef WL_RECORD_SCREEN_SOURCE_H
#define WL_RECORD_SCREEN_SOURCE_H

#include <pixman.h>

#include "frame_source.h"

struct screen;
struct wl_record_buffer;

/* The nested compositor's screen as a frame source (frame_source.h): every
 * picture the screen makes goes to the sinks connected to
 * screen_frame_source(). A 1:1 surface's frames carry the client's lent
 * buffer (wl_shm or dmabuf) and no pixels; all others carry the pixels of a
 * pixman image, in a buffer of their own. */
struct frame_source *screen_frame_source(struct screen *screen);

/* Give `frame` its buffer, with one reference that screen_source_emit
 * drops. A pixman image's buffer may be locked on the compositor thread
 * only (pixman's reference count is not atomic; the encoder's queue copies
 * such pixels); a client's lent buffer (client_lease.h) on any thread. */
void screen_source_set_image(struct frame *frame, pixman_image_t *image);
void screen_source_set_lease(struct frame *frame, struct wl_record_buffer *lease);

/* Delivers `frame` to the sinks, then to the screen's events.frame
 * listeners, which get CPU pixels (a dmabuf is read for them); then drops
 * the frame's reference. */
void screen_source_emit(struct screen *screen, struct frame *frame);

#endif
