#define LOG_MODULE "capture"
#include "screen_source.h"

#include <drm_fourcc.h>
#include <stdlib.h>

#include "log.h"
#include "screen.h"
#include "surface.h"
#include "wl_record_buffer.h"

/* A composed picture (or a client's texture) as a frame's buffer: one per
 * frame, holding one pixman reference. The image may be drawn into again
 * for the next frame; sinks that keep pixels past the next frame copy
 * them. */
struct image_buffer {
	struct wl_record_buffer base;
	pixman_image_t *image;
};

/* pixman's reference count is not atomic: image buffers are locked and
 * dropped on the compositor thread only, so this runs there. */
static void image_buffer_destroy(struct wl_record_buffer *base)
{
	struct image_buffer *buffer = wl_container_of(base, buffer, base);
	pixman_image_unref(buffer->image);
	free(buffer);
}

static bool image_buffer_begin_access(struct wl_record_buffer *base, const uint8_t **data,
				      int *stride)
{
	struct image_buffer *buffer = wl_container_of(base, buffer, base);
	*data = (const uint8_t *)pixman_image_get_data(buffer->image);
	*stride = pixman_image_get_stride(buffer->image);
	return true;
}

static bool image_buffer_end_access(struct wl_record_buffer *base)
{
	return true; /* our own memory: nothing can fault */
}

static const struct wl_record_buffer_impl image_buffer_impl = {
	.destroy = image_buffer_destroy,
	.begin_data_ptr_access = image_buffer_begin_access,
	.end_data_ptr_access = image_buffer_end_access,
};

void screen_source_set_image(struct frame *frame, pixman_image_t *image)
{
	struct image_buffer *buffer = calloc(1, sizeof(*buffer));
	if (!buffer) {
		/* The frame goes on, but no sink can keep it. */
		LOG_ERR("out of memory for a frame's buffer");
		frame->buffer = NULL;
		return;
	}
	wl_record_buffer_init(&buffer->base, &image_buffer_impl, pixman_image_get_width(image),
			      pixman_image_get_height(image), DRM_FORMAT_XRGB8888);
	buffer->image = pixman_image_ref(image);
	frame->buffer = &buffer->base;
}

void screen_source_set_lease(struct frame *frame, struct wl_record_buffer *lease)
{
	frame->buffer = wl_record_buffer_ref(lease);
}

struct frame_source *screen_frame_source(struct screen *screen)
{
	return &screen->source;
}

static void emit_to_listeners(struct screen *screen, struct frame *frame)
{
	if (wl_list_empty(&screen->events.frame.listener_list))
		return;
	/* In-process listeners of events.frame read pixels: a lent buffer is
	 * read into the surface's texture for them (frame sinks never pay it). */
	if (frame_in_buffer_only(frame)) {
		if (!screen->surface || !surface_refresh_texture(screen->surface))
			return;
		frame->data = (uint8_t *)pixman_image_get_data(screen->surface->texture);
		frame->stride = pixman_image_get_stride(screen->surface->texture);
	}
	wl_signal_emit(&screen->events.frame, frame);
}

void screen_source_emit(struct screen *screen, struct frame *frame)
{
	frame_source_emit(&screen->source, frame);
	emit_to_listeners(screen, frame);
	wl_record_buffer_unref(frame->buffer);
	frame->buffer = NULL;
}
