#ifndef WL_RECORD_SEAT_INTERNAL_H
#define WL_RECORD_SEAT_INTERNAL_H

/* The seat's state, shared by the files that make it (not for outside
 * src/capture/): seat.c the wl_seat global, its resources and the desktop
 * window's events in; seat_pointer.c the pointer, its cursor and the
 * start of a drag; seat_keyboard.c the keyboard and its focus;
 * seat_touch.c the touch points. */

#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>

#include "input_event.h"
#include "screen.h"
#include "seat.h"
#include "tracked_surface.h"

/* Where a surface was on the screen when the pointer or a finger came to
 * it: kept so that a point that leaves it (a drag, a finger moving off)
 * still gets surface coordinates. Surface-local = (screen - origin) *
 * scale; the scale is not 1 on a zoomed presented surface. */
struct surface_anchor {
	double origin_x, origin_y, scale_x, scale_y;
};

static inline struct surface_anchor seat_anchor_at(double x, double y,
						   const struct screen_hit *hit)
{
	return (struct surface_anchor){
		.origin_x = x - hit->sx / hit->scale_x,
		.origin_y = y - hit->sy / hit->scale_y,
		.scale_x = hit->scale_x,
		.scale_y = hit->scale_y,
	};
}

static inline void seat_anchor_local(const struct surface_anchor *anchor, double x, double y,
				     wl_fixed_t *sx, wl_fixed_t *sy)
{
	*sx = wl_fixed_from_double((x - anchor->origin_x) * anchor->scale_x);
	*sy = wl_fixed_from_double((y - anchor->origin_y) * anchor->scale_y);
}

struct seat {
	struct server *server;
	struct wl_global *global;
	bool input;
	bool touch; /* the desktop's seat has touch */
	/* Resource links of every wl_seat, wl_pointer, wl_keyboard, wl_touch. */
	struct wl_list seats, pointers, keyboards, touches;
	struct wl_list touch_points;

	double x, y;
	bool pointer_in_window; /* x,y hold where it is */
	struct tracked_surface pointer_focus;
	struct tracked_surface pointer_root; /* root of the focus's view */
	struct surface_anchor focus_anchor; /* to follow a drag off the focus */
	int buttons_down; /* the focus stays while any is down */
	uint32_t press_serial; /* of the last button press sent */
	struct drag *drag;     /* drag and drop: the pointer is its while active */
	/* Scrolling, per axis: what came in this pointer frame, sent with the
	 * frame (the desktop's order of axis and value120 is not fixed), and
	 * the wheel steps summed for clients before wl_seat 8, which get whole
	 * steps only (reset when the direction turns or the focus goes to
	 * another client). */
	struct {
		bool pending;
		uint32_t time_ms;
		double value;
		int32_t value120; /* discrete steps * 120 from a wl_seat 5-7 desktop */
		int32_t sum120;
		double sum_value;
	} axes[2];

	bool keyboard_on_window;
	struct tracked_surface keyboard_focus;
	struct tracked_surface clicked; /* root of the toplevel last clicked */
	struct tracked_surface last_top; /* what screen_top_surface was */
	struct wl_array keys;
	uint32_t mods_depressed, mods_latched, mods_locked, group;
	int keymap_fd;
	uint32_t keymap_format, keymap_size;
	bool have_repeat;
	int32_t repeat_rate, repeat_delay;
	struct wl_listener stack_changed;

	struct tracked_surface cursor;
	int cursor_hotspot_x, cursor_hotspot_y;
	struct wl_listener cursor_commit;
	seat_cursor_fn cursor_fn;
	void *cursor_data;
};

#define for_each_of_client(resource, list, client)                                   \
	wl_resource_for_each(resource, list)                                          \
		if (wl_resource_get_client(resource) == (client))

/* seat.c */

/* The client of `surface`, NULL for none. */
struct wl_client *seat_surface_client(const struct surface *surface);
uint32_t seat_next_serial(struct seat *seat);
/* A wl_pointer, wl_keyboard or wl_touch of `seat_resource`'s version, in
 * `list` (unlinked when destroyed); NULL (no memory posted) on failure. */
struct wl_resource *seat_create_device(struct wl_client *client,
				       struct wl_resource *seat_resource,
				       const struct wl_interface *interface, const void *impl,
				       uint32_t id, struct wl_list *list);
/* The release request of every device and of the seat. */
void seat_release_resource(struct wl_client *client, struct wl_resource *resource);
/* The capabilities, to every wl_seat. */
void seat_send_capabilities(struct seat *seat);

/* seat_pointer.c */

/* The cursor's tracking, at seat_create. */
void seat_pointer_init(struct seat *seat);
/* wl_seat.get_pointer */
void seat_pointer_get(struct wl_client *client, struct wl_resource *resource, uint32_t id);
/* A pointer event of the desktop window (motion, leave, button, axis, frame). */
void seat_pointer_event(struct seat *seat, const struct wl_record_input_event *event);
/* The screen's stack changed: what is under a still pointer may be
 * another surface now. */
void seat_pointer_stack_changed(struct seat *seat);

/* seat_keyboard.c */

/* wl_seat.get_keyboard */
void seat_keyboard_get(struct wl_client *client, struct wl_resource *resource, uint32_t id);
/* The keyboard to the grabbing popup, else the toplevel last clicked or
 * touched, else the one last mapped; none while the desktop's keyboard is
 * off the window. */
void seat_keyboard_update_focus(struct seat *seat);
/* A keyboard event of the desktop window; true when it has updated the
 * focus already. */
bool seat_keyboard_event(struct seat *seat, const struct wl_record_input_event *event);

/* seat_touch.c */

/* wl_seat.get_touch */
void seat_touch_get(struct wl_client *client, struct wl_resource *resource, uint32_t id);
/* A touch event of the desktop window. */
void seat_touch_event(struct seat *seat, const struct wl_record_input_event *event);
/* Cancels the touch points with their clients and forgets them. */
void seat_touch_cancel(struct seat *seat);
/* Forgets the touch points, telling no one. */
void seat_touch_forget(struct seat *seat);

#endif
