#ifndef WL_RECORD_DESKTOP_WINDOW_INTERNAL_H
#define WL_RECORD_DESKTOP_WINDOW_INTERNAL_H

/* The desktop window's state, shared by the files that make it (not for
 * outside src/window/): desktop_window.c the connection, the toplevel and
 * its pictures; window_selection.c the clipboard and the primary
 * selection; window_input.c the seat, the pointer, the keyboard and the
 * cursor; window_touch.c touch. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <wayland-client.h>

#include "clipboard_event.h"
#include "desktop_connection.h"
#include "desktop_window.h"
#include "frame.h"
#include "input_event.h"

/* Three: one the desktop shows, one it may still hold for its next frame,
 * one to draw into. */
#define BUFFER_COUNT 3

struct window_buffer;
struct window_dmabuf;
struct desktop_offer;

/* The desktop's clipboard or primary selection as the window sees it. */
struct desktop_selection {
	enum wl_record_selection_kind kind;
	struct wl_record_clipboard_peer peer;
	struct desktop_offer *introduced; /* the newest offer */
	struct desktop_offer *current;    /* the desktop's selection; NULL: none */
};

struct desktop_window {
	struct wl_display *display;
	struct wl_registry *registry;
	struct wl_compositor *compositor;
	struct wl_subcompositor *subcompositor;
	struct wl_shm *shm;
	struct xdg_wm_base *wm_base;
	struct wp_viewporter *viewporter;
	struct zxdg_decoration_manager_v1 *decoration_manager;
	char limits[768];

	/* Input: the desktop's first seat, passed on to `input`. */
	struct wl_seat *seat;
	uint32_t seat_version;
	struct wl_pointer *pointer;
	struct wl_keyboard *keyboard;
	struct wl_touch *touch;
	struct wl_array touch_ids; /* int32_t: touches that began on the picture */
	bool touch_frame_due;      /* a touch event went on since the last frame */
	struct wl_record_input_sink input;
	bool pointer_inside;      /* on the picture, as told to `input` */
	uint32_t pointer_serial;  /* of the desktop's last enter, for set_cursor */
	bool pointer_on_window;
	/* The hosted client's cursor, copied: shown while the pointer is on
	 * the window; without one the desktop's own stays. */
	struct wl_surface *cursor_surface;
	struct wl_buffer *cursor_buffer; /* ours; NULL when the theme's is shown */
	struct wl_cursor_theme *cursor_theme; /* loaded when first wanted */
	int cursor_hotspot_x, cursor_hotspot_y;
	bool cursor_set;
	/* The keymap and repeat rate, kept: they come at start-up, before
	 * anyone listens, and go to a sink set later. */
	int keymap_fd;
	uint32_t keymap_format, keymap_size;
	bool have_repeat;
	int32_t repeat_rate, repeat_delay;

	/* The clipboard and the primary selection: the desktop's go to each
	 * selection's peer (the nested compositor), the hosted app's become
	 * `source` and `primary_source` here. */
	struct wl_data_device_manager *data_manager;
	struct wl_data_device *data_device;
	struct zwp_primary_selection_device_manager_v1 *primary_manager;
	struct zwp_primary_selection_device_v1 *primary_device;
	struct desktop_selection selections[WL_RECORD_SELECTION_KINDS];
	struct wl_data_source *source;    /* ours, the hosted app's selection */
	struct zwp_primary_selection_source_v1 *primary_source;
	uint32_t input_serial; /* of the newest keyboard enter, key or button */

	struct desktop_connection connection;
	struct desktop_window_events events;
	bool broken;

	/* The toplevel's surface: the black background stretched to the window
	 * when scaling, else the picture itself. */
	struct wl_surface *surface;
	struct xdg_surface *xdg_surface;
	struct xdg_toplevel *toplevel;
	struct zxdg_toplevel_decoration_v1 *decoration;
	struct wp_viewport *background_viewport;
	struct wl_buffer *background;
	bool background_attached;
	bool scaled;
	struct wl_surface *picture_surface; /* the subsurface's, or `surface` */
	struct wl_subsurface *subsurface;
	struct wp_viewport *picture_viewport;

	bool configured;
	bool layout_changed;
	int asked_width, asked_height; /* the latest xdg_toplevel.configure; 0: ours to choose */
	int window_width, window_height;
	int picture_width, picture_height; /* the buffers' size: the recording's */
	struct wl_callback *frame_callback;
	int64_t frame_callback_ns; /* when it was asked for */
	/* A client's buffer held by the desktop for a window it does not
	 * refresh: the picture after it goes when this fires. */
	struct wl_event_source *held_timer;

	struct frame_sink sink;
	struct frame newest;
	bool have_newest;
	bool undrawn; /* the newest frame is in no committed buffer yet */
	/* What changed since the last buffer was attached. */
	bool commit_damage_all;
	struct frame_damage commit_damage;
	struct window_buffer *buffers[BUFFER_COUNT];
	/* The frame's own dmabuf shown without a copy, where the desktop can. */
	struct window_dmabuf *dmabuf;
	bool read_failure_said;
	struct desktop_window_stats stats;
};

/* desktop_window.c */

/* Sends what is queued; what the socket does not take now goes when it
 * is writable again (never waits). */
void window_flush(struct desktop_window *window);

/* A wl_shm buffer of width x height in `format`, its zeroed pixels mapped
 * at `*data` (`*size` bytes, for munmap); NULL when it cannot be made. */
struct wl_buffer *window_create_shm_buffer(struct desktop_window *window, int width, int height,
					   uint32_t format, uint8_t **data, size_t *size);

/* window_selection.c */

/* The desktop's clipboard and primary selection devices, for the seat and
 * managers the registry gave (each only when the desktop has both). */
void window_selection_bind(struct desktop_window *window);
/* Destroys the offers, sources, devices and managers. */
void window_selection_finish(struct desktop_window *window);

/* window_input.c */

/* Listens to the seat the registry bound (window->seat). */
void window_input_watch_seat(struct desktop_window *window);
/* Releases the devices and the seat, the cursor and the keymap. */
void window_input_finish(struct desktop_window *window);
/* One event to the input sink, unless the window is gone. */
void window_input_send(struct desktop_window *window, struct wl_record_input_event *event);
void window_input_send_type(struct desktop_window *window, enum wl_record_input_type type,
			    uint32_t time);
/* The recording's point under window point sx,sy, through the letterbox;
 * false on the bars (the point is then outside the picture, where no
 * hosted surface is). */
bool window_to_picture(const struct desktop_window *window, wl_fixed_t sx, wl_fixed_t sy,
		       double *x, double *y);

/* window_touch.c */

/* The desktop's seat has touch (`has_touch`) or not any more: takes or
 * releases its wl_touch, and tells the input sink when that changed. */
void window_touch_capability(struct desktop_window *window, struct wl_seat *seat,
			     bool has_touch);
/* Whether the hosted apps are offered touch, to the input sink. */
void window_touch_send_capability(struct desktop_window *window);
/* Releases the wl_touch and forgets the touch points. */
void window_touch_finish(struct desktop_window *window);

#endif
