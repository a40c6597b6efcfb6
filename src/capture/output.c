#define LOG_MODULE "capture"
#include "output.h"

#include <stdlib.h>
#include <wayland-server-protocol.h>

#include "log.h"

#define OUTPUT_VERSION 3

static void output_handle_release(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static const struct wl_output_interface output_impl = {
	.release = output_handle_release,
};

static void output_resource_destroy(struct wl_resource *resource)
{
	wl_list_remove(wl_resource_get_link(resource));
}

static void send_state(struct output *output, struct wl_resource *resource)
{
	/* Physical size 0x0: there is no panel; clients then assume 96 dpi. */
	wl_output_send_geometry(resource, 0, 0, 0, 0, WL_OUTPUT_SUBPIXEL_UNKNOWN, "wl-record",
				"virtual", WL_OUTPUT_TRANSFORM_NORMAL);
	wl_output_send_mode(resource, WL_OUTPUT_MODE_CURRENT | WL_OUTPUT_MODE_PREFERRED,
			    output->width, output->height, output->refresh_mhz);
	if (wl_resource_get_version(resource) >= WL_OUTPUT_SCALE_SINCE_VERSION)
		wl_output_send_scale(resource, 1);
	if (wl_resource_get_version(resource) >= WL_OUTPUT_DONE_SINCE_VERSION)
		wl_output_send_done(resource);
}

static void output_bind(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct output *output = data;
	struct wl_resource *resource = wl_resource_create(client, &wl_output_interface, (int)version, id);
	if (!resource) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &output_impl, output, output_resource_destroy);
	wl_list_insert(&output->resources, wl_resource_get_link(resource));
	send_state(output, resource);
}

struct output *output_create(struct wl_display *display, int width, int height, int refresh_mhz)
{
	struct output *output = calloc(1, sizeof(*output));
	if (!output)
		return NULL;
	wl_list_init(&output->resources);
	output->width = width;
	output->height = height;
	output->refresh_mhz = refresh_mhz;
	output->global = wl_global_create(display, &wl_output_interface, OUTPUT_VERSION, output,
					  output_bind);
	if (!output->global) {
		LOG_ERR("cannot create the wl_output global");
		free(output);
		return NULL;
	}
	return output;
}

void output_destroy(struct output *output)
{
	if (!output)
		return;
	/* Resources outlive us only until their clients go; make them inert. */
	struct wl_resource *resource, *tmp;
	wl_resource_for_each_safe(resource, tmp, &output->resources) {
		wl_list_remove(wl_resource_get_link(resource));
		wl_list_init(wl_resource_get_link(resource));
		wl_resource_set_user_data(resource, NULL);
	}
	wl_global_destroy(output->global);
	free(output);
}

void output_set_mode(struct output *output, int width, int height, int refresh_mhz)
{
	if (output->width == width && output->height == height && output->refresh_mhz == refresh_mhz)
		return;
	output->width = width;
	output->height = height;
	output->refresh_mhz = refresh_mhz;
	struct wl_resource *resource;
	wl_resource_for_each(resource, &output->resources)
		send_state(output, resource);
}

void output_send_enter(struct output *output, struct wl_resource *surface)
{
	struct wl_client *client = wl_resource_get_client(surface);
	struct wl_resource *resource;
	wl_resource_for_each(resource, &output->resources) {
		if (wl_resource_get_client(resource) == client)
			wl_surface_send_enter(surface, resource);
	}
}
