#include "data_device.h"

#include <wayland-server-protocol.h>

#include "drag.h"
#include "seat.h"
#include "selection.h"
#include "server.h"

#define DATA_DEVICE_MANAGER_VERSION 3

/* ---- wl_data_offer ---- */

static void offer_accept(struct wl_client *client, struct wl_resource *resource, uint32_t serial,
			 const char *mime_type)
{
	/* Drag and drop only. */
}

static void offer_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static void offer_finish(struct wl_client *client, struct wl_resource *resource)
{
	/* Only for drag and drop, which never offers anything here. */
	wl_resource_post_error(resource, WL_DATA_OFFER_ERROR_INVALID_FINISH,
			       "finish on a selection's offer");
}

static void offer_set_actions(struct wl_client *client, struct wl_resource *resource,
			      uint32_t dnd_actions, uint32_t preferred_action)
{
	/* Meaningless for a selection; wlroots ignores it there too. */
}

static const struct wl_data_offer_interface offer_impl = {
	.accept = offer_accept,
	.receive = selection_offer_receive,
	.destroy = offer_destroy,
	.finish = offer_finish,
	.set_actions = offer_set_actions,
};

static void send_source_send(struct wl_resource *source, const char *mime_type, int fd)
{
	wl_data_source_send_send(source, mime_type, fd);
}

/* ---- wl_data_source ---- */

static void source_offer(struct wl_client *client, struct wl_resource *resource,
			 const char *mime_type)
{
	selection_source_offer(wl_resource_get_user_data(resource), mime_type);
}

static void source_destroy_request(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static void source_set_actions(struct wl_client *client, struct wl_resource *resource,
			       uint32_t dnd_actions)
{
	struct selection_source *source = wl_resource_get_user_data(resource);
	const uint32_t all = WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY |
			     WL_DATA_DEVICE_MANAGER_DND_ACTION_MOVE |
			     WL_DATA_DEVICE_MANAGER_DND_ACTION_ASK;
	if (source->actions_set) {
		wl_resource_post_error(resource, WL_DATA_SOURCE_ERROR_INVALID_ACTION_MASK,
				       "set_actions called twice");
		return;
	}
	if (dnd_actions & ~all) {
		wl_resource_post_error(resource, WL_DATA_SOURCE_ERROR_INVALID_ACTION_MASK,
				       "invalid action mask %x", dnd_actions);
		return;
	}
	if (source->used) {
		wl_resource_post_error(resource, WL_DATA_SOURCE_ERROR_INVALID_ACTION_MASK,
				       "set_actions after the source was used");
		return;
	}
	source->actions_set = true;
	source->actions = dnd_actions;
}

static const struct wl_data_source_interface source_impl = {
	.offer = source_offer,
	.destroy = source_destroy_request,
	.set_actions = source_set_actions,
};

/* ---- wl_data_device ---- */

static void device_start_drag(struct wl_client *client, struct wl_resource *resource,
			      struct wl_resource *source_resource, struct wl_resource *origin,
			      struct wl_resource *icon, uint32_t serial)
{
	struct selection *selection = wl_resource_get_user_data(resource);
	struct selection_source *source =
		source_resource ? wl_resource_get_user_data(source_resource) : NULL;
	if (source && source->used) {
		wl_resource_post_error(source_resource, WL_DATA_SOURCE_ERROR_INVALID_SOURCE,
				       "the wl_data_source was already used");
		return;
	}
	if (source)
		source->used = true;
	if (!selection) {
		if (source)
			wl_data_source_send_cancelled(source_resource);
		return;
	}
	/* A source without set_actions: copy before version 3, none after
	 * (as Weston does). */
	uint32_t actions = 0;
	if (source && source->actions_set)
		actions = source->actions;
	else if (source && wl_resource_get_version(source_resource) <
				   WL_DATA_SOURCE_ACTION_SINCE_VERSION)
		actions = WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY;
	drag_start(seat_drag(selection->server->seat), &selection->devices, resource,
		   source_resource, source ? &source->mime_types : NULL, actions, origin, icon,
		   serial);
}

static void device_set_selection(struct wl_client *client, struct wl_resource *resource,
				 struct wl_resource *source_resource, uint32_t serial)
{
	struct selection *selection = wl_resource_get_user_data(resource);
	struct selection_source *source =
		source_resource ? wl_resource_get_user_data(source_resource) : NULL;
	if (source && source->used) {
		wl_resource_post_error(source_resource, WL_DATA_SOURCE_ERROR_INVALID_SOURCE,
				       "the wl_data_source was already used");
		return;
	}
	if (source && source->actions_set) {
		wl_resource_post_error(source_resource, WL_DATA_SOURCE_ERROR_INVALID_SOURCE,
				       "a drag-and-drop source (set_actions) cannot be the selection");
		return;
	}
	if (source)
		source->used = true;
	if (selection)
		selection_client_set(selection, client, source);
}

static void device_release(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static const struct wl_data_device_interface device_impl = {
	.start_drag = device_start_drag,
	.set_selection = device_set_selection,
	.release = device_release,
};

/* ---- wl_data_device_manager ---- */

static const struct wl_data_device_manager_interface manager_impl = {
	.create_data_source = selection_manager_create_source,
	.get_data_device = selection_manager_get_device,
};

static const struct selection_protocol clipboard_protocol = {
	.name = "selection",
	.manager_interface = &wl_data_device_manager_interface,
	.manager_version = DATA_DEVICE_MANAGER_VERSION,
	.manager_impl = &manager_impl,
	.device_interface = &wl_data_device_interface,
	.device_impl = &device_impl,
	.source_interface = &wl_data_source_interface,
	.source_impl = &source_impl,
	.offer_interface = &wl_data_offer_interface,
	.offer_impl = &offer_impl,
	.send_data_offer = wl_data_device_send_data_offer,
	.send_offer_mime = wl_data_offer_send_offer,
	.send_selection = wl_data_device_send_selection,
	.send_source_send = send_source_send,
	.send_source_cancelled = wl_data_source_send_cancelled,
};

struct selection *data_device_create(struct server *server)
{
	return selection_create(server, &clipboard_protocol);
}
