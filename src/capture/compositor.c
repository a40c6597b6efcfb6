#define LOG_MODULE "capture"
#include "surface.h"

#include <assert.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <wayland-server-protocol.h>

#include "buffer.h"
#include "clock.h"
#include "dmabuf_buffer.h"
#include "log.h"
#include "server.h"
#include "shm.h"
#include "subcompositor.h"
#include "viewporter.h"
#include "wl_record_buffer.h"

#define COMPOSITOR_VERSION 4

static const struct wl_surface_interface surface_impl;
static const struct wl_region_interface region_impl;

struct surface *surface_from_resource(struct wl_resource *resource)
{
	assert(wl_resource_instance_of(resource, &wl_surface_interface, &surface_impl));
	return wl_resource_get_user_data(resource);
}

static pixman_region32_t *region_from_resource(struct wl_resource *resource)
{
	assert(wl_resource_instance_of(resource, &wl_region_interface, &region_impl));
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

/* A surface's origin moves by each attach's x,y, summed over commits: a
 * client may send any int32, so the sum is held within +-ORIGIN_LIMIT (far
 * beyond any screen, and room to add a position to it in an int). */
#define ORIGIN_LIMIT (1 << 24)

static int32_t add_offset(int32_t a, int32_t b)
{
	int64_t sum = (int64_t)a + b;
	return (int32_t)(sum > ORIGIN_LIMIT ? ORIGIN_LIMIT : sum < -ORIGIN_LIMIT ? -ORIGIN_LIMIT : sum);
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

static void state_buffer_destroyed(struct wl_listener *listener, void *data)
{
	struct surface_state *state = wl_container_of(listener, state, buffer_destroy);
	/* A buffer destroyed before its state was applied leaves nothing to
	 * show; the attach itself still counts. */
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

/* The protocol's initial input region: infinite (as far as pixman goes). */
static void region_set_infinite(pixman_region32_t *region)
{
	pixman_region32_reset(region, &(pixman_box32_t){ INT32_MIN / 2, INT32_MIN / 2,
							 INT32_MAX / 2, INT32_MAX / 2 });
}

static void state_init(struct surface_state *state)
{
	*state = (struct surface_state){ .scale = 1, .transform = WL_OUTPUT_TRANSFORM_NORMAL };
	wl_list_init(&state->buffer_destroy.link);
	state->buffer_destroy.notify = state_buffer_destroyed;
	pixman_region32_init(&state->surface_damage);
	pixman_region32_init(&state->buffer_damage);
	pixman_region32_init(&state->input_region);
	region_set_infinite(&state->input_region);
	wl_list_init(&state->frame_callbacks);
}

static void state_finish(struct surface_state *state)
{
	destroy_callbacks(&state->frame_callbacks);
	wl_list_remove(&state->buffer_destroy.link);
	pixman_region32_fini(&state->surface_damage);
	pixman_region32_fini(&state->buffer_damage);
	pixman_region32_fini(&state->input_region);
}

/* What a state keeps once moved or applied: not its new buffer nor its
 * damage (its frame callbacks went with the move); the rest (scale,
 * transform, viewport, input region, buffer size) carries over, as the
 * protocol says. */
static void state_clear_transient(struct surface_state *state)
{
	state->attached = false;
	state->dx = state->dy = 0;
	state_set_buffer(state, NULL);
	pixman_region32_clear(&state->surface_damage);
	pixman_region32_clear(&state->buffer_damage);
}

/* Moves `from` onto `to`, `from` being the newer: its buffer replaces an
 * older one, damage accumulates, frame callbacks queue up behind the older
 * ones, and the rest is `from`'s (it always holds the latest values). */
static void state_move(struct surface_state *to, struct surface_state *from)
{
	if (from->attached) {
		/* A committed buffer replaced before it was ever applied is
		 * not going to be read: the client gets it back now. */
		if (to->buffer && to->buffer != from->buffer)
			wl_buffer_send_release(to->buffer);
		to->attached = true;
		state_set_buffer(to, from->buffer);
		to->buffer_width = from->buffer_width;
		to->buffer_height = from->buffer_height;
	}
	to->dx = add_offset(to->dx, from->dx);
	to->dy = add_offset(to->dy, from->dy);
	pixman_region32_union(&to->surface_damage, &to->surface_damage, &from->surface_damage);
	pixman_region32_union(&to->buffer_damage, &to->buffer_damage, &from->buffer_damage);
	to->scale = from->scale;
	to->transform = from->transform;
	to->viewport = from->viewport;
	pixman_region32_copy(&to->input_region, &from->input_region);
	wl_list_insert_list(to->frame_callbacks.prev, &from->frame_callbacks);
	wl_list_init(&from->frame_callbacks);
	state_clear_transient(from);
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
	surface->pending.dx = x;
	surface->pending.dy = y;
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

static void surface_handle_set_opaque_region(struct wl_client *client,
					     struct wl_resource *resource,
					     struct wl_resource *region)
{
	/* Only a hint for a compositor that skips drawing what is hidden;
	 * composition here blends by the buffer's format. */
}

static void surface_handle_set_input_region(struct wl_client *client,
					    struct wl_resource *resource,
					    struct wl_resource *region)
{
	struct surface *surface = surface_from_resource(resource);
	if (region)
		pixman_region32_copy(&surface->pending.input_region, region_from_resource(region));
	else
		region_set_infinite(&surface->pending.input_region);
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

static void size_in_surface_coordinates(int buffer_width, int buffer_height, int32_t scale,
					int32_t transform, int *width, int *height)
{
	int w = buffer_width / scale, h = buffer_height / scale;
	if (transform_swaps_axes(transform)) {
		*width = h;
		*height = w;
	} else {
		*width = w;
		*height = h;
	}
}

void surface_get_size(const struct surface *surface, int *width, int *height)
{
	if (!surface->mapped || !surface->texture) {
		*width = *height = 0;
		return;
	}
	size_in_surface_coordinates(pixman_image_get_width(surface->texture),
				    pixman_image_get_height(surface->texture),
				    surface->current.scale, surface->current.transform, width,
				    height);
}

void surface_get_pending_size(const struct surface *surface, int *width, int *height)
{
	/* The newest attach decides the buffer: pending, else cached, else
	 * what is shown. */
	const struct surface_state *pending = &surface->pending;
	const struct surface_state *latest = pending->attached ? pending
					     : surface->has_cache && surface->cached.attached
						     ? &surface->cached
						     : NULL;
	int bw, bh;
	if (latest) {
		bw = latest->buffer ? latest->buffer_width : 0;
		bh = latest->buffer ? latest->buffer_height : 0;
	} else if (surface->mapped && surface->texture) {
		bw = pixman_image_get_width(surface->texture);
		bh = pixman_image_get_height(surface->texture);
	} else {
		bw = bh = 0;
	}
	if (bw <= 0 || bh <= 0) {
		*width = *height = 0;
		return;
	}
	size_in_surface_coordinates(bw, bh, pending->scale, pending->transform, width, height);
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

/* Converts the damaged boxes of a buffer in another format (buffer.h) into
 * the texture with pixman. pixman wants whole 32-bit words: a buffer whose
 * rows are not 4-byte aligned (any offset and stride are valid for wl_shm)
 * goes one row at a time through an aligned copy. False when out of memory. */
static bool convert_boxes(pixman_image_t *texture, pixman_format_code_t format, const uint8_t *src,
			  int src_stride, int width, int height, const pixman_box32_t *boxes, int n)
{
	if ((uintptr_t)src % 4 == 0 && src_stride % 4 == 0) {
		/* pixman only reads a source: the cast drops no promise. */
		pixman_image_t *source = pixman_image_create_bits(format, width, height,
								  (uint32_t *)src, src_stride);
		if (!source)
			return false;
		for (int i = 0; i < n; i++)
			pixman_image_composite32(PIXMAN_OP_SRC, source, NULL, texture, boxes[i].x1,
						 boxes[i].y1, 0, 0, boxes[i].x1, boxes[i].y1,
						 boxes[i].x2 - boxes[i].x1,
						 boxes[i].y2 - boxes[i].y1);
		pixman_image_unref(source);
		return true;
	}
	uint32_t *row = malloc((size_t)width * 4);
	pixman_image_t *source = row ? pixman_image_create_bits(format, width, 1, row, width * 4)
				     : NULL;
	for (int i = 0; source && i < n; i++) {
		size_t x1 = (size_t)boxes[i].x1, row_bytes = (size_t)(boxes[i].x2 - boxes[i].x1) * 4;
		for (int y = boxes[i].y1; y < boxes[i].y2; y++) {
			memcpy(row + x1, src + (size_t)y * src_stride + x1 * 4, row_bytes);
			pixman_image_composite32(PIXMAN_OP_SRC, source, NULL, texture, (int)x1, 0,
						 0, 0, (int)x1, y, boxes[i].x2 - boxes[i].x1, 1);
		}
	}
	bool ok = source != NULL;
	if (source)
		pixman_image_unref(source);
	free(row);
	return ok;
}

/* Copies the damaged part of the client's buffer into the surface's texture,
 * guarded against SIGBUS: as it is when it has the texture's layout, else
 * converted. False when the client's memory faulted (the protocol error is
 * posted; the texture content is then not to be used) or when out of memory
 * (posted too). */
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
	bool converted = true;
	if (client_format_is_native(buffer->format)) {
		for (int i = 0; i < n; i++) {
			size_t row_bytes = (size_t)(boxes[i].x2 - boxes[i].x1) * 4;
			for (int y = boxes[i].y1; y < boxes[i].y2; y++)
				memcpy(dst + (size_t)y * dst_stride + (size_t)boxes[i].x1 * 4,
				       src + (size_t)y * src_stride + (size_t)boxes[i].x1 * 4,
				       row_bytes);
		}
	} else {
		converted = convert_boxes(surface->texture, buffer->format, src, src_stride,
					  buffer->width, buffer->height, boxes, n);
	}
	if (!buffer->impl->end_read(buffer))
		return false;
	if (!converted) {
		wl_resource_post_no_memory(surface->resource);
		return false;
	}
	return true;
}

/* How long a lent buffer may keep a client waiting (shm_buffer_lease):
 * two ticks of the frame clock. A client that draws every tick commits its
 * next buffer within one, and the one it replaced is given back when the
 * frames holding it are encoded, well within the other; a client that
 * waits for its only free buffer gets a copy's release by then. */
static int hold_ms(const struct server *server)
{
	int64_t ms = 2 * server->frame_clock.grid.period_ns / 1000000;
	return ms < 1 ? 1 : ms > 1000 ? 1000 : (int)ms;
}

/* Hold, don't copy: while frame sinks are connected, the buffer of the
 * surface the screen presents is lent to the frames (dmabuf or wl_shm,
 * when XRGB8888/ARGB8888: what frames take as they are), not copied here:
 * frames carry it (when it maps 1:1) and each sink reads or maps it; the
 * client gets it back when the last frame holding it is encoded (or, held
 * too long, from a copy: shm_buffer_lease). Without sinks nobody would use
 * it. Otherwise the damage is copied into the texture and the buffer
 * released now. */
static bool lend_or_copy(struct surface *surface, const struct surface_state *next,
			 struct client_buffer *buffer, pixman_region32_t *damage)
{
	struct server *server = surface->server;
	struct wl_record_buffer *lease = NULL;
	if (server->screen.surface == surface && frame_source_has_sinks(&server->screen.source) &&
	    !surface->copy_only) {
		lease = dmabuf_buffer_lock(buffer);
		/* A wl_shm buffer only when the frames will be it (1:1):
		 * composing would read all of it, where a copy takes the damage. */
		bool whole = buffer->width == server->screen.width &&
			     buffer->height == server->screen.height && next->scale == 1 &&
			     next->transform == WL_OUTPUT_TRANSFORM_NORMAL;
		bool faulted = false;
		if (!lease && whole)
			lease = shm_buffer_lease(buffer, hold_ms(server), &faulted);
		if (faulted)
			return false;
	}
	if (lease) {
		/* A picture already shown, sent again in another buffer: no
		 * new frame (its damage is empty). */
		int same = surface->lease ? shm_buffer_same_as_lease(buffer, surface->lease, damage)
					  : 0;
		if (same < 0) {
			wl_record_buffer_unlock(lease);
			return false;
		}
		if (same) {
			/* Such a client waits for nothing and gains nothing
			 * from a lease: each picture would be compared twice.
			 * Copied from now on, its buffers come back at once
			 * and it keeps drawing into the same one. */
			pixman_region32_clear(damage);
			if (!surface->copy_only)
				LOG_DBG("the presented client sends pictures again: copied from now on");
			surface->copy_only = true;
		}
		/* Locked before the old one goes: they may be the same buffer. */
		wl_record_buffer_unlock(surface->lease);
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
	wl_record_buffer_unlock(surface->lease);
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
	uint8_t *texture = (uint8_t *)pixman_image_get_data(surface->texture);
	if (!wl_record_buffer_read(surface->lease, texture,
				   pixman_image_get_stride(surface->texture), why, sizeof(why))) {
		LOG_WARN("cannot read the presented buffer: %s", why);
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

/* A surface's listeners may remove one another during the signal: a drag's
 * icon going ends the overlay drawn for it, whose listener is the next one.
 * libwayland 1.21's wl_signal_emit then runs on a link that was removed
 * (in a loop, or through NULL). The listeners present at the start are
 * held on a list of their own and called in order, each put back before
 * its call; one removed meanwhile is not called, one added is not either
 * (as wl_signal_emit_mutable of libwayland 1.22). */
static void surface_signal_emit(struct wl_signal *signal, void *data)
{
	struct wl_list waiting;
	wl_list_init(&waiting);
	wl_list_insert_list(&waiting, &signal->listener_list);
	wl_list_init(&signal->listener_list);
	while (!wl_list_empty(&waiting)) {
		struct wl_listener *listener = wl_container_of(waiting.next, listener, link);
		wl_list_remove(&listener->link);
		wl_list_insert(signal->listener_list.prev, &listener->link);
		listener->notify(listener, data);
	}
}

/* Makes `next` (the pending or the cached state) current: the buffer's
 * damage goes into the texture and the buffer is released, frame callbacks
 * are scheduled, the subsurfaces' state that waited for this one is applied,
 * then the commit listeners and the role see the result. In that order, so
 * that whoever draws the picture sees all of it. */
static void surface_apply_state(struct surface *surface, struct surface_state *next,
				bool from_cache, int64_t commit_ns)
{
	struct server *server = surface->server;
	pixman_region32_t damage;
	pixman_region32_init(&damage);

	if (next->attached && next->buffer) {
		/* Checked when committed; the resource is still alive. */
		struct client_buffer *buffer = client_buffer_from_resource(next->buffer);
		/* The copy is XRGB8888 or ARGB8888 whatever the client's
		 * format (copy_buffer_damage converts); the format only tells
		 * composition whether to blend. */
		pixman_format_code_t format = buffer->opaque ? PIXMAN_x8r8g8b8 : PIXMAN_a8r8g8b8;
		bool resized = !surface->texture ||
			       pixman_image_get_width(surface->texture) != buffer->width ||
			       pixman_image_get_height(surface->texture) != buffer->height ||
			       pixman_image_get_format(surface->texture) != format;
		if (!ensure_texture(surface, buffer->width, buffer->height, format)) {
			wl_resource_post_no_memory(surface->resource);
			goto out;
		}
		if (resized || !surface->mapped || next->scale != surface->current.scale ||
		    next->transform != surface->current.transform) {
			pixman_region32_union_rect(&damage, &damage, 0, 0, (unsigned)buffer->width,
						   (unsigned)buffer->height);
		} else {
			surface_damage_to_buffer(&damage, &next->surface_damage, next->scale,
						 next->transform, buffer->width, buffer->height);
			pixman_region32_union(&damage, &damage, &next->buffer_damage);
			pixman_region32_intersect_rect(&damage, &damage, 0, 0,
						       (unsigned)buffer->width,
						       (unsigned)buffer->height);
		}
		if (!lend_or_copy(surface, next, buffer, &damage))
			goto out;
		surface->mapped = true;
	} else if (next->attached) {
		surface->mapped = false;
		if (surface->texture)
			pixman_region32_union_rect(&damage, &damage, 0, 0,
						   (unsigned)pixman_image_get_width(surface->texture),
						   (unsigned)pixman_image_get_height(surface->texture));
	}
	if (memcmp(&next->viewport, &surface->current.viewport, sizeof(next->viewport)) != 0)
		screen_damage_all(&server->screen); /* shown on the role's flush */
	surface->origin_x = add_offset(surface->origin_x, next->dx);
	surface->origin_y = add_offset(surface->origin_y, next->dy);
	state_move(&surface->current, next);
	/* `current` holds no buffer: its content is in the texture, or lent. */
	state_clear_transient(&surface->current);

	frame_clock_schedule(&server->frame_clock, &surface->current.frame_callbacks);
	subsurface_parent_apply(surface, from_cache);

	struct surface_commit_event event = { surface, &damage, commit_ns };
	surface_signal_emit(&surface->events.commit, &event);
	if (surface->role && surface->role->commit)
		surface->role->commit(surface, &damage, commit_ns);

out:
	state_clear_transient(next);
	pixman_region32_fini(&damage);
}

void surface_apply_cached(struct surface *surface)
{
	if (!surface->has_cache)
		return;
	surface->has_cache = false;
	surface_apply_state(surface, &surface->cached, true, clock_now_ns());
}

/* The checks the protocol asks for at commit time, whenever the state is
 * applied. False after posting an error. */
static bool check_pending(struct surface *surface)
{
	struct surface_state *pending = &surface->pending;
	if (pending->attached && pending->buffer) {
		struct client_buffer *buffer = client_buffer_try_from_resource(pending->buffer);
		if (!buffer) {
			wl_client_post_implementation_error(
				wl_resource_get_client(surface->resource),
				"wl_buffer@%u was not made by wl_shm or linux-dmabuf",
				wl_resource_get_id(pending->buffer));
			return false;
		}
		if (buffer->width % pending->scale || buffer->height % pending->scale) {
			wl_resource_post_error(surface->resource, WL_SURFACE_ERROR_INVALID_SIZE,
					       "buffer %dx%d is not a multiple of the buffer scale %d",
					       buffer->width, buffer->height, pending->scale);
			return false;
		}
		pending->buffer_width = buffer->width;
		pending->buffer_height = buffer->height;
	} else if (pending->attached) {
		pending->buffer_width = pending->buffer_height = 0;
	}
	return viewport_check_pending(surface);
}

static void surface_handle_commit(struct wl_client *client, struct wl_resource *resource)
{
	struct surface *surface = surface_from_resource(resource);
	int64_t commit_ns = clock_now_ns();
	if (!check_pending(surface)) {
		state_clear_transient(&surface->pending);
		return;
	}
	if (subsurface_is_synchronized(surface)) {
		/* Shown with the parent's next applied state. */
		state_move(&surface->cached, &surface->pending);
		subsurface_parent_cache(surface);
		surface->has_cache = true;
		return;
	}
	if (surface->has_cache) {
		/* An older state still waits (the parent stopped being
		 * synchronized): this one comes after it. */
		state_move(&surface->cached, &surface->pending);
		subsurface_parent_cache(surface);
		surface->has_cache = false;
		surface_apply_state(surface, &surface->cached, true, commit_ns);
		return;
	}
	surface_apply_state(surface, &surface->pending, false, commit_ns);
}

static const struct wl_surface_interface surface_impl = {
	.destroy = surface_handle_destroy,
	.attach = surface_handle_attach,
	.damage = surface_handle_damage,
	.frame = surface_handle_frame,
	.set_opaque_region = surface_handle_set_opaque_region,
	.set_input_region = surface_handle_set_input_region,
	.commit = surface_handle_commit,
	.set_buffer_transform = surface_handle_set_buffer_transform,
	.set_buffer_scale = surface_handle_set_buffer_scale,
	.damage_buffer = surface_handle_damage_buffer,
};

static void surface_resource_destroy(struct wl_resource *resource)
{
	struct surface *surface = surface_from_resource(resource);
	surface_signal_emit(&surface->events.destroy, surface);
	addon_set_finish(&surface->addons);

	/* A cached buffer was committed: the client gets it back. One only
	 * attached (pending) was never ours. */
	if (surface->has_cache && surface->cached.buffer)
		wl_buffer_send_release(surface->cached.buffer);
	state_finish(&surface->pending);
	state_finish(&surface->cached);
	state_finish(&surface->current);
	if (surface->texture)
		pixman_image_unref(surface->texture);
	wl_record_buffer_unlock(surface->lease);
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
	state_init(&surface->pending);
	state_init(&surface->cached);
	state_init(&surface->current);
	addon_set_init(&surface->addons);
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
