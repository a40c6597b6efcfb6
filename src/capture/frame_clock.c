#define LOG_MODULE "capture"
#include "frame_clock.h"

#include <wayland-server-protocol.h>

#include "clock.h"
#include "frame.h"
#include "log.h"

static void handle_tick(void *data)
{
	struct frame_clock *clock = data;
	int64_t now = clock_now_ns();
	clock->armed = false;

	/* Detach the list first: destroying a resource must not touch a list
	 * we are walking. */
	struct wl_list due;
	wl_list_init(&due);
	wl_list_insert_list(&due, &clock->callbacks);
	wl_list_init(&clock->callbacks);

	struct wl_resource *callback, *tmp;
	wl_resource_for_each_safe(callback, tmp, &due) {
		wl_callback_send_done(callback, (uint32_t)(now / 1000000));
		wl_resource_destroy(callback);
	}
}

bool frame_clock_init(struct frame_clock *clock, struct wl_event_loop *loop, double fps)
{
	*clock = (struct frame_clock){
		.grid = { .origin_ns = clock_now_ns(),
			  .period_ns = (int64_t)(1e9 / (fps > 0 ? fps : WL_RECORD_DEFAULT_FPS)) },
	};
	wl_list_init(&clock->callbacks);
	return precise_timer_init(&clock->timer, loop, handle_tick, clock);
}

void frame_clock_finish(struct frame_clock *clock)
{
	precise_timer_finish(&clock->timer);
	/* Remaining callbacks are destroyed with their clients; unlink them so
	 * their destructors do not touch a dead list head. */
	struct wl_resource *callback, *tmp;
	wl_resource_for_each_safe(callback, tmp, &clock->callbacks) {
		wl_list_remove(wl_resource_get_link(callback));
		wl_list_init(wl_resource_get_link(callback));
	}
}

void frame_clock_schedule(struct frame_clock *clock, struct wl_list *list)
{
	if (wl_list_empty(list))
		return;
	wl_list_insert_list(clock->callbacks.prev, list);
	wl_list_init(list);
	if (clock->armed)
		return;
	/* The next grid tick. */
	int64_t now = clock_now_ns();
	precise_timer_arm_at(&clock->timer,
			     frame_grid_slot_start(&clock->grid, frame_grid_slot(&clock->grid, now) + 1));
	clock->armed = true;
}
