#define LOG_MODULE "capture"
#include "seat.h"

#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wayland-server-protocol.h>

#include "clock.h"
#include "drag.h"
#include "log.h"
#include "selection.h"
#include "server.h"
#include "surface.h"
#include "tracked_surface.h"
#include "xdg_shell.h"

#define SEAT_VERSION 8

/* Where a surface was on the screen when the pointer or a finger came to
 * it: kept so that a point that leaves it (a drag, a finger moving off)
 * still gets surface coordinates. Surface-local = (screen - origin) *
 * scale; the scale is not 1 on a zoomed presented surface. */
struct surface_anchor {
	double origin_x, origin_y, scale_x, scale_y;
};

static struct surface_anchor anchor_at(double x, double y, const struct screen_hit *hit)
{
	return (struct surface_anchor){
		.origin_x = x - hit->sx / hit->scale_x,
		.origin_y = y - hit->sy / hit->scale_y,
		.scale_x = hit->scale_x,
		.scale_y = hit->scale_y,
	};
}

static void anchor_local(const struct surface_anchor *anchor, double x, double y, wl_fixed_t *sx,
			 wl_fixed_t *sy)
{
	*sx = wl_fixed_from_double((x - anchor->origin_x) * anchor->scale_x);
	*sy = wl_fixed_from_double((y - anchor->origin_y) * anchor->scale_y);
}

/* One finger on the picture, with the surface it went down on: that
 * surface gets it until it lifts, wherever it moves. */
struct touch_point {
	struct wl_list link; /* seat.touch_points */
	int32_t id;
	struct tracked_surface surface; /* NULL: the surface went */
	struct surface_anchor anchor;   /* fixed at the down */
	bool lifted; /* up sent; kept until the frame so that it gets one */
};

struct seat {
	struct server *server;
	struct wl_global *global;
	bool input;
	bool touch; /* the desktop's seat has touch */
	/* Resource links of every wl_seat, wl_pointer, wl_keyboard, wl_touch. */
	struct wl_list seats, pointers, keyboards, touches;
	struct wl_list touch_points;

	double x, y;
	bool pointer_in_window; /* x,y hold where it is */
	struct tracked_surface pointer_focus;
	struct tracked_surface pointer_root; /* root of the focus's view */
	struct surface_anchor focus_anchor; /* to follow a drag off the focus */
	int buttons_down; /* the focus stays while any is down */
	uint32_t press_serial; /* of the last button press sent */
	struct drag *drag;     /* drag and drop: the pointer is its while active */
	/* Scrolling, per axis: what came in this pointer frame, sent with the
	 * frame (the desktop's order of axis and value120 is not fixed), and
	 * the wheel steps summed for clients before wl_seat 8, which get whole
	 * steps only (reset when the direction turns or the focus goes to
	 * another client). */
	struct {
		bool pending;
		uint32_t time_ms;
		double value;
		int32_t value120; /* discrete steps * 120 from a wl_seat 5-7 desktop */
		int32_t sum120;
		double sum_value;
	} axes[2];

	bool keyboard_on_window;
	struct tracked_surface keyboard_focus;
	struct tracked_surface clicked; /* root of the toplevel last clicked */
	struct tracked_surface last_top; /* what screen_top_surface was */
	struct wl_array keys;
	uint32_t mods_depressed, mods_latched, mods_locked, group;
	int keymap_fd;
	uint32_t keymap_format, keymap_size;
	bool have_repeat;
	int32_t repeat_rate, repeat_delay;
	struct wl_listener stack_changed;

	struct tracked_surface cursor;
	int cursor_hotspot_x, cursor_hotspot_y;
	struct wl_listener cursor_commit;
	seat_cursor_fn cursor_fn;
	void *cursor_data;
};

static struct wl_client *surface_client(const struct surface *surface)
{
	return surface ? wl_resource_get_client(surface->resource) : NULL;
}

static uint32_t next_serial(struct seat *seat)
{
	return wl_display_next_serial(seat->server->display);
}

#define for_each_of_client(resource, list, client)                                   \
	wl_resource_for_each(resource, list)                                          \
		if (wl_resource_get_client(resource) == (client))

/* ---- pointer ---- */

static void forget_cursor(struct seat *seat)
{
	wl_list_remove(&seat->cursor_commit.link);
	wl_list_init(&seat->cursor_commit.link);
	tracked_surface_set(&seat->cursor, NULL);
}

/* --cursor: the image the pointer's client set, drawn where the pointer is
 * (the screen draws none unless asked to). */
static void place_screen_cursor(struct seat *seat)
{
	struct surface *cursor = seat->pointer_in_window ? seat->cursor.surface : NULL;
	screen_set_cursor(&seat->server->screen, cursor,
			  (int)floor(seat->x) - seat->cursor_hotspot_x,
			  (int)floor(seat->y) - seat->cursor_hotspot_y, clock_now_ns());
}

static void pointer_frame(struct seat *seat, struct wl_client *client)
{
	struct wl_resource *resource;
	for_each_of_client(resource, &seat->pointers, client) {
		if (wl_resource_get_version(resource) >= WL_POINTER_FRAME_SINCE_VERSION)
			wl_pointer_send_frame(resource);
	}
}

static void send_pointer_enter(struct seat *seat, struct wl_resource *resource)
{
	struct surface *focus = seat->pointer_focus.surface;
	wl_fixed_t sx, sy;
	anchor_local(&seat->focus_anchor, seat->x, seat->y, &sx, &sy);
	wl_pointer_send_enter(resource, next_serial(seat), focus->resource, sx, sy);
}

static void set_pointer_focus(struct seat *seat, const struct screen_hit *hit)
{
	struct surface *old = seat->pointer_focus.surface;
	struct surface *new = hit ? hit->surface : NULL;
	if (new)
		seat->focus_anchor = anchor_at(seat->x, seat->y, hit);
	struct wl_resource *resource;
	if (old == new) {
		if (!new)
			return;
		for_each_of_client(resource, &seat->pointers, surface_client(new)) {
			wl_pointer_send_motion(resource, 0, wl_fixed_from_double(hit->sx),
					       wl_fixed_from_double(hit->sy));
		}
		return;
	}
	if (old) {
		uint32_t serial = next_serial(seat);
		for_each_of_client(resource, &seat->pointers, surface_client(old))
			wl_pointer_send_leave(resource, serial, old->resource);
		pointer_frame(seat, surface_client(old));
	}
	tracked_surface_set(&seat->pointer_focus, new);
	tracked_surface_set(&seat->pointer_root, hit && hit->view ? hit->view->root : new);
	if (surface_client(old) != surface_client(new)) {
		/* Another client's pointer: its image, once it sets one, and
		 * its own wheel sums. */
		for (int axis = 0; axis < 2; axis++)
			seat->axes[axis].sum120 = 0, seat->axes[axis].sum_value = 0;
		forget_cursor(seat);
		if (seat->cursor_fn)
			seat->cursor_fn(seat->cursor_data, NULL);
	}
	if (!new)
		return;
	for_each_of_client(resource, &seat->pointers, surface_client(new))
		send_pointer_enter(seat, resource);
}

/* The pointer is at seat->x,y: focus what is under it. */
static void pointer_rebase(struct seat *seat, uint32_t time)
{
	if (drag_active(seat->drag)) {
		drag_motion(seat->drag, seat->x, seat->y, time);
		place_screen_cursor(seat);
		return;
	}
	struct surface *focus = seat->pointer_focus.surface;
	if (seat->buttons_down > 0 && focus) {
		/* The implicit grab: a drag stays with the surface it began on. */
		struct wl_resource *resource;
		wl_fixed_t sx, sy;
		anchor_local(&seat->focus_anchor, seat->x, seat->y, &sx, &sy);
		for_each_of_client(resource, &seat->pointers, surface_client(focus))
			wl_pointer_send_motion(resource, time, sx, sy);
		place_screen_cursor(seat);
		return;
	}
	struct screen_hit hit;
	if (!screen_surface_at(&seat->server->screen, seat->x, seat->y, &hit))
		hit.surface = NULL;
	/* A popup grab keeps the pointer within its client. */
	struct surface *grab = xdg_shell_grab_surface(seat->server->xdg_shell);
	if (grab && hit.surface && surface_client(hit.surface) != surface_client(grab))
		hit.surface = NULL;
	set_pointer_focus(seat, hit.surface ? &hit : NULL);
	place_screen_cursor(seat);
}

/* ---- keyboard ---- */

static void send_keyboard_enter(struct seat *seat, struct wl_resource *resource, uint32_t serial)
{
	wl_keyboard_send_enter(resource, serial, seat->keyboard_focus.surface->resource,
			       &seat->keys);
	wl_keyboard_send_modifiers(resource, serial, seat->mods_depressed, seat->mods_latched,
				   seat->mods_locked, seat->group);
}

static void update_keyboard_focus(struct seat *seat)
{
	if (!seat->input)
		return;
	struct surface *top = screen_top_surface(&seat->server->screen);
	if (top != seat->last_top.surface) {
		/* A toplevel newly on top (mapped) wins over the last click. */
		tracked_surface_set(&seat->last_top, top);
		if (top)
			tracked_surface_set(&seat->clicked, NULL);
	}
	struct surface *target = xdg_shell_grab_surface(seat->server->xdg_shell);
	if (!target)
		target = seat->clicked.surface && seat->clicked.surface->mapped
			 ? seat->clicked.surface : top;
	if (!seat->keyboard_on_window)
		target = NULL;
	struct surface *old = seat->keyboard_focus.surface;
	if (target == old)
		return;
	struct wl_resource *resource;
	uint32_t serial = next_serial(seat);
	if (old) {
		for_each_of_client(resource, &seat->keyboards, surface_client(old))
			wl_keyboard_send_leave(resource, serial, old->resource);
	}
	tracked_surface_set(&seat->keyboard_focus, target);
	if (target) {
		for_each_of_client(resource, &seat->keyboards, surface_client(target))
			send_keyboard_enter(seat, resource, serial);
	}
	/* The selection follows the keyboard. */
	if (surface_client(old) != surface_client(target)) {
		selection_keyboard_focus_changed(seat->server->data_device);
		selection_keyboard_focus_changed(seat->server->primary_selection);
	}
}

static void handle_stack_changed(struct wl_listener *listener, void *data)
{
	struct seat *seat = wl_container_of(listener, seat, stack_changed);
	update_keyboard_focus(seat);
	/* What is under a still pointer may have changed (a menu opened
	 * under it, a window went). */
	if (seat->input && seat->pointer_in_window && seat->buttons_down == 0) {
		struct screen_hit hit;
		if (!screen_surface_at(&seat->server->screen, seat->x, seat->y, &hit))
			hit.surface = NULL;
		struct surface *focus = seat->pointer_focus.surface;
		if (hit.surface != focus) {
			pointer_rebase(seat, 0);
			pointer_frame(seat, surface_client(seat->pointer_focus.surface));
		}
	}
}

static void send_keymap(struct seat *seat, struct wl_resource *resource)
{
	if (seat->keymap_fd >= 0)
		wl_keyboard_send_keymap(resource, seat->keymap_format, seat->keymap_fd,
					seat->keymap_size);
	if (seat->have_repeat &&
	    wl_resource_get_version(resource) >= WL_KEYBOARD_REPEAT_INFO_SINCE_VERSION)
		wl_keyboard_send_repeat_info(resource, seat->repeat_rate, seat->repeat_delay);
}

static void note_key(struct seat *seat, uint32_t key, bool pressed)
{
	uint32_t *k;
	/* Not over an empty array: its data is NULL, and NULL + 0 is
	 * undefined (clang's UBSan says so). */
	if (seat->keys.size > 0) {
		wl_array_for_each(k, &seat->keys) {
			if (*k == key) {
				if (!pressed) {
					/* Removed by moving the last one here. */
					uint32_t *last = (uint32_t *)((char *)seat->keys.data +
								      seat->keys.size) - 1;
					*k = *last;
					seat->keys.size -= sizeof(uint32_t);
				}
				return;
			}
		}
	}
	if (pressed) {
		uint32_t *slot = wl_array_add(&seat->keys, sizeof(*slot));
		if (slot)
			*slot = key;
	}
}

/* ---- touch ---- */

static struct touch_point *find_touch(struct seat *seat, int32_t id)
{
	struct touch_point *point;
	wl_list_for_each(point, &seat->touch_points, link) {
		if (point->id == id && !point->lifted)
			return point;
	}
	return NULL;
}

static void touch_point_free(struct touch_point *point)
{
	tracked_surface_set(&point->surface, NULL);
	wl_list_remove(&point->link);
	free(point);
}

static void touch_down(struct seat *seat, const struct wl_record_input_event *event)
{
	struct touch_point *point = find_touch(seat, event->touch_id);
	if (point) /* the desktop reused an id without an up: a new touch */
		touch_point_free(point);
	struct screen_hit hit;
	if (!screen_surface_at(&seat->server->screen, event->x, event->y, &hit))
		hit.surface = NULL;
	struct surface *grab = xdg_shell_grab_surface(seat->server->xdg_shell);
	if (grab && surface_client(hit.surface) != surface_client(grab)) {
		/* Like a click outside the grabbing client: the grab ends and
		 * the touch goes nowhere. */
		xdg_shell_dismiss_grab(seat->server->xdg_shell);
		return;
	}
	if (!hit.surface)
		return;
	point = calloc(1, sizeof(*point));
	if (!point) {
		LOG_ERR("cannot allocate a touch point");
		return;
	}
	point->id = event->touch_id;
	tracked_surface_init(&point->surface, NULL);
	tracked_surface_set(&point->surface, hit.surface);
	point->anchor = anchor_at(event->x, event->y, &hit);
	wl_list_insert(seat->touch_points.prev, &point->link);
	/* A touch on a toplevel gives it the keyboard, as a click does. */
	if (!grab)
		tracked_surface_set(&seat->clicked, hit.view ? hit.view->root : hit.surface);
	uint32_t serial = next_serial(seat);
	wl_fixed_t sx, sy;
	anchor_local(&point->anchor, event->x, event->y, &sx, &sy);
	struct wl_resource *resource;
	for_each_of_client(resource, &seat->touches, surface_client(hit.surface))
		wl_touch_send_down(resource, serial, event->time_ms, hit.surface->resource,
				   event->touch_id, sx, sy);
}

/* Calls fn once for each client that has a touch point on a surface. */
static void for_each_touched_client(struct seat *seat,
				    void (*fn)(struct seat *seat, struct wl_client *client))
{
	struct touch_point *point, *earlier;
	wl_list_for_each(point, &seat->touch_points, link) {
		struct wl_client *client = surface_client(point->surface.surface);
		if (!client)
			continue;
		bool told = false;
		wl_list_for_each(earlier, &seat->touch_points, link) {
			if (earlier == point)
				break;
			if (surface_client(earlier->surface.surface) == client)
				told = true;
		}
		if (!told)
			fn(seat, client);
	}
}

static void send_touch_frame(struct seat *seat, struct wl_client *client)
{
	struct wl_resource *resource;
	for_each_of_client(resource, &seat->touches, client)
		wl_touch_send_frame(resource);
}

static void send_touch_cancel(struct seat *seat, struct wl_client *client)
{
	struct wl_resource *resource;
	for_each_of_client(resource, &seat->touches, client)
		wl_touch_send_cancel(resource);
}

static void forget_touch_points(struct seat *seat)
{
	struct touch_point *point, *tmp;
	wl_list_for_each_safe(point, tmp, &seat->touch_points, link)
		touch_point_free(point);
}

static void touch_event(struct seat *seat, const struct wl_record_input_event *event)
{
	struct touch_point *point, *tmp;
	struct wl_resource *resource;
	switch (event->type) {
	case WL_RECORD_INPUT_TOUCH_DOWN:
		touch_down(seat, event);
		return;
	case WL_RECORD_INPUT_TOUCH_MOTION: {
		point = find_touch(seat, event->touch_id);
		if (!point || !point->surface.surface)
			return;
		wl_fixed_t sx, sy;
		anchor_local(&point->anchor, event->x, event->y, &sx, &sy);
		for_each_of_client(resource, &seat->touches, surface_client(point->surface.surface))
			wl_touch_send_motion(resource, event->time_ms, point->id, sx, sy);
		return;
	}
	case WL_RECORD_INPUT_TOUCH_UP: {
		point = find_touch(seat, event->touch_id);
		if (!point)
			return;
		if (!point->surface.surface) {
			touch_point_free(point);
			return;
		}
		uint32_t serial = next_serial(seat);
		for_each_of_client(resource, &seat->touches, surface_client(point->surface.surface))
			wl_touch_send_up(resource, serial, event->time_ms, point->id);
		point->lifted = true;
		return;
	}
	case WL_RECORD_INPUT_TOUCH_FRAME:
		for_each_touched_client(seat, send_touch_frame);
		wl_list_for_each_safe(point, tmp, &seat->touch_points, link) {
			if (point->lifted)
				touch_point_free(point);
		}
		return;
	case WL_RECORD_INPUT_TOUCH_CANCEL:
		for_each_touched_client(seat, send_touch_cancel);
		forget_touch_points(seat);
		return;
	case WL_RECORD_INPUT_TOUCH_SHAPE:
	case WL_RECORD_INPUT_TOUCH_ORIENTATION:
		point = find_touch(seat, event->touch_id);
		if (!point)
			return;
		for_each_of_client(resource, &seat->touches, surface_client(point->surface.surface)) {
			if (wl_resource_get_version(resource) < WL_TOUCH_SHAPE_SINCE_VERSION)
				continue;
			/* Surface units; an ellipse stays one only unstretched:
			 * the mean of the two scales. */
			double scale = (point->anchor.scale_x + point->anchor.scale_y) / 2;
			if (event->type == WL_RECORD_INPUT_TOUCH_SHAPE)
				wl_touch_send_shape(resource, point->id,
						    wl_fixed_from_double(event->major * scale),
						    wl_fixed_from_double(event->minor * scale));
			else
				wl_touch_send_orientation(resource, point->id,
							  wl_fixed_from_double(event->orientation));
		}
		return;
	default:
		return;
	}
}

/* ---- events from the desktop window ---- */

/* The axis events of a frame, with its wheel steps: clients of wl_seat 8
 * get them as axis_value120 (never axis_discrete), older ones as
 * axis_discrete once they make a whole step, the axis value summed with
 * them (nothing at all until then, as wlroots does). */
static void send_axis(struct seat *seat, struct wl_client *client, uint32_t axis)
{
	struct wl_resource *resource;
	uint32_t time_ms = seat->axes[axis].time_ms;
	double value = seat->axes[axis].value;
	int32_t value120 = seat->axes[axis].value120;
	if (value120 == 0) {
		for_each_of_client(resource, &seat->pointers, client)
			wl_pointer_send_axis(resource, time_ms, axis, wl_fixed_from_double(value));
		return;
	}
	int32_t *sum120 = &seat->axes[axis].sum120;
	double *sum_value = &seat->axes[axis].sum_value;
	if ((value120 > 0 && *sum120 < 0) || (value120 < 0 && *sum120 > 0))
		*sum120 = 0, *sum_value = 0;
	*sum120 += value120;
	*sum_value += value;
	int32_t steps = *sum120 / 120;
	double steps_value = 0;
	if (steps != 0) {
		*sum120 -= steps * 120;
		steps_value = *sum_value;
		*sum_value = 0;
	}
	for_each_of_client(resource, &seat->pointers, client) {
		uint32_t version = wl_resource_get_version(resource);
		if (version >= WL_POINTER_AXIS_VALUE120_SINCE_VERSION) {
			wl_pointer_send_axis_value120(resource, axis, value120);
			wl_pointer_send_axis(resource, time_ms, axis, wl_fixed_from_double(value));
		} else if (steps != 0) {
			if (version >= WL_POINTER_AXIS_DISCRETE_SINCE_VERSION)
				wl_pointer_send_axis_discrete(resource, axis, steps);
			wl_pointer_send_axis(resource, time_ms, axis,
					     wl_fixed_from_double(steps_value));
		}
	}
}

/* The frame's axis events (a wheel step without one is dropped), then the
 * frame. */
static void end_pointer_frame(struct seat *seat, struct wl_client *client)
{
	for (uint32_t axis = 0; axis < 2; axis++) {
		if (seat->axes[axis].pending)
			send_axis(seat, client, axis);
		seat->axes[axis].pending = false;
		seat->axes[axis].value = 0;
		seat->axes[axis].value120 = 0;
	}
	pointer_frame(seat, client);
}

static void pointer_event(struct seat *seat, const struct wl_record_input_event *event)
{
	struct surface *focus = seat->pointer_focus.surface;
	struct wl_client *client = surface_client(focus);
	struct wl_resource *resource;
	switch (event->type) {
	case WL_RECORD_INPUT_POINTER_BUTTON: {
		if (drag_active(seat->drag)) {
			/* The drag has the pointer: releasing the last button drops. */
			if (event->pressed)
				seat->buttons_down++;
			else if (seat->buttons_down > 0 && --seat->buttons_down == 0)
				drag_drop(seat->drag);
			if (seat->buttons_down == 0)
				pointer_rebase(seat, event->time_ms);
			return;
		}
		if (event->pressed) {
			struct surface *grab = xdg_shell_grab_surface(seat->server->xdg_shell);
			if (grab && client != surface_client(grab)) {
				/* A click outside the grabbing client ends the
				 * grab; the click itself goes nowhere. */
				xdg_shell_dismiss_grab(seat->server->xdg_shell);
				pointer_rebase(seat, event->time_ms);
				update_keyboard_focus(seat);
				return;
			}
			seat->buttons_down++;
			if (seat->pointer_root.surface && !grab) {
				tracked_surface_set(&seat->clicked, seat->pointer_root.surface);
				screen_raise_view(&seat->server->screen, seat->pointer_root.surface,
						  clock_now_ns());
				update_keyboard_focus(seat);
			}
		} else if (seat->buttons_down > 0) {
			seat->buttons_down--;
		}
		if (client) {
			uint32_t serial = next_serial(seat);
			if (event->pressed)
				seat->press_serial = serial;
			for_each_of_client(resource, &seat->pointers, client) {
				wl_pointer_send_button(resource, serial, event->time_ms,
						       event->button,
						       event->pressed ? WL_POINTER_BUTTON_STATE_PRESSED
								      : WL_POINTER_BUTTON_STATE_RELEASED);
			}
		}
		if (!event->pressed && seat->buttons_down == 0)
			pointer_rebase(seat, event->time_ms);
		return;
	}
	case WL_RECORD_INPUT_POINTER_AXIS:
		if (event->axis < 2) {
			seat->axes[event->axis].pending = true;
			seat->axes[event->axis].time_ms = event->time_ms;
			seat->axes[event->axis].value += event->value;
		}
		return;
	case WL_RECORD_INPUT_POINTER_AXIS_SOURCE:
		for_each_of_client(resource, &seat->pointers, client) {
			if (wl_resource_get_version(resource) >= WL_POINTER_AXIS_SOURCE_SINCE_VERSION)
				wl_pointer_send_axis_source(resource, event->axis_source);
		}
		return;
	case WL_RECORD_INPUT_POINTER_AXIS_STOP:
		for_each_of_client(resource, &seat->pointers, client) {
			if (wl_resource_get_version(resource) >= WL_POINTER_AXIS_STOP_SINCE_VERSION)
				wl_pointer_send_axis_stop(resource, event->time_ms, event->axis);
		}
		return;
	case WL_RECORD_INPUT_POINTER_AXIS_DISCRETE:
	case WL_RECORD_INPUT_POINTER_AXIS_VALUE120:
		if (event->axis < 2) {
			int32_t value120 = event->type == WL_RECORD_INPUT_POINTER_AXIS_VALUE120
					   ? event->value120 : event->discrete * 120;
			seat->axes[event->axis].value120 += value120;
		}
		return;
	case WL_RECORD_INPUT_POINTER_FRAME:
		end_pointer_frame(seat, client);
		return;
	default:
		return;
	}
}

static void send_capabilities(struct seat *seat);

void seat_handle_input(struct seat *seat, const struct wl_record_input_event *event)
{
	if (event->type == WL_RECORD_INPUT_TOUCH_CAPABILITY) {
		/* Kept before input is on: the window tells it first. */
		if (seat->touch == event->has_touch)
			return;
		seat->touch = event->has_touch;
		if (!seat->touch) {
			for_each_touched_client(seat, send_touch_cancel);
			forget_touch_points(seat);
		}
		if (seat->input)
			send_capabilities(seat);
		return;
	}
	if (!seat->input)
		return;
	struct wl_client *client = surface_client(seat->keyboard_focus.surface);
	struct wl_resource *resource;
	switch (event->type) {
	case WL_RECORD_INPUT_POINTER_MOTION:
		seat->x = event->x;
		seat->y = event->y;
		seat->pointer_in_window = true;
		pointer_rebase(seat, event->time_ms);
		break;
	case WL_RECORD_INPUT_POINTER_LEAVE:
		/* Nothing is dragged across the window. */
		drag_cancel(seat->drag);
		seat->pointer_in_window = false;
		seat->buttons_down = 0;
		set_pointer_focus(seat, NULL);
		place_screen_cursor(seat);
		break;
	case WL_RECORD_INPUT_KEYBOARD_KEYMAP:
		if (seat->keymap_fd >= 0)
			close(seat->keymap_fd);
		seat->keymap_fd = fcntl(event->keymap_fd, F_DUPFD_CLOEXEC, 0);
		seat->keymap_format = event->keymap_format;
		seat->keymap_size = event->keymap_size;
		wl_resource_for_each(resource, &seat->keyboards)
			send_keymap(seat, resource);
		break;
	case WL_RECORD_INPUT_KEYBOARD_REPEAT:
		seat->have_repeat = true;
		seat->repeat_rate = event->repeat_rate;
		seat->repeat_delay = event->repeat_delay;
		wl_resource_for_each(resource, &seat->keyboards) {
			if (wl_resource_get_version(resource) >= WL_KEYBOARD_REPEAT_INFO_SINCE_VERSION)
				wl_keyboard_send_repeat_info(resource, seat->repeat_rate,
							     seat->repeat_delay);
		}
		break;
	case WL_RECORD_INPUT_KEYBOARD_ENTER:
		seat->keys.size = 0;
		for (size_t i = 0; i < event->key_count; i++)
			note_key(seat, event->keys[i], true);
		seat->keyboard_on_window = true;
		break;
	case WL_RECORD_INPUT_KEYBOARD_LEAVE:
		drag_cancel(seat->drag);
		seat->keys.size = 0;
		seat->keyboard_on_window = false;
		break;
	case WL_RECORD_INPUT_KEYBOARD_KEY:
		note_key(seat, event->key, event->pressed);
		update_keyboard_focus(seat);
		client = surface_client(seat->keyboard_focus.surface);
		if (client) {
			uint32_t serial = next_serial(seat);
			for_each_of_client(resource, &seat->keyboards, client) {
				wl_keyboard_send_key(resource, serial, event->time_ms, event->key,
						     event->pressed ? WL_KEYBOARD_KEY_STATE_PRESSED
								    : WL_KEYBOARD_KEY_STATE_RELEASED);
			}
		}
		return;
	case WL_RECORD_INPUT_KEYBOARD_MODIFIERS:
		seat->mods_depressed = event->mods_depressed;
		seat->mods_latched = event->mods_latched;
		seat->mods_locked = event->mods_locked;
		seat->group = event->group;
		update_keyboard_focus(seat);
		client = surface_client(seat->keyboard_focus.surface);
		if (client) {
			uint32_t serial = next_serial(seat);
			for_each_of_client(resource, &seat->keyboards, client)
				wl_keyboard_send_modifiers(resource, serial, seat->mods_depressed,
							   seat->mods_latched, seat->mods_locked,
							   seat->group);
		}
		return;
	case WL_RECORD_INPUT_TOUCH_DOWN:
	case WL_RECORD_INPUT_TOUCH_MOTION:
	case WL_RECORD_INPUT_TOUCH_UP:
	case WL_RECORD_INPUT_TOUCH_FRAME:
	case WL_RECORD_INPUT_TOUCH_CANCEL:
	case WL_RECORD_INPUT_TOUCH_SHAPE:
	case WL_RECORD_INPUT_TOUCH_ORIENTATION:
		if (seat->touch)
			touch_event(seat, event);
		break;
	default:
		pointer_event(seat, event);
		break;
	}
	update_keyboard_focus(seat);
}

/* ---- the cursor: a surface role whose content goes to the desktop ---- */

static void cursor_role_commit(struct surface *surface, const pixman_region32_t *damage,
			       int64_t commit_ns)
{
}

static const struct surface_role cursor_role = {
	.name = "wl_pointer cursor",
	.commit = cursor_role_commit,
};

static void send_cursor(struct seat *seat)
{
	struct surface *surface = seat->cursor.surface;
	if (!seat->cursor_fn)
		return;
	if (!surface || !surface->mapped || !surface->texture || !surface_refresh_texture(surface)) {
		/* Hidden: a transparent pixel. */
		static const uint8_t clear[4];
		struct wl_record_cursor_image none = { clear, 1, 1, 4, 0, 0 };
		seat->cursor_fn(seat->cursor_data, &none);
		return;
	}
	pixman_image_t *texture = surface->texture;
	int width = pixman_image_get_width(texture), height = pixman_image_get_height(texture);
	int stride = pixman_image_get_stride(texture);
	const uint8_t *pixels = (const uint8_t *)pixman_image_get_data(texture);
	uint8_t *copy = NULL;
	if (pixman_image_get_format(texture) != PIXMAN_a8r8g8b8) {
		/* No alpha: opaque. */
		copy = malloc((size_t)stride * (size_t)height);
		if (!copy)
			return;
		memcpy(copy, pixels, (size_t)stride * (size_t)height);
		for (int y = 0; y < height; y++)
			for (int x = 0; x < width; x++)
				copy[(size_t)y * (size_t)stride + (size_t)x * 4 + 3] = 0xff;
		pixels = copy;
	}
	struct wl_record_cursor_image image = {
		pixels, width, height, stride, seat->cursor_hotspot_x, seat->cursor_hotspot_y,
	};
	seat->cursor_fn(seat->cursor_data, &image);
	free(copy);
}

/* The commit listener goes with the surface: its list is freed with it. */
static void cursor_gone(struct tracked_surface *cursor)
{
	struct seat *seat = wl_container_of(cursor, seat, cursor);
	wl_list_remove(&seat->cursor_commit.link);
	wl_list_init(&seat->cursor_commit.link);
}

static void handle_cursor_commit(struct wl_listener *listener, void *data)
{
	struct seat *seat = wl_container_of(listener, seat, cursor_commit);
	send_cursor(seat);
}

static void pointer_set_cursor(struct wl_client *client, struct wl_resource *resource,
			       uint32_t serial, struct wl_resource *surface_resource, int32_t x,
			       int32_t y)
{
	struct seat *seat = wl_resource_get_user_data(resource);
	if (!seat || client != surface_client(seat->pointer_focus.surface))
		return;
	struct surface *surface = surface_resource ? surface_from_resource(surface_resource) : NULL;
	if (surface && surface->role != &cursor_role &&
	    !surface_set_role(surface, &cursor_role, seat, resource, WL_POINTER_ERROR_ROLE))
		return;
	forget_cursor(seat);
	tracked_surface_set(&seat->cursor, surface);
	if (surface)
		wl_signal_add(&surface->events.commit, &seat->cursor_commit);
	seat->cursor_hotspot_x = x;
	seat->cursor_hotspot_y = y;
	send_cursor(seat);
	place_screen_cursor(seat);
}

/* ---- resources ---- */

static void release(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static void unlink_resource(struct wl_resource *resource)
{
	wl_list_remove(wl_resource_get_link(resource));
}

static const struct wl_pointer_interface pointer_impl = {
	.set_cursor = pointer_set_cursor,
	.release = release,
};

static const struct wl_keyboard_interface keyboard_impl = { .release = release };
static const struct wl_touch_interface touch_impl = { .release = release };

/* Devices asked for before input is there, or that the seat lacks (before
 * v8 that is no error), are kept in the lists and get events once there are
 * some. */
static struct wl_resource *create_device(struct wl_client *client, struct wl_resource *seat_resource,
					 const struct wl_interface *interface, const void *impl,
					 uint32_t id, struct wl_list *list)
{
	struct seat *seat = wl_resource_get_user_data(seat_resource);
	struct wl_resource *resource = wl_resource_create(client, interface,
							  wl_resource_get_version(seat_resource), id);
	if (!resource) {
		wl_client_post_no_memory(client);
		return NULL;
	}
	wl_resource_set_implementation(resource, impl, seat, list ? unlink_resource : NULL);
	if (list)
		wl_list_insert(list, wl_resource_get_link(resource));
	return resource;
}

static void seat_get_pointer(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	struct seat *seat = wl_resource_get_user_data(resource);
	struct wl_resource *pointer = create_device(client, resource, &wl_pointer_interface,
						    &pointer_impl, id, &seat->pointers);
	if (pointer && seat->pointer_focus.surface &&
	    surface_client(seat->pointer_focus.surface) == client) {
		send_pointer_enter(seat, pointer);
		if (wl_resource_get_version(pointer) >= WL_POINTER_FRAME_SINCE_VERSION)
			wl_pointer_send_frame(pointer);
	}
}

static void seat_get_keyboard(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	struct seat *seat = wl_resource_get_user_data(resource);
	struct wl_resource *keyboard = create_device(client, resource, &wl_keyboard_interface,
						     &keyboard_impl, id, &seat->keyboards);
	if (!keyboard)
		return;
	send_keymap(seat, keyboard);
	if (seat->keyboard_focus.surface && surface_client(seat->keyboard_focus.surface) == client)
		send_keyboard_enter(seat, keyboard, next_serial(seat));
}

static void seat_get_touch(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	struct seat *seat = wl_resource_get_user_data(resource);
	create_device(client, resource, &wl_touch_interface, &touch_impl, id, &seat->touches);
}

static const struct wl_seat_interface seat_impl = {
	.get_pointer = seat_get_pointer,
	.get_keyboard = seat_get_keyboard,
	.get_touch = seat_get_touch,
	.release = release,
};

static uint32_t capabilities(const struct seat *seat)
{
	if (!seat->input)
		return 0;
	return WL_SEAT_CAPABILITY_POINTER | WL_SEAT_CAPABILITY_KEYBOARD |
	       (seat->touch ? WL_SEAT_CAPABILITY_TOUCH : 0);
}

static void send_capabilities(struct seat *seat)
{
	struct wl_resource *resource;
	wl_resource_for_each(resource, &seat->seats)
		wl_seat_send_capabilities(resource, capabilities(seat));
}

static void seat_bind(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct seat *seat = data;
	struct wl_resource *resource = wl_resource_create(client, &wl_seat_interface, (int)version,
							  id);
	if (!resource) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &seat_impl, seat, unlink_resource);
	wl_list_insert(&seat->seats, wl_resource_get_link(resource));
	wl_seat_send_capabilities(resource, capabilities(seat));
	if (version >= WL_SEAT_NAME_SINCE_VERSION)
		wl_seat_send_name(resource, "seat0");
}

struct seat *seat_create(struct server *server)
{
	struct seat *seat = calloc(1, sizeof(*seat));
	if (!seat) {
		LOG_ERR("cannot allocate the wl_seat");
		return NULL;
	}
	seat->server = server;
	seat->keymap_fd = -1;
	wl_list_init(&seat->seats);
	wl_list_init(&seat->pointers);
	wl_list_init(&seat->keyboards);
	wl_list_init(&seat->touches);
	wl_list_init(&seat->touch_points);
	wl_array_init(&seat->keys);
	tracked_surface_init(&seat->pointer_focus, NULL);
	tracked_surface_init(&seat->pointer_root, NULL);
	tracked_surface_init(&seat->keyboard_focus, NULL);
	tracked_surface_init(&seat->clicked, NULL);
	tracked_surface_init(&seat->last_top, NULL);
	tracked_surface_init(&seat->cursor, cursor_gone);
	wl_list_init(&seat->cursor_commit.link);
	seat->cursor_commit.notify = handle_cursor_commit;
	seat->stack_changed.notify = handle_stack_changed;
	wl_signal_add(&server->screen.events.stack_changed, &seat->stack_changed);
	seat->drag = drag_create(server);
	seat->global = wl_global_create(server->display, &wl_seat_interface, SEAT_VERSION, seat,
					seat_bind);
	if (!seat->drag || !seat->global) {
		LOG_ERR("cannot create the wl_seat global");
		seat_destroy(seat);
		return NULL;
	}
	return seat;
}

static void forget_resources(struct wl_list *list)
{
	struct wl_resource *resource, *tmp;
	wl_resource_for_each_safe(resource, tmp, list) {
		wl_list_remove(wl_resource_get_link(resource));
		wl_list_init(wl_resource_get_link(resource));
		wl_resource_set_user_data(resource, NULL);
	}
}

void seat_destroy(struct seat *seat)
{
	if (!seat)
		return;
	drag_destroy(seat->drag);
	forget_resources(&seat->seats);
	forget_resources(&seat->pointers);
	forget_resources(&seat->keyboards);
	forget_resources(&seat->touches);
	forget_touch_points(seat);
	tracked_surface_set(&seat->pointer_focus, NULL);
	tracked_surface_set(&seat->pointer_root, NULL);
	tracked_surface_set(&seat->keyboard_focus, NULL);
	tracked_surface_set(&seat->clicked, NULL);
	tracked_surface_set(&seat->last_top, NULL);
	tracked_surface_set(&seat->cursor, NULL);
	wl_list_remove(&seat->cursor_commit.link);
	wl_list_remove(&seat->stack_changed.link);
	wl_array_release(&seat->keys);
	if (seat->keymap_fd >= 0)
		close(seat->keymap_fd);
	if (seat->global)
		wl_global_destroy(seat->global);
	free(seat);
}

struct wl_client *seat_keyboard_client(const struct seat *seat)
{
	return surface_client(seat->keyboard_focus.surface);
}

struct wl_global *seat_global(const struct seat *seat)
{
	return seat ? seat->global : NULL;
}

void seat_enable_input(struct seat *seat)
{
	if (seat->input)
		return;
	seat->input = true;
	send_capabilities(seat);
	update_keyboard_focus(seat);
}

void seat_set_cursor_handler(struct seat *seat, seat_cursor_fn fn, void *data)
{
	seat->cursor_fn = fn;
	seat->cursor_data = data;
}

struct drag *seat_drag(struct seat *seat)
{
	return seat ? seat->drag : NULL;
}

bool seat_begin_drag(struct seat *seat, struct surface *origin, uint32_t serial, double *x,
		     double *y)
{
	if (!seat->input || !seat->pointer_in_window || seat->buttons_down == 0 ||
	    serial != seat->press_serial || origin != seat->pointer_focus.surface)
		return false;
	/* The pointer's normal events stop for the drag. */
	set_pointer_focus(seat, NULL);
	place_screen_cursor(seat);
	*x = seat->x;
	*y = seat->y;
	return true;
}
