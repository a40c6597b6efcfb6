#ifndef WL_RECORD_TEST_PATTERN_H
#define WL_RECORD_TEST_PATTERN_H

/* The known picture the test client presents, so that a test can regenerate
 * exactly what wl-record must have captured for any frame.
 *
 * Smooth on purpose, so that H.264 in 4:2:0 keeps it well above 30 dB: a
 * diagonal colour gradient, four blocks of saturated colour near the top
 * edge and a box whose position moves with the frame index (two different
 * frames never look alike); the blocks and the box fade in over their outer
 * 4 pixels, their edges on even coordinates. The gradient's green changes
 * with the frame index at every pixel, smoothly (folded, never a hard
 * edge), so that a pixel left stale, the picture's last column or row
 * included, shows: frame 0's gradient is the one a still has always had.
 * The blocks keep their solid colours in every frame. */

#include <stdint.h>

/* XRGB8888 value (0x00RRGGBB) of pixel (x, y) of frame `frame_index` for a
 * picture of width x height. */
uint32_t pattern_pixel(int frame_index, int x, int y, int width, int height);

/* The same with the gradient of frame `background_index`: 0 gives a picture
 * in which only the box moves (for a fake compositor that reports just the
 * box's old and new places as damage: tests/screencopy/fake-ext-copy.c). */
uint32_t pattern_pixel_with_background(int frame_index, int background_index, int x, int y,
				       int width, int height);

/* Fills `data` (rows `stride` bytes apart, native-endian 32-bit words) with
 * the frame; `alpha` is stored in the top byte of every pixel. */
void pattern_fill(void *data, int stride, int frame_index, int width, int height,
		  uint8_t alpha);
/* pattern_fill with pattern_pixel_with_background. */
void pattern_fill_with_background(void *data, int stride, int frame_index, int background_index,
				  int width, int height, uint8_t alpha);

/* The pixel formats the test clients draw in, by the name their --format
 * option takes: xrgb, argb, xbgr, abgr, xrgb2101010, argb2101010,
 * xbgr2101010, abgr2101010. The DRM fourcc, 0 for an unknown name. */
uint32_t pattern_format_from_name(const char *name);

/* The wl_shm code of a fourcc above (they differ for ARGB/XRGB8888 only). */
uint32_t pattern_format_shm_code(uint32_t fourcc);

/* Fills `data` like pattern_fill, packed as the DRM format `fourcc` (one of
 * the above): 10-bit channels are the 8-bit values widened exactly
 * (v << 2 | v >> 6, so that v is their top 8 bits), alpha is opaque in
 * formats that have it, the X bits are 0 (as Mesa sends them: the server
 * must not take them for alpha). */
void pattern_fill_format(void *data, int stride, int frame_index, int width, int height,
			 uint32_t fourcc);

/* Where the moving box of `frame_index` is; exposed so tests can say which
 * frame they saw. */
void pattern_box(int frame_index, int width, int height,
		 int *box_x, int *box_y, int *box_width, int *box_height);

#endif
