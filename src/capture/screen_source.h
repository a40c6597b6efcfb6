#ifndef WL_RECORD_SCREEN_SOURCE_H
#define WL_RECORD_SCREEN_SOURCE_H

#include <pixman.h>

#include "frame_source.h"

struct screen;

/* The nested compositor's screen as a frame source (frame_source.h): every
 * picture the screen makes goes to the sinks connected to
 * screen_frame_source(). A 1:1 dmabuf surface's frames carry its lease and
 * no pixels; all others carry the pixels of a pixman image, referenced. */
struct frame_source *screen_frame_source(struct screen *screen);

/* The references that keep a frame's picture (compositor thread only for
 * pixman images; leases any thread). */
void screen_source_set_image(struct frame *frame, pixman_image_t *image);
void screen_source_set_lease(struct frame *frame, struct dmabuf_lease *lease);

/* Delivers `frame` to the sinks, then to the screen's events.frame
 * listeners, which get CPU pixels (a lent dmabuf is read for them). */
void screen_source_emit(struct screen *screen, struct frame *frame);

#endif
