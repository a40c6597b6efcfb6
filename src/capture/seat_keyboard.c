/* The seat's keyboard: the desktop window's keys, modifiers and keymap
 * to the focused client; the focus follows grabs, clicks and mapping. */
#include <fcntl.h>
#include <unistd.h>
#include <wayland-server-protocol.h>

#include "drag.h"
#include "seat_internal.h"
#include "selection.h"
#include "server.h"
#include "surface.h"
#include "xdg_shell.h"

static void send_keyboard_enter(struct seat *seat, struct wl_resource *resource, uint32_t serial)
{
	wl_keyboard_send_enter(resource, serial, seat->keyboard_focus.surface->resource,
			       &seat->keys);
	wl_keyboard_send_modifiers(resource, serial, seat->mods_depressed, seat->mods_latched,
				   seat->mods_locked, seat->group);
}

void seat_keyboard_update_focus(struct seat *seat)
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
	uint32_t serial = seat_next_serial(seat);
	if (old) {
		for_each_of_client(resource, &seat->keyboards, seat_surface_client(old))
			wl_keyboard_send_leave(resource, serial, old->resource);
	}
	tracked_surface_set(&seat->keyboard_focus, target);
	if (target) {
		for_each_of_client(resource, &seat->keyboards, seat_surface_client(target))
			send_keyboard_enter(seat, resource, serial);
	}
	/* The selection follows the keyboard. */
	if (seat_surface_client(old) != seat_surface_client(target)) {
		selection_keyboard_focus_changed(seat->server->data_device);
		selection_keyboard_focus_changed(seat->server->primary_selection);
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

bool seat_keyboard_event(struct seat *seat, const struct wl_record_input_event *event)
{
	struct wl_client *client = seat_surface_client(seat->keyboard_focus.surface);
	struct wl_resource *resource;
	switch (event->type) {
	case WL_RECORD_INPUT_KEYBOARD_KEYMAP:
		if (seat->keymap_fd >= 0)
			close(seat->keymap_fd);
		seat->keymap_fd = fcntl(event->keymap_fd, F_DUPFD_CLOEXEC, 0);
		seat->keymap_format = event->keymap_format;
		seat->keymap_size = event->keymap_size;
		wl_resource_for_each(resource, &seat->keyboards)
			send_keymap(seat, resource);
		return false;
	case WL_RECORD_INPUT_KEYBOARD_REPEAT:
		seat->have_repeat = true;
		seat->repeat_rate = event->repeat_rate;
		seat->repeat_delay = event->repeat_delay;
		wl_resource_for_each(resource, &seat->keyboards) {
			if (wl_resource_get_version(resource) >= WL_KEYBOARD_REPEAT_INFO_SINCE_VERSION)
				wl_keyboard_send_repeat_info(resource, seat->repeat_rate,
							     seat->repeat_delay);
		}
		return false;
	case WL_RECORD_INPUT_KEYBOARD_ENTER:
		seat->keys.size = 0;
		for (size_t i = 0; i < event->key_count; i++)
			note_key(seat, event->keys[i], true);
		seat->keyboard_on_window = true;
		return false;
	case WL_RECORD_INPUT_KEYBOARD_LEAVE:
		drag_cancel(seat->drag);
		seat->keys.size = 0;
		seat->keyboard_on_window = false;
		return false;
	case WL_RECORD_INPUT_KEYBOARD_KEY:
		note_key(seat, event->key, event->pressed);
		seat_keyboard_update_focus(seat);
		client = seat_surface_client(seat->keyboard_focus.surface);
		if (client) {
			uint32_t serial = seat_next_serial(seat);
			for_each_of_client(resource, &seat->keyboards, client) {
				wl_keyboard_send_key(resource, serial, event->time_ms, event->key,
						     event->pressed ? WL_KEYBOARD_KEY_STATE_PRESSED
								    : WL_KEYBOARD_KEY_STATE_RELEASED);
			}
		}
		return true;
	case WL_RECORD_INPUT_KEYBOARD_MODIFIERS:
		seat->mods_depressed = event->mods_depressed;
		seat->mods_latched = event->mods_latched;
		seat->mods_locked = event->mods_locked;
		seat->group = event->group;
		seat_keyboard_update_focus(seat);
		client = seat_surface_client(seat->keyboard_focus.surface);
		if (client) {
			uint32_t serial = seat_next_serial(seat);
			for_each_of_client(resource, &seat->keyboards, client)
				wl_keyboard_send_modifiers(resource, serial, seat->mods_depressed,
							   seat->mods_latched, seat->mods_locked,
							   seat->group);
		}
		return true;
	default:
		break;
	}
	return false;
}

static const struct wl_keyboard_interface keyboard_impl = { .release = seat_release_resource };

void seat_keyboard_get(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	struct seat *seat = wl_resource_get_user_data(resource);
	struct wl_resource *keyboard = seat_create_device(client, resource, &wl_keyboard_interface,
							  &keyboard_impl, id, &seat->keyboards);
	if (!keyboard)
		return;
	send_keymap(seat, keyboard);
	if (seat->keyboard_focus.surface &&
	    seat_surface_client(seat->keyboard_focus.surface) == client)
		send_keyboard_enter(seat, keyboard, seat_next_serial(seat));
}

struct wl_client *seat_keyboard_client(const struct seat *seat)
{
	return seat_surface_client(seat->keyboard_focus.surface);
}
