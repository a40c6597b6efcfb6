#include "screen_capture.h"

#include <stdlib.h>

#include "screen.h"
#include "screen_source.h"

struct screen_capture {
	struct capture_source base;
	struct screen *screen; /* NULL until the server is made */
};

static struct screen_capture *screen_capture(const struct capture_source *source)
{
	return (struct screen_capture *)source;
}

static bool start(struct capture_source *source, struct wl_event_loop *loop, ended_fn ended,
		  void *data)
{
	return true;
}

static struct frame_source *frames(struct capture_source *source)
{
	struct screen_capture *capture = screen_capture(source);
	return capture->screen ? screen_frame_source(capture->screen) : NULL;
}

static const char *describe(const struct capture_source *source)
{
	return "the hosted display";
}

static void destroy(struct capture_source *source)
{
	free(screen_capture(source));
}

static const struct capture_source_impl screen_capture_impl = {
	.hosting = true,
	.start = start,
	.frames = frames,
	.describe = describe,
	.destroy = destroy,
};

struct capture_source *screen_capture_create(void)
{
	struct screen_capture *capture = calloc(1, sizeof(*capture));
	if (!capture)
		return NULL;
	capture->base.impl = &screen_capture_impl;
	return &capture->base;
}

void screen_capture_set_screen(struct capture_source *source, struct screen *screen)
{
	screen_capture(source)->screen = screen;
}
