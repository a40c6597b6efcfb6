#ifndef WL_RECORD_FRAME_QUEUE_H
#define WL_RECORD_FRAME_QUEUE_H

#include <stdbool.h>
#include <stdint.h>

#include "frame.h"

/* A bounded FIFO of frames in front of one consumer thread, backed by a pool
 * of reusable pixel buffers. The producer never waits: it either gets a free
 * buffer or the frame is refused. Buffers are reallocated only when a frame
 * needs more bytes than the buffer holds, so a steady recording allocates
 * nothing per frame.
 *
 * The pool holds `depth` + 1 buffers: `depth` may wait in the queue while the
 * consumer holds one more (the frame it is encoding, kept as "the most recent
 * frame" until it pops the next). */

struct frame_queue;

enum frame_queue_event {
	FRAME_QUEUE_FRAME,  /* a frame was popped */
	FRAME_QUEUE_KICKED, /* frame_queue_kick() was called, queue empty */
	FRAME_QUEUE_CLOSED, /* closed and drained */
	FRAME_QUEUE_TIMEOUT, /* frame_queue_pop_until(): the deadline came first */
};

/* With `to_i420`, pixels are queued as FRAME_I420 (converted while they are
 * copied, only where they changed, cropped to even): what a software encoder
 * takes, at 3/8 of the memory of XRGB8888 and without a second pass over the
 * frame. Otherwise they are queued as they come. */
struct frame_queue *frame_queue_create(int depth, bool to_i420);
void frame_queue_destroy(struct frame_queue *queue);

/* Producer side. Copies `frame` (XRGB8888; rows packed) and queues it;
 * false when no buffer is free or the queue is closed. A zero-copy frame
 * (frame_in_buffer_only) is queued with a lock on its buffer, no pixels
 * copied; the lock ends when the frame is released. */
bool frame_queue_push(struct frame_queue *queue, const struct frame *frame);

/* The size `frame` has once queued (an I420 copy is cropped to even); false
 * when the queue refuses a frame of its size. */
bool frame_queue_queued_size(const struct frame_queue *queue, const struct frame *frame,
			     int *width, int *height);

/* Wakes the consumer without a frame (e.g. a pending still request). */
void frame_queue_kick(struct frame_queue *queue);

/* No more frames will be pushed; the consumer drains what is queued. */
void frame_queue_close(struct frame_queue *queue);

/* Consumer side. Blocks until a frame is queued, a kick arrives or the queue
 * is closed and empty. A popped frame stays valid until it is released. */
enum frame_queue_event frame_queue_pop(struct frame_queue *queue, struct frame **frame);
/* The same, waiting at most until `deadline_ns` (CLOCK_MONOTONIC; INT64_MAX:
 * for ever). */
enum frame_queue_event frame_queue_pop_until(struct frame_queue *queue, struct frame **frame,
					     int64_t deadline_ns);
void frame_queue_release(struct frame_queue *queue, struct frame *frame);

#endif
