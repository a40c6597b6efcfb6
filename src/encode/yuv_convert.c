#include "yuv_convert.h"

#include <libavutil/error.h>
#include <libyuv/convert_from_argb.h>

static int align_down(int value)
{
	return value & ~1;
}

static int align_up(int value)
{
	return (value + 1) & ~1;
}

int yuv_convert_rect(const struct frame *frame, uint8_t *const planes[3], const int strides[3],
		     int width, int height, struct frame_damage rect)
{
	if (frame->format != FRAME_XRGB8888 || frame->width < width || frame->height < height)
		return AVERROR(EINVAL);
	/* 4:2:0 shares each chroma sample between a 2x2 block: convert whole
	 * blocks. The picture size is even, so widened edges stay inside. */
	int x1 = rect.x1 < 0 ? 0 : align_down(rect.x1);
	int y1 = rect.y1 < 0 ? 0 : align_down(rect.y1);
	int x2 = rect.x2 >= width ? width : align_up(rect.x2);
	int y2 = rect.y2 >= height ? height : align_up(rect.y2);
	if (x2 <= x1 || y2 <= y1)
		return 0;
	/* libyuv's "ARGB" is little-endian ARGB: bytes B, G, R, A, as in BGRX. */
	const uint8_t *source = frame->data + (size_t)y1 * (size_t)frame->stride + (size_t)x1 * 4;
	uint8_t *y = planes[0] + (ptrdiff_t)y1 * strides[0] + x1;
	uint8_t *u = planes[1] + (ptrdiff_t)(y1 / 2) * strides[1] + x1 / 2;
	uint8_t *v = planes[2] + (ptrdiff_t)(y1 / 2) * strides[2] + x1 / 2;
	if (ARGBToI420(source, frame->stride, y, strides[0], u, strides[1], v, strides[2], x2 - x1,
		       y2 - y1) != 0)
		return AVERROR(EINVAL);
	return 0;
}

void yuv_tag_frame(AVFrame *frame)
{
	frame->color_range = YUV_COLOR_RANGE;
	frame->colorspace = YUV_COLORSPACE;
	frame->color_primaries = YUV_COLOR_PRIMARIES;
	frame->color_trc = YUV_COLOR_TRC;
}
