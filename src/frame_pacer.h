#ifndef WLR_FRAME_PACER_H
#define WLR_FRAME_PACER_H

#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>

#include "frame.h"

struct screen;

/* Between the screen and a frame consumer: passes frames on at most once per
 * period. A frame that comes too soon, or that the consumer refuses (queue
 * full), is not lost: the newest picture is handed on at the next slot
 * instead, so the last picture before a stop always reaches the consumer. */
struct frame_pacer {
	int64_t period_ns;
	int64_t last_emit_ns;
	bool emitted_any;
	bool pending;            /* the screen has a picture not yet handed on */
	int64_t pending_pts_ns;  /* commit time of that picture */
	struct wl_event_source *timer;
	struct screen *screen;
	/* Returns false when the consumer could not take the frame now. */
	bool (*consume)(void *data, const struct frame *frame);
	void *data;
};

bool frame_pacer_init(struct frame_pacer *pacer, struct wl_event_loop *loop,
		      struct screen *screen, double fps,
		      bool (*consume)(void *data, const struct frame *frame), void *data);
void frame_pacer_finish(struct frame_pacer *pacer);

/* The screen changed at frame->pts_ns. */
void frame_pacer_offer(struct frame_pacer *pacer, const struct frame *frame);

/* Hands on a pending picture now, ignoring the rate (for the end of a
 * recording). Returns false when the consumer still refused it. */
bool frame_pacer_flush(struct frame_pacer *pacer);

#endif
