#ifndef WL_RECORD_FRAME_SOURCE_H
#define WL_RECORD_FRAME_SOURCE_H

#include <stdbool.h>
#include <wayland-util.h>

#include "frame.h"

/* The seam between what produces pictures of a screen and what uses them.
 *
 * A frame source (the nested compositor's screen, capture/screen_source.c;
 * later a screencopy client, a PipeWire stream: each a new file that fills a
 * struct frame and calls frame_source_emit) delivers every new picture, with
 * its damage and CLOCK_MONOTONIC time, to each connected sink. Nothing flows
 * back: a sink never asks the source for anything, it only takes a reference
 * (frame_ref) on a picture it keeps past the call. Whether it keeps the
 * dmabuf or reads pixels is the sink's own choice per frame.
 *
 * Several sinks, not one: the encoder's pacer is a sink, a screenshot is a
 * sink, and a window showing the screen on the user's desktop will be one
 * more, connected beside the others with its own pacing (its display's
 * refresh, not --fps), so adding it touches no other sink and not the
 * source. Sinks are called in the order they were connected, on the
 * compositor (main) thread. */

struct frame_sink;

struct frame_sink_impl {
	/* A new picture. `frame` is valid during the call only. */
	void (*frame)(struct frame_sink *sink, const struct frame *frame);
};

struct frame_sink {
	const struct frame_sink_impl *impl;
	struct wl_list link; /* frame_source.sinks */
};

struct frame_source {
	struct wl_list sinks; /* frame_sink.link */
};

static inline void frame_source_init(struct frame_source *source)
{
	wl_list_init(&source->sinks);
}

/* Sinks still connected when the source goes are disconnected (not told). */
static inline void frame_source_finish(struct frame_source *source)
{
	struct frame_sink *sink, *tmp;
	wl_list_for_each_safe(sink, tmp, &source->sinks, link) {
		wl_list_remove(&sink->link);
		wl_list_init(&sink->link);
	}
}

static inline bool frame_source_has_sinks(const struct frame_source *source)
{
	return !wl_list_empty(&source->sinks);
}

static inline void frame_sink_connect(struct frame_sink *sink, const struct frame_sink_impl *impl,
				      struct frame_source *source)
{
	sink->impl = impl;
	wl_list_insert(source->sinks.prev, &sink->link);
}

/* Safe on a sink never connected only when it was zeroed or disconnected. */
static inline void frame_sink_disconnect(struct frame_sink *sink)
{
	if (!sink->impl)
		return;
	wl_list_remove(&sink->link);
	wl_list_init(&sink->link);
	sink->impl = NULL;
}

/* A sink may disconnect itself (not others) during the call. */
static inline void frame_source_emit(struct frame_source *source, const struct frame *frame)
{
	struct frame_sink *sink, *tmp;
	wl_list_for_each_safe(sink, tmp, &source->sinks, link)
		sink->impl->frame(sink, frame);
}

#endif
