#define LOG_MODULE "pacer"
#include "frame_pacer.h"

#include "capture/frame_clock.h"
#include "capture/screen.h"
#include "clock.h"
#include "log.h"

static bool hand_on(struct frame_pacer *pacer, const struct frame *frame)
{
	if (!pacer->consume(pacer->data, frame))
		return false;
	pacer->pending = false;
	pacer->emitted_any = true;
	pacer->last_slot = frame_clock_slot(pacer->clock, clock_now_ns());
	return true;
}

static bool hand_on_current(struct frame_pacer *pacer)
{
	struct frame frame;
	screen_get_frame(pacer->screen, &frame, pacer->pending_pts_ns);
	frame.damage_known = pacer->pending_damage.damage_known;
	frame.damage = pacer->pending_damage.damage;
	return hand_on(pacer, &frame);
}

static void arm_next_slot(struct frame_pacer *pacer)
{
	int64_t slot = frame_clock_slot(pacer->clock, clock_now_ns());
	precise_timer_arm_at(&pacer->timer, frame_clock_slot_start(pacer->clock, slot + 1));
}

static void handle_timer(void *data)
{
	struct frame_pacer *pacer = data;
	if (pacer->pending && !hand_on_current(pacer))
		arm_next_slot(pacer); /* refused: retry with whatever is newest then */
}

bool frame_pacer_init(struct frame_pacer *pacer, struct wl_event_loop *loop,
		      const struct frame_clock *clock, struct screen *screen,
		      bool (*consume)(void *data, const struct frame *frame), void *data)
{
	*pacer = (struct frame_pacer){
		.clock = clock,
		.screen = screen,
		.consume = consume,
		.data = data,
	};
	return precise_timer_init(&pacer->timer, loop, handle_timer, pacer);
}

void frame_pacer_finish(struct frame_pacer *pacer)
{
	precise_timer_finish(&pacer->timer);
}

void frame_pacer_offer(struct frame_pacer *pacer, const struct frame *frame)
{
	bool was_pending = pacer->pending;
	pacer->pending = true;
	pacer->pending_pts_ns = frame->pts_ns;
	if (was_pending) {
		/* The timer is armed and will take this newer picture, which
		 * differs from the last one handed on by both changes. */
		frame_damage_merge(&pacer->pending_damage, frame);
		return;
	}
	pacer->pending_damage.damage_known = frame->damage_known;
	pacer->pending_damage.damage = frame->damage;

	int64_t slot = frame_clock_slot(pacer->clock, clock_now_ns());
	/* In a new period: hand on this very frame, no copy of the screen. */
	if ((!pacer->emitted_any || slot > pacer->last_slot) && hand_on(pacer, frame))
		return;
	arm_next_slot(pacer);
}

bool frame_pacer_flush(struct frame_pacer *pacer)
{
	return !pacer->pending || hand_on_current(pacer);
}
