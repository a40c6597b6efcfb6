#include "pipewire_capture.h"

#include <stdlib.h>

#include "pipewire_source.h"

struct pipewire_capture {
	struct capture_source base;
	struct pipewire_source *node;
};

static struct pipewire_capture *pipewire_capture(const struct capture_source *source)
{
	return (struct pipewire_capture *)source;
}

static bool start(struct capture_source *source, struct wl_event_loop *loop, ended_fn ended,
		  void *data)
{
	return pipewire_source_start(pipewire_capture(source)->node, loop, ended, data);
}

static struct frame_source *frames(struct capture_source *source)
{
	return pipewire_frame_source(pipewire_capture(source)->node);
}

static const char *describe(const struct capture_source *source)
{
	return pipewire_source_describe(pipewire_capture(source)->node);
}

static void destroy(struct capture_source *source)
{
	struct pipewire_capture *capture = pipewire_capture(source);
	pipewire_source_destroy(capture->node);
	free(capture);
}

static const struct capture_source_impl pipewire_capture_impl = {
	.start = start,
	.frames = frames,
	.describe = describe,
	.destroy = destroy,
};

struct capture_source *pipewire_capture_create(struct pipewire_source *node)
{
	struct pipewire_capture *capture = calloc(1, sizeof(*capture));
	if (!capture) {
		pipewire_source_destroy(node);
		return NULL;
	}
	capture->base.impl = &pipewire_capture_impl;
	capture->node = node;
	return &capture->base;
}
