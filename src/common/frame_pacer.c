#define LOG_MODULE "pacer"
#include "frame_pacer.h"

#include "clock.h"
#include "log.h"

/* A frame committed this close before a period starts (a fraction of the
 * period) may stand for that period when the one it was committed in has
 * had its frame (frame_pacer_offer). */
#define EARLY_CLAIM_FRACTION 8

static int64_t claimed_slot(const struct frame_pacer *pacer, const struct frame *frame)
{
	int64_t slot = frame_grid_slot(pacer->grid, frame->pts_ns);
	return slot > pacer->last_slot ? slot : pacer->last_slot + 1;
}

static void arm_at_slot(struct frame_pacer *pacer, int64_t slot)
{
	precise_timer_arm_at(&pacer->timer, frame_grid_slot_start(pacer->grid, slot));
}

static bool hand_on(struct frame_pacer *pacer, const struct frame *frame, int64_t slot)
{
	if (!pacer->consume(pacer->data, frame))
		return false;
	pacer->last_slot = slot;
	if (pacer->repeat) {
		/* Kept before the old one goes: they may be the same picture. */
		struct frame kept;
		frame_ref(&kept, frame);
		if (pacer->have_last)
			frame_unref(&pacer->last_frame);
		pacer->last_frame = kept;
		pacer->have_last = true;
		/* Whether the next period brings something is known when it ends. */
		arm_at_slot(pacer, slot + 2);
	}
	return true;
}

/* Repeat: fills each period that has ended without a frame with the last
 * picture. Returns false when the consumer refused (retried later). */
static bool repeat_last(struct frame_pacer *pacer, int64_t now_slot)
{
	while (pacer->last_slot + 1 < now_slot) {
		int64_t slot = pacer->last_slot + 1;
		struct frame again = pacer->last_frame;
		again.pts_ns = frame_grid_slot_start(pacer->grid, slot);
		again.damage_known = true; /* the same picture: nothing changed */
		again.damage = (struct frame_damage){0, 0, 0, 0};
		if (!hand_on(pacer, &again, slot))
			return false;
	}
	return true;
}

static void drop_pending(struct frame_pacer *pacer)
{
	frame_unref(&pacer->pending_frame);
	pacer->pending = false;
}

static void keep_pending(struct frame_pacer *pacer, const struct frame *frame)
{
	struct frame kept;
	frame_ref(&kept, frame);
	if (pacer->pending) {
		/* The newer picture differs from the last one handed on by both. */
		frame_damage_merge(&kept, &pacer->pending_frame);
		frame_unref(&pacer->pending_frame);
		pacer->replaced++;
	}
	pacer->pending_frame = kept;
	pacer->pending = true;
}

static void handle_timer(void *data)
{
	struct frame_pacer *pacer = data;
	if (!pacer->pending) {
		if (pacer->repeat && pacer->have_last) {
			int64_t now_slot = frame_grid_slot(pacer->grid, clock_now_ns());
			if (!repeat_last(pacer, now_slot))
				arm_at_slot(pacer, now_slot + 1);
		}
		return;
	}
	int64_t now_slot = frame_grid_slot(pacer->grid, clock_now_ns());
	int64_t slot = claimed_slot(pacer, &pacer->pending_frame);
	if (slot >= now_slot) {
		arm_at_slot(pacer, slot + 1); /* its period is not over: a newer frame may come */
		return;
	}
	if (hand_on(pacer, &pacer->pending_frame, slot))
		drop_pending(pacer);
	else
		arm_at_slot(pacer, now_slot + 1); /* refused: retry with whatever is newest then */
}

bool frame_pacer_init(struct frame_pacer *pacer, struct wl_event_loop *loop,
		      const struct frame_grid *grid,
		      bool (*consume)(void *data, const struct frame *frame), void *data)
{
	*pacer = (struct frame_pacer){
		.grid = grid,
		.last_slot = INT64_MIN / 2,
		.consume = consume,
		.data = data,
	};
	pacer->timer_ready = precise_timer_init(&pacer->timer, loop, handle_timer, pacer);
	return pacer->timer_ready;
}

void frame_pacer_set_repeat(struct frame_pacer *pacer, bool repeat)
{
	pacer->repeat = repeat;
}

void frame_pacer_finish(struct frame_pacer *pacer)
{
	if (pacer->pending)
		drop_pending(pacer);
	if (pacer->have_last)
		frame_unref(&pacer->last_frame);
	pacer->have_last = false;
	if (pacer->timer_ready)
		precise_timer_finish(&pacer->timer);
	pacer->timer_ready = false;
}

void frame_pacer_offer(struct frame_pacer *pacer, const struct frame *frame)
{
	int64_t slot = frame_grid_slot(pacer->grid, frame->pts_ns);
	/* Its period has had a frame, but the next one starts in a moment: it
	 * stands for that one, on at once. A source at the --fps rate whose
	 * commits sit near the grid's boundaries (sway's 60 Hz output against
	 * the 60 fps grid: one commit in five to ten) would otherwise have such
	 * a frame held a whole period; and the next commit, in the period held
	 * for and arriving just after it ended, held too, and so on. Still one
	 * frame per period. */
	if (slot <= pacer->last_slot &&
	    frame_grid_slot(pacer->grid, frame->pts_ns + pacer->grid->period_ns / EARLY_CLAIM_FRACTION) >
		    pacer->last_slot)
		slot = pacer->last_slot + 1;
	if (slot > pacer->last_slot) {
		/* Its period is free: on at once, carrying what a replaced pending
		 * picture changed too. */
		struct frame merged = *frame;
		if (pacer->pending)
			frame_damage_merge(&merged, &pacer->pending_frame);
		if (hand_on(pacer, &merged, slot)) {
			if (pacer->pending) {
				drop_pending(pacer);
				pacer->replaced++;
			}
			return;
		}
		keep_pending(pacer, frame);
		arm_at_slot(pacer, frame_grid_slot(pacer->grid, clock_now_ns()) + 1);
		return;
	}
	keep_pending(pacer, frame);
	arm_at_slot(pacer, claimed_slot(pacer, &pacer->pending_frame) + 1);
}

bool frame_pacer_flush(struct frame_pacer *pacer)
{
	if (!pacer->pending)
		return true;
	if (!hand_on(pacer, &pacer->pending_frame, claimed_slot(pacer, &pacer->pending_frame)))
		return false;
	drop_pending(pacer);
	return true;
}
