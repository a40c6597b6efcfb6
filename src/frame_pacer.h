#ifndef WL_RECORD_FRAME_PACER_H
#define WL_RECORD_FRAME_PACER_H

#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>

#include "frame.h"
#include "precise_timer.h"

struct screen;
struct frame_clock;

/* Between the screen and a frame consumer: passes on at most one frame per
 * period of the frame clock's grid (the --fps cap). A frame that comes too
 * soon, or that the consumer refuses (queue full), is not lost: the newest
 * picture is handed on at the next period instead, so the last picture before
 * a stop always reaches the consumer. */
struct frame_pacer {
	const struct frame_clock *clock;
	struct screen *screen;
	struct precise_timer timer;
	int64_t last_slot;       /* grid period of the last frame handed on */
	bool emitted_any;
	bool pending;            /* the screen has a picture not yet handed on */
	int64_t pending_pts_ns;  /* commit time of that picture */
	struct frame pending_damage; /* what changed since the last frame handed on */
	/* Returns false when the consumer could not take the frame now. */
	bool (*consume)(void *data, const struct frame *frame);
	void *data;
};

bool frame_pacer_init(struct frame_pacer *pacer, struct wl_event_loop *loop,
		      const struct frame_clock *clock, struct screen *screen,
		      bool (*consume)(void *data, const struct frame *frame), void *data);
void frame_pacer_finish(struct frame_pacer *pacer);

/* The screen changed at frame->pts_ns. */
void frame_pacer_offer(struct frame_pacer *pacer, const struct frame *frame);

/* Hands on a pending picture now, ignoring the rate (for the end of a
 * recording). Returns false when the consumer still refused it. */
bool frame_pacer_flush(struct frame_pacer *pacer);

#endif
