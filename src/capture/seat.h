#ifndef WL_RECORD_SEAT_H
#define WL_RECORD_SEAT_H

#include <stdbool.h>

#include "input_event.h"

struct server;
struct seat;

/* The wl_seat (version 8): toolkits want one to exist. Without input it
 * has no capabilities (a recording has nothing to give); with --window it
 * has a pointer and a keyboard fed by seat_handle_input(), and touch while
 * the desktop's seat has it: the pointer goes to the surface under it, a
 * touch point to the surface it went down on, the keyboard to the grabbing
 * popup, else the toplevel last clicked or touched, else the one last
 * mapped. The wheel reaches clients of wl_seat 8 as axis_value120, older
 * ones as axis_discrete in whole steps. */
struct seat *seat_create(struct server *server);
void seat_destroy(struct seat *seat);

/* The global, for the server's filter (Weston's screen-share must not see it). */
struct wl_global *seat_global(const struct seat *seat);

/* The client with the keyboard focus, NULL when none. */
struct wl_client *seat_keyboard_client(const struct seat *seat);

/* Offers pointer and keyboard from now on (clients already bound are told). */
void seat_enable_input(struct seat *seat);

/* One event from the desktop window (input_event.h). */
void seat_handle_input(struct seat *seat, const struct wl_record_input_event *event);

/* The pointer image the client under the pointer asked for (set_cursor);
 * NULL: none asked, the desktop's own. */
/* Larger images are not passed on (sent as hidden): a cursor is 24-64
 * pixels at scale 1, 256 at scale 4, and each commit is copied. */
#define SEAT_CURSOR_SIZE_MAX 256
typedef void (*seat_cursor_fn)(void *data, const struct wl_record_cursor_image *image);
void seat_set_cursor_handler(struct seat *seat, seat_cursor_fn fn, void *data);

/* Drag and drop (drag.h). The seat's drag, NULL when it could not be made. */
struct drag *seat_drag(struct seat *seat);

/* A drag may start from `origin` with `serial`: that of the last button
 * press, sent to `origin` (the pointer's focus), while a button is still
 * down. Then the pointer leaves its focus (the drag has it from now on)
 * and x,y is where it is on the screen. */
struct surface;
bool seat_begin_drag(struct seat *seat, struct surface *origin, uint32_t serial, double *x,
		     double *y);

#endif
