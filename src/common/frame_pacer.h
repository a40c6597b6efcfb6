#ifndef WL_RECORD_FRAME_PACER_H
#define WL_RECORD_FRAME_PACER_H

#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>

#include "frame.h"
#include "frame_grid.h"
#include "precise_timer.h"

/* Between a frame source and one consumer (the encoder): passes on at most
 * one frame per period of the --fps grid, judged by the frames' commit times.
 *
 * A frame whose period is free goes on at once. One that comes too soon (its
 * period already had a frame) is kept, by reference, as the picture of the
 * next period: a newer frame replaces it (damage merged), and if none comes
 * it goes on when that period ends; unless it was committed in the last
 * eighth of its period: then it stands for the next one at once (a source
 * at the --fps rate committing near the period boundaries is not held back). Judging by commit time, not by when the
 * pacer ran, matters: a client paced by frame callbacks commits just after
 * each tick, so a late frame that claimed the period of its hand-on would
 * push every later frame back by one period for good.
 * A frame the consumer refuses (queue full) is kept too and retried at the
 * next period start, or replaced by a newer one; so the newest picture
 * before a stop always reaches the consumer (frame_pacer_flush).
 *
 * With repeat on (frame_pacer_set_repeat), a period that ends with nothing
 * handed on gets the last picture again (no damage, time = the period's
 * start): the consumer sees one frame per period from the first frame on,
 * as --frames counts them, however still the source is. */
struct frame_pacer {
	const struct frame_grid *grid;
	struct precise_timer timer;
	bool timer_ready;
	int64_t last_slot;    /* the grid period the last frame handed on stands for */
	bool pending;
	struct frame pending_frame; /* kept (frame_ref), damage since the last hand-on */
	bool repeat;
	bool have_last;
	struct frame last_frame;    /* repeat only: kept (frame_ref), the last handed on */
	/* Pictures that never reached the consumer because a newer one took
	 * their place (two in one period, or refused and then outrun): the
	 * only way a frame offered before the last one handed on is not
	 * recorded, so a test can tell these from a lost frame. */
	uint64_t replaced;
	/* Returns false when the consumer could not take the frame now. */
	bool (*consume)(void *data, const struct frame *frame);
	void *data;
};

bool frame_pacer_init(struct frame_pacer *pacer, struct wl_event_loop *loop,
		      const struct frame_grid *grid,
		      bool (*consume)(void *data, const struct frame *frame), void *data);
/* Repeat the last picture for every period without a new one (off by
 * default; see above). Set before the first frame. */
void frame_pacer_set_repeat(struct frame_pacer *pacer, bool repeat);

/* Drops a pending frame. Accepts a zeroed pacer. */
void frame_pacer_finish(struct frame_pacer *pacer);

/* A new picture (valid during the call; the pacer references what it keeps). */
void frame_pacer_offer(struct frame_pacer *pacer, const struct frame *frame);

/* Hands on a pending picture now, ignoring the rate (for the end of a
 * recording). Returns false when the consumer still refused it. */
bool frame_pacer_flush(struct frame_pacer *pacer);

#endif
