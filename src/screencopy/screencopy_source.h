#ifndef WL_RECORD_SCREENCOPY_SOURCE_H
#define WL_RECORD_SCREENCOPY_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <wayland-server-core.h>

#include "frame_source.h"

/* The desktop wl-record runs in, as a frame source (frame_source.h): a
 * Wayland client of that desktop's compositor that copies one output
 * through wlr-screencopy-unstable-v1 (v1 to v3) into shm buffers and hands
 * each copy to the connected sinks, with the compositor's damage and its
 * CLOCK_MONOTONIC presentation time.
 *
 * The output is the first wl_output the compositor advertises. The cursor
 * is painted in (overlay_cursor). After the first copy, each copy waits for
 * damage (copy_with_damage), so a still screen costs nothing. */
struct screencopy_source;

/* How a capture ended; the source sends no frame after this. */
typedef void (*screencopy_ended_fn)(void *data, const char *why);

/* Connects to `display_name` (NULL: $WAYLAND_DISPLAY) and reads its globals.
 * NULL, with the reason in `why`, when there is no such display or it offers
 * no wl_shm or no wl_output. Whether it offers screencopy is
 * screencopy_source_offered(). */
struct screencopy_source *screencopy_source_connect(const char *display_name, char *why,
						    size_t why_size);

/* Whether the compositor advertised zwlr_screencopy_manager_v1. */
bool screencopy_source_offered(const struct screencopy_source *source);

/* "HEADLESS-1 (640x480)" or, before wl_output v4, "the first output
 * (640x480)": for the status line. */
const char *screencopy_source_describe(const struct screencopy_source *source);

/* Starts copying: the connection is watched on `loop`, frames go to the
 * sinks of screencopy_frame_source(). `ended` is called once when the
 * compositor fails a copy, removes the output or goes away. */
bool screencopy_source_start(struct screencopy_source *source, struct wl_event_loop *loop,
			     screencopy_ended_fn ended, void *data);

struct frame_source *screencopy_frame_source(struct screencopy_source *source);

/* Disconnects. Frames the sinks still keep stay valid until unreferenced. */
void screencopy_source_destroy(struct screencopy_source *source);

#endif
