#define LOG_MODULE "capture"
#include "viewporter.h"

#include <assert.h>
#include <stdlib.h>
#include <wayland-server-core.h>

#include "log.h"
#include "server.h"
#include "surface.h"
#include "viewporter-server-protocol.h"

#define VIEWPORTER_VERSION 1

/* wp_viewport: sets the crop and scale in its surface's pending state (the
 * surface applies and caches it with the rest); kept as an addon of the
 * surface. */
struct viewport {
	struct wl_resource *resource;
	struct surface *surface; /* NULL once the surface is gone */
	struct addon addon;
};

static const struct wp_viewport_interface viewport_impl;
static const struct addon_interface viewport_addon_impl;

static struct viewport *viewport_from_resource(struct wl_resource *resource)
{
	assert(wl_resource_instance_of(resource, &wp_viewport_interface, &viewport_impl));
	return wl_resource_get_user_data(resource);
}

static void detach(struct viewport *viewport)
{
	if (!viewport->surface)
		return;
	addon_finish(&viewport->addon);
	viewport->surface = NULL;
}

static void viewport_addon_destroy(struct addon *addon)
{
	struct viewport *viewport = wl_container_of(addon, viewport, addon);
	detach(viewport);
}

static const struct addon_interface viewport_addon_impl = {
	.name = "wp_viewport",
	.destroy = viewport_addon_destroy,
};

static struct viewport *viewport_of_surface(struct surface *surface)
{
	struct addon *addon = addon_find(&surface->addons, NULL, &viewport_addon_impl);
	if (!addon)
		return NULL;
	struct viewport *viewport = wl_container_of(addon, viewport, addon);
	return viewport;
}

bool viewport_check_pending(struct surface *surface)
{
	struct viewport *viewport = viewport_of_surface(surface);
	const struct surface_viewport *state = &surface->pending.viewport;
	if (!viewport || !state->has_source)
		return true;
	if (!state->has_destination &&
	    (state->src_w != (int)state->src_w || state->src_h != (int)state->src_h)) {
		wl_resource_post_error(viewport->resource, WP_VIEWPORT_ERROR_BAD_SIZE,
				       "source size %gx%g is not integer and no destination is set",
				       state->src_w, state->src_h);
		return false;
	}
	int sw, sh;
	surface_get_pending_size(surface, &sw, &sh);
	if (sw > 0 && sh > 0 &&
	    (state->src_x + state->src_w > sw || state->src_y + state->src_h > sh)) {
		wl_resource_post_error(viewport->resource, WP_VIEWPORT_ERROR_OUT_OF_BUFFER,
				       "source rectangle extends outside the %dx%d surface", sw, sh);
		return false;
	}
	return true;
}

static bool check_surface(struct viewport *viewport)
{
	if (viewport->surface)
		return true;
	wl_resource_post_error(viewport->resource, WP_VIEWPORT_ERROR_NO_SURFACE,
			       "the wl_surface of this wp_viewport was destroyed");
	return false;
}

static void viewport_handle_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static void viewport_handle_set_source(struct wl_client *client, struct wl_resource *resource,
				       wl_fixed_t x, wl_fixed_t y, wl_fixed_t width, wl_fixed_t height)
{
	struct viewport *viewport = viewport_from_resource(resource);
	if (!check_surface(viewport))
		return;
	wl_fixed_t unset = wl_fixed_from_int(-1);
	struct surface_viewport *pending = &viewport->surface->pending.viewport;
	if (x == unset && y == unset && width == unset && height == unset) {
		pending->has_source = false;
		return;
	}
	if (x < 0 || y < 0 || width <= 0 || height <= 0) {
		wl_resource_post_error(resource, WP_VIEWPORT_ERROR_BAD_VALUE,
				       "source rectangle %gx%g+%g+%g is invalid", wl_fixed_to_double(width),
				       wl_fixed_to_double(height), wl_fixed_to_double(x),
				       wl_fixed_to_double(y));
		return;
	}
	pending->has_source = true;
	pending->src_x = wl_fixed_to_double(x);
	pending->src_y = wl_fixed_to_double(y);
	pending->src_w = wl_fixed_to_double(width);
	pending->src_h = wl_fixed_to_double(height);
}

static void viewport_handle_set_destination(struct wl_client *client, struct wl_resource *resource,
					    int32_t width, int32_t height)
{
	struct viewport *viewport = viewport_from_resource(resource);
	if (!check_surface(viewport))
		return;
	struct surface_viewport *pending = &viewport->surface->pending.viewport;
	if (width == -1 && height == -1) {
		pending->has_destination = false;
		return;
	}
	if (width <= 0 || height <= 0) {
		wl_resource_post_error(resource, WP_VIEWPORT_ERROR_BAD_VALUE,
				       "destination size %dx%d is invalid", width, height);
		return;
	}
	pending->has_destination = true;
	pending->dst_w = width;
	pending->dst_h = height;
}

static const struct wp_viewport_interface viewport_impl = {
	.destroy = viewport_handle_destroy,
	.set_source = viewport_handle_set_source,
	.set_destination = viewport_handle_set_destination,
};

static void viewport_resource_destroy(struct wl_resource *resource)
{
	struct viewport *viewport = viewport_from_resource(resource);
	/* The crop and scale go with the surface's next commit. */
	if (viewport->surface)
		viewport->surface->pending.viewport = (struct surface_viewport){ 0 };
	detach(viewport);
	free(viewport);
}

static void viewporter_handle_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static void viewporter_handle_get_viewport(struct wl_client *client, struct wl_resource *resource,
					   uint32_t id, struct wl_resource *surface_resource)
{
	struct surface *surface = surface_from_resource(surface_resource);
	if (viewport_of_surface(surface)) {
		wl_resource_post_error(resource, WP_VIEWPORTER_ERROR_VIEWPORT_EXISTS,
				       "wl_surface@%u already has a wp_viewport",
				       wl_resource_get_id(surface_resource));
		return;
	}
	struct viewport *viewport = calloc(1, sizeof(*viewport));
	if (!viewport) {
		wl_client_post_no_memory(client);
		return;
	}
	viewport->resource = wl_resource_create(client, &wp_viewport_interface,
						wl_resource_get_version(resource), id);
	if (!viewport->resource) {
		free(viewport);
		wl_client_post_no_memory(client);
		return;
	}
	viewport->surface = surface;
	addon_init(&viewport->addon, &surface->addons, NULL, &viewport_addon_impl);
	wl_resource_set_implementation(viewport->resource, &viewport_impl, viewport,
				       viewport_resource_destroy);
}

static const struct wp_viewporter_interface viewporter_impl = {
	.destroy = viewporter_handle_destroy,
	.get_viewport = viewporter_handle_get_viewport,
};

static void viewporter_bind(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct wl_resource *resource = wl_resource_create(client, &wp_viewporter_interface,
							  (int)version, id);
	if (!resource) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &viewporter_impl, data, NULL);
}

bool viewporter_create_global(struct server *server)
{
	if (!wl_global_create(server->display, &wp_viewporter_interface, VIEWPORTER_VERSION, server,
			      viewporter_bind)) {
		LOG_ERR("cannot create the wp_viewporter global");
		return false;
	}
	return true;
}

bool surface_get_view(const struct surface *surface, double *src_x, double *src_y, double *src_w,
		      double *src_h, int *dst_w, int *dst_h)
{
	int sw, sh;
	surface_get_size(surface, &sw, &sh);
	if (sw <= 0 || sh <= 0)
		return false;
	const struct surface_viewport *state = &surface->current.viewport;
	if (state->has_source) {
		*src_x = state->src_x;
		*src_y = state->src_y;
		*src_w = state->src_w;
		*src_h = state->src_h;
	} else {
		*src_x = *src_y = 0;
		*src_w = sw;
		*src_h = sh;
	}
	if (state->has_destination) {
		*dst_w = state->dst_w;
		*dst_h = state->dst_h;
	} else {
		*dst_w = (int)*src_w;
		*dst_h = (int)*src_h;
	}
	return true;
}

void surface_get_shown_size(const struct surface *surface, int *width, int *height)
{
	double x, y, w, h;
	if (!surface_get_view(surface, &x, &y, &w, &h, width, height))
		*width = *height = 0;
}
