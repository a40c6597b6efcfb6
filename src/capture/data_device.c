#define LOG_MODULE "capture"
#include "data_device.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wayland-server-protocol.h>

#include "drag.h"
#include "log.h"
#include "seat.h"
#include "server.h"

#define DATA_DEVICE_MANAGER_VERSION 3

struct data_source {
	struct wl_resource *resource;
	struct data_device *device;
	struct wl_array mime_types; /* char *, owned */
	bool used;        /* given to set_selection or start_drag: never again */
	bool actions_set; /* a drag-and-drop source: not for the selection */
	uint32_t actions; /* set_actions' */
};

enum selection_owner {
	SELECTION_NONE,
	SELECTION_DESKTOP,
	SELECTION_CLIENT,
};

struct data_device {
	struct server *server;
	struct wl_global *global;
	struct wl_record_clipboard_peer peer;
	/* Resource links of every wl_data_device, and of the offers of the
	 * current selection to the focused client (older offers are unlinked,
	 * their user data NULL: they read nothing). */
	struct wl_list devices, offers;
	struct wl_client *focus; /* the client offered the selection */

	enum selection_owner owner;
	struct wl_array desktop_mime_types; /* char *, owned */
	struct data_source *client_source;
};

static void free_mime_types(struct wl_array *array)
{
	char **mime;
	/* Not on an empty array: its data is NULL, and NULL + 0 is undefined
	 * (clang's UBSan says so). */
	if (array->size > 0)
		wl_array_for_each(mime, array)
			free(*mime);
	wl_array_release(array);
	wl_array_init(array);
}

static bool add_mime_type(struct wl_array *array, const char *mime_type)
{
	char *copy = strdup(mime_type);
	char **slot = copy ? wl_array_add(array, sizeof(*slot)) : NULL;
	if (!slot) {
		free(copy);
		return false;
	}
	*slot = copy;
	return true;
}

static const struct wl_array *selection_mime_types(const struct data_device *device)
{
	switch (device->owner) {
	case SELECTION_DESKTOP:
		return &device->desktop_mime_types;
	case SELECTION_CLIENT:
		return &device->client_source->mime_types;
	default:
		return NULL;
	}
}

/* ---- offers: the selection as the focused client sees it ---- */

static void unlink_resource(struct wl_resource *resource)
{
	wl_list_remove(wl_resource_get_link(resource));
}

static void offer_accept(struct wl_client *client, struct wl_resource *resource, uint32_t serial,
			 const char *mime_type)
{
	/* Drag and drop only. */
}

static void offer_receive(struct wl_client *client, struct wl_resource *resource,
			  const char *mime_type, int32_t fd)
{
	struct data_device *device = wl_resource_get_user_data(resource);
	if (!device || client != device->focus) {
		close(fd);
		return;
	}
	if (device->owner == SELECTION_CLIENT) {
		wl_data_source_send_send(device->client_source->resource, mime_type, fd);
		close(fd);
	} else if (device->owner == SELECTION_DESKTOP && device->peer.receive) {
		device->peer.receive(device->peer.data, mime_type, fd);
	} else {
		close(fd);
	}
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
	.receive = offer_receive,
	.destroy = offer_destroy,
	.finish = offer_finish,
	.set_actions = offer_set_actions,
};

/* Earlier offers read nothing from now on. */
static void retire_offers(struct data_device *device)
{
	struct wl_resource *resource, *tmp;
	wl_resource_for_each_safe(resource, tmp, &device->offers) {
		wl_list_remove(wl_resource_get_link(resource));
		wl_list_init(wl_resource_get_link(resource));
		wl_resource_set_user_data(resource, NULL);
	}
}

/* data_offer + offer(mime)… + selection on one wl_data_device; selection
 * NULL when there is none. */
static void send_selection(struct data_device *device, struct wl_resource *device_resource)
{
	const struct wl_array *mime_types = selection_mime_types(device);
	if (!mime_types) {
		wl_data_device_send_selection(device_resource, NULL);
		return;
	}
	struct wl_client *client = wl_resource_get_client(device_resource);
	struct wl_resource *offer = wl_resource_create(client, &wl_data_offer_interface,
						       wl_resource_get_version(device_resource), 0);
	if (!offer) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(offer, &offer_impl, device, unlink_resource);
	wl_list_insert(&device->offers, wl_resource_get_link(offer));
	wl_data_device_send_data_offer(device_resource, offer);
	char **mime;
	if (mime_types->size > 0)
		wl_array_for_each(mime, mime_types)
			wl_data_offer_send_offer(offer, *mime);
	wl_data_device_send_selection(device_resource, offer);
}

static void send_selection_to_client(struct data_device *device, struct wl_client *client,
				     bool none)
{
	struct wl_resource *resource;
	wl_resource_for_each(resource, &device->devices) {
		if (wl_resource_get_client(resource) != client)
			continue;
		if (none)
			wl_data_device_send_selection(resource, NULL);
		else
			send_selection(device, resource);
	}
}

/* The selection or the focus changed: only the focused client is told. */
static void announce_selection(struct data_device *device)
{
	retire_offers(device);
	if (device->focus)
		send_selection_to_client(device, device->focus, false);
}

void data_device_keyboard_focus_changed(struct data_device *device)
{
	if (!device)
		return;
	struct wl_client *focus = seat_keyboard_client(device->server->seat);
	if (focus == device->focus)
		return;
	if (device->focus)
		send_selection_to_client(device, device->focus, true);
	device->focus = focus;
	announce_selection(device);
}

/* ---- the selection ---- */

static void set_client_source(struct data_device *device, struct data_source *source)
{
	struct data_source *old = device->owner == SELECTION_CLIENT ? device->client_source : NULL;
	device->client_source = source;
	device->owner = source ? SELECTION_CLIENT : SELECTION_NONE;
	if (old && old != source)
		wl_data_source_send_cancelled(old->resource);
}

static void tell_peer(struct data_device *device)
{
	if (!device->peer.selection)
		return;
	const struct wl_array *mime_types = selection_mime_types(device);
	device->peer.selection(device->peer.data,
			       mime_types ? (const char *const *)mime_types->data : NULL,
			       mime_types ? mime_types->size / sizeof(char *) : 0);
}

void data_device_set_desktop_selection(struct data_device *device, const char *const *mime_types,
				       size_t count)
{
	set_client_source(device, NULL);
	free_mime_types(&device->desktop_mime_types);
	for (size_t i = 0; i < count; i++)
		add_mime_type(&device->desktop_mime_types, mime_types[i]);
	device->owner = count ? SELECTION_DESKTOP : SELECTION_NONE;
	LOG_DBG("the desktop's selection (%zu types) is the hosted clients' now", count);
	announce_selection(device);
}

void data_device_receive(struct data_device *device, const char *mime_type, int fd)
{
	if (device->owner == SELECTION_CLIENT)
		wl_data_source_send_send(device->client_source->resource, mime_type, fd);
	close(fd);
	wl_display_flush_clients(device->server->display);
}

/* ---- sources ---- */

static void source_offer(struct wl_client *client, struct wl_resource *resource,
			 const char *mime_type)
{
	struct data_source *source = wl_resource_get_user_data(resource);
	if (source->used) {
		/* No error (wlroots only logs it); the desktop was told the
		 * types already: what was copied stays as it was. */
		LOG_DBG("a client offers %s after using its wl_data_source: ignored", mime_type);
		return;
	}
	if (!add_mime_type(&source->mime_types, mime_type))
		wl_client_post_no_memory(client);
}

static void source_destroy_request(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static void source_set_actions(struct wl_client *client, struct wl_resource *resource,
			       uint32_t dnd_actions)
{
	struct data_source *source = wl_resource_get_user_data(resource);
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

static void source_resource_destroyed(struct wl_resource *resource)
{
	struct data_source *source = wl_resource_get_user_data(resource);
	struct data_device *device = source->device;
	if (device && device->owner == SELECTION_CLIENT && device->client_source == source) {
		device->client_source = NULL;
		device->owner = SELECTION_NONE;
		announce_selection(device);
		tell_peer(device);
	}
	free_mime_types(&source->mime_types);
	free(source);
}

/* ---- wl_data_device ---- */

static void device_start_drag(struct wl_client *client, struct wl_resource *resource,
			      struct wl_resource *source_resource, struct wl_resource *origin,
			      struct wl_resource *icon, uint32_t serial)
{
	struct data_device *device = wl_resource_get_user_data(resource);
	struct data_source *source = source_resource ? wl_resource_get_user_data(source_resource)
						     : NULL;
	if (source && source->used) {
		wl_resource_post_error(source_resource, WL_DATA_SOURCE_ERROR_INVALID_SOURCE,
				       "the wl_data_source was already used");
		return;
	}
	if (source)
		source->used = true;
	if (!device) {
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
	drag_start(seat_drag(device->server->seat), &device->devices, resource, source_resource,
		   source ? &source->mime_types : NULL, actions, origin, icon, serial);
}

static void device_set_selection(struct wl_client *client, struct wl_resource *resource,
				 struct wl_resource *source_resource, uint32_t serial)
{
	struct data_device *device = wl_resource_get_user_data(resource);
	struct data_source *source = source_resource ? wl_resource_get_user_data(source_resource)
						     : NULL;
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
	if (!device)
		return;
	/* Only the client the user types into copies (as on a desktop). */
	if (client != device->focus) {
		LOG_DBG("a client without the keyboard set the selection: ignored");
		if (source)
			wl_data_source_send_cancelled(source_resource);
		return;
	}
	if (source && source == device->client_source)
		return;
	set_client_source(device, source);
	LOG_DBG("a hosted client copied (%zu types): the desktop's selection now",
		source ? source->mime_types.size / sizeof(char *) : 0);
	announce_selection(device);
	tell_peer(device);
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

static void manager_create_data_source(struct wl_client *client, struct wl_resource *resource,
				       uint32_t id)
{
	struct data_device *device = wl_resource_get_user_data(resource);
	struct data_source *source = calloc(1, sizeof(*source));
	if (!source) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_array_init(&source->mime_types);
	source->device = device;
	source->resource = wl_resource_create(client, &wl_data_source_interface,
					      wl_resource_get_version(resource), id);
	if (!source->resource) {
		free(source);
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(source->resource, &source_impl, source,
				       source_resource_destroyed);
}

static void manager_get_data_device(struct wl_client *client, struct wl_resource *resource,
				    uint32_t id, struct wl_resource *seat_resource)
{
	struct data_device *device = wl_resource_get_user_data(resource);
	struct wl_resource *device_resource = wl_resource_create(
		client, &wl_data_device_interface, wl_resource_get_version(resource), id);
	if (!device_resource) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(device_resource, &device_impl, device, unlink_resource);
	if (!device) {
		wl_list_init(wl_resource_get_link(device_resource));
		return;
	}
	wl_list_insert(&device->devices, wl_resource_get_link(device_resource));
	if (client == device->focus)
		send_selection(device, device_resource);
}

static const struct wl_data_device_manager_interface manager_impl = {
	.create_data_source = manager_create_data_source,
	.get_data_device = manager_get_data_device,
};

static void manager_bind(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct wl_resource *resource = wl_resource_create(client, &wl_data_device_manager_interface,
							  (int)version, id);
	if (!resource) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &manager_impl, data, NULL);
}

struct data_device *data_device_create(struct server *server)
{
	struct data_device *device = calloc(1, sizeof(*device));
	if (!device) {
		LOG_ERR("cannot allocate the data device");
		return NULL;
	}
	device->server = server;
	wl_list_init(&device->devices);
	wl_list_init(&device->offers);
	wl_array_init(&device->desktop_mime_types);
	return device;
}

void data_device_enable(struct data_device *device)
{
	if (device->global)
		return;
	device->global = wl_global_create(device->server->display,
					  &wl_data_device_manager_interface,
					  DATA_DEVICE_MANAGER_VERSION, device, manager_bind);
	if (!device->global)
		LOG_ERR("cannot create the wl_data_device_manager global: no clipboard");
	device->focus = NULL;
	data_device_keyboard_focus_changed(device);
}

struct wl_global *data_device_global(const struct data_device *device)
{
	return device ? device->global : NULL;
}

void data_device_set_peer(struct data_device *device, const struct wl_record_clipboard_peer *peer)
{
	if (peer)
		device->peer = *peer;
	else
		device->peer = (struct wl_record_clipboard_peer){ 0 };
}

void data_device_destroy(struct data_device *device)
{
	if (!device)
		return;
	retire_offers(device);
	struct wl_resource *resource, *tmp;
	wl_resource_for_each_safe(resource, tmp, &device->devices) {
		wl_list_remove(wl_resource_get_link(resource));
		wl_list_init(wl_resource_get_link(resource));
		wl_resource_set_user_data(resource, NULL);
	}
	free_mime_types(&device->desktop_mime_types);
	if (device->global)
		wl_global_destroy(device->global);
	free(device);
}
