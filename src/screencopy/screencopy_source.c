#define LOG_MODULE "screencopy"
#include "screencopy_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pixman.h>

#include "clock.h"
#include "dmabuf_choice.h"
#include "linux-dmabuf-unstable-v1-client-protocol.h"
#include "output_transform.h"
#include "roundtrip.h"
#include "log.h"
#include "xdg-output-unstable-v1-client-protocol.h"

/* When all buffers are kept, the next copy waits this long at a time. */
#define RETRY_MS 5
#define XDG_OUTPUT_VERSION 3
/* create_immed (v2); v3's format events are not listened to (the copy
 * protocols say what they take). */
#define LINUX_DMABUF_VERSION 3

void screencopy_end(struct screencopy_source *source, const char *fmt, ...)
{
	if (source->over)
		return;
	source->over = true;
	char why[256];
	va_list args;
	va_start(args, fmt);
	vsnprintf(why, sizeof(why), fmt, args);
	va_end(args);
	if (source->protocol)
		source->protocol->cancel(source);
	/* A closed connection stays readable: stop watching it. */
	desktop_connection_unwatch(&source->connection);
	if (source->ended)
		source->ended(source->ended_data, why);
}

void screencopy_flush(struct screencopy_source *source)
{
	desktop_connection_flush(&source->connection);
}

struct screencopy_shm_buffer *screencopy_take_buffer(struct screencopy_source *source)
{
	if (!source->offer.rank) {
		screencopy_end(source, "the compositor offers no shm format wl-record reads "
				       "(XRGB8888, ARGB8888, XBGR8888, ABGR8888)");
		return NULL;
	}
	struct screencopy_shm_buffer *buffer = shm_pool_buffer_for(&source->pool, &source->offer);
	if (!buffer) {
		if (!shm_pool_full(&source->pool)) {
			screencopy_end(source, "cannot allocate a %dx%d buffer", source->offer.width,
				       source->offer.height);
			return NULL;
		}
		LOG_DBG("every buffer is still kept; copying in %d ms", RETRY_MS);
		wl_event_source_timer_update(source->retry, RETRY_MS);
		return NULL;
	}
	return buffer;
}

/* Once, at the first copy: dmabufs or shm (dmabuf_choice.h), said under -v. */
static void choose_buffers(struct screencopy_source *source, bool cropped)
{
	if (source->buffers_kind != BUFFERS_UNDECIDED)
		return;
	const struct dmabuf_offer *offer = &source->dmabuf_offer;
	char node[128], node_why[160] = "", why[320];
	bool have_node = dmabuf_find_render_node(source->buffers.device, offer->device_known,
						 offer->device, node, sizeof(node), node_why,
						 sizeof(node_why));
	struct dmabuf_choice_facts facts = {
		.built_with_gbm = dmabuf_pool_available(),
		.sinks = source->buffers.sinks,
		.n_sinks = source->buffers.n_sinks,
		.format_offered = offer->rank > 0 ? offer->format : 0,
		.cropped = cropped,
		/* Known before the first copy from the output (both protocols'
		 * compositors send the output's transform); a copy that turns out
		 * turned anyway falls back (screencopy_deliver_dmabuf). */
		.turned = source->output && source->output->transform != WL_OUTPUT_TRANSFORM_NORMAL,
		.node = have_node ? node : NULL,
		.node_why = node_why,
		.linux_dmabuf = source->dmabuf.linux_dmabuf != NULL,
	};
	if (dmabuf_choose(&facts, why, sizeof(why)) &&
	    dmabuf_pool_open(&source->dmabuf, node, why, sizeof(why))) {
		source->buffers_kind = BUFFERS_DMABUF;
		LOG_DBG("dmabuf buffers on %s: copies go to the encoder without a CPU copy", node);
		return;
	}
	source->buffers_kind = BUFFERS_SHM;
	LOG_DBG("shm buffers: %s", why);
}

void screencopy_dmabuf_failed(struct screencopy_source *source, const char *why)
{
	if (source->buffers_kind != BUFFERS_DMABUF)
		return;
	source->buffers_kind = BUFFERS_SHM;
	/* The frames the sinks keep keep their buffers; the rest go now. */
	dmabuf_pool_finish(&source->dmabuf);
	LOG_WARN("dmabuf copies: %s; copying into shm from now on", why);
}

void screencopy_drop_target(struct screencopy_source *source)
{
	if (source->target)
		wl_record_buffer_unlock(&source->target->base);
	if (source->dmabuf_target)
		wl_record_buffer_unlock(&source->dmabuf_target->base);
	source->target = NULL;
	source->dmabuf_target = NULL;
}

bool screencopy_take_target(struct screencopy_source *source, bool cropped)
{
	screencopy_drop_target(source);
	choose_buffers(source, cropped);
	if (source->buffers_kind == BUFFERS_DMABUF) {
		char why[320] = "";
		struct screencopy_dmabuf_buffer *buffer = NULL;
		if (!source->dmabuf_offer.rank)
			snprintf(why, sizeof(why), "the compositor no longer offers a dmabuf copy");
		else if (cropped)
			snprintf(why, sizeof(why), "-g is cut out of the copy by the CPU");
		else
			buffer = dmabuf_pool_buffer_for(&source->dmabuf, &source->dmabuf_offer, why,
							 sizeof(why));
		if (buffer) {
			source->dmabuf_target = buffer;
			return true;
		}
		if (!why[0]) {
			LOG_DBG("every buffer is still kept; copying in %d ms", RETRY_MS);
			wl_event_source_timer_update(source->retry, RETRY_MS);
			return false;
		}
		if (!source->dmabuf_copies) {
			/* GBM could not allocate: part of the choice, not a failure. */
			source->buffers_kind = BUFFERS_SHM;
			dmabuf_pool_finish(&source->dmabuf);
			LOG_DBG("shm buffers: %s", why);
		} else {
			screencopy_dmabuf_failed(source, why);
		}
	}
	source->target = screencopy_take_buffer(source);
	return source->target != NULL;
}

struct wl_buffer *screencopy_target_wl_buffer(const struct screencopy_source *source)
{
	return source->dmabuf_target ? source->dmabuf_target->wl_buffer
				     : source->target->wl_buffer;
}

/* Far outside any copy (at most SCREENCOPY_MAX_SIDE), within an int. */
static int damage_coord(int64_t v)
{
	const int64_t limit = 1 << 24;
	return (int)(v < -limit ? -limit : v > limit ? limit : v);
}

void screencopy_add_damage(struct screencopy_source *source, int64_t x, int64_t y,
			   int64_t width, int64_t height)
{
	struct frame damage = {
		.damage_known = true,
		.damage = { damage_coord(x), damage_coord(y), damage_coord(x + width),
			    damage_coord(y + height) },
	};
	struct frame into = { .damage_known = source->damage_known, .damage = source->damage };
	frame_damage_merge(&into, &damage);
	source->damage = into.damage;
}

/* Whether the copy in `buffer` holds the same pixels as `last` within `d`
 * (where the compositor said the output changed). sway 1.7 reports damage
 * for output commits that change nothing (seen: 1 in 5 copies of a client
 * drawing at 20 fps); such a copy is no new picture and costs the encoder a
 * frame. */
static bool copy_unchanged(const struct screencopy_source *source,
			   const struct screencopy_shm_buffer *buffer, struct frame_damage d)
{
	const struct screencopy_shm_buffer *last = source->last;
	if (!last || last->format != buffer->format ||
	    last->width != buffer->width || last->height != buffer->height ||
	    last->stride != buffer->stride)
		return false;
	for (int y = d.y1; y < d.y2; y++) {
		size_t offset = (size_t)buffer->stride * (size_t)y + (size_t)d.x1 * 4;
		if (memcmp(buffer->data + offset, last->data + offset, (size_t)(d.x2 - d.x1) * 4))
			return false;
	}
	return true;
}

static void flip_rows(struct screencopy_shm_buffer *buffer)
{
	size_t row = (size_t)buffer->width * 4;
	uint8_t *tmp = malloc(row);
	if (!tmp)
		return;
	for (int y = 0; y < buffer->height / 2; y++) {
		uint8_t *a = buffer->data + (size_t)buffer->stride * (size_t)y;
		uint8_t *b = buffer->data + (size_t)buffer->stride * (size_t)(buffer->height - 1 - y);
		memcpy(tmp, a, row);
		memcpy(a, b, row);
		memcpy(b, tmp, row);
	}
	free(tmp);
}

int64_t screencopy_frame_time(struct screencopy_source *source, bool known, uint32_t sec_hi,
			      uint32_t sec_lo, uint32_t nsec)
{
	int64_t now = clock_now_ns();
	uint64_t sec = ((uint64_t)sec_hi << 32) | sec_lo;
	/* Any seconds the compositor says: past int64 nanoseconds (with nsec,
	 * up to 2^32 - 1) is unusable, as any time too far off. */
	int64_t t = known && sec <= (uint64_t)INT64_MAX / 1000000000 - 5
		    ? (int64_t)sec * 1000000000 + nsec : 0;
	if (t <= 0 || t > now || t < now - 1000000000LL)
		t = now;
	/* Never before the capture began (the recording's clock starts before). */
	if (t < source->start_ns)
		t = source->start_ns;
	if (t <= source->last_pts_ns)
		t = source->last_pts_ns + 1;
	source->last_pts_ns = t;
	return t;
}

/* -g in the upright copy's pixels: the region's logical box scaled as the
 * output's logical size is to the upright picture's. */
struct frame_damage screencopy_region_in_copy(const struct screencopy_source *source,
					      const struct screencopy_shm_buffer *buffer,
					      uint32_t transform)
{
	int x, y, width, height, upright_width, upright_height;
	desktop_output_box(source->output, &x, &y, &width, &height);
	upright_size(transform, buffer->width, buffer->height, &upright_width, &upright_height);
	double sx = width > 0 ? (double)upright_width / width : 1;
	double sy = height > 0 ? (double)upright_height / height : 1;
	return (struct frame_damage){
		(int)lround(source->region_x * sx), (int)lround(source->region_y * sy),
		(int)lround((source->region_x + source->region_width) * sx),
		(int)lround((source->region_y + source->region_height) * sy),
	};
}

/* The picture the sinks get from `buffer`: XRGB, upright. XBGR/ABGR copies
 * are converted, a turned or mirrored output's copy is turned back; a copy
 * that is both is converted, then turned. NULL when out of memory. */
static pixman_image_t *sink_picture(struct screencopy_shm_buffer *buffer, uint32_t transform)
{
	pixman_image_t *from = NULL;
	if (buffer->converted) {
		from = pixman_image_create_bits(
			buffer->format == WL_SHM_FORMAT_XBGR8888 ? PIXMAN_x8b8g8r8 : PIXMAN_a8b8g8r8,
			buffer->width, buffer->height, (uint32_t *)buffer->data, buffer->stride);
		if (!from)
			return NULL;
		pixman_image_composite32(PIXMAN_OP_SRC, from, NULL, buffer->converted, 0, 0, 0, 0,
					 0, 0, buffer->width, buffer->height);
		pixman_image_unref(from);
		if (transform == WL_OUTPUT_TRANSFORM_NORMAL)
			return buffer->converted;
		from = pixman_image_ref(buffer->converted);
	} else {
		from = pixman_image_create_bits(PIXMAN_x8r8g8b8, buffer->width, buffer->height,
						(uint32_t *)buffer->data, buffer->stride);
		if (!from)
			return NULL;
	}
	int width, height;
	upright_size(transform, buffer->width, buffer->height, &width, &height);
	if (buffer->upright && (pixman_image_get_width(buffer->upright) != width ||
				pixman_image_get_height(buffer->upright) != height)) {
		pixman_image_unref(buffer->upright);
		buffer->upright = NULL;
	}
	if (!buffer->upright)
		buffer->upright = pixman_image_create_bits(PIXMAN_x8r8g8b8, width, height, NULL, 0);
	if (!buffer->upright) {
		pixman_image_unref(from);
		return NULL;
	}
	pixman_transform_t matrix;
	upright_pixman_transform(transform, buffer->width, buffer->height, &matrix);
	pixman_image_set_transform(from, &matrix);
	pixman_image_set_filter(from, PIXMAN_FILTER_NEAREST, NULL, 0);
	pixman_image_composite32(PIXMAN_OP_SRC, from, NULL, buffer->upright, 0, 0, 0, 0, 0, 0,
				 width, height);
	pixman_image_unref(from);
	return buffer->upright;
}

void screencopy_deliver(struct screencopy_source *source, struct screencopy_shm_buffer *buffer,
			int64_t pts_ns, bool y_invert, uint32_t transform,
			const struct frame_damage *crop)
{
	struct frame_damage all = { 0, 0, buffer->width, buffer->height };
	/* The damage in the buffer's rows after the flip; all of it when the
	 * compositor gave none (a first copy, or a wlr-screencopy v1 copy:
	 * answered whether the output changed or not). */
	struct frame_damage d = source->damage_known ? source->damage : all;
	if (y_invert) {
		int y1 = d.y1;
		d.y1 = buffer->height - d.y2;
		d.y2 = buffer->height - y1;
	}
	frame_damage_clip(&d, &all);
	if (y_invert)
		flip_rows(buffer);
	if (copy_unchanged(source, buffer, d)) {
		source->unchanged_copies++;
		wl_record_buffer_unlock(&buffer->base);
		return;
	}

	struct frame picture = {
		.format = FRAME_XRGB8888,
		.data = buffer->data,
		.width = buffer->width,
		.height = buffer->height,
		.stride = buffer->stride,
		.pts_ns = pts_ns,
		.damage_known = source->damage_known,
		.buffer = &buffer->base,
	};
	if (buffer->converted || transform != WL_OUTPUT_TRANSFORM_NORMAL) {
		pixman_image_t *sink = sink_picture(buffer, transform);
		if (!sink) {
			wl_record_buffer_unlock(&buffer->base);
			screencopy_end(source, "out of memory");
			return;
		}
		picture.data = (uint8_t *)pixman_image_get_data(sink);
		picture.stride = pixman_image_get_stride(sink);
		picture.width = pixman_image_get_width(sink);
		picture.height = pixman_image_get_height(sink);
		d = upright_box(transform, buffer->width, buffer->height, d);
	}
	if (transform != source->transform_said) {
		source->transform_said = transform;
		LOG_INFO("the copy is turned or mirrored (wl_output transform %u): recorded upright, "
			 "%dx%d", transform, picture.width, picture.height);
	}

	/* A region is the box's pixels where they lie: no copy. */
	struct frame_damage whole = { 0, 0, picture.width, picture.height };
	struct frame_damage box = crop ? *crop : whole;
	frame_damage_clip(&box, &whole);
	if (box.x2 <= box.x1 || box.y2 <= box.y1) {
		/* A copy of another size than the output said: no picture. */
		wl_record_buffer_unlock(&buffer->base);
		screencopy_end(source, "the compositor's copy (%dx%d) holds none of the region",
			       picture.width, picture.height);
		return;
	}
	frame_damage_clip(&d, &box);
	picture.data += (size_t)picture.stride * (size_t)box.y1 + (size_t)box.x1 * 4;
	picture.width = box.x2 - box.x1;
	picture.height = box.y2 - box.y1;
	picture.damage = (struct frame_damage){ d.x1 - box.x1, d.y1 - box.y1, d.x2 - box.x1,
						 d.y2 - box.y1 };
	source->copied_once = true;
	/* Kept from reuse (the copy's lock): the next copy is compared with it. */
	if (source->last)
		wl_record_buffer_unlock(&source->last->base);
	source->last = buffer;
	frame_source_emit(&source->frames, &picture);
}

void screencopy_deliver_dmabuf(struct screencopy_source *source,
			       struct screencopy_dmabuf_buffer *buffer, int64_t pts_ns,
			       bool y_invert, uint32_t transform)
{
	if (y_invert || transform != WL_OUTPUT_TRANSFORM_NORMAL) {
		wl_record_buffer_unlock(&buffer->base);
		screencopy_dmabuf_failed(source, "the compositor copies upside down (y-invert) or "
					 "turned (a rotated output), which only the CPU turns back");
		/* That picture is lost: the next copy is a whole one. */
		source->copied_once = false;
		return;
	}
	struct frame_damage all = { 0, 0, buffer->width, buffer->height };
	struct frame_damage d = source->damage_known ? source->damage : all;
	frame_damage_clip(&d, &all);
	/* No pixels to compare with the last picture: every copy goes on. */
	struct frame picture = {
		.format = FRAME_XRGB8888,
		.width = buffer->width,
		.height = buffer->height,
		.stride = buffer->width * 4,
		.pts_ns = pts_ns,
		.damage_known = source->damage_known,
		.damage = d,
		.buffer = &buffer->base,
	};
	source->copied_once = true;
	source->dmabuf_copies++;
	if (source->last)
		wl_record_buffer_unlock(&source->last->base);
	source->last = NULL;
	frame_source_emit(&source->frames, &picture);
	wl_record_buffer_unlock(&buffer->base); /* the copy's */
}

static int handle_retry(void *data)
{
	struct screencopy_source *source = data;
	if (!source->over)
		source->protocol->retry(source);
	return 0;
}

static void handle_connection_failed(void *data, enum desktop_connection_failure failure,
				     int error)
{
	struct screencopy_source *source = data;
	switch (failure) {
	case DESKTOP_CONNECTION_READ_FAILED:
		if (error == EPROTO)
			screencopy_end(source, "the compositor ended the connection with a "
					       "protocol error");
		else
			screencopy_end(source, "the compositor closed the connection (%s)",
				       strerror(error ? error : EPIPE));
		break;
	case DESKTOP_CONNECTION_HUNG_UP:
		screencopy_end(source, "the compositor closed the connection");
		break;
	case DESKTOP_CONNECTION_FLUSH_FAILED:
		screencopy_end(source, "the connection to the compositor broke: %s", strerror(error));
		break;
	}
}

static uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

static void registry_global(void *data, struct wl_registry *registry, uint32_t name,
			    const char *interface, uint32_t version)
{
	struct screencopy_source *source = data;
	if (strcmp(interface, wl_shm_interface.name) == 0 && !source->pool.shm) {
		source->pool.shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	} else if (strcmp(interface, zxdg_output_manager_v1_interface.name) == 0 &&
		   !source->xdg_output_manager) {
		source->xdg_output_manager = wl_registry_bind(registry, name,
							      &zxdg_output_manager_v1_interface,
							      min_u32(version, XDG_OUTPUT_VERSION));
	} else if (strcmp(interface, zwp_linux_dmabuf_v1_interface.name) == 0 && version >= 2 &&
		   !source->dmabuf.linux_dmabuf && dmabuf_pool_available()) {
		source->dmabuf.linux_dmabuf = wl_registry_bind(registry, name,
							       &zwp_linux_dmabuf_v1_interface,
							       min_u32(version, LINUX_DMABUF_VERSION));
	} else if (strcmp(interface, wl_output_interface.name) == 0 && !source->globals_read) {
		desktop_output_bind(&source->outputs, registry, name, version);
	} else if (!wlr_screencopy_bind(source, registry, name, interface, version)) {
		ext_copy_bind(source, registry, name, interface, version);
	}
}

static void registry_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
	struct screencopy_source *source = data;
	if (source->output && name == source->output->global) {
		screencopy_end(source, "the output was removed");
		return;
	}
	struct desktop_output *output;
	wl_list_for_each(output, &source->outputs, link) {
		if (output->global == name) {
			desktop_output_destroy(output);
			return;
		}
	}
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_global,
	.global_remove = registry_global_remove,
};

/* A compositor that accepts the connection and never answers must not
 * hang wl-record's start: how long the first answers may take. */
#define ANSWER_TIMEOUT_MS 5000

struct screencopy_source *screencopy_source_connect(const char *display_name, char *why,
						    size_t why_size)
{
	struct screencopy_source *source = calloc(1, sizeof(*source));
	if (!source) {
		snprintf(why, why_size, "out of memory");
		return NULL;
	}
	shm_pool_init(&source->pool);
	dmabuf_pool_init(&source->dmabuf);
	frame_source_init(&source->frames);
	wl_list_init(&source->outputs);
	source->display = wl_display_connect(display_name);
	if (!source->display) {
		snprintf(why, why_size, "cannot connect: %s", strerror(errno));
		goto fail;
	}
	source->registry = wl_display_get_registry(source->display);
	wl_registry_add_listener(source->registry, &registry_listener, source);
	/* The globals, then the outputs' modes, names and places (xdg-output
	 * asked for once both the manager and the outputs are known). */
	int64_t deadline = clock_now_ns() + (int64_t)ANSWER_TIMEOUT_MS * 1000000;
	int answered = wl_record_roundtrip_until(source->display, deadline);
	source->globals_read = true;
	struct desktop_output *output;
	wl_list_for_each(output, &source->outputs, link)
		desktop_output_watch(output, source->xdg_output_manager);
	if (answered > 0)
		answered = wl_record_roundtrip_until(source->display, deadline);
	if (answered <= 0) {
		if (answered == 0)
			snprintf(why, why_size, "it did not answer within %d s", ANSWER_TIMEOUT_MS / 1000);
		else
			snprintf(why, why_size, "the compositor closed the connection");
		goto fail;
	}
	if (!source->pool.shm || wl_list_empty(&source->outputs)) {
		snprintf(why, why_size, "it offers no %s", source->pool.shm ? "wl_output" : "wl_shm");
		goto fail;
	}
	/* Until screencopy_source_select(): the first output, all of it. */
	struct screencopy_selection everything = { 0 };
	screencopy_source_select(source, &everything, why, why_size);
	return source;

fail:
	screencopy_source_destroy(source);
	return NULL;
}

/* True when the region overlaps an output other than `chosen`: it spans
 * outputs, rather than reaching past the desktop's edge. */
static bool region_meets_another(struct screencopy_source *source,
				 const struct desktop_output *chosen,
				 const struct screencopy_selection *selection)
{
	struct desktop_output *output;
	int64_t x0 = selection->x, y0 = selection->y;
	int64_t x1 = x0 + selection->width, y1 = y0 + selection->height;
	wl_list_for_each(output, &source->outputs, link) {
		int x, y, width, height;
		if (output == chosen)
			continue;
		desktop_output_box(output, &x, &y, &width, &height);
		if (x0 < (int64_t)x + width && (int64_t)x < x1 && y0 < (int64_t)y + height &&
		    (int64_t)y < y1)
			return true;
	}
	return false;
}

enum screencopy_select_result screencopy_source_select(struct screencopy_source *source,
							 const struct screencopy_selection *selection,
							 char *why, size_t why_size)
{
	struct desktop_output *chosen = NULL, *output;
	int x, y, width, height;
	int count = wl_list_length(&source->outputs);
	if (selection->output_name) {
		wl_list_for_each(output, &source->outputs, link) {
			if (strcmp(selection->output_name, output->name) == 0 ||
			    strcmp(selection->output_name, output->xdg_name) == 0) {
				chosen = output;
				break;
			}
		}
		if (!chosen) {
			char names[256];
			desktop_output_names(&source->outputs, names, sizeof(names));
			snprintf(why, why_size, "no output named '%s'; there are: %s",
				 selection->output_name, names);
			return SCREENCOPY_SELECT_NO_OUTPUT;
		}
	} else if (selection->region) {
		/* The output holding the region's origin. */
		wl_list_for_each(output, &source->outputs, link) {
			desktop_output_box(output, &x, &y, &width, &height);
			if (selection->x >= x && selection->x < x + width && selection->y >= y &&
			    selection->y < y + height) {
				chosen = output;
				break;
			}
		}
		if (!chosen) {
			snprintf(why, why_size, "-g %d,%d %dx%d: no output holds %d,%d",
				 selection->x, selection->y, selection->width, selection->height,
				 selection->x, selection->y);
			return SCREENCOPY_SELECT_BAD_REGION;
		}
	} else {
		chosen = wl_container_of(source->outputs.next, chosen, link);
	}
	desktop_output_box(chosen, &x, &y, &width, &height);
	const char *name = desktop_output_name(chosen);
	if (!name[0])
		name = "the first output";
	if (selection->region) {
		/* A copy is clipped to the output: a region reaching past it
		 * would be recorded smaller than asked, so it is refused. */
		if (selection->x < x || selection->y < y ||
		    (int64_t)selection->x + selection->width > (int64_t)x + width ||
		    (int64_t)selection->y + selection->height > (int64_t)y + height) {
			bool spans = region_meets_another(source, chosen, selection);
			snprintf(why, why_size, "-g %d,%d %dx%d %s %s (%d,%d %dx%d)%s",
				 selection->x, selection->y, selection->width, selection->height,
				 spans ? "does not lie within" : "reaches outside", name, x, y,
				 width, height,
				 spans ? ": a region spanning outputs cannot be recorded" : "");
			return SCREENCOPY_SELECT_BAD_REGION;
		}
		source->region = true;
		source->region_x = selection->x - x;
		source->region_y = selection->y - y;
		source->region_width = selection->width;
		source->region_height = selection->height;
		snprintf(source->description, sizeof(source->description),
			 "the region %d,%d %dx%d of %s (%dx%d)", selection->x, selection->y,
			 selection->width, selection->height, name, chosen->mode_width,
			 chosen->mode_height);
	} else {
		source->region = false;
		snprintf(source->description, sizeof(source->description), "%s (%dx%d)", name,
			 chosen->mode_width, chosen->mode_height);
	}
	source->note[0] = 0;
	if (!selection->output_name && !selection->region && count > 1)
		snprintf(source->note, sizeof(source->note),
			 "the first of %d outputs: -o NAME picks another (see --list-outputs)", count);
	source->no_cursor = selection->no_cursor;
	source->output = chosen;
	return SCREENCOPY_SELECT_OK;
}

const char *screencopy_source_note(const struct screencopy_source *source)
{
	return source->note;
}

void screencopy_source_list_outputs(const struct screencopy_source *source, FILE *out)
{
	desktop_outputs_list(&source->outputs, out);
}

unsigned screencopy_source_protocols(const struct screencopy_source *source)
{
	return (source->wlr.manager ? SCREENCOPY_WLR : 0) |
	       (ext_copy_offered(source) ? SCREENCOPY_EXT : 0);
}

bool screencopy_source_use(struct screencopy_source *source, enum screencopy_protocol protocol)
{
	if (!(screencopy_source_protocols(source) & protocol))
		return false;
	source->protocol = protocol == SCREENCOPY_EXT ? &ext_copy_protocol
			   : &wlr_screencopy_protocol;
	return true;
}

const char *screencopy_source_describe(const struct screencopy_source *source)
{
	return source->description;
}

void screencopy_source_set_buffers(struct screencopy_source *source,
				   const struct screencopy_buffers_request *request)
{
	source->buffers = *request;
}

bool screencopy_source_start(struct screencopy_source *source, struct wl_event_loop *loop,
			     ended_fn ended, void *data)
{
	/* The successor first. */
	if (!source->protocol && !screencopy_source_use(source, SCREENCOPY_EXT) &&
	    !screencopy_source_use(source, SCREENCOPY_WLR))
		return false;
	LOG_DBG("copying through %s", screencopy_protocol_name(source->protocol->id));
	source->ended = ended;
	source->ended_data = data;
	source->retry = wl_event_loop_add_timer(loop, handle_retry, source);
	if (!source->retry) {
		LOG_ERR("cannot create the copy's retry timer");
		return false;
	}
	if (!desktop_connection_watch(&source->connection, loop, source->display,
				      handle_connection_failed, source))
		return false;
	source->start_ns = clock_now_ns();
	source->protocol->start_capture(source);
	screencopy_flush(source);
	return true;
}

struct frame_source *screencopy_frame_source(struct screencopy_source *source)
{
	return &source->frames;
}

void screencopy_source_destroy(struct screencopy_source *source)
{
	if (!source)
		return;
	frame_source_finish(&source->frames);
	desktop_connection_unwatch(&source->connection);
	if (source->retry)
		wl_event_source_remove(source->retry);
	if (source->protocol)
		source->protocol->cancel(source);
	if (source->unchanged_copies)
		LOG_DBG("%" PRId64 " copies brought nothing new and were passed over",
			source->unchanged_copies);
	if (source->last)
		wl_record_buffer_unlock(&source->last->base);
	shm_pool_finish(&source->pool);
	if (source->dmabuf_copies)
		LOG_DBG("%" PRId64 " copies went into dmabufs", source->dmabuf_copies);
	dmabuf_pool_finish(&source->dmabuf);
	if (source->dmabuf.linux_dmabuf)
		zwp_linux_dmabuf_v1_destroy(source->dmabuf.linux_dmabuf);
	wlr_screencopy_destroy(source);
	ext_copy_destroy(source);
	struct desktop_output *output, *next_output;
	wl_list_for_each_safe(output, next_output, &source->outputs, link)
		desktop_output_destroy(output);
	if (source->xdg_output_manager)
		zxdg_output_manager_v1_destroy(source->xdg_output_manager);
	if (source->pool.shm)
		wl_shm_destroy(source->pool.shm);
	if (source->registry)
		wl_registry_destroy(source->registry);
	if (source->display) {
		wl_display_flush(source->display);
		wl_display_disconnect(source->display);
	}
	free(source);
}
