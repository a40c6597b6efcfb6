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

int yuv_convert_rect(const struct frame *frame, AVFrame *out, struct frame_damage rect)
{
	if (out->format != AV_PIX_FMT_YUV420P || frame->width < out->width ||
	    frame->height < out->height)
		return AVERROR(EINVAL);
	/* 4:2:0 shares each chroma sample between a 2x2 block: convert whole
	 * blocks. The stream size is even, so widened edges stay inside. */
	int x1 = rect.x1 < 0 ? 0 : align_down(rect.x1);
	int y1 = rect.y1 < 0 ? 0 : align_down(rect.y1);
	int x2 = rect.x2 >= out->width ? out->width : align_up(rect.x2);
	int y2 = rect.y2 >= out->height ? out->height : align_up(rect.y2);
	if (x2 <= x1 || y2 <= y1)
		return 0;
	/* libyuv's "ARGB" is little-endian ARGB: bytes B, G, R, A, as in BGRX. */
	const uint8_t *source = frame->data + (size_t)y1 * (size_t)frame->stride + (size_t)x1 * 4;
	uint8_t *y = out->data[0] + (ptrdiff_t)y1 * out->linesize[0] + x1;
	uint8_t *u = out->data[1] + (ptrdiff_t)(y1 / 2) * out->linesize[1] + x1 / 2;
	uint8_t *v = out->data[2] + (ptrdiff_t)(y1 / 2) * out->linesize[2] + x1 / 2;
	if (ARGBToI420(source, frame->stride, y, out->linesize[0], u, out->linesize[1], v,
		       out->linesize[2], x2 - x1, y2 - y1) != 0)
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
