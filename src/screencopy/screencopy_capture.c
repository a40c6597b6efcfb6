#include "screencopy_capture.h"

#include <stdlib.h>

#include "screencopy_source.h"

struct screencopy_capture {
	struct capture_source base;
	struct screencopy_source *copy;
};

static struct screencopy_capture *screencopy_capture(const struct capture_source *source)
{
	return (struct screencopy_capture *)source;
}

static bool start(struct capture_source *source, struct wl_event_loop *loop, ended_fn ended,
		  void *data)
{
	return screencopy_source_start(screencopy_capture(source)->copy, loop, ended, data);
}

static struct frame_source *frames(struct capture_source *source)
{
	return screencopy_frame_source(screencopy_capture(source)->copy);
}

static const char *describe(const struct capture_source *source)
{
	return screencopy_source_describe(screencopy_capture(source)->copy);
}

static void list_outputs(const struct capture_source *source, FILE *out)
{
	screencopy_source_list_outputs(screencopy_capture(source)->copy, out);
}

static void destroy(struct capture_source *source)
{
	struct screencopy_capture *capture = screencopy_capture(source);
	screencopy_source_destroy(capture->copy);
	free(capture);
}

static const struct capture_source_impl screencopy_capture_impl = {
	.start = start,
	.frames = frames,
	.describe = describe,
	.list_outputs = list_outputs,
	.destroy = destroy,
};

struct capture_source *screencopy_capture_create(struct screencopy_source *copy)
{
	struct screencopy_capture *capture = calloc(1, sizeof(*capture));
	if (!capture) {
		screencopy_source_destroy(copy);
		return NULL;
	}
	capture->base.impl = &screencopy_capture_impl;
	capture->copy = copy;
	return &capture->base;
}
