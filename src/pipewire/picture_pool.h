#ifndef WL_RECORD_PIPEWIRE_PICTURE_POOL_H
#define WL_RECORD_PIPEWIRE_PICTURE_POOL_H

#include <stdatomic.h>
#include <stdbool.h>

#include <pixman.h>

#include "frame.h"
#include "buffer_pool.h"

/* The XRGB8888 pictures PipeWire buffers are copied into, handed to the
 * sinks as frames. A producer wants its buffers back at once, so frames
 * never point into them.
 *
 * The pool holds the producer's reference, each kept frame a lock (any
 * thread: a sink may drop a frame on the encoder's); a picture is free to
 * copy into again when nothing locks it. Four do for a
 * recording (the newest, the pacer's pending one, the copy under way, one
 * kept by the queue); two more for sinks that keep one longer. */
#define PICTURE_POOL_SIZE 6

struct picture {
	struct wl_record_buffer base;
	pixman_image_t *image; /* x8r8g8b8 */
};

struct picture_pool {
	struct wl_record_buffer_pool pictures;
};

void picture_pool_init(struct picture_pool *pool);

/* A free picture of that size, locked for the caller (who fills it, then
 * keeps or unlocks it); NULL when every one is kept by a sink or out of
 * memory. */
struct picture *picture_pool_get(struct picture_pool *pool, int width, int height);

/* Lets go of every picture: each goes with the last frame keeping it. */
void picture_pool_finish(struct picture_pool *pool);

#endif
