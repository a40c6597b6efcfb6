#ifndef WL_RECORD_FRAME_CLOCK_H
#define WL_RECORD_FRAME_CLOCK_H

#include <stdint.h>
#include <wayland-server-core.h>

#include "frame_grid.h"
#include "precise_timer.h"

/* Answers wl_surface.frame callbacks on wl-record's own clock, like a
 * display's vblank: ticks fall on a fixed grid origin + k * period, so
 * clients are paced to exactly --fps whatever the encoder does. */
struct frame_clock {
	struct precise_timer timer;
	struct wl_list callbacks; /* wl_callback resource links */
	struct frame_grid grid;
	bool armed;
};

bool frame_clock_init(struct frame_clock *clock, struct wl_event_loop *loop, double fps);
void frame_clock_finish(struct frame_clock *clock);

/* Takes over the wl_callback resources of `list` (emptying it). */
void frame_clock_schedule(struct frame_clock *clock, struct wl_list *list);

#endif
