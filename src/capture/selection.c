#define LOG_MODULE "capture"
#include "selection.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "seat.h"
#include "server.h"

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

static const struct wl_array *selection_mime_types(const struct selection *selection)
{
	switch (selection->owner) {
	case SELECTION_DESKTOP:
		return &selection->desktop_mime_types;
	case SELECTION_CLIENT:
		return &selection->client_source->mime_types;
	default:
		return NULL;
	}
}

static void unlink_resource(struct wl_resource *resource)
{
	wl_list_remove(wl_resource_get_link(resource));
}

/* Every resource of `list` unlinked and left without user data. */
static void orphan_resources(struct wl_list *list)
{
	struct wl_resource *resource, *tmp;
	wl_resource_for_each_safe(resource, tmp, list) {
		wl_list_remove(wl_resource_get_link(resource));
		wl_list_init(wl_resource_get_link(resource));
		wl_resource_set_user_data(resource, NULL);
	}
}

/* ---- offers: the selection as the focused client sees it ---- */

void selection_offer_receive(struct wl_client *client, struct wl_resource *offer,
			     const char *mime_type, int32_t fd)
{
	struct selection *selection = wl_resource_get_user_data(offer);
	if (!selection || client != selection->focus) {
		close(fd);
		return;
	}
	if (selection->owner == SELECTION_CLIENT) {
		selection->protocol->send_source_send(selection->client_source->resource,
						      mime_type, fd);
		close(fd);
	} else if (selection->owner == SELECTION_DESKTOP && selection->peer.receive) {
		selection->peer.receive(selection->peer.data, mime_type, fd);
	} else {
		close(fd);
	}
}

/* data_offer + offer(mime)… + selection on one device; selection NULL when
 * there is none. */
static void send_selection(struct selection *selection, struct wl_resource *device)
{
	const struct selection_protocol *protocol = selection->protocol;
	const struct wl_array *mime_types = selection_mime_types(selection);
	if (!mime_types) {
		protocol->send_selection(device, NULL);
		return;
	}
	struct wl_client *client = wl_resource_get_client(device);
	struct wl_resource *offer = wl_resource_create(client, protocol->offer_interface,
						       wl_resource_get_version(device), 0);
	if (!offer) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(offer, protocol->offer_impl, selection, unlink_resource);
	wl_list_insert(&selection->offers, wl_resource_get_link(offer));
	protocol->send_data_offer(device, offer);
	char **mime;
	if (mime_types->size > 0)
		wl_array_for_each(mime, mime_types)
			protocol->send_offer_mime(offer, *mime);
	protocol->send_selection(device, offer);
}

static void send_selection_to_client(struct selection *selection, struct wl_client *client,
				     bool none)
{
	struct wl_resource *device;
	wl_resource_for_each(device, &selection->devices) {
		if (wl_resource_get_client(device) != client)
			continue;
		if (none)
			selection->protocol->send_selection(device, NULL);
		else
			send_selection(selection, device);
	}
}

/* The selection or the focus changed: only the focused client is told. */
static void announce_selection(struct selection *selection)
{
	orphan_resources(&selection->offers);
	if (selection->focus)
		send_selection_to_client(selection, selection->focus, false);
}

void selection_keyboard_focus_changed(struct selection *selection)
{
	if (!selection || !selection->global)
		return;
	struct wl_client *focus = seat_keyboard_client(selection->server->seat);
	if (focus == selection->focus)
		return;
	if (selection->focus)
		send_selection_to_client(selection, selection->focus, true);
	selection->focus = focus;
	announce_selection(selection);
}

static void add_device(struct selection *selection, struct wl_resource *device)
{
	wl_list_insert(&selection->devices, wl_resource_get_link(device));
	if (wl_resource_get_client(device) == selection->focus)
		send_selection(selection, device);
}

/* ---- the selection ---- */

static void set_client_source(struct selection *selection, struct selection_source *source)
{
	struct selection_source *old =
		selection->owner == SELECTION_CLIENT ? selection->client_source : NULL;
	selection->client_source = source;
	selection->owner = source ? SELECTION_CLIENT : SELECTION_NONE;
	if (old && old != source)
		selection->protocol->send_source_cancelled(old->resource);
}

static void tell_peer(struct selection *selection)
{
	if (!selection->peer.selection)
		return;
	const struct wl_array *mime_types = selection_mime_types(selection);
	selection->peer.selection(selection->peer.data,
				  mime_types ? (const char *const *)mime_types->data : NULL,
				  mime_types ? mime_types->size / sizeof(char *) : 0);
}

void selection_set_desktop(struct selection *selection, const char *const *mime_types,
			   size_t count)
{
	set_client_source(selection, NULL);
	free_mime_types(&selection->desktop_mime_types);
	if (count > SELECTION_MIME_TYPES_MAX) {
		LOG_DBG("the desktop offers %zu types: the first %d kept", count,
			SELECTION_MIME_TYPES_MAX);
		count = SELECTION_MIME_TYPES_MAX;
	}
	for (size_t i = 0; i < count; i++)
		add_mime_type(&selection->desktop_mime_types, mime_types[i]);
	selection->owner = count ? SELECTION_DESKTOP : SELECTION_NONE;
	LOG_DBG("the desktop's %s (%zu types) is the hosted clients' now",
		selection->protocol->name, count);
	announce_selection(selection);
}

void selection_desktop_receive(struct selection *selection, const char *mime_type, int fd)
{
	if (selection->owner == SELECTION_CLIENT)
		selection->protocol->send_source_send(selection->client_source->resource,
						      mime_type, fd);
	close(fd);
	wl_display_flush_clients(selection->server->display);
}

void selection_client_set(struct selection *selection, struct wl_client *client,
			  struct selection_source *source)
{
	/* Only the client the user types into copies (as on a desktop). */
	if (client != selection->focus) {
		LOG_DBG("a client without the keyboard set the %s: ignored",
			selection->protocol->name);
		if (source)
			selection->protocol->send_source_cancelled(source->resource);
		return;
	}
	if (source && source == selection->client_source)
		return;
	set_client_source(selection, source);
	LOG_DBG("a hosted client set the %s (%zu types): the desktop's now",
		selection->protocol->name, source ? source->mime_types.size / sizeof(char *) : 0);
	announce_selection(selection);
	tell_peer(selection);
}

/* ---- sources ---- */

void selection_source_offer(struct selection_source *source, const char *mime_type)
{
	if (source->used) {
		/* No error (wlroots only logs it); the desktop was told the
		 * types already: what was copied stays as it was. */
		LOG_DBG("a client offers %s after using its source: ignored", mime_type);
		return;
	}
	if (source->mime_types.size / sizeof(char *) >= SELECTION_MIME_TYPES_MAX) {
		/* No protocol error for it: the first types are the useful ones. */
		LOG_DBG("a client offers more than %d types: %s ignored", SELECTION_MIME_TYPES_MAX,
			mime_type);
		return;
	}
	if (!add_mime_type(&source->mime_types, mime_type))
		wl_client_post_no_memory(wl_resource_get_client(source->resource));
}

static void source_resource_destroyed(struct wl_resource *resource)
{
	struct selection_source *source = wl_resource_get_user_data(resource);
	struct selection *selection = source->selection;
	if (selection && selection->owner == SELECTION_CLIENT &&
	    selection->client_source == source) {
		selection->client_source = NULL;
		selection->owner = SELECTION_NONE;
		announce_selection(selection);
		tell_peer(selection);
	}
	free_mime_types(&source->mime_types);
	free(source);
}

void selection_manager_create_source(struct wl_client *client, struct wl_resource *manager,
				     uint32_t id)
{
	struct selection *selection = wl_resource_get_user_data(manager);
	struct selection_source *source = calloc(1, sizeof(*source));
	if (!source) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_array_init(&source->mime_types);
	source->selection = selection;
	source->resource = wl_resource_create(client, selection->protocol->source_interface,
					      wl_resource_get_version(manager), id);
	if (!source->resource) {
		free(source);
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(source->resource, selection->protocol->source_impl, source,
				       source_resource_destroyed);
}

void selection_manager_get_device(struct wl_client *client, struct wl_resource *manager,
				  uint32_t id, struct wl_resource *seat)
{
	struct selection *selection = wl_resource_get_user_data(manager);
	struct wl_resource *device = wl_resource_create(client, selection->protocol->device_interface,
							wl_resource_get_version(manager), id);
	if (!device) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(device, selection->protocol->device_impl, selection,
				       unlink_resource);
	add_device(selection, device);
}

/* ---- the selection's life ---- */

static void manager_bind(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct selection *selection = data;
	struct wl_resource *resource = wl_resource_create(
		client, selection->protocol->manager_interface, (int)version, id);
	if (!resource) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, selection->protocol->manager_impl, selection,
				       NULL);
}

struct selection *selection_create(struct server *server, const struct selection_protocol *protocol)
{
	struct selection *selection = calloc(1, sizeof(*selection));
	if (!selection) {
		LOG_ERR("cannot allocate the %s", protocol->name);
		return NULL;
	}
	selection->server = server;
	selection->protocol = protocol;
	wl_list_init(&selection->devices);
	wl_list_init(&selection->offers);
	wl_array_init(&selection->desktop_mime_types);
	return selection;
}

void selection_enable(struct selection *selection)
{
	const struct selection_protocol *protocol = selection->protocol;
	if (selection->global)
		return;
	selection->global = wl_global_create(selection->server->display,
					     protocol->manager_interface, protocol->manager_version,
					     selection, manager_bind);
	if (!selection->global) {
		LOG_ERR("cannot create the %s global: no %s", protocol->manager_interface->name,
			protocol->name);
		return;
	}
	selection->focus = NULL;
	selection_keyboard_focus_changed(selection);
}

struct wl_global *selection_global(const struct selection *selection)
{
	return selection ? selection->global : NULL;
}

void selection_set_peer(struct selection *selection, const struct wl_record_clipboard_peer *peer)
{
	if (peer)
		selection->peer = *peer;
	else
		selection->peer = (struct wl_record_clipboard_peer){ 0 };
}

void selection_destroy(struct selection *selection)
{
	if (!selection)
		return;
	orphan_resources(&selection->offers);
	orphan_resources(&selection->devices);
	free_mime_types(&selection->desktop_mime_types);
	if (selection->global)
		wl_global_destroy(selection->global);
	free(selection);
}
