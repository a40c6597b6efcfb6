#define LOG_MODULE "capture"
#include "seat.h"

#include <stdlib.h>
#include <unistd.h>
#include <wayland-server-protocol.h>

#include "drag.h"
#include "log.h"
#include "seat_internal.h"
#include "server.h"
#include "surface.h"
#include "tracked_surface.h"

#define SEAT_VERSION 8

struct wl_client *seat_surface_client(const struct surface *surface)
{
	return surface ? wl_resource_get_client(surface->resource) : NULL;
}

uint32_t seat_next_serial(struct seat *seat)
{
	return wl_display_next_serial(seat->server->display);
}

static void handle_stack_changed(struct wl_listener *listener, void *data)
{
	struct seat *seat = wl_container_of(listener, seat, stack_changed);
	seat_keyboard_update_focus(seat);
	seat_pointer_stack_changed(seat);
}

void seat_handle_input(struct seat *seat, const struct wl_record_input_event *event)
{
	if (event->type == WL_RECORD_INPUT_TOUCH_CAPABILITY) {
		/* Kept before input is on: the window tells it first. */
		if (seat->touch == event->has_touch)
			return;
		seat->touch = event->has_touch;
		if (!seat->touch)
			seat_touch_cancel(seat);
		if (seat->input)
			seat_send_capabilities(seat);
		return;
	}
	if (!seat->input)
		return;
	switch (event->type) {
	case WL_RECORD_INPUT_KEYBOARD_KEYMAP:
	case WL_RECORD_INPUT_KEYBOARD_REPEAT:
	case WL_RECORD_INPUT_KEYBOARD_ENTER:
	case WL_RECORD_INPUT_KEYBOARD_LEAVE:
	case WL_RECORD_INPUT_KEYBOARD_KEY:
	case WL_RECORD_INPUT_KEYBOARD_MODIFIERS:
		if (seat_keyboard_event(seat, event))
			return;
		break;
	case WL_RECORD_INPUT_TOUCH_DOWN:
	case WL_RECORD_INPUT_TOUCH_MOTION:
	case WL_RECORD_INPUT_TOUCH_UP:
	case WL_RECORD_INPUT_TOUCH_FRAME:
	case WL_RECORD_INPUT_TOUCH_CANCEL:
	case WL_RECORD_INPUT_TOUCH_SHAPE:
	case WL_RECORD_INPUT_TOUCH_ORIENTATION:
		if (seat->touch)
			seat_touch_event(seat, event);
		break;
	default:
		seat_pointer_event(seat, event);
		break;
	}
	seat_keyboard_update_focus(seat);
}

/* ---- resources ---- */

void seat_release_resource(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static void unlink_resource(struct wl_resource *resource)
{
	wl_list_remove(wl_resource_get_link(resource));
}

/* Devices asked for before input is there, or that the seat lacks (before
 * v8 that is no error), are kept in the lists and get events once there are
 * some. */
struct wl_resource *seat_create_device(struct wl_client *client,
				       struct wl_resource *seat_resource,
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

static const struct wl_seat_interface seat_impl = {
	.get_pointer = seat_pointer_get,
	.get_keyboard = seat_keyboard_get,
	.get_touch = seat_touch_get,
	.release = seat_release_resource,
};

static uint32_t capabilities(const struct seat *seat)
{
	if (!seat->input)
		return 0;
	return WL_SEAT_CAPABILITY_POINTER | WL_SEAT_CAPABILITY_KEYBOARD |
	       (seat->touch ? WL_SEAT_CAPABILITY_TOUCH : 0);
}

void seat_send_capabilities(struct seat *seat)
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
	seat_pointer_init(seat);
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
	seat_touch_forget(seat);
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

struct wl_global *seat_global(const struct seat *seat)
{
	return seat ? seat->global : NULL;
}

void seat_enable_input(struct seat *seat)
{
	if (seat->input)
		return;
	seat->input = true;
	seat_send_capabilities(seat);
	seat_keyboard_update_focus(seat);
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
