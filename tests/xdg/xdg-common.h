#ifndef WL_RECORD_TEST_XDG_COMMON_H
#define WL_RECORD_TEST_XDG_COMMON_H

/* What the tests/xdg/test-xdg-*.c files share: one client of wl-record's
 * compositor in the same process (the harness of tests/unit), its globals,
 * toplevels and popups, the seat fed as the desktop window feeds it, a
 * second client, and the damage of the frames the screen emits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "inproc.h"
#include "primary-selection-unstable-v1-client-protocol.h"
#include "seat.h"
#include "selection.h"
#include "viewporter-client-protocol.h"
#include "xdg-shell-client-protocol.h"
#include "xdg_shell.h"

#define RED 0xffff0000u
#define GREEN 0xff00ff00u
#define BLUE 0xff0000ffu
#define WHITE 0xffffffffu
#define BACKGROUND 0x204080u

struct globals {
	struct xdg_wm_base *wm_base;
	struct wl_subcompositor *subcompositor;
	struct wp_viewporter *viewporter;
	struct wl_seat *seat;
	uint32_t seat_capabilities;
	bool seat_announced;
	int pings;
	bool ignore_pings;
};

void registry_global_remove(void *data, struct wl_registry *registry, uint32_t name);

/* A toplevel (or popup) with the configure it got. */
struct window {
	struct wl_surface *surface;
	struct xdg_surface *xdg_surface;
	struct xdg_toplevel *toplevel;
	struct xdg_popup *popup;
	uint32_t serial;     /* last xdg_surface.configure, 0: none yet */
	int configures;
	int width, height;   /* toplevel.configure */
	bool fullscreen, activated;
	int bounds_width, bounds_height;
	bool fullscreen_capability;
	int popup_x, popup_y, popup_width, popup_height;
	bool popup_done;
	int closes;          /* toplevel.close */
};

extern const struct xdg_surface_listener xdg_surface_listener;

extern const struct xdg_popup_listener popup_listener;

void setup(struct inproc *t, struct globals *g, int width, int height);

void teardown(struct inproc *t, struct globals *g);

void solid(struct test_buffer *b, uint32_t colour);

void commit_buffer(struct wl_surface *surface, struct test_buffer *b);

/* Creates a toplevel and does the initial commit; the configure is in `w`. */
void create_toplevel(struct inproc *t, struct globals *g, struct window *w);

void destroy_window(struct window *w);

/* Maps a toplevel showing `b`. */
void map_toplevel(struct inproc *t, struct globals *g, struct window *w,
		  struct test_buffer *b);

struct sub {
	struct wl_surface *surface;
	struct wl_subsurface *subsurface;
	struct test_buffer buffer;
};

void make_sub(struct inproc *t, struct globals *g, struct sub *s, struct wl_surface *parent,
	      uint32_t colour, int x, int y);

void destroy_sub(struct sub *s);

/* ---- input (--window): the seat fed as the desktop window feeds it ---- */

struct input_log {
	struct wl_pointer *pointer;
	struct wl_keyboard *keyboard;
	struct wl_surface *pointer_surface; /* entered, NULL after a leave */
	double x, y;
	int enters, leaves, buttons, frames;
	uint32_t button_serial, last_button, enter_serial;
	struct wl_surface *keyboard_surface;
	uint32_t enter_keys[4];
	size_t enter_key_count;
	char keymap[64];
	uint32_t keymap_size;
	int keys;
	uint32_t last_key;
};

/* Input on, and the client's pointer and keyboard. */
void input_setup(struct inproc *t, struct globals *g, struct input_log *log);

void input_finish(struct input_log *log);

void feed(struct inproc *t, const struct wl_record_input_event *event);

void move_to(struct inproc *t, double x, double y);

void click(struct inproc *t, uint32_t button);

#define near(a, b) ((a) > (b) - 0.001 && (a) < (b) + 0.001)

/* A 10x8 green menu of `parent` at 10,10 in it, grabbing with `serial`
 * (that of a button press). */
void map_grabbing_menu(struct inproc *t, struct globals *g, struct window *pop,
		       struct window *parent, uint32_t serial, struct test_buffer *green);

/* A second client of the same server, for what happens when one dies. */
struct other_client {
	struct inproc t; /* its server is the first client's: not finished */
	struct globals g;
	struct wl_registry *registry;
};

void other_client_connect(struct inproc *t, struct other_client *o);

/* ---- the pointer's image in the picture (--cursor) ---- */

#define CYAN 0xff00ffffu

#define YELLOW 0xffffff00u

struct damage_log {
	struct wl_listener listener;
	int frames;
	bool known;
	struct frame_damage damage;
};

void damage_log_init(struct inproc *t, struct damage_log *log);

#define test_assert_damage(log, a, b, c, d)                                                \
	test_assert((log)->known && (log)->damage.x1 == (a) && (log)->damage.y1 == (b) &&  \
			    (log)->damage.x2 == (c) && (log)->damage.y2 == (d),            \
		    "damage %d,%d-%d,%d (known %d)", (log)->damage.x1, (log)->damage.y1,   \
		    (log)->damage.x2, (log)->damage.y2, (log)->known)

/* A 4x4 square of `colour` at x,y, `around` in the pixels next to it. */
void assert_square(struct inproc *t, int x, int y, uint32_t colour, uint32_t around);

#endif
