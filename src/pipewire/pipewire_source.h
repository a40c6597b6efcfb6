#ifndef WL_RECORD_PIPEWIRE_SOURCE_H
#define WL_RECORD_PIPEWIRE_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <wayland-server-core.h>

#include "ended.h"
#include "frame_source.h"

/* A PipeWire video node as a frame source (frame_source.h): Weston's
 * pipewire output, gamescope, a ScreenCast portal's stream. wl-record is a
 * consumer (an input stream linked to the node); PipeWire's loop runs on
 * the compositor's wl_event_loop (its epoll fd watched there), so every
 * frame arrives on the main thread as from the other sources.
 *
 * Each buffer the producer hands over is copied at once (SIGBUS-guarded:
 * it is another process's memory) into a picture of our own, converted to
 * XRGB8888, cut to the VideoCrop rectangle and with the Cursor metadata's
 * bitmap drawn in; the buffer goes back to the producer within the call.
 * The frame's time is the Header metadata's pts when it is a
 * CLOCK_MONOTONIC time, else when the buffer was taken; its damage is the
 * VideoDamage metadata's (unknown without it). The Cursor position is
 * taken in buffer coordinates (before the crop); a buffer without a
 * picture that only moves the cursor gives the last picture again with
 * the cursor moved. A producer that sends nothing while its picture is
 * still costs nothing: the recording still ends at its stop. */
struct pipewire_source;


struct pipewire_selection {
	/* The node: its id, its object.serial or its node.name. */
	const char *node;
	bool no_cursor; /* leave the Cursor metadata's cursor out */
	/* A connection to PipeWire already opened (the ScreenCast portal's
	 * OpenPipeWireRemote, which only shows the node chosen there), given
	 * over to the source; else $PIPEWIRE_REMOTE or the default socket. */
	bool use_remote_fd;
	int remote_fd;
};

/* Connects to PipeWire (the selection's remote fd, $PIPEWIRE_REMOTE or
 * the default socket in $XDG_RUNTIME_DIR) and finds the video node. NULL with one line in `why`
 * when PipeWire is not running, or there is no such video node (naming
 * the video nodes there are). */
struct pipewire_source *pipewire_source_connect(const struct pipewire_selection *selection,
						char *why, size_t why_size);

/* Whether PipeWire's socket (where pipewire_source_connect would connect
 * without a remote fd) answers; false with one line in `why`. For the
 * portal, whose screen cast goes through PipeWire: without it some
 * portals never answer. */
bool pipewire_running(char *why, size_t why_size);

/* "the PipeWire node 'weston.pipewire' (id 42, serial 97)": for the
 * status line. */
const char *pipewire_source_describe(const struct pipewire_source *source);

/* Links a stream to the node; frames go to the sinks of
 * pipewire_frame_source(). `ended` is called once when the stream fails,
 * is disconnected, the node goes away or PipeWire does. */
bool pipewire_source_start(struct pipewire_source *source, struct wl_event_loop *loop,
			   ended_fn ended, void *data);

struct frame_source *pipewire_frame_source(struct pipewire_source *source);

/* Disconnects. Frames the sinks still keep stay valid until unreferenced. */
void pipewire_source_destroy(struct pipewire_source *source);

#endif
