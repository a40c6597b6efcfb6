/* The software encoders' queue holds I420: a frame is converted as it is
 * copied in (limited-range BT.601, cropped to even), a returning buffer is
 * brought up to date only where frames changed since the one it holds, and
 * a frame too small to crop to even is refused. */
#include <string.h>

#include "frame_queue.h"
#include "synth.h"

#define W 33
#define H 21

static void fill(struct frame *frame, uint8_t value)
{
	for (int y = 0; y < frame->height; y++)
		memset(frame->data + (size_t)y * frame->stride, value, (size_t)frame->width * 4);
}

/* The Y sample at (x, y) of an I420 frame. */
static int luma_at(const struct frame *frame, int x, int y)
{
	return frame->data[(size_t)y * frame->stride + x];
}

static struct frame *push_pop(struct frame_queue *queue, const struct frame *frame)
{
	test_assert(frame_queue_push(queue, frame));
	struct frame *popped;
	test_assert(frame_queue_pop(queue, &popped) == FRAME_QUEUE_FRAME);
	return popped;
}

TEST(converted_on_copy)
{
	struct frame_queue *queue = frame_queue_create(1, true);
	test_assert(queue);
	struct frame *source = synth_frame(0, W, H, W * 4 + 16, 0);

	fill(source, 0xff); /* white */
	struct frame *popped = push_pop(queue, source);
	test_assert(popped->format == FRAME_I420);
	test_assert(popped->width == W - 1 && popped->height == H - 1 && popped->stride == W - 1);
	uint8_t *planes[3];
	int strides[3];
	frame_i420_planes(popped, planes, strides);
	test_assert(luma_at(popped, 0, 0) == 235 && luma_at(popped, W - 2, H - 2) == 235);
	test_assert(planes[1][0] == 128 && planes[2][(H / 2 - 1) * strides[2] + W / 2 - 1] == 128);
	frame_queue_release(queue, popped);

	/* Black where the frame says it changed, and black too (unsaid) at the
	 * top left: the same buffer comes back and only the stated rectangle
	 * is converted again. */
	fill(source, 0x00);
	source->damage_known = true;
	source->damage = (struct frame_damage){10, 8, 20, 14};
	popped = push_pop(queue, source);
	test_assert(luma_at(popped, 10, 8) == 16 && luma_at(popped, 19, 13) == 16);
	test_assert(luma_at(popped, 0, 0) == 235 && luma_at(popped, 24, 16) == 235);
	frame_queue_release(queue, popped);

	/* Unknown damage: everything is converted. */
	source->damage_known = false;
	popped = push_pop(queue, source);
	test_assert(luma_at(popped, 0, 0) == 16 && luma_at(popped, W - 2, H - 2) == 16);
	frame_queue_release(queue, popped);

	/* One pixel wide: nothing is left after cropping to even. */
	struct frame *thin = synth_frame(0, 1, H, 4, 0);
	test_assert(!frame_queue_push(queue, thin));
	synth_frame_free(thin);

	synth_frame_free(source);
	frame_queue_destroy(queue);
}
