#ifndef WL_RECORD_FRAME_H
#define WL_RECORD_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "wl_record_buffer.h"

/* The one default frame rate: --fps, the frame clock, the recorder and the
 * encoder all fall back to it. */
#define WL_RECORD_DEFAULT_FPS 60.0

/* A picture of the whole output. This is the unit that travels the frame
 * path: a frame source (frame_source.h) -> the pacer -> the queue -> encode.
 *
 * FRAME_XRGB8888 (the zero value, what the screen holds): 32-bit pixels laid
 * out as DRM_FORMAT_XRGB8888 (bytes B, G, R, X in memory; X is undefined),
 * rows `stride` bytes apart.
 * FRAME_I420 (the encoder queue's copy for software encoders): yuv420p
 * limited range BT.601 (yuv_convert.h), even width and height; `data` holds
 * the Y plane (`stride` bytes a row), then U and V (stride / 2 bytes a row,
 * height / 2 rows each). */
enum frame_format {
	FRAME_XRGB8888 = 0,
	FRAME_I420,
};

/* What changed since the previous frame its consumer took: a rectangle in
 * frame coordinates (x2, y2 exclusive). */
struct frame_damage {
	int x1, y1, x2, y2;
};

struct frame {
	enum frame_format format;
	uint8_t *data;
	int width, height;
	int stride;
	int64_t pts_ns; /* CLOCK_MONOTONIC time of the commit that completed it */
	/* False (the zero value) means the whole frame may have changed; a
	 * consumer that keeps state (the converted previous frame) may only
	 * skip what lies outside `damage` when this is true. */
	bool damage_known;
	struct frame_damage damage;
	/* What holds the pixels: a hosted client's buffer, a buffer a desktop
	 * copied into, a picture the compositor composed (wl_record_buffer.h).
	 * A frame is valid during the call that delivers it; whoever keeps it
	 * longer locks the buffer (frame_ref) and unlocks it (frame_unref), so
	 * that its producer neither reuses nor gives it back meanwhile. NULL:
	 * pixels owned by the caller, not keepable.
	 *
	 * `data` is the fast path to pixels in our own memory; a frame whose
	 * pixels are reachable only through the buffer (a dmabuf) has NULL
	 * `data` (frame_in_buffer_only): a consumer that wants pixels reads the
	 * buffer (wl_record_buffer_read), one that can map the dmabuf (VA-API,
	 * the desktop) locks it instead. */
	struct wl_record_buffer *buffer;
};

/* `to` becomes a kept copy of `from` (the same picture, one more lock). */
static inline void frame_ref(struct frame *to, const struct frame *from)
{
	*to = *from;
	if (from->buffer)
		wl_record_buffer_lock(from->buffer);
}

/* Drops a kept frame's lock (a zeroed frame is accepted). */
static inline void frame_unref(struct frame *frame)
{
	wl_record_buffer_unlock(frame->buffer);
	frame->buffer = NULL;
}

/* True when the pixels are reachable only through `buffer` (a dmabuf). */
static inline bool frame_in_buffer_only(const struct frame *frame)
{
	return !frame->data && frame->buffer;
}

/* The three planes of a FRAME_I420 frame. */
static inline void frame_i420_planes(const struct frame *frame, uint8_t *planes[3], int strides[3])
{
	size_t luma = (size_t)frame->stride * (size_t)frame->height;
	planes[0] = frame->data;
	planes[1] = frame->data + luma;
	planes[2] = planes[1] + luma / 4;
	strides[0] = frame->stride;
	strides[1] = strides[2] = frame->stride / 2;
}

/* Copies rows y1..y2 (exclusive) of an XRGB8888 frame into `to`, whose rows
 * are `to_stride` bytes apart: the same rows of a picture of its size. */
static inline void frame_copy_rows(const struct frame *from, uint8_t *to, int to_stride, int y1,
				   int y2)
{
	size_t row = (size_t)from->width * 4;
	if (y1 >= y2)
		return;
	if (from->stride == to_stride && (size_t)to_stride == row) {
		memcpy(to + row * (size_t)y1, from->data + row * (size_t)y1, row * (size_t)(y2 - y1));
		return;
	}
	for (int y = y1; y < y2; y++)
		memcpy(to + (size_t)to_stride * (size_t)y, from->data + (size_t)from->stride * (size_t)y,
		       row);
}

/* Grows the rectangle `into` to cover `add`; an empty one (x1 >= x2 or
 * y1 >= y2) adds nothing and is replaced by what is added. */
static inline void frame_damage_union(struct frame_damage *into, const struct frame_damage *add)
{
	if (add->x1 >= add->x2 || add->y1 >= add->y2)
		return;
	if (into->x1 >= into->x2 || into->y1 >= into->y2) {
		*into = *add;
		return;
	}
	into->x1 = add->x1 < into->x1 ? add->x1 : into->x1;
	into->y1 = add->y1 < into->y1 ? add->y1 : into->y1;
	into->x2 = add->x2 > into->x2 ? add->x2 : into->x2;
	into->y2 = add->y2 > into->y2 ? add->y2 : into->y2;
}

/* Grows `into` to cover `add` (an unknown damage makes the result unknown). */
static inline void frame_damage_merge(struct frame *into, const struct frame *add)
{
	if (!into->damage_known || !add->damage_known) {
		into->damage_known = false;
		return;
	}
	frame_damage_union(&into->damage, &add->damage);
}

static inline int frame_damage_clamp(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* Cuts `d` to the rectangle `within` (x2 >= x1, y2 >= y1); the result may
 * be empty but is never inverted. */
static inline void frame_damage_clip(struct frame_damage *d, const struct frame_damage *within)
{
	d->x1 = frame_damage_clamp(d->x1, within->x1, within->x2);
	d->x2 = frame_damage_clamp(d->x2, d->x1, within->x2);
	d->y1 = frame_damage_clamp(d->y1, within->y1, within->y2);
	d->y2 = frame_damage_clamp(d->y2, d->y1, within->y2);
}

#endif
