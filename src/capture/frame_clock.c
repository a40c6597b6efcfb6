#define LOG_MODULE "capture"
#include "frame_clock.h"

#include <wayland-server-protocol.h>

#include "clock.h"
#include "log.h"

static int handle_tick(void *data)
{
	struct frame_clock *clock = data;
	int64_t now = clock_now_ns();
	clock->armed = false;
	clock->last_tick_ns = now;

	/* Detach the list first: a client may ask for a new callback from
	 * within the done handler only after it reads it, but destroying a
	 * resource must not touch a list we are walking. */
	struct wl_list due;
	wl_list_init(&due);
	wl_list_insert_list(&due, &clock->callbacks);
	wl_list_init(&clock->callbacks);

	struct wl_resource *callback, *tmp;
	wl_resource_for_each_safe(callback, tmp, &due) {
		wl_callback_send_done(callback, (uint32_t)(now / 1000000));
		wl_resource_destroy(callback);
	}
	return 0;
}

bool frame_clock_init(struct frame_clock *clock, struct wl_event_loop *loop, double fps)
{
	*clock = (struct frame_clock){ .period_ns = (int64_t)(1e9 / fps) };
	wl_list_init(&clock->callbacks);
	clock->timer = wl_event_loop_add_timer(loop, handle_tick, clock);
	if (!clock->timer) {
		LOG_ERR("cannot create the frame clock timer");
		return false;
	}
	return true;
}

void frame_clock_finish(struct frame_clock *clock)
{
	if (clock->timer)
		wl_event_source_remove(clock->timer);
	clock->timer = NULL;
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

	/* Next tick on the fixed grid; an idle clock ticks at once. */
	int64_t now = clock_now_ns();
	int64_t due = clock->last_tick_ns + clock->period_ns - now;
	int ms = due <= 0 ? 1 : (int)((due + 999999) / 1000000);
	wl_event_source_timer_update(clock->timer, ms);
	clock->armed = true;
}
