#ifndef WL_RECORD_DESKTOP_WINDOW_H
#define WL_RECORD_DESKTOP_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <wayland-server-core.h>

#include "clipboard_event.h"
#include "ended.h"
#include "frame_source.h"
#include "input_event.h"

/* --window: one window on the user's desktop (the compositor wl-record was
 * started in, as an ordinary Wayland client) showing what is recorded.
 *
 * A frame sink (frame_source.h) beside the encoder's pacer, with pacing of
 * its own: the desktop's frame callbacks, not --fps. It keeps a reference
 * to the newest frame and, when the desktop is ready for a new picture,
 * copies what each shm buffer lacks (the damage since that buffer was last
 * drawn) into a buffer the desktop has released; a buffer the desktop still
 * holds is never written, and when none is free the damage waits for the
 * next release. A frame that is a hosted client's dmabuf is instead handed
 * to the desktop as it is, through its linux-dmabuf, when it takes that
 * format and modifier (window_dmabuf.h). Nothing here ever waits for the
 * desktop: its connection is a watched fd on the compositor's event loop.
 *
 * The recording's size never changes with the window's: the picture is
 * scaled to fit, its aspect kept, through wp_viewporter on a subsurface,
 * over a black background stretched to the window (letterbox bars). A
 * desktop without wp_viewporter or wl_subcompositor gets a window at the
 * recording's size. Buffer scale 1 everywhere: on a HiDPI output the
 * picture's pixels map to the output's pixels through the viewport, not
 * through a buffer scale. */

struct desktop_window;

struct desktop_window_events {
	/* The user closed the window (xdg_toplevel.close). */
	void (*closed)(void *data);
	/* The desktop went away or refused us; `why` is one sentence. The
	 * window is inert afterwards (frames are ignored). */
	ended_fn gone;
	void *data;
};

struct desktop_window_stats {
	uint64_t frames_received;
	uint64_t pictures_shown;   /* buffers committed to the desktop */
	uint64_t pictures_dmabuf;  /* of which the frame's own dmabuf (window_dmabuf.h) */
	uint64_t pictures_copied;  /* of which a frame copied into shm */
	uint64_t frames_not_shown; /* replaced by a newer frame before the desktop took one */
	uint64_t waits_for_buffer; /* draws put off: every buffer was held by the desktop */
};

/* Connects to `display_name` and reads its globals (waits for its answer at
 * most a few seconds: only at start-up, before the main loop). NULL with the
 * reason in `why` when it cannot be reached or lacks wl_compositor, wl_shm
 * or xdg_wm_base. */
struct desktop_window *desktop_window_connect(const char *display_name, char *why,
					      size_t why_size);

/* What was missing for a scaled window ("" when nothing): for -v. */
const char *desktop_window_limits(const struct desktop_window *window);

/* Opens the window (title, app_id "wl-record") at width x height, the
 * recording's size, and watches the connection on `loop`. False when the
 * connection cannot be watched. */
bool desktop_window_open(struct desktop_window *window, struct wl_event_loop *loop,
			 const char *title, int width, int height,
			 const struct desktop_window_events *events);

/* A new title for the open window (xdg_toplevel.set_title). */
void desktop_window_set_title(struct desktop_window *window, const char *title);

/* Takes the pictures of `source` (connect once). */
void desktop_window_connect_source(struct desktop_window *window, struct frame_source *source);

/* Input: the desktop's pointer, keyboard and touch on the window go to
 * `sink`, the pointer and touch points in recording coordinates (through
 * the letterbox: points on the bars are outside the picture, and a touch
 * that begins there is not passed on), the keyboard as it comes, its keymap
 * included; whether the desktop's seat has touch too. Set before the window
 * opens. */
void desktop_window_set_input_sink(struct desktop_window *window,
				   const struct wl_record_input_sink *sink);

/* The pointer image shown over the window (a copy is made); NULL: the
 * arrow of the desktop's cursor theme (the last image stays when there is
 * no theme). */
void desktop_window_set_cursor(struct desktop_window *window,
			       const struct wl_record_cursor_image *image);

/* The clipboard, and the primary selection when the desktop offers
 * zwp_primary_selection_device_manager_v1 (see the limits): the desktop's
 * selection of that kind (its mime types, when the window has the keyboard
 * and whenever it changes there) goes to `peer`, and what a hosted app
 * pastes from it is read through the calls below. Set before the window
 * opens. */
void desktop_window_set_clipboard_peer(struct desktop_window *window,
				       enum wl_record_selection_kind kind,
				       const struct wl_record_clipboard_peer *peer);

/* The hosted app copied (count 0: its selection is gone): the desktop's
 * selection of that kind becomes a source of ours with those mime types,
 * set with the serial of the latest input on the window. What the desktop
 * pastes from it goes to the peer's receive. */
void desktop_window_clipboard_selection(struct desktop_window *window,
					enum wl_record_selection_kind kind,
					const char *const *mime_types, size_t count);

/* A hosted app pastes the desktop's selection of that kind: `fd` (closed
 * here) gets it. */
void desktop_window_clipboard_receive(struct desktop_window *window,
				      enum wl_record_selection_kind kind, const char *mime_type,
				      int fd);

void desktop_window_get_stats(const struct desktop_window *window,
			      struct desktop_window_stats *stats);

/* Disconnects from the source, closes the window and the connection. NULL
 * is accepted. */
void desktop_window_destroy(struct desktop_window *window);

#endif
