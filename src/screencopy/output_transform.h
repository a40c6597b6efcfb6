#ifndef WL_RECORD_OUTPUT_TRANSFORM_H
#define WL_RECORD_OUTPUT_TRANSFORM_H

#include <stdint.h>

#include <pixman.h>

#include "frame.h"

/* A copy of a turned or mirrored output holds the output's pixels as the
 * compositor renders them for the panel: the logical picture with the
 * inverse of the output's transform (wl_output.transform) applied. Both
 * wlr-screencopy (the output's transform) and ext-image-copy-capture (the
 * frame's transform event) name that transform; these map the copy of a
 * `width`x`height` buffer back to the picture a user sees, "upright". */

/* The upright picture's size: width and height swap for 90 and 270. */
void upright_size(uint32_t transform, int width, int height, int *upright_width,
		  int *upright_height);

/* A box of the buffer (x2, y2 exclusive) in the upright picture. */
struct frame_damage upright_box(uint32_t transform, int width, int height,
				struct frame_damage box);

/* For pixman_image_set_transform on the buffer's image: maps a pixel of
 * the upright picture to the buffer pixel it shows. */
void upright_pixman_transform(uint32_t transform, int width, int height,
			      pixman_transform_t *matrix);

#endif
