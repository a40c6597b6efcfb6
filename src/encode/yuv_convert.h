#ifndef WL_RECORD_YUV_CONVERT_H
#define WL_RECORD_YUV_CONVERT_H

#include <libavutil/frame.h>
#include <libavutil/pixfmt.h>

#include "frame.h"

/* BGRX -> yuv420p for the software encoders, with libyuv: at 1080p it costs
 * 0.2-1 ms where threaded swscale costs 4-5 ms of CPU (scripts/bench-convert),
 * and the conversion is the largest cost outside the encoder. libyuv's
 * matrix is BT.601, limited range; every path tags its frames with these. */
#define YUV_COLORSPACE AVCOL_SPC_SMPTE170M
#define YUV_COLOR_PRIMARIES AVCOL_PRI_BT709 /* sRGB content */
#define YUV_COLOR_TRC AVCOL_TRC_IEC61966_2_1
#define YUV_COLOR_RANGE AVCOL_RANGE_MPEG

/* Converts the part of `frame` (FRAME_XRGB8888) inside `rect` (widened to
 * even edges, clipped to `width` x `height`) into the yuv420p planes `planes`
 * of that size, leaving their other pixels as they are: the previous
 * picture, when only `rect` changed. `frame` must be at least that large.
 * Returns 0 or a negative AVERROR. */
int yuv_convert_rect(const struct frame *frame, uint8_t *const planes[3], const int strides[3],
		     int width, int height, struct frame_damage rect);

/* Sets the colour tags above on `frame`. */
void yuv_tag_frame(AVFrame *frame);

#endif
