#ifndef WL_RECORD_SCREENCOPY_SOURCE_H
#define WL_RECORD_SCREENCOPY_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <wayland-server-core.h>

#include "ended.h"
#include "frame_source.h"
#include "screencopy_protocol.h"
#include "sink_caps.h"

/* The desktop wl-record runs in, as a frame source (frame_source.h): a
 * Wayland client of that desktop's compositor that copies one output
 * through ext-image-copy-capture-v1 or wlr-screencopy-unstable-v1 (v1 to
 * v3) into shm buffers (or dmabufs: screencopy_source_set_buffers()) and hands each copy to the connected sinks, with the
 * compositor's damage and its CLOCK_MONOTONIC presentation time.
 *
 * The output is the first wl_output the compositor advertises unless
 * screencopy_source_select() picks another, or a region of one. The cursor
 * is painted in unless the selection says not. After the first copy, each
 * copy waits for damage, so a still screen costs nothing. */
struct screencopy_source;


/* Connects to `display_name` (NULL: $WAYLAND_DISPLAY) and reads its globals.
 * NULL, with the reason in `why`, when there is no such display or it offers
 * no wl_shm or no wl_output. Whether it offers screencopy is
 * screencopy_source_protocols(). */
struct screencopy_source *screencopy_source_connect(const char *display_name, char *why,
						    size_t why_size);

/* What to record: one output (by wl_output or xdg-output name; NULL: the
 * first advertised), or a region in the compositor's logical coordinates
 * (slurp's "X,Y WxH") on the output holding its origin. */
struct screencopy_selection {
	const char *output_name;
	bool region;
	int x, y, width, height;
	bool no_cursor;
};

enum screencopy_select_result {
	SCREENCOPY_SELECT_OK,
	SCREENCOPY_SELECT_NO_OUTPUT,  /* no output of that name */
	SCREENCOPY_SELECT_BAD_REGION, /* outside every output, or spanning outputs */
};

/* Before screencopy_source_start(). On failure, one line in `why` (naming
 * the outputs there are, for an unknown name). */
enum screencopy_select_result screencopy_source_select(struct screencopy_source *source,
							 const struct screencopy_selection *selection,
							 char *why, size_t why_size);

/* For the status line: "" or "the first of 2 outputs: -o NAME picks another
 * (see --list-outputs)" when the first of several was chosen by default. */
const char *screencopy_source_note(const struct screencopy_source *source);

/* One line per output: name, mode, scale, logical position and size. */
void screencopy_source_list_outputs(const struct screencopy_source *source, FILE *out);

/* Which of them the compositor advertised (0: none). */
unsigned screencopy_source_protocols(const struct screencopy_source *source);

/* Copies through `protocol` (before screencopy_source_start()); false when
 * the compositor does not offer it. Without it: ext-image-copy-capture
 * when offered (the successor), else wlr-screencopy. */
bool screencopy_source_use(struct screencopy_source *source, enum screencopy_protocol protocol);

/* "HEADLESS-1 (640x480)" (or, without wl_output v4 and xdg-output v2,
 * "the first output (640x480)"), "the region 10,20 200x100 of HEADLESS-1
 * (640x480)": for the status line. */
const char *screencopy_source_describe(const struct screencopy_source *source);

/* Which buffers the copies go into, before screencopy_source_start(). Not
 * called: shm. Called: dmabufs allocated through GBM and lent to the sinks
 * (zero-copy into VA-API) when everything allows it (the rule:
 * dmabuf_choice.h; built with libgbm, sinks that all take a dmabuf format
 * the compositor offers, a render node, zwp_linux_dmabuf_v1), else shm;
 * under -v one line says which and why ("screencopy: shm buffers: no
 * render node (/dev/dri absent)"). A dmabuf copy the compositor fails
 * sends the rest of the session to shm (one warning). */
struct screencopy_buffers_request {
	int n_sinks; /* 0: shm */
	struct wl_record_sink_caps sinks[WL_RECORD_MAX_SINKS]; /* what each takes */
	const char *device; /* --device: the render node; NULL: the compositor's or the first */
};
void screencopy_source_set_buffers(struct screencopy_source *source,
				   const struct screencopy_buffers_request *request);

/* Starts copying: the connection is watched on `loop`, frames go to the
 * sinks of screencopy_frame_source(). `ended` is called once when the
 * compositor fails a copy, removes the output or goes away. */
bool screencopy_source_start(struct screencopy_source *source, struct wl_event_loop *loop,
			     ended_fn ended, void *data);

struct frame_source *screencopy_frame_source(struct screencopy_source *source);

/* Disconnects. Frames the sinks still keep stay valid until unreferenced. */
void screencopy_source_destroy(struct screencopy_source *source);

#endif
