/* The desktop window's touch: points that go down on the picture are
 * passed on, with their motion and up; those that go down on the bars go
 * nowhere. */
#include <wayland-client.h>

#include "desktop_window_internal.h"
#include "input_event.h"
#include "window_fit.h"

static int32_t *find_touch_id(struct desktop_window *window, int32_t id)
{
	int32_t *slot;
	if (window->touch_ids.size == 0)
		return NULL;
	wl_array_for_each(slot, &window->touch_ids) {
		if (*slot == id)
			return slot;
	}
	return NULL;
}

static void forget_touch_id(struct desktop_window *window, int32_t *slot)
{
	int32_t *last = (int32_t *)((char *)window->touch_ids.data + window->touch_ids.size) - 1;
	*slot = *last;
	window->touch_ids.size -= sizeof(*slot);
}

static void send_touch(struct desktop_window *window, enum wl_record_input_type type,
		       uint32_t time, int32_t id, double x, double y)
{
	struct wl_record_input_event event = {
		.type = type, .time_ms = time, .touch_id = id, .x = x, .y = y,
	};
	window_input_send(window, &event);
	window->touch_frame_due = true;
}

static void handle_touch_down(void *data, struct wl_touch *touch, uint32_t serial, uint32_t time,
			      struct wl_surface *surface, int32_t id, wl_fixed_t sx, wl_fixed_t sy)
{
	struct desktop_window *window = data;
	window->input_serial = serial;
	double x, y;
	int32_t *slot = find_touch_id(window, id);
	if (slot) /* reused without an up */
		forget_touch_id(window, slot);
	if (surface != window->surface || !window_to_picture(window, sx, sy, &x, &y))
		return;
	slot = wl_array_add(&window->touch_ids, sizeof(*slot));
	if (!slot)
		return;
	*slot = id;
	send_touch(window, WL_RECORD_INPUT_TOUCH_DOWN, time, id, x, y);
}

static void handle_touch_up(void *data, struct wl_touch *touch, uint32_t serial, uint32_t time,
			    int32_t id)
{
	struct desktop_window *window = data;
	int32_t *slot = find_touch_id(window, id);
	if (!slot)
		return;
	forget_touch_id(window, slot);
	send_touch(window, WL_RECORD_INPUT_TOUCH_UP, time, id, 0, 0);
}

static void handle_touch_motion(void *data, struct wl_touch *touch, uint32_t time, int32_t id,
				wl_fixed_t sx, wl_fixed_t sy)
{
	struct desktop_window *window = data;
	if (!find_touch_id(window, id))
		return;
	/* Off the picture it still goes on: the hosted surface keeps it. */
	double x, y;
	window_to_picture(window, sx, sy, &x, &y);
	send_touch(window, WL_RECORD_INPUT_TOUCH_MOTION, time, id, x, y);
}

static void handle_touch_frame(void *data, struct wl_touch *touch)
{
	struct desktop_window *window = data;
	if (!window->touch_frame_due)
		return;
	window->touch_frame_due = false;
	window_input_send_type(window, WL_RECORD_INPUT_TOUCH_FRAME, 0);
}

static void touch_cancel(struct desktop_window *window)
{
	window->touch_frame_due = false;
	if (window->touch_ids.size == 0)
		return;
	window->touch_ids.size = 0;
	window_input_send_type(window, WL_RECORD_INPUT_TOUCH_CANCEL, 0);
}

static void handle_touch_cancel(void *data, struct wl_touch *touch)
{
	touch_cancel(data);
}

/* Recording units a window unit. */
static double picture_scale(const struct desktop_window *window)
{
	if (!window->scaled)
		return 1;
	struct window_fit fit = window_fit_picture(window->window_width, window->window_height,
						   window->picture_width, window->picture_height);
	return (double)window->picture_width / fit.width;
}

static void handle_touch_shape(void *data, struct wl_touch *touch, int32_t id, wl_fixed_t major,
			       wl_fixed_t minor)
{
	struct desktop_window *window = data;
	if (!find_touch_id(window, id))
		return;
	double scale = picture_scale(window);
	struct wl_record_input_event event = {
		.type = WL_RECORD_INPUT_TOUCH_SHAPE,
		.touch_id = id,
		.major = wl_fixed_to_double(major) * scale,
		.minor = wl_fixed_to_double(minor) * scale,
	};
	window_input_send(window, &event);
	window->touch_frame_due = true;
}

static void handle_touch_orientation(void *data, struct wl_touch *touch, int32_t id,
				     wl_fixed_t orientation)
{
	struct desktop_window *window = data;
	if (!find_touch_id(window, id))
		return;
	struct wl_record_input_event event = {
		.type = WL_RECORD_INPUT_TOUCH_ORIENTATION,
		.touch_id = id,
		.orientation = wl_fixed_to_double(orientation),
	};
	window_input_send(window, &event);
	window->touch_frame_due = true;
}

static const struct wl_touch_listener touch_listener = {
	.down = handle_touch_down,
	.up = handle_touch_up,
	.motion = handle_touch_motion,
	.frame = handle_touch_frame,
	.cancel = handle_touch_cancel,
	.shape = handle_touch_shape,
	.orientation = handle_touch_orientation,
};
static void release_touch(struct desktop_window *window)
{
	if (!window->touch)
		return;
	if (window->seat_version >= WL_TOUCH_RELEASE_SINCE_VERSION)
		wl_touch_release(window->touch);
	else
		wl_touch_destroy(window->touch);
	window->touch = NULL;
}

void window_touch_send_capability(struct desktop_window *window)
{
	struct wl_record_input_event event = {
		.type = WL_RECORD_INPUT_TOUCH_CAPABILITY,
		.has_touch = window->touch != NULL,
	};
	window_input_send(window, &event);
}

void window_touch_capability(struct desktop_window *window, struct wl_seat *seat,
			     bool has_touch)
{
	if (has_touch && !window->touch) {
		window->touch = wl_seat_get_touch(seat);
		wl_touch_add_listener(window->touch, &touch_listener, window);
		window_touch_send_capability(window);
	} else if (!has_touch && window->touch) {
		release_touch(window);
		touch_cancel(window);
		window_touch_send_capability(window);
	}
}

void window_touch_finish(struct desktop_window *window)
{
	release_touch(window);
	wl_array_release(&window->touch_ids);
}
