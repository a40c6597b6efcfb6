#define LOG_MODULE "screencopy"
/* wlr-screencopy-unstable-v1 (v1 to v3): one capture object per copy,
 * asked for the output or the region; after the first copy each waits for
 * damage (copy_with_damage, v2+), so a still screen costs nothing. */
#include "screencopy_internal.h"

#include <string.h>

#include <drm_fourcc.h>

#include "buffer_negotiation.h"
#include "log.h"
#include "wlr-screencopy-unstable-v1-client-protocol.h"

#define SCREENCOPY_VERSION 3

static void request_copy(struct screencopy_source *source);

static void frame_buffer(void *data, struct zwlr_screencopy_frame_v1 *frame, uint32_t format,
			 uint32_t width, uint32_t height, uint32_t stride)
{
	struct screencopy_source *source = data;
	int rank = shm_offer_rank(format, width, height, stride);
	/* Said once, not for every frame. */
	if (!source->copied_once)
		LOG_DBG("the compositor offers shm format 0x%08x %ux%u stride %u%s", format, width,
			height, stride, rank ? "" : " (not read)");
	if (rank > source->offer.rank) {
		source->offer = (struct copy_offer){ .format = format, .width = (int)width,
						     .height = (int)height, .stride = (int)stride,
						     .rank = rank };
	}
	/* Before v3 this is the only buffer event, with no buffer_done. */
	if (source->wlr.manager_version < 3)
		request_copy(source);
}

static void frame_linux_dmabuf(void *data, struct zwlr_screencopy_frame_v1 *frame,
			       uint32_t format, uint32_t width, uint32_t height)
{
	struct screencopy_source *source = data;
	const struct screencopy_buffers_request *asked = &source->buffers;
	/* No modifiers in v3: LINEAR, which every sink must take. */
	bool taken = wl_record_dmabuf_modifier_taken(asked->sinks, asked->n_sinks, format,
						     DRM_FORMAT_MOD_LINEAR);
	int rank = width && height && width <= 16384 && height <= 16384 && taken
		   ? wl_record_dmabuf_format_rank(asked->sinks, asked->n_sinks, format) : 0;
	if (!source->copied_once)
		LOG_DBG("the compositor offers dmabuf format 0x%08x %ux%u%s", format, width, height,
			rank ? "" : " (not mapped)");
	/* No modifiers nor device in v3: LINEAR on the first render node. */
	if (rank > source->dmabuf_offer.rank)
		source->dmabuf_offer = (struct dmabuf_offer){ .format = format, .width = (int)width,
							      .height = (int)height, .rank = rank };
}

static void frame_buffer_done(void *data, struct zwlr_screencopy_frame_v1 *frame)
{
	request_copy(data);
}

static void frame_flags(void *data, struct zwlr_screencopy_frame_v1 *frame, uint32_t flags)
{
	struct screencopy_source *source = data;
	source->wlr.flags = flags;
}

static void frame_damage(void *data, struct zwlr_screencopy_frame_v1 *frame, uint32_t x,
			 uint32_t y, uint32_t width, uint32_t height)
{
	screencopy_add_damage(data, x, y, width, height);
}

static void start_capture(struct screencopy_source *source);

static void frame_ready(void *data, struct zwlr_screencopy_frame_v1 *frame, uint32_t sec_hi,
			uint32_t sec_lo, uint32_t nsec)
{
	struct screencopy_source *source = data;
	/* The copy's lock goes with the buffer to screencopy_deliver*(). */
	struct screencopy_shm_buffer *buffer = source->target;
	struct screencopy_dmabuf_buffer *dmabuf = source->dmabuf_target;
	/* A copy is ready only once asked for (request_copy sets a target):
	 * earlier, no buffer holds a picture. */
	if (!buffer && !dmabuf) {
		screencopy_end(source, "the compositor sent a copy's ready before wl-record asked "
				       "for the copy (a wlr-screencopy protocol error)");
		return;
	}
	zwlr_screencopy_frame_v1_destroy(source->wlr.frame);
	source->wlr.frame = NULL;
	source->target = NULL;
	source->dmabuf_target = NULL;
	int64_t pts = screencopy_frame_time(source, true, sec_hi, sec_lo, nsec);
	bool y_invert = source->wlr.flags & ZWLR_SCREENCOPY_FRAME_V1_FLAGS_Y_INVERT;
	uint32_t transform = (uint32_t)source->output->transform;
	if (dmabuf) {
		screencopy_deliver_dmabuf(source, dmabuf, pts, y_invert, transform);
	} else {
		struct frame_damage crop;
		if (source->wlr.region_cut_here)
			crop = screencopy_region_in_copy(source, buffer, transform);
		screencopy_deliver(source, buffer, pts, y_invert, transform,
				   source->wlr.region_cut_here ? &crop : NULL);
	}
	if (source->over)
		return;
	/* The next picture: with copy_with_damage the compositor answers when
	 * the output changes, so a still screen costs nothing meanwhile. */
	start_capture(source);
	screencopy_flush(source);
}

static void frame_failed(void *data, struct zwlr_screencopy_frame_v1 *frame)
{
	struct screencopy_source *source = data;
	if (source->dmabuf_target) {
		/* Perhaps only the dmabuf it refused: shm, asked again. */
		zwlr_screencopy_frame_v1_destroy(source->wlr.frame);
		source->wlr.frame = NULL;
		screencopy_drop_target(source);
		screencopy_dmabuf_failed(source, "the compositor could not copy into a dmabuf "
					 "(screencopy failed)");
		source->copied_once = false;
		start_capture(source);
		screencopy_flush(source);
		return;
	}
	screencopy_end(data, "the compositor could not copy the output (screencopy failed)");
}

static const struct zwlr_screencopy_frame_v1_listener frame_listener = {
	.buffer = frame_buffer,
	.flags = frame_flags,
	.ready = frame_ready,
	.failed = frame_failed,
	.damage = frame_damage,
	.linux_dmabuf = frame_linux_dmabuf,
	.buffer_done = frame_buffer_done,
};

static void start_capture(struct screencopy_source *source)
{
	struct wlr_copy_state *wlr = &source->wlr;
	int overlay_cursor = source->no_cursor ? 0 : 1;
	/* A region of a turned output is copied whole and cut here: sway 1.7
	 * (wlroots 0.15) copies the region mirrored through the output's
	 * centre when it is turned by 90 or 270 (seen: -g 10,90 200x100 of a
	 * 480x640 output came from 270,450). */
	wlr->region_cut_here = source->region &&
			       source->output->transform != WL_OUTPUT_TRANSFORM_NORMAL;
	if (source->region && !wlr->region_cut_here)
		wlr->frame = zwlr_screencopy_manager_v1_capture_output_region(
			wlr->manager, overlay_cursor, source->output->wl_output, source->region_x,
			source->region_y, source->region_width, source->region_height);
	else
		wlr->frame = zwlr_screencopy_manager_v1_capture_output(wlr->manager, overlay_cursor,
								       source->output->wl_output);
	zwlr_screencopy_frame_v1_add_listener(wlr->frame, &frame_listener, source);
	source->offer = (struct copy_offer){ 0 };
	source->dmabuf_offer = (struct dmabuf_offer){ 0 };
	wlr->flags = 0;
	/* The first copy has nothing to be compared with. */
	source->damage_known = source->copied_once && wlr->manager_version >= 2;
	source->damage = (struct frame_damage){ 0 };
}

/* Once the buffer is known: copy into a free buffer, or wait for one. */
static void request_copy(struct screencopy_source *source)
{
	if (source->over || !source->wlr.frame || source->target || source->dmabuf_target)
		return;
	/* Regions are asked of the compositor: nothing is cut by the CPU. */
	if (!screencopy_take_target(source, false))
		return;
	struct wl_buffer *buffer = screencopy_target_wl_buffer(source);
	if (source->copied_once && source->wlr.manager_version >= 2)
		zwlr_screencopy_frame_v1_copy_with_damage(source->wlr.frame, buffer);
	else
		zwlr_screencopy_frame_v1_copy(source->wlr.frame, buffer);
	screencopy_flush(source);
}

static void cancel(struct screencopy_source *source)
{
	if (source->wlr.frame)
		zwlr_screencopy_frame_v1_destroy(source->wlr.frame);
	source->wlr.frame = NULL;
	screencopy_drop_target(source);
}

const struct copy_protocol wlr_screencopy_protocol = {
	.id = SCREENCOPY_WLR,
	.start_capture = start_capture,
	.retry = request_copy,
	.cancel = cancel,
};

bool wlr_screencopy_bind(struct screencopy_source *source, struct wl_registry *registry,
			 uint32_t name, const char *interface, uint32_t version)
{
	if (strcmp(interface, zwlr_screencopy_manager_v1_interface.name) != 0 ||
	    source->wlr.manager)
		return false;
	source->wlr.manager_version = version < SCREENCOPY_VERSION ? version : SCREENCOPY_VERSION;
	source->wlr.manager = wl_registry_bind(registry, name, &zwlr_screencopy_manager_v1_interface,
					       source->wlr.manager_version);
	LOG_DBG("the compositor offers wlr-screencopy version %u", version);
	return true;
}

void wlr_screencopy_destroy(struct screencopy_source *source)
{
	cancel(source);
	if (source->wlr.manager)
		zwlr_screencopy_manager_v1_destroy(source->wlr.manager);
	source->wlr.manager = NULL;
}
