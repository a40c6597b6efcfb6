#define LOG_MODULE "capture"
#include "screen_source.h"

#include "dmabuf_lease.h"
#include "log.h"
#include "screen.h"
#include "surface.h"

/* pixman's reference count is not atomic: images are kept on the
 * compositor thread only (the pacer; the queue copies their pixels). */
static void image_ref(void *picture)
{
	pixman_image_ref(picture);
}

static void image_unref(void *picture)
{
	pixman_image_unref(picture);
}

static const struct frame_picture_impl image_picture = { image_ref, image_unref };

void screen_source_set_image(struct frame *frame, pixman_image_t *image)
{
	frame->picture_impl = &image_picture;
	frame->picture = image;
}

void screen_source_set_lease(struct frame *frame, struct dmabuf_lease *lease)
{
	frame->picture_impl = &dmabuf_lease_picture;
	frame->picture = lease;
}

struct frame_source *screen_frame_source(struct screen *screen)
{
	return &screen->source;
}

void screen_source_emit(struct screen *screen, struct frame *frame)
{
	frame_source_emit(&screen->source, frame);
	if (wl_list_empty(&screen->events.frame.listener_list))
		return;
	/* In-process listeners of events.frame read pixels: a lent dmabuf is
	 * read into the surface's texture for them (frame sinks never pay it). */
	if (frame->dmabuf && !frame->data) {
		if (!screen->surface || !surface_refresh_texture(screen->surface))
			return;
		frame->data = (uint8_t *)pixman_image_get_data(screen->surface->texture);
		frame->stride = pixman_image_get_stride(screen->surface->texture);
	}
	wl_signal_emit(&screen->events.frame, frame);
}
