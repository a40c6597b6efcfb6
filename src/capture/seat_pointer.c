/* The seat's pointer: the desktop window's pointer to the surface under
 * it (or the one a button went down on), the wheel by each client's
 * version, the image its client sets, and the start of a drag. */
#define LOG_MODULE "capture"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <wayland-server-protocol.h>

#include "clock.h"
#include "drag.h"
#include "log.h"
#include "seat_internal.h"
#include "server.h"
#include "surface.h"
#include "xdg_shell.h"

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
	seat_anchor_local(&seat->focus_anchor, seat->x, seat->y, &sx, &sy);
	wl_pointer_send_enter(resource, seat_next_serial(seat), focus->resource, sx, sy);
}

static void set_pointer_focus(struct seat *seat, const struct screen_hit *hit)
{
	struct surface *old = seat->pointer_focus.surface;
	struct surface *new = hit ? hit->surface : NULL;
	if (new)
		seat->focus_anchor = seat_anchor_at(seat->x, seat->y, hit);
	struct wl_resource *resource;
	if (old == new) {
		if (!new)
			return;
		for_each_of_client(resource, &seat->pointers, seat_surface_client(new)) {
			wl_pointer_send_motion(resource, 0, wl_fixed_from_double(hit->sx),
					       wl_fixed_from_double(hit->sy));
		}
		return;
	}
	if (old) {
		uint32_t serial = seat_next_serial(seat);
		for_each_of_client(resource, &seat->pointers, seat_surface_client(old))
			wl_pointer_send_leave(resource, serial, old->resource);
		pointer_frame(seat, seat_surface_client(old));
	}
	tracked_surface_set(&seat->pointer_focus, new);
	tracked_surface_set(&seat->pointer_root, hit && hit->view ? hit->view->root : new);
	if (seat_surface_client(old) != seat_surface_client(new)) {
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
	for_each_of_client(resource, &seat->pointers, seat_surface_client(new))
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
		seat_anchor_local(&seat->focus_anchor, seat->x, seat->y, &sx, &sy);
		for_each_of_client(resource, &seat->pointers, seat_surface_client(focus))
			wl_pointer_send_motion(resource, time, sx, sy);
		place_screen_cursor(seat);
		return;
	}
	struct screen_hit hit;
	if (!screen_surface_at(&seat->server->screen, seat->x, seat->y, &hit))
		hit.surface = NULL;
	/* A popup grab keeps the pointer within its client. */
	struct surface *grab = xdg_shell_grab_surface(seat->server->xdg_shell);
	if (grab && hit.surface && seat_surface_client(hit.surface) != seat_surface_client(grab))
		hit.surface = NULL;
	set_pointer_focus(seat, hit.surface ? &hit : NULL);
	place_screen_cursor(seat);
}

/* A frame's wheel steps are bounded (a million steps, more than any wheel
 * turns): a desktop's axis_discrete of any int32 neither overflows the sums
 * below nor reaches clients as a wrapped value. */
#define WHEEL_VALUE120_MAX (120 * 1000000)

static int32_t add_wheel_steps(int32_t sum, int64_t add)
{
	int64_t total = (int64_t)sum + add;
	if (total > WHEEL_VALUE120_MAX)
		return WHEEL_VALUE120_MAX;
	if (total < -WHEEL_VALUE120_MAX)
		return -WHEEL_VALUE120_MAX;
	return (int32_t)total;
}

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

void seat_pointer_event(struct seat *seat, const struct wl_record_input_event *event)
{
	struct surface *focus = seat->pointer_focus.surface;
	struct wl_client *client = seat_surface_client(focus);
	struct wl_resource *resource;
	switch (event->type) {
	case WL_RECORD_INPUT_POINTER_MOTION:
		seat->x = event->x;
		seat->y = event->y;
		seat->pointer_in_window = true;
		pointer_rebase(seat, event->time_ms);
		return;
	case WL_RECORD_INPUT_POINTER_LEAVE:
		/* Nothing is dragged across the window. */
		drag_cancel(seat->drag);
		seat->pointer_in_window = false;
		seat->buttons_down = 0;
		set_pointer_focus(seat, NULL);
		place_screen_cursor(seat);
		return;
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
			if (grab && client != seat_surface_client(grab)) {
				/* A click outside the grabbing client ends the
				 * grab; the click itself goes nowhere. */
				xdg_shell_dismiss_grab(seat->server->xdg_shell);
				pointer_rebase(seat, event->time_ms);
				seat_keyboard_update_focus(seat);
				return;
			}
			seat->buttons_down++;
			if (seat->pointer_root.surface && !grab) {
				tracked_surface_set(&seat->clicked, seat->pointer_root.surface);
				screen_raise_view(&seat->server->screen, seat->pointer_root.surface,
						  clock_now_ns());
				seat_keyboard_update_focus(seat);
			}
		} else if (seat->buttons_down > 0) {
			seat->buttons_down--;
		}
		if (client) {
			uint32_t serial = seat_next_serial(seat);
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
			int64_t value120 = event->type == WL_RECORD_INPUT_POINTER_AXIS_VALUE120
					   ? event->value120 : (int64_t)event->discrete * 120;
			seat->axes[event->axis].value120 =
				add_wheel_steps(seat->axes[event->axis].value120, value120);
		}
		return;
	case WL_RECORD_INPUT_POINTER_FRAME:
		end_pointer_frame(seat, client);
		return;
	default:
		return;
	}
}

/* The cursor: a surface role whose content goes to the desktop. */

static void cursor_role_commit(struct surface *surface, const pixman_region32_t *damage,
			       int64_t commit_ns)
{
}

static const struct surface_role cursor_role = {
	.name = "wl_pointer cursor",
	.commit = cursor_role_commit,
};

/* Hidden: a transparent pixel. */
static void send_hidden_cursor(struct seat *seat)
{
	static const uint8_t clear[4];
	struct wl_record_cursor_image none = { clear, 1, 1, 4, 0, 0 };
	seat->cursor_fn(seat->cursor_data, &none);
}

static void send_cursor(struct seat *seat)
{
	struct surface *surface = seat->cursor.surface;
	if (!seat->cursor_fn)
		return;
	if (!surface || !surface->mapped || !surface->texture || !surface_refresh_texture(surface)) {
		send_hidden_cursor(seat);
		return;
	}
	pixman_image_t *texture = surface->texture;
	int width = pixman_image_get_width(texture), height = pixman_image_get_height(texture);
	if (width > SEAT_CURSOR_SIZE_MAX || height > SEAT_CURSOR_SIZE_MAX) {
		LOG_DBG("a client's %dx%d cursor is larger than %d pixels: hidden on the desktop",
			width, height, SEAT_CURSOR_SIZE_MAX);
		send_hidden_cursor(seat);
		return;
	}
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
	if (!seat || client != seat_surface_client(seat->pointer_focus.surface))
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

static const struct wl_pointer_interface pointer_impl = {
	.set_cursor = pointer_set_cursor,
	.release = seat_release_resource,
};

void seat_pointer_get(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	struct seat *seat = wl_resource_get_user_data(resource);
	struct wl_resource *pointer = seat_create_device(client, resource, &wl_pointer_interface,
							 &pointer_impl, id, &seat->pointers);
	if (pointer && seat->pointer_focus.surface &&
	    seat_surface_client(seat->pointer_focus.surface) == client) {
		send_pointer_enter(seat, pointer);
		if (wl_resource_get_version(pointer) >= WL_POINTER_FRAME_SINCE_VERSION)
			wl_pointer_send_frame(pointer);
	}
}

void seat_pointer_init(struct seat *seat)
{
	tracked_surface_init(&seat->cursor, cursor_gone);
	wl_list_init(&seat->cursor_commit.link);
	seat->cursor_commit.notify = handle_cursor_commit;
}

void seat_pointer_stack_changed(struct seat *seat)
{
	/* What is under a still pointer may have changed (a menu opened
	 * under it, a window went). */
	if (seat->input && seat->pointer_in_window && seat->buttons_down == 0) {
		struct screen_hit hit;
		if (!screen_surface_at(&seat->server->screen, seat->x, seat->y, &hit))
			hit.surface = NULL;
		struct surface *focus = seat->pointer_focus.surface;
		if (hit.surface != focus) {
			pointer_rebase(seat, 0);
			pointer_frame(seat, seat_surface_client(seat->pointer_focus.surface));
		}
	}
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
