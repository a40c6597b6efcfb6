#define LOG_MODULE "pacer"
#include "frame_pacer.h"

#include "capture/screen.h"
#include "clock.h"
#include "log.h"

static bool emit_current(struct frame_pacer *pacer)
{
	struct frame frame;
	screen_get_frame(pacer->screen, &frame, pacer->pending_pts_ns);
	if (!pacer->consume(pacer->data, &frame))
		return false;
	pacer->pending = false;
	pacer->emitted_any = true;
	pacer->last_emit_ns = clock_now_ns();
	return true;
}

static void arm(struct frame_pacer *pacer)
{
	int64_t wait = pacer->last_emit_ns + pacer->period_ns - clock_now_ns();
	int ms = wait <= 0 ? 1 : (int)((wait + 999999) / 1000000);
	wl_event_source_timer_update(pacer->timer, ms);
}

static int handle_timer(void *data)
{
	struct frame_pacer *pacer = data;
	if (!pacer->pending)
		return 0;
	if (!emit_current(pacer)) {
		/* Refused: try again one period later with whatever is newest. */
		pacer->last_emit_ns = clock_now_ns();
		arm(pacer);
	}
	return 0;
}

bool frame_pacer_init(struct frame_pacer *pacer, struct wl_event_loop *loop,
		      struct screen *screen, double fps,
		      bool (*consume)(void *data, const struct frame *frame), void *data)
{
	*pacer = (struct frame_pacer){
		.period_ns = (int64_t)(1e9 / fps),
		.screen = screen,
		.consume = consume,
		.data = data,
	};
	pacer->timer = wl_event_loop_add_timer(loop, handle_timer, pacer);
	if (!pacer->timer) {
		LOG_ERR("cannot create the pacing timer");
		return false;
	}
	return true;
}

void frame_pacer_finish(struct frame_pacer *pacer)
{
	if (pacer->timer)
		wl_event_source_remove(pacer->timer);
	pacer->timer = NULL;
}

void frame_pacer_offer(struct frame_pacer *pacer, const struct frame *frame)
{
	bool was_pending = pacer->pending;
	pacer->pending = true;
	pacer->pending_pts_ns = frame->pts_ns;
	if (was_pending)
		return; /* the timer is armed and will take this newer picture */

	int64_t now = clock_now_ns();
	if (!pacer->emitted_any || now - pacer->last_emit_ns >= pacer->period_ns) {
		/* In time: hand on this very frame, no copy of the screen needed. */
		if (pacer->consume(pacer->data, frame)) {
			pacer->pending = false;
			pacer->emitted_any = true;
			pacer->last_emit_ns = now;
			return;
		}
		pacer->last_emit_ns = now;
		pacer->emitted_any = true;
	}
	arm(pacer);
}

bool frame_pacer_flush(struct frame_pacer *pacer)
{
	if (!pacer->pending)
		return true;
	return emit_current(pacer);
}
