#ifndef WL_RECORD_SCREENSHOT_H
#define WL_RECORD_SCREENSHOT_H

#include <stdbool.h>
#include <wayland-server-core.h>

#include "frame_source.h"
#include "pipeline_events.h"

/* What a screenshot is made of: the program turns its options into this. */
struct screenshot_config {
	const char *path;
	bool overwrite;      /* replace an existing file at `path` */
	struct wl_event_loop *loop;
	struct frame_source *source;
	/* Frames come from the hosted compositor: its app may still be
	 * drawing, so the picture waits to settle (screenshot.c). */
	bool hosting;
	double timeout_s;    /* --timeout: how long to wait for a frame */
	double delay_s;      /* --delay: wait this long after the first frame */
	struct pipeline_events events;
};

/* Screenshot mode: the first picture that stays unchanged for a settle time
 * (screenshot.c) is written as a PNG, then the run stops. */
struct screenshot *screenshot_create(const struct screenshot_config *config);
/* The client or command went away: its last picture will not change any
 * more, so it is taken now. False when there was none, or --delay has not
 * passed yet (nothing written: the moment asked for never came). */
bool screenshot_take_now(struct screenshot *screenshot);
void screenshot_destroy(struct screenshot *screenshot);

#endif
