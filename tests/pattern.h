#ifndef WL_RECORD_TEST_PATTERN_H
#define WL_RECORD_TEST_PATTERN_H

/* The known picture the test client presents, so that a test can regenerate
 * exactly what wl-record must have captured for any frame.
 *
 * Smooth on purpose, so that H.264 in 4:2:0 keeps it well above 30 dB: a
 * diagonal colour gradient, four blocks of saturated colour near the top
 * edge and a box whose position moves with the frame index (two different
 * frames never look alike); the blocks and the box fade in over their outer
 * 4 pixels, their edges on even coordinates. */

#include <stdint.h>

/* XRGB8888 value (0x00RRGGBB) of pixel (x, y) of frame `frame_index` for a
 * picture of width x height. */
uint32_t pattern_pixel(int frame_index, int x, int y, int width, int height);

/* Fills `data` (rows `stride` bytes apart, native-endian 32-bit words) with
 * the frame; `alpha` is stored in the top byte of every pixel. */
void pattern_fill(void *data, int stride, int frame_index, int width, int height,
		  uint8_t alpha);

/* Where the moving box of `frame_index` is; exposed so tests can say which
 * frame they saw. */
void pattern_box(int frame_index, int width, int height,
		 int *box_x, int *box_y, int *box_width, int *box_height);

#endif
