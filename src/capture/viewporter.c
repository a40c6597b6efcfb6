#define LOG_MODULE "capture"
#include "viewporter.h"

#include <stdlib.h>
#include <string.h>
#include <wayland-server-core.h>

#include "log.h"
#include "server.h"
#include "surface.h"
#include "viewporter-server-protocol.h"

#define VIEWPORTER_VERSION 1

struct viewport_state {
	bool has_source, has_destination;
	double src_x, src_y, src_w, src_h;
	int dst_w, dst_h;
};

/* wp_viewport: double-buffered crop and scale of one surface, kept beside the
 * surface and found through its destroy listener. */
struct viewport {
	struct wl_resource *resource;
	struct surface *surface; /* NULL once the surface is gone */
	struct viewport_state pending, current;
	struct wl_listener surface_destroy;
	struct wl_listener surface_commit;
};

static const struct wp_viewport_interface viewport_impl;

static struct viewport *viewport_from_resource(struct wl_resource *resource)
{
	if (!wl_resource_instance_of(resource, &wp_viewport_interface, &viewport_impl))
		return NULL;
	return wl_resource_get_user_data(resource);
}

static void detach(struct viewport *viewport)
{
	if (!viewport->surface)
		return;
	wl_list_remove(&viewport->surface_destroy.link);
	wl_list_remove(&viewport->surface_commit.link);
	viewport->surface = NULL;
}

static void viewport_surface_destroyed(struct wl_listener *listener, void *data)
{
	struct viewport *viewport = wl_container_of(listener, viewport, surface_destroy);
	detach(viewport);
}

static struct viewport *viewport_of_surface(const struct surface *surface)
{
	struct wl_listener *listener =
		wl_signal_get((struct wl_signal *)&surface->events.destroy, viewport_surface_destroyed);
	if (!listener)
		return NULL;
	struct viewport *viewport = wl_container_of(listener, viewport, surface_destroy);
	return viewport;
}

static void viewport_surface_committed(struct wl_listener *listener, void *data)
{
	struct viewport *viewport = wl_container_of(listener, viewport, surface_commit);
	(void)data; /* struct surface_commit_event: the surface is ours already */
	struct viewport_state *state = &viewport->pending;
	if (state->has_source && !state->has_destination &&
	    (state->src_w != (int)state->src_w || state->src_h != (int)state->src_h)) {
		wl_resource_post_error(viewport->resource, WP_VIEWPORT_ERROR_BAD_SIZE,
				       "source size %gx%g is not integer and no destination is set",
				       state->src_w, state->src_h);
		return;
	}
	int sw, sh;
	surface_get_size(viewport->surface, &sw, &sh);
	if (state->has_source && viewport->surface->mapped &&
	    (state->src_x + state->src_w > sw || state->src_y + state->src_h > sh)) {
		wl_resource_post_error(viewport->resource, WP_VIEWPORT_ERROR_OUT_OF_BUFFER,
				       "source rectangle extends outside the %dx%d surface", sw, sh);
		return;
	}
	if (memcmp(&viewport->current, &viewport->pending, sizeof(viewport->current)) != 0)
		screen_damage_all(&viewport->surface->server->screen); /* shown on the role's flush */
	viewport->current = viewport->pending;
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
	if (x == unset && y == unset && width == unset && height == unset) {
		viewport->pending.has_source = false;
		return;
	}
	if (x < 0 || y < 0 || width <= 0 || height <= 0) {
		wl_resource_post_error(resource, WP_VIEWPORT_ERROR_BAD_VALUE,
				       "source rectangle %gx%g+%g+%g is invalid", wl_fixed_to_double(width),
				       wl_fixed_to_double(height), wl_fixed_to_double(x),
				       wl_fixed_to_double(y));
		return;
	}
	viewport->pending.has_source = true;
	viewport->pending.src_x = wl_fixed_to_double(x);
	viewport->pending.src_y = wl_fixed_to_double(y);
	viewport->pending.src_w = wl_fixed_to_double(width);
	viewport->pending.src_h = wl_fixed_to_double(height);
}

static void viewport_handle_set_destination(struct wl_client *client, struct wl_resource *resource,
					    int32_t width, int32_t height)
{
	struct viewport *viewport = viewport_from_resource(resource);
	if (!check_surface(viewport))
		return;
	if (width == -1 && height == -1) {
		viewport->pending.has_destination = false;
		return;
	}
	if (width <= 0 || height <= 0) {
		wl_resource_post_error(resource, WP_VIEWPORT_ERROR_BAD_VALUE,
				       "destination size %dx%d is invalid", width, height);
		return;
	}
	viewport->pending.has_destination = true;
	viewport->pending.dst_w = width;
	viewport->pending.dst_h = height;
}

static const struct wp_viewport_interface viewport_impl = {
	.destroy = viewport_handle_destroy,
	.set_source = viewport_handle_set_source,
	.set_destination = viewport_handle_set_destination,
};

static void viewport_resource_destroy(struct wl_resource *resource)
{
	struct viewport *viewport = viewport_from_resource(resource);
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
	viewport->surface_destroy.notify = viewport_surface_destroyed;
	wl_signal_add(&surface->events.destroy, &viewport->surface_destroy);
	viewport->surface_commit.notify = viewport_surface_committed;
	/* Before the shell's commit listener, which places the surface by its
	 * shown size. */
	wl_list_insert(&surface->events.commit.listener_list, &viewport->surface_commit.link);
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
	const struct viewport *viewport = viewport_of_surface(surface);
	const struct viewport_state *state = viewport ? &viewport->current : NULL;
	if (state && state->has_source) {
		*src_x = state->src_x;
		*src_y = state->src_y;
		*src_w = state->src_w;
		*src_h = state->src_h;
	} else {
		*src_x = *src_y = 0;
		*src_w = sw;
		*src_h = sh;
	}
	if (state && state->has_destination) {
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
