#ifndef WLR_FRAME_CLOCK_H
#define WLR_FRAME_CLOCK_H

#include <stdint.h>
#include <wayland-server-core.h>

/* Answers wl_surface.frame callbacks on wl-record's own clock at a fixed
 * rate, like a display's vblank: clients are paced to --fps whatever the
 * encoder does. */
struct frame_clock {
	struct wl_event_source *timer;
	struct wl_list callbacks; /* wl_callback resource links */
	int64_t period_ns;
	int64_t last_tick_ns;
	bool armed;
};

bool frame_clock_init(struct frame_clock *clock, struct wl_event_loop *loop, double fps);
void frame_clock_finish(struct frame_clock *clock);

/* Takes over the wl_callback resources of `list` (emptying it). */
void frame_clock_schedule(struct frame_clock *clock, struct wl_list *list);

#endif
