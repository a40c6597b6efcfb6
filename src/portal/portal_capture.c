#include "portal_capture.h"

#include <stdlib.h>

#include "portal_screencast.h"

struct portal_capture {
	struct capture_source base;
	struct portal_cast *cast;
	struct capture_source *stream;
};

static struct portal_capture *portal_capture(const struct capture_source *source)
{
	return (struct portal_capture *)source;
}

static bool start(struct capture_source *source, struct wl_event_loop *loop, ended_fn ended,
		  void *data)
{
	struct portal_capture *capture = portal_capture(source);
	return portal_cast_watch(capture->cast, loop, ended, data) &&
	       capture_source_start(capture->stream, loop, ended, data);
}

static struct frame_source *frames(struct capture_source *source)
{
	return capture_source_frames(portal_capture(source)->stream);
}

static const char *describe(const struct capture_source *source)
{
	return portal_cast_describe(portal_capture(source)->cast);
}

static void destroy(struct capture_source *source)
{
	struct portal_capture *capture = portal_capture(source);
	capture_source_destroy(capture->stream);
	/* After the stream: the session's end stops the portal's producer. */
	portal_cast_close(capture->cast);
	free(capture);
}

static const struct capture_source_impl portal_capture_impl = {
	.start = start,
	.frames = frames,
	.describe = describe,
	.destroy = destroy,
};

struct capture_source *portal_capture_create(struct portal_cast *cast,
					     struct capture_source *stream)
{
	struct portal_capture *capture = calloc(1, sizeof(*capture));
	if (!capture) {
		capture_source_destroy(stream);
		portal_cast_close(cast);
		return NULL;
	}
	capture->base.impl = &portal_capture_impl;
	capture->cast = cast;
	capture->stream = stream;
	return &capture->base;
}
