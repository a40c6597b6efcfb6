#ifndef WL_RECORD_CAPTURE_SOURCE_H
#define WL_RECORD_CAPTURE_SOURCE_H

#include <stdbool.h>
#include <stdio.h>
#include <wayland-server-core.h>

#include "ended.h"
#include "frame_source.h"

/* Where frames come from, whichever it is: the nested compositor wl-record
 * hosts (capture/), the desktop copied (screencopy/), a PipeWire node
 * (pipewire/), the ScreenCast portal's stream (portal/). One is chosen
 * (pipeline/source_select.h) and the program holds it through this
 * interface only, so that adding a source touches neither the program nor
 * the sinks: they connect to its frame source. Each folder fills in the
 * impl in a file of its own. */
struct capture_source;

struct capture_source_impl {
	/* wl-record's own compositor: frames are what its clients present,
	 * and the program serves them (sockets, the copy server). */
	bool hosting;
	/* Starts delivering frames on `loop`. `ended` is called once when the
	 * source ends on its own (its compositor, node or session went away);
	 * a hosted compositor never ends so (its clients do: the program
	 * watches them). */
	bool (*start)(struct capture_source *source, struct wl_event_loop *loop, ended_fn ended,
		      void *data);
	/* Where the sinks connect; NULL while there is none yet. */
	struct frame_source *(*frames)(struct capture_source *source);
	/* What is recorded, for people: "HEADLESS-1 (640x480)". */
	const char *(*describe)(const struct capture_source *source);
	/* One line per output, where the source has outputs; NULL: none. */
	void (*list_outputs)(const struct capture_source *source, FILE *out);
	/* Frames the sinks still keep stay valid until unreferenced. */
	void (*destroy)(struct capture_source *source);
};

struct capture_source {
	const struct capture_source_impl *impl;
};

static inline bool capture_source_is_hosting(const struct capture_source *source)
{
	return source->impl->hosting;
}

static inline bool capture_source_start(struct capture_source *source, struct wl_event_loop *loop,
					ended_fn ended, void *data)
{
	return source->impl->start(source, loop, ended, data);
}

static inline struct frame_source *capture_source_frames(struct capture_source *source)
{
	return source->impl->frames(source);
}

static inline const char *capture_source_describe(const struct capture_source *source)
{
	return source->impl->describe(source);
}

/* False when the source has no outputs to list. */
static inline bool capture_source_list_outputs(const struct capture_source *source, FILE *out)
{
	if (!source->impl->list_outputs)
		return false;
	source->impl->list_outputs(source, out);
	return true;
}

/* NULL is a no-op. */
static inline void capture_source_destroy(struct capture_source *source)
{
	if (source)
		source->impl->destroy(source);
}

#endif
