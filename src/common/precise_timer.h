#ifndef WL_RECORD_PRECISE_TIMER_H
#define WL_RECORD_PRECISE_TIMER_H

#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>

/* A one-shot timer on CLOCK_MONOTONIC with nanosecond deadlines. The event
 * loop's own timers count whole milliseconds, which turns a 16.67 ms frame
 * period into 17 ms (58.8 Hz instead of 60). */
struct precise_timer {
	int fd;
	struct wl_event_source *source;
	void (*fire)(void *data);
	void *data;
};

bool precise_timer_init(struct precise_timer *timer, struct wl_event_loop *loop,
			void (*fire)(void *data), void *data);
void precise_timer_finish(struct precise_timer *timer);

/* Fires once at `deadline_ns` (CLOCK_MONOTONIC), or at once if it is past. */
void precise_timer_arm_at(struct precise_timer *timer, int64_t deadline_ns);

#endif
