#ifndef WL_RECORD_SCREEN_H
#define WL_RECORD_SCREEN_H

#include <pixman.h>
#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>

#include "frame.h"
#include "frame_source.h"

struct surface;
struct screen_view;

/* A window of a desktop shell (an xdg toplevel with its subsurfaces and
 * popups), known to the screen only through this. */
struct screen_view_impl {
	/* Calls fn for every surface of the view, bottom to top, with its
	 * position relative to the root surface's origin. */
	void (*for_each_surface)(struct screen_view *view,
				 void (*fn)(struct surface *surface, int x, int y, void *data),
				 void *data);
};

struct screen_view {
	const struct screen_view_impl *impl;
	struct surface *root;
	/* The window's geometry in root-surface coordinates: this rectangle is
	 * centred on the screen. */
	int geometry_x, geometry_y, geometry_width, geometry_height;
	bool mapped;
	struct wl_list link; /* screen.views, bottom first */
};

/* Which views make the picture when no fullscreen-shell surface is shown. */
enum screen_policy {
	SCREEN_POLICY_TOPMOST = 0, /* the most recently mapped view */
	SCREEN_POLICY_ALL,         /* every mapped view, in mapping order */
};

/* How a presented surface fills the output (values of
 * zwp_fullscreen_shell_v1.present_method, which the shell validates). */
enum screen_method {
	SCREEN_METHOD_DEFAULT = 0,
	SCREEN_METHOD_CENTER = 1,
	SCREEN_METHOD_ZOOM = 2,
	SCREEN_METHOD_ZOOM_CROP = 3,
	SCREEN_METHOD_STRETCH = 4,
};

/* The picture of the output: the presented surface placed by its method over
 * black. Shells tell it what is presented and when it changed; it emits a
 * frame each time the picture changes. Knows nothing of any shell protocol. */
struct screen {
	int width, height;
	pixman_image_t *image; /* composed picture, used unless the surface maps 1:1 */
	struct surface *surface;
	enum screen_method method;
	struct wl_listener surface_destroy;
	struct wl_client *presenter; /* client of the last presented surface */
	struct wl_listener presenter_destroy;
	bool shown_content;

	/* Desktop-shell windows, used while no fullscreen-shell surface is. */
	struct wl_list views;
	enum screen_policy policy;
	uint32_t background;      /* XRGB8888 behind the views */
	pixman_region32_t damage; /* of screen->image, for the views' picture */
	bool views_picture_in_image; /* image holds the views' picture but for `damage` */

	/* Drawn on top of the picture: the drag-and-drop icon
	 * (screen_set_drag_icon), then --cursor's pointer image
	 * (screen_set_cursor; without draw_cursor none ever is). */
	bool draw_cursor;
	struct screen_overlay {
		struct screen *screen;
		struct surface *surface;
		int x, y;           /* its top-left corner */
		pixman_box32_t box; /* where it is drawn, for damage; empty: nowhere */
		struct wl_listener destroy, commit;
	} drag_icon, cursor;

	/* Where its pictures go (screen_source.h): the frame path's seam. */
	struct frame_source source;

	struct {
		/* struct frame *, valid during the emit, always with CPU pixels:
		 * for in-process tests; the frame path uses `source`. */
		struct wl_signal frame;
		struct wl_signal presenter_gone; /* struct wl_client * */
		/* What is shown changed: a view or a popup mapped or unmapped,
		 * a surface presented (no data). */
		struct wl_signal stack_changed;
	} events;
};

bool screen_init(struct screen *screen, int width, int height);
void screen_finish(struct screen *screen);

/* New output size; re-emits the picture when something is presented. */
bool screen_resize(struct screen *screen, int width, int height);

/* Shows `surface` (NULL: nothing, the output goes black) with `method`. */
void screen_present(struct screen *screen, struct surface *surface, enum screen_method method,
		    int64_t commit_ns);

/* The presented surface committed; `damage` (buffer coordinates) is what its
 * texture gained. An empty damage makes no new frame. */
void screen_surface_committed(struct screen *screen, struct surface *surface,
			      const pixman_region32_t *damage, int64_t commit_ns);

/* Views: added on top (or raised) when mapped, removed when unmapped or
 * destroyed; each makes a new picture. */
void screen_map_view(struct screen *screen, struct screen_view *view, int64_t commit_ns);
void screen_unmap_view(struct screen *screen, struct screen_view *view, int64_t commit_ns);

/* What the screen shows of `surface` (any surface of a view) changed in
 * `damage` (buffer coordinates; NULL: all of it, or its place moved). Only
 * collected: screen_flush makes the picture. */
void screen_damage_surface(struct screen *screen, struct surface *surface,
			   const pixman_region32_t *damage);

/* The whole views' picture is to be redrawn (stacking changed). */
void screen_damage_all(struct screen *screen);

/* Emits a new picture when collected damage touched what is shown. */
void screen_flush(struct screen *screen, int64_t commit_ns);

/* The pointer's image (--cursor): `surface` (a cursor surface; NULL: none)
 * drawn over everything with its top-left corner at screen point x,y, so
 * the recording and every other consumer of the picture get it; its
 * commits are followed. The old and the new place are damaged. Nothing
 * unless draw_cursor is set. */
void screen_set_cursor(struct screen *screen, struct surface *surface, int x, int y,
		       int64_t commit_ns);

/* The drag-and-drop icon: as the cursor, but always drawn (it is part of
 * what the app shows), under the cursor. NULL: none. */
void screen_set_drag_icon(struct screen *screen, struct surface *surface, int x, int y,
			  int64_t commit_ns);

/* Input: what is under screen point x,y (the topmost shown surface whose
 * input region has it), with the point in that surface's coordinates and
 * its view (NULL for the fullscreen shell's surface). False: nothing. */
struct screen_hit {
	struct surface *surface;
	double sx, sy;
	struct screen_view *view;
	/* Surface units a screen unit (a zoomed presented surface: not 1), to
	 * follow a point that leaves the surface (a drag, a finger). */
	double scale_x, scale_y;
};
bool screen_surface_at(struct screen *screen, double x, double y, struct screen_hit *hit);

/* The surface that has the screen: the presented one, else the root of the
 * most recently mapped view; NULL when nothing is shown. */
struct surface *screen_top_surface(struct screen *screen);

/* --compose-all: the view whose root is `root` goes on top of the others, as
 * a click raises a window on a desktop. False when it is not a mapped view
 * or already on top (nothing changed). */
bool screen_raise_view(struct screen *screen, struct surface *root, int64_t commit_ns);

/* The current picture (a view valid until the next change; frame_ref keeps
 * it), its buffer referenced once for screen_source_emit, which drops it. */
void screen_get_frame(struct screen *screen, struct frame *frame, int64_t pts_ns);

#endif
