#include "primary_selection.h"

#include "primary-selection-unstable-v1-server-protocol.h"
#include "selection.h"

#define PRIMARY_SELECTION_MANAGER_VERSION 1

static void destroy_request(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static const struct zwp_primary_selection_offer_v1_interface offer_impl = {
	.receive = selection_offer_receive,
	.destroy = destroy_request,
};

static void send_source_send(struct wl_resource *source, const char *mime_type, int fd)
{
	zwp_primary_selection_source_v1_send_send(source, mime_type, fd);
}

static void source_offer(struct wl_client *client, struct wl_resource *resource,
			 const char *mime_type)
{
	selection_source_offer(wl_resource_get_user_data(resource), mime_type);
}

static const struct zwp_primary_selection_source_v1_interface source_impl = {
	.offer = source_offer,
	.destroy = destroy_request,
};

static void device_set_selection(struct wl_client *client, struct wl_resource *resource,
				 struct wl_resource *source_resource, uint32_t serial)
{
	struct selection *selection = wl_resource_get_user_data(resource);
	struct selection_source *source =
		source_resource ? wl_resource_get_user_data(source_resource) : NULL;
	/* The protocol names no error for a source set twice (wlroots takes
	 * it again too): the current one set again changes nothing. */
	if (source)
		source->used = true;
	if (selection)
		selection_client_set(selection, client, source);
}

static const struct zwp_primary_selection_device_v1_interface device_impl = {
	.set_selection = device_set_selection,
	.destroy = destroy_request,
};

static const struct zwp_primary_selection_device_manager_v1_interface manager_impl = {
	.create_source = selection_manager_create_source,
	.get_device = selection_manager_get_device,
	.destroy = destroy_request,
};

static const struct selection_protocol primary_protocol = {
	.name = "primary selection",
	.manager_interface = &zwp_primary_selection_device_manager_v1_interface,
	.manager_version = PRIMARY_SELECTION_MANAGER_VERSION,
	.manager_impl = &manager_impl,
	.device_interface = &zwp_primary_selection_device_v1_interface,
	.device_impl = &device_impl,
	.source_interface = &zwp_primary_selection_source_v1_interface,
	.source_impl = &source_impl,
	.offer_interface = &zwp_primary_selection_offer_v1_interface,
	.offer_impl = &offer_impl,
	.send_data_offer = zwp_primary_selection_device_v1_send_data_offer,
	.send_offer_mime = zwp_primary_selection_offer_v1_send_offer,
	.send_selection = zwp_primary_selection_device_v1_send_selection,
	.send_source_send = send_source_send,
	.send_source_cancelled = zwp_primary_selection_source_v1_send_cancelled,
};

struct selection *primary_selection_create(struct server *server)
{
	return selection_create(server, &primary_protocol);
}
