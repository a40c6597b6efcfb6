#define LOG_MODULE "capture"
#include "surface.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <wayland-server-protocol.h>

#include "buffer.h"
#include "clock.h"
#include "dmabuf_buffer.h"
#include "dmabuf_lease.h"
#include "log.h"
#include "server.h"

#define COMPOSITOR_VERSION 4

static const struct wl_surface_interface surface_impl;
static const struct wl_region_interface region_impl;

struct surface *surface_from_resource(struct wl_resource *resource)
{
	if (!wl_resource_instance_of(resource, &wl_surface_interface, &surface_impl))
		return NULL;
	return wl_resource_get_user_data(resource);
}

static pixman_region32_t *region_from_resource(struct wl_resource *resource)
{
	if (!wl_resource_instance_of(resource, &wl_region_interface, &region_impl))
		return NULL;
	return wl_resource_get_user_data(resource);
}

/* Client rectangles may be huge (Weston's GL renderer damages
 * 0,0,INT32_MAX,INT32_MAX): clamp in 64 bits before pixman sees them. */
static void region_add_clamped(pixman_region32_t *region, int32_t x, int32_t y, int32_t width,
			       int32_t height)
{
	if (width <= 0 || height <= 0)
		return;
	int64_t x2 = (int64_t)x + width, y2 = (int64_t)y + height;
	if (x2 > INT32_MAX)
		x2 = INT32_MAX;
	if (y2 > INT32_MAX)
		y2 = INT32_MAX;
	pixman_region32_union_rect(region, region, x, y, (unsigned)(x2 - x), (unsigned)(y2 - y));
}

static void callback_resource_destroy(struct wl_resource *resource)
{
	wl_list_remove(wl_resource_get_link(resource));
}

static void destroy_callbacks(struct wl_list *list)
{
	struct wl_resource *callback, *tmp;
	wl_resource_for_each_safe(callback, tmp, list)
		wl_resource_destroy(callback);
}

static void pending_buffer_destroyed(struct wl_listener *listener, void *data)
{
	struct surface_state *state = wl_container_of(listener, state, buffer_destroy);
	/* Attaching a buffer and destroying it before commit leaves nothing. */
	wl_list_remove(&state->buffer_destroy.link);
	wl_list_init(&state->buffer_destroy.link);
	state->buffer = NULL;
}

static void state_set_buffer(struct surface_state *state, struct wl_resource *buffer)
{
	wl_list_remove(&state->buffer_destroy.link);
	wl_list_init(&state->buffer_destroy.link);
	state->buffer = buffer;
	if (buffer)
		wl_resource_add_destroy_listener(buffer, &state->buffer_destroy);
}

static void surface_handle_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static void surface_handle_attach(struct wl_client *client, struct wl_resource *resource,
				  struct wl_resource *buffer, int32_t x, int32_t y)
{
	struct surface *surface = surface_from_resource(resource);
	/* x,y move the surface's origin; a fullscreen surface has no origin to
	 * move, so they are accepted and have no effect. */
	surface->pending.attached = true;
	state_set_buffer(&surface->pending, buffer);
}

static void surface_handle_damage(struct wl_client *client, struct wl_resource *resource,
				  int32_t x, int32_t y, int32_t width, int32_t height)
{
	struct surface *surface = surface_from_resource(resource);
	region_add_clamped(&surface->pending.surface_damage, x, y, width, height);
}

static void surface_handle_damage_buffer(struct wl_client *client, struct wl_resource *resource,
					 int32_t x, int32_t y, int32_t width, int32_t height)
{
	struct surface *surface = surface_from_resource(resource);
	region_add_clamped(&surface->pending.buffer_damage, x, y, width, height);
}

static void surface_handle_frame(struct wl_client *client, struct wl_resource *resource,
				 uint32_t id)
{
	struct surface *surface = surface_from_resource(resource);
	struct wl_resource *callback = wl_resource_create(client, &wl_callback_interface, 1, id);
	if (!callback) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(callback, NULL, NULL, callback_resource_destroy);
	wl_list_insert(surface->pending.frame_callbacks.prev, wl_resource_get_link(callback));
}

static void surface_handle_set_region(struct wl_client *client, struct wl_resource *resource,
				      struct wl_resource *region)
{
	/* Opaque and input regions matter to a compositor that blends and
	 * routes input; the recorded output is opaque and has no input. */
}

static void surface_handle_set_buffer_transform(struct wl_client *client,
						struct wl_resource *resource, int32_t transform)
{
	if (transform < WL_OUTPUT_TRANSFORM_NORMAL || transform > WL_OUTPUT_TRANSFORM_FLIPPED_270) {
		wl_resource_post_error(resource, WL_SURFACE_ERROR_INVALID_TRANSFORM,
				       "buffer transform %d is not a wl_output.transform", transform);
		return;
	}
	surface_from_resource(resource)->pending.transform = transform;
}

static void surface_handle_set_buffer_scale(struct wl_client *client, struct wl_resource *resource,
					    int32_t scale)
{
	if (scale < 1) {
		wl_resource_post_error(resource, WL_SURFACE_ERROR_INVALID_SCALE,
				       "buffer scale %d is not positive", scale);
		return;
	}
	surface_from_resource(resource)->pending.scale = scale;
}

static bool transform_swaps_axes(int32_t transform)
{
	return transform & WL_OUTPUT_TRANSFORM_90;
}

void surface_get_size(const struct surface *surface, int *width, int *height)
{
	if (!surface->mapped || !surface->texture) {
		*width = *height = 0;
		return;
	}
	int w = pixman_image_get_width(surface->texture) / surface->scale;
	int h = pixman_image_get_height(surface->texture) / surface->scale;
	if (transform_swaps_axes(surface->transform)) {
		*width = h;
		*height = w;
	} else {
		*width = w;
		*height = h;
	}
}

/* Surface-coordinate damage to buffer coordinates, for the state about to
 * become current (scale, transform, buffer size). */
static void surface_damage_to_buffer(pixman_region32_t *out, const pixman_region32_t *damage,
				     int32_t scale, int32_t transform, int buffer_width,
				     int buffer_height)
{
	/* Surface size in surface coordinates. */
	int sw = buffer_width / scale, sh = buffer_height / scale;
	if (transform_swaps_axes(transform)) {
		int t = sw;
		sw = sh;
		sh = t;
	}
	int n;
	const pixman_box32_t *boxes = pixman_region32_rectangles((pixman_region32_t *)damage, &n);
	for (int i = 0; i < n; i++) {
		/* Clip first so the arithmetic below stays within int range. */
		int64_t x1 = boxes[i].x1 < 0 ? 0 : boxes[i].x1, y1 = boxes[i].y1 < 0 ? 0 : boxes[i].y1;
		int64_t x2 = boxes[i].x2 > sw ? sw : boxes[i].x2, y2 = boxes[i].y2 > sh ? sh : boxes[i].y2;
		if (x1 >= x2 || y1 >= y2)
			continue;
		int64_t bx1, by1, bx2, by2;
		switch (transform) {
		default:
		case WL_OUTPUT_TRANSFORM_NORMAL:
			bx1 = x1; by1 = y1; bx2 = x2; by2 = y2; break;
		case WL_OUTPUT_TRANSFORM_FLIPPED:
			bx1 = sw - x2; by1 = y1; bx2 = sw - x1; by2 = y2; break;
		case WL_OUTPUT_TRANSFORM_90:
			bx1 = sh - y2; by1 = x1; bx2 = sh - y1; by2 = x2; break;
		case WL_OUTPUT_TRANSFORM_FLIPPED_90:
			bx1 = sh - y2; by1 = sw - x2; bx2 = sh - y1; by2 = sw - x1; break;
		case WL_OUTPUT_TRANSFORM_180:
			bx1 = sw - x2; by1 = sh - y2; bx2 = sw - x1; by2 = sh - y1; break;
		case WL_OUTPUT_TRANSFORM_FLIPPED_180:
			bx1 = x1; by1 = sh - y2; bx2 = x2; by2 = sh - y1; break;
		case WL_OUTPUT_TRANSFORM_270:
			bx1 = y1; by1 = sw - x2; bx2 = y2; by2 = sw - x1; break;
		case WL_OUTPUT_TRANSFORM_FLIPPED_270:
			bx1 = y1; by1 = x1; bx2 = y2; by2 = x2; break;
		}
		pixman_region32_union_rect(out, out, (int)(bx1 * scale), (int)(by1 * scale),
					   (unsigned)((bx2 - bx1) * scale),
					   (unsigned)((by2 - by1) * scale));
	}
}

/* Copies the damaged part of the client's buffer into the surface's texture,
 * guarded against SIGBUS. False when the client's memory faulted (the
 * protocol error is posted; the texture content is then not to be used). */
static bool copy_buffer_damage(struct surface *surface, struct client_buffer *buffer,
			       const pixman_region32_t *damage)
{
	const uint8_t *src;
	int src_stride;
	if (!buffer->impl->begin_read(buffer, &src, &src_stride))
		return false;

	uint8_t *dst = (uint8_t *)pixman_image_get_data(surface->texture);
	int dst_stride = pixman_image_get_stride(surface->texture);
	int n;
	const pixman_box32_t *boxes = pixman_region32_rectangles((pixman_region32_t *)damage, &n);
	for (int i = 0; i < n; i++) {
		size_t row_bytes = (size_t)(boxes[i].x2 - boxes[i].x1) * 4;
		for (int y = boxes[i].y1; y < boxes[i].y2; y++)
			memcpy(dst + (size_t)y * dst_stride + (size_t)boxes[i].x1 * 4,
			       src + (size_t)y * src_stride + (size_t)boxes[i].x1 * 4, row_bytes);
	}
	return buffer->impl->end_read(buffer);
}

/* Zero-copy when a consumer wants dmabufs and this surface is what the
 * screen shows: the buffer is lent (released when the last frame holding it
 * is encoded). Otherwise the damage is copied and the buffer released now. */
static bool lend_or_copy(struct surface *surface, struct client_buffer *buffer,
			 const pixman_region32_t *damage)
{
	struct server *server = surface->server;
	struct dmabuf_lease *lease = NULL;
	/* While frame sinks are connected, the presented surface's dmabuf is
	 * lent, not copied here: frames carry it (when it maps 1:1) and each
	 * sink maps or reads it. Without sinks nobody would use the reference. */
	if (server->screen.surface == surface && frame_source_has_sinks(&server->screen.source))
		lease = dmabuf_buffer_lease(buffer);
	if (lease) {
		dmabuf_lease_unref(surface->lease);
		surface->lease = lease;
		surface->texture_stale = true;
		return true;
	}
	/* A stale texture gets all of this buffer, not just its damage. */
	pixman_region32_t all;
	pixman_region32_init_rect(&all, 0, 0, (unsigned)buffer->width, (unsigned)buffer->height);
	bool ok = copy_buffer_damage(surface, buffer, surface->texture_stale ? &all : damage);
	pixman_region32_fini(&all);
	if (!ok)
		return false;
	dmabuf_lease_unref(surface->lease);
	surface->lease = NULL;
	surface->texture_stale = false;
	/* Our copy is taken: the client may draw into it again. */
	wl_buffer_send_release(buffer->resource);
	return true;
}

bool surface_refresh_texture(struct surface *surface)
{
	if (!surface->texture_stale || !surface->lease)
		return true;
	char why[256] = "";
	if (!dmabuf_lease_read(surface->lease, (uint8_t *)pixman_image_get_data(surface->texture),
			       pixman_image_get_stride(surface->texture), why, sizeof(why))) {
		LOG_WARN("cannot read the presented dmabuf: %s", why);
		return false;
	}
	surface->texture_stale = false;
	return true;
}

static bool ensure_texture(struct surface *surface, int width, int height,
			   pixman_format_code_t format)
{
	if (surface->texture && pixman_image_get_width(surface->texture) == width &&
	    pixman_image_get_height(surface->texture) == height &&
	    pixman_image_get_format(surface->texture) == format)
		return true;
	if (surface->texture)
		pixman_image_unref(surface->texture);
	surface->texture = pixman_image_create_bits(format, width, height, NULL, 0);
	return surface->texture != NULL;
}

static void surface_handle_commit(struct wl_client *client, struct wl_resource *resource)
{
	struct surface *surface = surface_from_resource(resource);
	struct surface_state *pending = &surface->pending;
	int64_t commit_ns = clock_now_ns();

	pixman_region32_t damage;
	pixman_region32_init(&damage);

	if (pending->attached && pending->buffer) {
		struct client_buffer *buffer = client_buffer_from_resource(pending->buffer);
		if (!buffer) {
			wl_client_post_implementation_error(client, "wl_buffer@%u was not made by "
							    "wl_shm", wl_resource_get_id(pending->buffer));
			goto out;
		}
		if (buffer->width % pending->scale || buffer->height % pending->scale) {
			wl_resource_post_error(resource, WL_SURFACE_ERROR_INVALID_SIZE,
					       "buffer %dx%d is not a multiple of the buffer scale %d",
					       buffer->width, buffer->height, pending->scale);
			goto out;
		}
		/* Same bytes either way; the format only tells composition
		 * whether to blend. */
		pixman_format_code_t format = buffer->opaque ? PIXMAN_x8r8g8b8 : PIXMAN_a8r8g8b8;
		bool resized = !surface->texture ||
			       pixman_image_get_width(surface->texture) != buffer->width ||
			       pixman_image_get_height(surface->texture) != buffer->height ||
			       pixman_image_get_format(surface->texture) != format;
		if (!ensure_texture(surface, buffer->width, buffer->height, format)) {
			wl_client_post_no_memory(client);
			goto out;
		}
		if (resized || !surface->mapped || pending->scale != surface->scale ||
		    pending->transform != surface->transform) {
			pixman_region32_union_rect(&damage, &damage, 0, 0, (unsigned)buffer->width,
						   (unsigned)buffer->height);
		} else {
			surface_damage_to_buffer(&damage, &pending->surface_damage, pending->scale,
						 pending->transform, buffer->width, buffer->height);
			pixman_region32_union(&damage, &damage, &pending->buffer_damage);
			pixman_region32_intersect_rect(&damage, &damage, 0, 0,
						       (unsigned)buffer->width,
						       (unsigned)buffer->height);
		}
		if (!lend_or_copy(surface, buffer, &damage))
			goto out;
		surface->mapped = true;
	} else if (pending->attached) {
		surface->mapped = false;
		if (surface->texture)
			pixman_region32_union_rect(&damage, &damage, 0, 0,
						   (unsigned)pixman_image_get_width(surface->texture),
						   (unsigned)pixman_image_get_height(surface->texture));
	}
	surface->scale = pending->scale;
	surface->transform = pending->transform;

	frame_clock_schedule(&surface->server->frame_clock, &pending->frame_callbacks);

	struct surface_commit_event event = { surface, &damage, commit_ns };
	wl_signal_emit(&surface->events.commit, &event);
	if (surface->role && surface->role->commit)
		surface->role->commit(surface, &damage, commit_ns);

out:
	pending->attached = false;
	state_set_buffer(pending, NULL);
	pixman_region32_clear(&pending->surface_damage);
	pixman_region32_clear(&pending->buffer_damage);
	pixman_region32_fini(&damage);
}

static const struct wl_surface_interface surface_impl = {
	.destroy = surface_handle_destroy,
	.attach = surface_handle_attach,
	.damage = surface_handle_damage,
	.frame = surface_handle_frame,
	.set_opaque_region = surface_handle_set_region,
	.set_input_region = surface_handle_set_region,
	.commit = surface_handle_commit,
	.set_buffer_transform = surface_handle_set_buffer_transform,
	.set_buffer_scale = surface_handle_set_buffer_scale,
	.damage_buffer = surface_handle_damage_buffer,
};

static void surface_resource_destroy(struct wl_resource *resource)
{
	struct surface *surface = surface_from_resource(resource);
	wl_signal_emit(&surface->events.destroy, surface);

	destroy_callbacks(&surface->pending.frame_callbacks);
	wl_list_remove(&surface->pending.buffer_destroy.link);
	pixman_region32_fini(&surface->pending.surface_damage);
	pixman_region32_fini(&surface->pending.buffer_damage);
	if (surface->texture)
		pixman_image_unref(surface->texture);
	dmabuf_lease_unref(surface->lease);
	free(surface);
}

bool surface_set_role(struct surface *surface, const struct surface_role *role, void *role_data,
		      struct wl_resource *error_resource, uint32_t error_code)
{
	if (surface->role && surface->role != role) {
		wl_resource_post_error(error_resource, error_code,
				       "wl_surface@%u already has the role %s",
				       wl_resource_get_id(surface->resource), surface->role->name);
		return false;
	}
	surface->role = role;
	surface->role_data = role_data;
	return true;
}

static void compositor_handle_create_surface(struct wl_client *client, struct wl_resource *resource,
					     uint32_t id)
{
	struct server *server = wl_resource_get_user_data(resource);
	struct surface *surface = calloc(1, sizeof(*surface));
	if (!surface) {
		wl_client_post_no_memory(client);
		return;
	}
	surface->resource = wl_resource_create(client, &wl_surface_interface,
					       wl_resource_get_version(resource), id);
	if (!surface->resource) {
		free(surface);
		wl_client_post_no_memory(client);
		return;
	}
	surface->server = server;
	surface->scale = surface->pending.scale = 1;
	surface->transform = surface->pending.transform = WL_OUTPUT_TRANSFORM_NORMAL;
	pixman_region32_init(&surface->pending.surface_damage);
	pixman_region32_init(&surface->pending.buffer_damage);
	wl_list_init(&surface->pending.frame_callbacks);
	wl_list_init(&surface->pending.buffer_destroy.link);
	surface->pending.buffer_destroy.notify = pending_buffer_destroyed;
	wl_signal_init(&surface->events.destroy);
	wl_signal_init(&surface->events.commit);
	wl_resource_set_implementation(surface->resource, &surface_impl, surface,
				       surface_resource_destroy);
}

static void region_handle_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static void region_handle_add(struct wl_client *client, struct wl_resource *resource, int32_t x,
			      int32_t y, int32_t width, int32_t height)
{
	region_add_clamped(region_from_resource(resource), x, y, width, height);
}

static void region_handle_subtract(struct wl_client *client, struct wl_resource *resource,
				   int32_t x, int32_t y, int32_t width, int32_t height)
{
	pixman_region32_t *region = region_from_resource(resource);
	pixman_region32_t rect;
	pixman_region32_init(&rect);
	region_add_clamped(&rect, x, y, width, height);
	pixman_region32_subtract(region, region, &rect);
	pixman_region32_fini(&rect);
}

static const struct wl_region_interface region_impl = {
	.destroy = region_handle_destroy,
	.add = region_handle_add,
	.subtract = region_handle_subtract,
};

static void region_resource_destroy(struct wl_resource *resource)
{
	pixman_region32_t *region = region_from_resource(resource);
	pixman_region32_fini(region);
	free(region);
}

static void compositor_handle_create_region(struct wl_client *client, struct wl_resource *resource,
					    uint32_t id)
{
	pixman_region32_t *region = calloc(1, sizeof(*region));
	if (!region) {
		wl_client_post_no_memory(client);
		return;
	}
	pixman_region32_init(region);
	struct wl_resource *region_resource = wl_resource_create(client, &wl_region_interface, 1, id);
	if (!region_resource) {
		pixman_region32_fini(region);
		free(region);
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(region_resource, &region_impl, region,
				       region_resource_destroy);
}

static const struct wl_compositor_interface compositor_impl = {
	.create_surface = compositor_handle_create_surface,
	.create_region = compositor_handle_create_region,
};

static void compositor_bind(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct wl_resource *resource = wl_resource_create(client, &wl_compositor_interface,
							  (int)version, id);
	if (!resource) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &compositor_impl, data, NULL);
}

bool compositor_create_global(struct server *server)
{
	if (!wl_global_create(server->display, &wl_compositor_interface, COMPOSITOR_VERSION, server,
			      compositor_bind)) {
		LOG_ERR("cannot create the wl_compositor global");
		return false;
	}
	return true;
}
