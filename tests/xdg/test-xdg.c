/* xdg-shell, subsurfaces and viewports through the real protocol (the
 * in-process harness of tests/unit): configure and ack, what the screen
 * shows of toplevels, popups and subsurfaces, and the errors clients earn.
 * Every check looks at the pixels the screen emits. */
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

static void seat_capabilities(void *data, struct wl_seat *seat, uint32_t capabilities)
{
	struct globals *g = data;
	g->seat_capabilities = capabilities;
	g->seat_announced = true;
}

static void seat_name(void *data, struct wl_seat *seat, const char *name)
{
}

static const struct wl_seat_listener seat_listener = {
	.capabilities = seat_capabilities, .name = seat_name,
};

static void wm_base_ping(void *data, struct xdg_wm_base *wm_base, uint32_t serial)
{
	struct globals *g = data;
	g->pings++;
	if (!g->ignore_pings)
		xdg_wm_base_pong(wm_base, serial);
}

static const struct xdg_wm_base_listener wm_base_listener = { .ping = wm_base_ping };

static void registry_global(void *data, struct wl_registry *registry, uint32_t name,
			    const char *interface, uint32_t version)
{
	struct globals *g = data;
	if (strcmp(interface, "xdg_wm_base") == 0) {
		test_assert(version >= 5);
		g->wm_base = wl_registry_bind(registry, name, &xdg_wm_base_interface, 5);
		xdg_wm_base_add_listener(g->wm_base, &wm_base_listener, g);
	} else if (strcmp(interface, "wl_subcompositor") == 0) {
		g->subcompositor = wl_registry_bind(registry, name, &wl_subcompositor_interface, 1);
	} else if (strcmp(interface, "wp_viewporter") == 0) {
		g->viewporter = wl_registry_bind(registry, name, &wp_viewporter_interface, 1);
	} else if (strcmp(interface, "wl_seat") == 0) {
		g->seat = wl_registry_bind(registry, name, &wl_seat_interface, version);
		wl_seat_add_listener(g->seat, &seat_listener, g);
	}
}

static void registry_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_global, .global_remove = registry_global_remove,
};

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

static void xdg_surface_configure(void *data, struct xdg_surface *xdg_surface, uint32_t serial)
{
	struct window *w = data;
	w->serial = serial;
	w->configures++;
}

static const struct xdg_surface_listener xdg_surface_listener = {
	.configure = xdg_surface_configure,
};

static void toplevel_configure(void *data, struct xdg_toplevel *toplevel, int32_t width,
			       int32_t height, struct wl_array *states)
{
	struct window *w = data;
	w->width = width;
	w->height = height;
	w->fullscreen = w->activated = false;
	uint32_t *state;
	wl_array_for_each(state, states) {
		if (*state == XDG_TOPLEVEL_STATE_FULLSCREEN)
			w->fullscreen = true;
		if (*state == XDG_TOPLEVEL_STATE_ACTIVATED)
			w->activated = true;
	}
}

static void toplevel_close(void *data, struct xdg_toplevel *toplevel)
{
	struct window *w = data;
	w->closes++;
}

static void toplevel_bounds(void *data, struct xdg_toplevel *toplevel, int32_t width,
			    int32_t height)
{
	struct window *w = data;
	w->bounds_width = width;
	w->bounds_height = height;
}

static void toplevel_capabilities(void *data, struct xdg_toplevel *toplevel,
				  struct wl_array *capabilities)
{
	struct window *w = data;
	uint32_t *cap;
	wl_array_for_each(cap, capabilities) {
		if (*cap == XDG_TOPLEVEL_WM_CAPABILITIES_FULLSCREEN)
			w->fullscreen_capability = true;
	}
}

static const struct xdg_toplevel_listener toplevel_listener = {
	.configure = toplevel_configure, .close = toplevel_close,
	.configure_bounds = toplevel_bounds, .wm_capabilities = toplevel_capabilities,
};

static void popup_configure(void *data, struct xdg_popup *popup, int32_t x, int32_t y,
			    int32_t width, int32_t height)
{
	struct window *w = data;
	w->popup_x = x;
	w->popup_y = y;
	w->popup_width = width;
	w->popup_height = height;
}

static void popup_done(void *data, struct xdg_popup *popup)
{
	((struct window *)data)->popup_done = true;
}

static void popup_repositioned(void *data, struct xdg_popup *popup, uint32_t token)
{
}

static const struct xdg_popup_listener popup_listener = {
	.configure = popup_configure, .popup_done = popup_done, .repositioned = popup_repositioned,
};

static void setup(struct inproc *t, struct globals *g, int width, int height)
{
	inproc_init(t, width, height);
	/* The harness hands its client over like Weston's screen-share does;
	 * here it stands for a desktop client, which sees the wl_seat. */
	t->server->adopted_client = NULL;
	t->server->screen.background = BACKGROUND;
	*g = (struct globals){ 0 };
	struct wl_registry *registry = wl_display_get_registry(t->display);
	wl_registry_add_listener(registry, &registry_listener, g);
	test_assert(inproc_roundtrip(t));
	test_assert(inproc_roundtrip(t));
	wl_registry_destroy(registry);
	test_assert(g->wm_base && g->subcompositor && g->viewporter && g->seat);
}

static void teardown(struct inproc *t, struct globals *g)
{
	if (g->seat)
		wl_seat_destroy(g->seat);
	if (g->viewporter)
		wp_viewporter_destroy(g->viewporter);
	if (g->subcompositor)
		wl_subcompositor_destroy(g->subcompositor);
	if (g->wm_base)
		xdg_wm_base_destroy(g->wm_base);
	inproc_finish(t);
}

static void solid(struct test_buffer *b, uint32_t colour)
{
	for (int i = 0; i < b->width * b->height; i++)
		b->pixels[i] = colour;
}

static void commit_buffer(struct wl_surface *surface, struct test_buffer *b)
{
	wl_surface_attach(surface, b->buffer, 0, 0);
	wl_surface_damage_buffer(surface, 0, 0, b->width, b->height);
	wl_surface_commit(surface);
}

/* Creates a toplevel and does the initial commit; the configure is in `w`. */
static void create_toplevel(struct inproc *t, struct globals *g, struct window *w)
{
	*w = (struct window){ 0 };
	w->surface = wl_compositor_create_surface(t->compositor);
	w->xdg_surface = xdg_wm_base_get_xdg_surface(g->wm_base, w->surface);
	xdg_surface_add_listener(w->xdg_surface, &xdg_surface_listener, w);
	w->toplevel = xdg_surface_get_toplevel(w->xdg_surface);
	xdg_toplevel_add_listener(w->toplevel, &toplevel_listener, w);
}

static void destroy_window(struct window *w)
{
	if (w->popup)
		xdg_popup_destroy(w->popup);
	if (w->toplevel)
		xdg_toplevel_destroy(w->toplevel);
	xdg_surface_destroy(w->xdg_surface);
	wl_surface_destroy(w->surface);
}

/* Maps a toplevel showing `b`. */
static void map_toplevel(struct inproc *t, struct globals *g, struct window *w,
			 struct test_buffer *b)
{
	create_toplevel(t, g, w);
	wl_surface_commit(w->surface);
	test_assert(inproc_roundtrip(t));
	test_assert(w->serial != 0);
	xdg_surface_ack_configure(w->xdg_surface, w->serial);
	commit_buffer(w->surface, b);
	test_assert(inproc_roundtrip(t));
}

TEST(globals_and_seat)
{
	struct inproc t;
	struct globals g;
	setup(&t, &g, 64, 48);
	test_assert(g.seat_announced && g.seat_capabilities == 0);
	/* A client asking for a device anyway gets an inert one. */
	struct wl_pointer *pointer = wl_seat_get_pointer(g.seat);
	test_assert(inproc_roundtrip(&t));
	wl_pointer_release(pointer);
	test_assert(inproc_roundtrip(&t));
	teardown(&t, &g);
}

TEST(configure_ack_map)
{
	struct inproc t;
	struct globals g;
	setup(&t, &g, 64, 48);
	struct window w;
	create_toplevel(&t, &g, &w);
	test_assert(inproc_roundtrip(&t));
	test_assert(w.configures == 0); /* nothing before the initial commit */
	wl_surface_commit(w.surface);
	test_assert(inproc_roundtrip(&t));
	test_assert(w.configures == 1 && w.serial != 0);
	test_assert(w.width == 64 && w.height == 48 && w.fullscreen && w.activated);
	test_assert(w.bounds_width == 64 && w.bounds_height == 48 && w.fullscreen_capability);
	test_assert(t.frames == 0);
	xdg_surface_ack_configure(w.xdg_surface, w.serial);

	/* The whole output, 1:1. */
	struct test_buffer b;
	test_buffer_init(&t, &b, 64, 48, WL_SHM_FORMAT_XRGB8888);
	solid(&b, RED);
	commit_buffer(w.surface, &b);
	test_assert(inproc_roundtrip(&t));
	test_assert(t.frames == 1 && t.frame_width == 64 && t.frame_height == 48);
	test_assert_pixel(&t, 0, 0, RED);
	test_assert_pixel(&t, 63, 47, RED);

	/* Partial damage: a new frame with the damaged part only. */
	solid(&b, GREEN);
	wl_surface_attach(w.surface, b.buffer, 0, 0);
	wl_surface_damage_buffer(w.surface, 10, 10, 5, 5);
	wl_surface_commit(w.surface);
	test_assert(inproc_roundtrip(&t));
	test_assert(t.frames == 2);
	test_assert_pixel(&t, 12, 12, GREEN);
	test_assert_pixel(&t, 9, 9, RED);

	/* A smaller client (one that ignores the size) is centred over the
	 * background. */
	struct test_buffer small;
	test_buffer_init(&t, &small, 20, 10, WL_SHM_FORMAT_XRGB8888);
	solid(&small, BLUE);
	commit_buffer(w.surface, &small);
	test_assert(inproc_roundtrip(&t));
	test_assert(t.frames == 3);
	test_assert_pixel(&t, 22, 19, BLUE);
	test_assert_pixel(&t, 41, 28, BLUE);
	test_assert_pixel(&t, 21, 19, BACKGROUND);
	test_assert_pixel(&t, 42, 28, BACKGROUND);
	test_assert_pixel(&t, 22, 29, BACKGROUND);
	test_assert_pixel(&t, 0, 0, BACKGROUND);

	/* Growing (still smaller than the output: composed, not passed
	 * through) and shrinking again: what the bigger one covered is
	 * cleared. */
	struct test_buffer medium;
	test_buffer_init(&t, &medium, 40, 30, WL_SHM_FORMAT_XRGB8888);
	solid(&medium, WHITE);
	commit_buffer(w.surface, &medium);
	test_assert(inproc_roundtrip(&t));
	test_assert_pixel(&t, 12, 9, WHITE);
	commit_buffer(w.surface, &small);
	test_assert(inproc_roundtrip(&t));
	test_assert_pixel(&t, 12, 9, BACKGROUND);
	test_assert_pixel(&t, 22, 19, BLUE);
	test_buffer_finish(&medium);

	/* Unmapping shows the background again. */
	int frames = t.frames;
	wl_surface_attach(w.surface, NULL, 0, 0);
	wl_surface_commit(w.surface);
	test_assert(inproc_roundtrip(&t));
	test_assert(t.frames == frames + 1);
	test_assert_pixel(&t, 30, 20, BACKGROUND);

	destroy_window(&w);
	test_buffer_finish(&b);
	test_buffer_finish(&small);
	test_assert(inproc_roundtrip(&t));
	teardown(&t, &g);
}

TEST(max_size_and_geometry)
{
	struct inproc t;
	struct globals g;
	setup(&t, &g, 64, 48);
	struct window w;
	create_toplevel(&t, &g, &w);
	xdg_toplevel_set_max_size(w.toplevel, 30, 100);
	xdg_toplevel_set_min_size(w.toplevel, 10, 10);
	wl_surface_commit(w.surface);
	test_assert(inproc_roundtrip(&t));
	test_assert(w.width == 30 && w.height == 48);
	xdg_surface_ack_configure(w.xdg_surface, w.serial);

	/* A 40x30 buffer whose window geometry is its 30x20 middle (a client
	 * drawing shadows around its window): the geometry is centred. */
	struct test_buffer b;
	test_buffer_init(&t, &b, 40, 30, WL_SHM_FORMAT_XRGB8888);
	for (int y = 0; y < 30; y++)
		for (int x = 0; x < 40; x++)
			b.pixels[y * 40 + x] = x >= 5 && x < 35 && y >= 5 && y < 25 ? GREEN : RED;
	xdg_surface_set_window_geometry(w.xdg_surface, 5, 5, 30, 20);
	commit_buffer(w.surface, &b);
	test_assert(inproc_roundtrip(&t));
	/* Geometry at ((64-30)/2, (48-20)/2) = (17, 14). */
	test_assert_pixel(&t, 17, 14, GREEN);
	test_assert_pixel(&t, 46, 33, GREEN);
	test_assert_pixel(&t, 16, 14, RED);
	test_assert_pixel(&t, 47, 33, RED);
	test_assert_pixel(&t, 11, 14, BACKGROUND);

	/* A new output size (a fullscreen-shell mode switch) reconfigures. */
	int configures = w.configures;
	server_set_output_size(t.server, 40, 30, 60000);
	test_assert(inproc_roundtrip(&t));
	test_assert(w.configures == configures + 1 && w.width == 30 && w.height == 30);
	server_set_output_size(t.server, 64, 48, 60000);
	test_assert(inproc_roundtrip(&t));
	test_assert(w.width == 30 && w.height == 48);

	/* Asking for another state is answered with the same configure. */
	int before = w.configures;
	xdg_toplevel_unset_fullscreen(w.toplevel);
	test_assert(inproc_roundtrip(&t));
	test_assert(w.configures == before + 1 && w.fullscreen);

	destroy_window(&w);
	test_buffer_finish(&b);
	test_assert(inproc_roundtrip(&t));
	teardown(&t, &g);
}

TEST(unconfigured_buffer)
{
	struct inproc t;
	struct globals g;
	setup(&t, &g, 64, 48);
	struct window w;
	create_toplevel(&t, &g, &w);
	wl_surface_commit(w.surface);
	test_assert(inproc_roundtrip(&t));
	/* Not acked: a buffer now is a protocol error. */
	struct test_buffer b;
	test_buffer_init(&t, &b, 64, 48, WL_SHM_FORMAT_XRGB8888);
	commit_buffer(w.surface, &b);
	expect_protocol_error(&t, &xdg_surface_interface, w.xdg_surface,
			      XDG_SURFACE_ERROR_UNCONFIGURED_BUFFER);
	test_assert(t.frames == 0);
	destroy_window(&w);
	test_buffer_finish(&b);
	teardown(&t, &g);
}

TEST(bad_serial)
{
	struct inproc t;
	struct globals g;
	setup(&t, &g, 64, 48);
	struct window w;
	create_toplevel(&t, &g, &w);
	wl_surface_commit(w.surface);
	test_assert(inproc_roundtrip(&t));
	xdg_surface_ack_configure(w.xdg_surface, w.serial + 1000);
	expect_protocol_error(&t, &xdg_surface_interface, w.xdg_surface,
			      XDG_SURFACE_ERROR_INVALID_SERIAL);
	destroy_window(&w);
	teardown(&t, &g);
}

TEST(alpha_blending)
{
	struct inproc t;
	struct globals g;
	setup(&t, &g, 64, 48);
	struct window w;
	struct test_buffer b;
	test_buffer_init(&t, &b, 64, 48, WL_SHM_FORMAT_ARGB8888);
	/* Left half fully transparent, right half white at 50% (premultiplied). */
	for (int y = 0; y < 48; y++)
		for (int x = 0; x < 64; x++)
			b.pixels[y * 64 + x] = x < 32 ? 0x00000000u : 0x80808080u;
	map_toplevel(&t, &g, &w, &b);
	test_assert(t.frames == 1);
	test_assert_pixel(&t, 10, 10, BACKGROUND);
	/* 0x80 + background * (1 - 0x80/255), per channel. */
	uint32_t expected = 0;
	for (int shift = 0; shift <= 16; shift += 8) {
		uint32_t bg = BACKGROUND >> shift & 0xff;
		uint32_t c = 0x80 + (bg * (255 - 0x80) + 127) / 255;
		expected |= c << shift;
	}
	uint32_t got = inproc_frame_pixel(&t, 40, 10);
	for (int shift = 0; shift <= 16; shift += 8) {
		int d = (int)(got >> shift & 0xff) - (int)(expected >> shift & 0xff);
		test_assert(d >= -1 && d <= 1, "blended pixel %06x, expected %06x", got, expected);
	}
	/* XRGB ignores its X byte: the same bytes as XRGB are opaque. */
	struct window w2;
	struct test_buffer x;
	test_buffer_init(&t, &x, 64, 48, WL_SHM_FORMAT_XRGB8888);
	solid(&x, 0x00ff0000u);
	map_toplevel(&t, &g, &w2, &x);
	test_assert_pixel(&t, 10, 10, RED);
	destroy_window(&w2);
	destroy_window(&w);
	test_buffer_finish(&b);
	test_buffer_finish(&x);
	test_assert(inproc_roundtrip(&t));
	teardown(&t, &g);
}

TEST(policy)
{
	/* Default: the newest mapped toplevel; when it goes, the one before. */
	struct inproc t;
	struct globals g;
	setup(&t, &g, 64, 48);
	struct window a, b;
	struct test_buffer red, small_green;
	test_buffer_init(&t, &red, 64, 48, WL_SHM_FORMAT_XRGB8888);
	solid(&red, RED);
	test_buffer_init(&t, &small_green, 10, 10, WL_SHM_FORMAT_XRGB8888);
	solid(&small_green, GREEN);
	map_toplevel(&t, &g, &a, &red);
	map_toplevel(&t, &g, &b, &small_green);
	test_assert_pixel(&t, 32, 24, GREEN);
	test_assert_pixel(&t, 0, 0, BACKGROUND); /* only the newest: not red */
	destroy_window(&b);
	test_assert(inproc_roundtrip(&t));
	test_assert_pixel(&t, 0, 0, RED);
	destroy_window(&a);
	test_assert(inproc_roundtrip(&t));
	test_assert_pixel(&t, 0, 0, BACKGROUND);
	test_buffer_finish(&red);
	test_buffer_finish(&small_green);
	teardown(&t, &g);

	/* --compose-all: every toplevel, oldest at the bottom. */
	setup(&t, &g, 64, 48);
	t.server->screen.policy = SCREEN_POLICY_ALL;
	test_buffer_init(&t, &red, 64, 48, WL_SHM_FORMAT_XRGB8888);
	solid(&red, RED);
	test_buffer_init(&t, &small_green, 10, 10, WL_SHM_FORMAT_XRGB8888);
	solid(&small_green, GREEN);
	map_toplevel(&t, &g, &a, &red);
	map_toplevel(&t, &g, &b, &small_green);
	test_assert_pixel(&t, 32, 24, GREEN);
	test_assert_pixel(&t, 0, 0, RED);
	destroy_window(&b);
	destroy_window(&a);
	test_buffer_finish(&red);
	test_buffer_finish(&small_green);
	test_assert(inproc_roundtrip(&t));
	teardown(&t, &g);
}

TEST(popup)
{
	struct inproc t;
	struct globals g;
	setup(&t, &g, 64, 48);
	struct window top, pop = { 0 };
	struct test_buffer red, green;
	test_buffer_init(&t, &red, 64, 48, WL_SHM_FORMAT_XRGB8888);
	solid(&red, RED);
	map_toplevel(&t, &g, &top, &red);

	struct xdg_positioner *positioner = xdg_wm_base_create_positioner(g.wm_base);
	xdg_positioner_set_size(positioner, 10, 8);
	xdg_positioner_set_anchor_rect(positioner, 20, 10, 4, 4);
	xdg_positioner_set_anchor(positioner, XDG_POSITIONER_ANCHOR_BOTTOM_RIGHT);
	xdg_positioner_set_gravity(positioner, XDG_POSITIONER_GRAVITY_BOTTOM_RIGHT);
	xdg_positioner_set_offset(positioner, 1, 2);
	pop.surface = wl_compositor_create_surface(t.compositor);
	pop.xdg_surface = xdg_wm_base_get_xdg_surface(g.wm_base, pop.surface);
	xdg_surface_add_listener(pop.xdg_surface, &xdg_surface_listener, &pop);
	pop.popup = xdg_surface_get_popup(pop.xdg_surface, top.xdg_surface, positioner);
	xdg_popup_add_listener(pop.popup, &popup_listener, &pop);
	xdg_positioner_destroy(positioner);
	wl_surface_commit(pop.surface);
	test_assert(inproc_roundtrip(&t));
	/* Anchor point (24,14), extending right and down, then the offset. */
	test_assert(pop.serial && pop.popup_x == 25 && pop.popup_y == 16);
	test_assert(pop.popup_width == 10 && pop.popup_height == 8);
	xdg_surface_ack_configure(pop.xdg_surface, pop.serial);
	test_buffer_init(&t, &green, 10, 8, WL_SHM_FORMAT_XRGB8888);
	solid(&green, GREEN);
	int frames = t.frames;
	commit_buffer(pop.surface, &green);
	test_assert(inproc_roundtrip(&t));
	test_assert(t.frames == frames + 1);
	test_assert_pixel(&t, 25, 16, GREEN);
	test_assert_pixel(&t, 34, 23, GREEN);
	test_assert_pixel(&t, 24, 16, RED);
	test_assert_pixel(&t, 35, 24, RED);

	/* Gravity top-left from the anchor rectangle's top-left corner. */
	positioner = xdg_wm_base_create_positioner(g.wm_base);
	xdg_positioner_set_size(positioner, 10, 8);
	xdg_positioner_set_anchor_rect(positioner, 20, 10, 4, 4);
	xdg_positioner_set_anchor(positioner, XDG_POSITIONER_ANCHOR_TOP_LEFT);
	xdg_positioner_set_gravity(positioner, XDG_POSITIONER_GRAVITY_TOP_LEFT);
	xdg_popup_reposition(pop.popup, positioner, 7);
	xdg_positioner_destroy(positioner);
	test_assert(inproc_roundtrip(&t));
	test_assert(pop.popup_x == 10 && pop.popup_y == 2);
	xdg_surface_ack_configure(pop.xdg_surface, pop.serial);
	wl_surface_commit(pop.surface);
	test_assert(inproc_roundtrip(&t));
	test_assert_pixel(&t, 10, 2, GREEN);
	test_assert_pixel(&t, 19, 9, GREEN);
	test_assert_pixel(&t, 25, 16, RED);

	/* Destroying the popup removes it from the picture. */
	xdg_popup_destroy(pop.popup);
	pop.popup = NULL;
	test_assert(inproc_roundtrip(&t));
	test_assert_pixel(&t, 10, 2, RED);
	destroy_window(&pop);
	destroy_window(&top);
	test_buffer_finish(&red);
	test_buffer_finish(&green);
	test_assert(inproc_roundtrip(&t));
	teardown(&t, &g);
}

TEST(popup_needs_complete_positioner)
{
	struct inproc t;
	struct globals g;
	setup(&t, &g, 64, 48);
	struct window top, pop = { 0 };
	create_toplevel(&t, &g, &top);
	struct xdg_positioner *positioner = xdg_wm_base_create_positioner(g.wm_base);
	xdg_positioner_set_size(positioner, 10, 8); /* no anchor rectangle */
	pop.surface = wl_compositor_create_surface(t.compositor);
	pop.xdg_surface = xdg_wm_base_get_xdg_surface(g.wm_base, pop.surface);
	pop.popup = xdg_surface_get_popup(pop.xdg_surface, top.xdg_surface, positioner);
	expect_protocol_error(&t, &xdg_wm_base_interface, g.wm_base,
			      XDG_WM_BASE_ERROR_INVALID_POSITIONER);
	xdg_positioner_destroy(positioner);
	destroy_window(&pop);
	destroy_window(&top);
	teardown(&t, &g);
}

struct sub {
	struct wl_surface *surface;
	struct wl_subsurface *subsurface;
	struct test_buffer buffer;
};

static void make_sub(struct inproc *t, struct globals *g, struct sub *s, struct wl_surface *parent,
		     uint32_t colour, int x, int y)
{
	s->surface = wl_compositor_create_surface(t->compositor);
	s->subsurface = wl_subcompositor_get_subsurface(g->subcompositor, s->surface, parent);
	wl_subsurface_set_position(s->subsurface, x, y);
	test_buffer_init(t, &s->buffer, 16, 16, WL_SHM_FORMAT_XRGB8888);
	solid(&s->buffer, colour);
	commit_buffer(s->surface, &s->buffer);
}

static void destroy_sub(struct sub *s)
{
	wl_subsurface_destroy(s->subsurface);
	wl_surface_destroy(s->surface);
	test_buffer_finish(&s->buffer);
}

TEST(subsurfaces)
{
	struct inproc t;
	struct globals g;
	setup(&t, &g, 64, 48);
	struct window top;
	struct test_buffer red;
	test_buffer_init(&t, &red, 64, 48, WL_SHM_FORMAT_XRGB8888);
	solid(&red, RED);
	map_toplevel(&t, &g, &top, &red);

	/* Synchronized (the default): nothing shows until the parent commits. */
	struct sub a, b;
	make_sub(&t, &g, &a, top.surface, BLUE, 8, 8);
	make_sub(&t, &g, &b, top.surface, GREEN, 16, 16);
	test_assert(inproc_roundtrip(&t));
	test_assert_pixel(&t, 10, 10, RED);
	wl_surface_commit(top.surface);
	test_assert(inproc_roundtrip(&t));
	test_assert_pixel(&t, 10, 10, BLUE);
	test_assert_pixel(&t, 20, 20, GREEN); /* b is newer: on top */
	test_assert_pixel(&t, 40, 40, RED);

	/* Restacking takes effect on the parent's commit. */
	wl_subsurface_place_above(a.subsurface, b.surface);
	test_assert(inproc_roundtrip(&t));
	wl_surface_commit(top.surface);
	test_assert(inproc_roundtrip(&t));
	test_assert_pixel(&t, 20, 20, BLUE);
	/* Below the parent: hidden behind its opaque content. */
	wl_subsurface_place_below(a.subsurface, top.surface);
	wl_surface_commit(top.surface);
	test_assert(inproc_roundtrip(&t));
	test_assert_pixel(&t, 10, 10, RED);
	test_assert_pixel(&t, 20, 20, GREEN);

	/* Position: pending until the parent commits. */
	wl_subsurface_set_position(b.subsurface, 40, 30);
	wl_surface_commit(b.surface);
	test_assert(inproc_roundtrip(&t));
	test_assert_pixel(&t, 20, 20, GREEN);
	wl_surface_commit(top.surface);
	test_assert(inproc_roundtrip(&t));
	test_assert_pixel(&t, 20, 20, RED);
	test_assert_pixel(&t, 45, 35, GREEN);

	/* Desynchronized: its content shows on its own commit. */
	wl_subsurface_set_desync(b.subsurface);
	solid(&b.buffer, WHITE);
	int frames = t.frames;
	commit_buffer(b.surface, &b.buffer);
	test_assert(inproc_roundtrip(&t));
	test_assert(t.frames == frames + 1);
	test_assert_pixel(&t, 45, 35, WHITE);

	/* Destroying a subsurface removes it at once. */
	destroy_sub(&b);
	test_assert(inproc_roundtrip(&t));
	test_assert_pixel(&t, 45, 35, RED);

	/* A surface cannot be its own parent's parent. */
	destroy_sub(&a);
	destroy_window(&top);
	test_buffer_finish(&red);
	test_assert(inproc_roundtrip(&t));
	teardown(&t, &g);
}

TEST(subsurface_loop_error)
{
	struct inproc t;
	struct globals g;
	setup(&t, &g, 64, 48);
	struct wl_surface *parent = wl_compositor_create_surface(t.compositor);
	struct wl_surface *child = wl_compositor_create_surface(t.compositor);
	struct wl_subsurface *sub = wl_subcompositor_get_subsurface(g.subcompositor, child, parent);
	struct wl_subsurface *loop = wl_subcompositor_get_subsurface(g.subcompositor, parent, child);
	expect_protocol_error(&t, &wl_subcompositor_interface, g.subcompositor,
			      WL_SUBCOMPOSITOR_ERROR_BAD_SURFACE);
	wl_subsurface_destroy(loop);
	wl_subsurface_destroy(sub);
	wl_surface_destroy(child);
	wl_surface_destroy(parent);
	teardown(&t, &g);
}

TEST(viewport)
{
	struct inproc t;
	struct globals g;
	setup(&t, &g, 64, 48);
	struct window w;
	create_toplevel(&t, &g, &w);
	struct wp_viewport *viewport = wp_viewporter_get_viewport(g.viewporter, w.surface);
	wl_surface_commit(w.surface);
	test_assert(inproc_roundtrip(&t));
	xdg_surface_ack_configure(w.xdg_surface, w.serial);
	/* A 32x24 buffer of quadrants shown at 64x48. */
	struct test_buffer b;
	test_buffer_init(&t, &b, 32, 24, WL_SHM_FORMAT_XRGB8888);
	for (int y = 0; y < 24; y++)
		for (int x = 0; x < 32; x++)
			b.pixels[y * 32 + x] = y < 12 ? (x < 16 ? RED : GREEN) : (x < 16 ? BLUE : WHITE);
	wp_viewport_set_destination(viewport, 64, 48);
	commit_buffer(w.surface, &b);
	test_assert(inproc_roundtrip(&t));
	test_assert_pixel(&t, 0, 0, RED);
	test_assert_pixel(&t, 63, 0, GREEN);
	test_assert_pixel(&t, 0, 47, BLUE);
	test_assert_pixel(&t, 63, 47, WHITE);
	test_assert_pixel(&t, 20, 15, RED);
	/* Crop to the bottom-right quadrant, still shown at 64x48. */
	wp_viewport_set_source(viewport, wl_fixed_from_int(16), wl_fixed_from_int(12),
			       wl_fixed_from_int(16), wl_fixed_from_int(12));
	wl_surface_commit(w.surface);
	test_assert(inproc_roundtrip(&t));
	/* (Bilinear filtering blends the crop's edge pixels with their
	 * neighbours outside it, as a GPU would: look inside.) */
	test_assert_pixel(&t, 4, 4, WHITE);
	test_assert_pixel(&t, 59, 43, WHITE);
	/* A source outside the buffer is the client's error. */
	wp_viewport_set_source(viewport, wl_fixed_from_int(20), wl_fixed_from_int(0),
			       wl_fixed_from_int(16), wl_fixed_from_int(12));
	wl_surface_commit(w.surface);
	expect_protocol_error(&t, &wp_viewport_interface, viewport, WP_VIEWPORT_ERROR_OUT_OF_BUFFER);
	wp_viewport_destroy(viewport);
	destroy_window(&w);
	test_buffer_finish(&b);
	teardown(&t, &g);
}

TEST(fullscreen_shell_wins)
{
	/* A fullscreen-shell presentation takes the output from toplevels;
	 * when it ends, the toplevel is shown again. */
	struct inproc t;
	struct globals g;
	setup(&t, &g, 64, 48);
	struct window w;
	struct test_buffer red, green;
	test_buffer_init(&t, &red, 64, 48, WL_SHM_FORMAT_XRGB8888);
	solid(&red, RED);
	test_buffer_init(&t, &green, 64, 48, WL_SHM_FORMAT_XRGB8888);
	solid(&green, GREEN);
	map_toplevel(&t, &g, &w, &red);
	test_assert_pixel(&t, 5, 5, RED);
	struct wl_surface *presented = wl_compositor_create_surface(t.compositor);
	zwp_fullscreen_shell_v1_present_surface(t.shell, presented, 0, t.output);
	commit_buffer(presented, &green);
	test_assert(inproc_roundtrip(&t));
	test_assert_pixel(&t, 5, 5, GREEN);
	wl_surface_destroy(presented);
	zwp_fullscreen_shell_v1_present_surface(t.shell, NULL, 0, NULL);
	test_assert(inproc_roundtrip(&t));
	/* The next commit of the toplevel shows it again. */
	commit_buffer(w.surface, &red);
	test_assert(inproc_roundtrip(&t));
	test_assert_pixel(&t, 5, 5, RED);
	destroy_window(&w);
	test_buffer_finish(&red);
	test_buffer_finish(&green);
	test_assert(inproc_roundtrip(&t));
	teardown(&t, &g);
}

TEST(toplevel_presented_by_fullscreen_shell)
{
	/* Weston 10's wayland backend, offered both shells, makes its output
	 * surface an xdg toplevel and then presents that same surface through
	 * the fullscreen shell. That must work, and show the presentation. */
	struct inproc t;
	struct globals g;
	setup(&t, &g, 64, 48);
	struct window w;
	create_toplevel(&t, &g, &w);
	wl_surface_commit(w.surface);
	test_assert(inproc_roundtrip(&t));
	xdg_surface_ack_configure(w.xdg_surface, w.serial);
	zwp_fullscreen_shell_v1_present_surface(t.shell, w.surface,
						ZWP_FULLSCREEN_SHELL_V1_PRESENT_METHOD_CENTER, t.output);
	struct test_buffer b;
	test_buffer_init(&t, &b, 32, 24, WL_SHM_FORMAT_XRGB8888);
	solid(&b, GREEN);
	commit_buffer(w.surface, &b);
	test_assert(inproc_roundtrip(&t));
	test_assert(t.frames >= 1);
	test_assert_pixel(&t, 16, 12, GREEN);
	test_assert_pixel(&t, 47, 35, GREEN);
	test_assert_pixel(&t, 15, 11, BACKGROUND); /* --background also borders presentations */
	destroy_window(&w);
	test_buffer_finish(&b);
	test_assert(inproc_roundtrip(&t));
	teardown(&t, &g);
}

TEST(unanswered_ping)
{
	/* A client that never answers pings is pinged, reported, and still
	 * shown: nothing blocks on it. */
	struct inproc t;
	struct globals g;
	setup(&t, &g, 64, 48);
	g.ignore_pings = true;
	struct window w;
	struct test_buffer b;
	test_buffer_init(&t, &b, 64, 48, WL_SHM_FORMAT_XRGB8888);
	solid(&b, RED);
	map_toplevel(&t, &g, &w, &b);
	for (int i = 0; i < 80 && g.pings == 0; i++)
		inproc_run_for(&t, 100);
	test_assert(g.pings == 1);
	solid(&b, GREEN);
	int frames = t.frames;
	commit_buffer(w.surface, &b);
	test_assert(inproc_roundtrip(&t));
	test_assert(t.frames == frames + 1);
	test_assert_pixel(&t, 5, 5, GREEN);
	destroy_window(&w);
	test_buffer_finish(&b);
	test_assert(inproc_roundtrip(&t));
	teardown(&t, &g);
}

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

static void log_pointer_enter(void *data, struct wl_pointer *pointer, uint32_t serial,
			      struct wl_surface *surface, wl_fixed_t x, wl_fixed_t y)
{
	struct input_log *log = data;
	log->pointer_surface = surface;
	log->x = wl_fixed_to_double(x);
	log->y = wl_fixed_to_double(y);
	log->enters++;
	log->enter_serial = serial;
}

static void log_pointer_leave(void *data, struct wl_pointer *pointer, uint32_t serial,
			      struct wl_surface *surface)
{
	struct input_log *log = data;
	test_assert(surface == log->pointer_surface);
	log->pointer_surface = NULL;
	log->leaves++;
}

static void log_pointer_motion(void *data, struct wl_pointer *pointer, uint32_t time,
			       wl_fixed_t x, wl_fixed_t y)
{
	struct input_log *log = data;
	test_assert(log->pointer_surface != NULL);
	log->x = wl_fixed_to_double(x);
	log->y = wl_fixed_to_double(y);
}

static void log_pointer_button(void *data, struct wl_pointer *pointer, uint32_t serial,
			       uint32_t time, uint32_t button, uint32_t state)
{
	struct input_log *log = data;
	test_assert(log->pointer_surface != NULL);
	log->buttons++;
	log->last_button = button;
	log->button_serial = serial;
}

static void log_pointer_axis(void *data, struct wl_pointer *pointer, uint32_t time, uint32_t axis,
			     wl_fixed_t value)
{
}

static void log_pointer_frame(void *data, struct wl_pointer *pointer)
{
	((struct input_log *)data)->frames++;
}

static const struct wl_pointer_listener log_pointer_listener = {
	.enter = log_pointer_enter,
	.leave = log_pointer_leave,
	.motion = log_pointer_motion,
	.button = log_pointer_button,
	.axis = log_pointer_axis,
	.frame = log_pointer_frame,
};

static void log_keymap(void *data, struct wl_keyboard *keyboard, uint32_t format, int32_t fd,
		       uint32_t size)
{
	struct input_log *log = data;
	log->keymap_size = size;
	ssize_t n = pread(fd, log->keymap, sizeof(log->keymap) - 1, 0);
	log->keymap[n > 0 ? n : 0] = 0;
	close(fd);
}

static void log_keyboard_enter(void *data, struct wl_keyboard *keyboard, uint32_t serial,
			       struct wl_surface *surface, struct wl_array *keys)
{
	struct input_log *log = data;
	log->keyboard_surface = surface;
	log->enter_key_count = 0;
	uint32_t *key;
	wl_array_for_each(key, keys) {
		if (log->enter_key_count < 4)
			log->enter_keys[log->enter_key_count++] = *key;
	}
}

static void log_keyboard_leave(void *data, struct wl_keyboard *keyboard, uint32_t serial,
			       struct wl_surface *surface)
{
	struct input_log *log = data;
	test_assert(surface == log->keyboard_surface);
	log->keyboard_surface = NULL;
}

static void log_key(void *data, struct wl_keyboard *keyboard, uint32_t serial, uint32_t time,
		    uint32_t key, uint32_t state)
{
	struct input_log *log = data;
	test_assert(log->keyboard_surface != NULL);
	log->keys++;
	log->last_key = key;
}

static void log_modifiers(void *data, struct wl_keyboard *keyboard, uint32_t serial,
			  uint32_t depressed, uint32_t latched, uint32_t locked, uint32_t group)
{
}

static void log_repeat(void *data, struct wl_keyboard *keyboard, int32_t rate, int32_t delay)
{
}

static const struct wl_keyboard_listener log_keyboard_listener = {
	.keymap = log_keymap,
	.enter = log_keyboard_enter,
	.leave = log_keyboard_leave,
	.key = log_key,
	.modifiers = log_modifiers,
	.repeat_info = log_repeat,
};

/* Input on, and the client's pointer and keyboard. */
static void input_setup(struct inproc *t, struct globals *g, struct input_log *log)
{
	*log = (struct input_log){ 0 };
	seat_enable_input(t->server->seat);
	test_assert(inproc_roundtrip(t));
	test_assert(g->seat_capabilities ==
		    (WL_SEAT_CAPABILITY_POINTER | WL_SEAT_CAPABILITY_KEYBOARD));
	log->pointer = wl_seat_get_pointer(g->seat);
	wl_pointer_add_listener(log->pointer, &log_pointer_listener, log);
	log->keyboard = wl_seat_get_keyboard(g->seat);
	wl_keyboard_add_listener(log->keyboard, &log_keyboard_listener, log);
	test_assert(inproc_roundtrip(t));
}

static void input_finish(struct input_log *log)
{
	wl_pointer_release(log->pointer);
	wl_keyboard_release(log->keyboard);
}

static void feed(struct inproc *t, const struct wl_record_input_event *event)
{
	seat_handle_input(t->server->seat, event);
	test_assert(inproc_roundtrip(t));
}

static void move_to(struct inproc *t, double x, double y)
{
	feed(t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_POINTER_MOTION,
						 .x = x, .y = y });
	feed(t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_POINTER_FRAME });
}

static void click(struct inproc *t, uint32_t button)
{
	feed(t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_POINTER_BUTTON,
						 .button = button, .pressed = true });
	feed(t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_POINTER_BUTTON,
						 .button = button });
}

#define near(a, b) ((a) > (b) - 0.001 && (a) < (b) + 0.001)

TEST(seat_pointer_finds_the_surface_under_it)
{
	struct inproc t;
	struct globals g;
	setup(&t, &g, 64, 48);
	struct input_log log;
	input_setup(&t, &g, &log);
	struct window top;
	struct test_buffer red;
	test_buffer_init(&t, &red, 64, 48, WL_SHM_FORMAT_XRGB8888);
	solid(&red, RED);
	map_toplevel(&t, &g, &top, &red);
	struct sub sub;
	make_sub(&t, &g, &sub, top.surface, GREEN, 10, 10);
	wl_surface_commit(top.surface);
	test_assert(inproc_roundtrip(&t));

	/* Surface-local coordinates, topmost surface first. */
	move_to(&t, 12.5, 13);
	test_assert(log.pointer_surface == sub.surface && near(log.x, 2.5) && near(log.y, 3),
		    "at %g,%g", log.x, log.y);
	test_assert(log.frames >= 1);
	move_to(&t, 40, 30);
	test_assert(log.pointer_surface == top.surface && near(log.x, 40) && near(log.y, 30));
	test_assert(log.enters == 2 && log.leaves == 1);

	/* An empty input region lets the pointer through to the parent. */
	struct wl_region *empty = wl_compositor_create_region(t.compositor);
	wl_surface_set_input_region(sub.surface, empty);
	wl_region_destroy(empty);
	wl_surface_commit(sub.surface);
	wl_surface_commit(top.surface);
	test_assert(inproc_roundtrip(&t));
	move_to(&t, 12, 12);
	test_assert(log.pointer_surface == top.surface && near(log.x, 12) && near(log.y, 12));

	/* Off the picture (a letterbox bar of the window): nothing. */
	move_to(&t, -3, 12);
	test_assert(log.pointer_surface == NULL && log.leaves == 2);
	move_to(&t, 30, 20);
	click(&t, 272);
	test_assert(log.pointer_surface == top.surface && log.buttons == 2 &&
		    log.last_button == 272);
	feed(&t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_POINTER_LEAVE });
	test_assert(log.pointer_surface == NULL);
	input_finish(&log);
	destroy_sub(&sub);
	destroy_window(&top);
	test_buffer_finish(&red);
	teardown(&t, &g);
}

/* A 10x8 green menu of `parent` at 10,10 in it, grabbing with `serial`
 * (that of a button press). */
static void map_grabbing_menu(struct inproc *t, struct globals *g, struct window *pop,
			      struct window *parent, uint32_t serial, struct test_buffer *green)
{
	struct xdg_positioner *positioner = xdg_wm_base_create_positioner(g->wm_base);
	xdg_positioner_set_size(positioner, 10, 8);
	xdg_positioner_set_anchor_rect(positioner, 10, 10, 1, 1);
	xdg_positioner_set_anchor(positioner, XDG_POSITIONER_ANCHOR_TOP_LEFT);
	xdg_positioner_set_gravity(positioner, XDG_POSITIONER_GRAVITY_BOTTOM_RIGHT);
	pop->surface = wl_compositor_create_surface(t->compositor);
	pop->xdg_surface = xdg_wm_base_get_xdg_surface(g->wm_base, pop->surface);
	xdg_surface_add_listener(pop->xdg_surface, &xdg_surface_listener, pop);
	pop->popup = xdg_surface_get_popup(pop->xdg_surface, parent->xdg_surface, positioner);
	xdg_popup_add_listener(pop->popup, &popup_listener, pop);
	xdg_positioner_destroy(positioner);
	xdg_popup_grab(pop->popup, g->seat, serial);
	wl_surface_commit(pop->surface);
	test_assert(inproc_roundtrip(t));
	xdg_surface_ack_configure(pop->xdg_surface, pop->serial);
	test_buffer_init(t, green, 10, 8, WL_SHM_FORMAT_XRGB8888);
	solid(green, GREEN);
	commit_buffer(pop->surface, green);
	test_assert(inproc_roundtrip(t));
}

TEST(seat_popup_grab_ends_on_a_click_outside)
{
	struct inproc t;
	struct globals g;
	setup(&t, &g, 64, 48);
	struct input_log log;
	input_setup(&t, &g, &log);
	/* A 32x24 toplevel, centred: at 16,12 on the screen. */
	struct window top, pop = { 0 };
	struct test_buffer red, green;
	test_buffer_init(&t, &red, 32, 24, WL_SHM_FORMAT_XRGB8888);
	solid(&red, RED);
	map_toplevel(&t, &g, &top, &red);
	feed(&t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_KEYBOARD_ENTER });
	move_to(&t, 20, 15);
	test_assert(log.pointer_surface == top.surface && near(log.x, 4) && near(log.y, 3));
	feed(&t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_POINTER_BUTTON,
						  .button = 273, .pressed = true });

	/* A menu with a grab, at 10,10 in the window: 26,22 on the screen. */
	map_grabbing_menu(&t, &g, &pop, &top, log.button_serial, &green);
	feed(&t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_POINTER_BUTTON,
						  .button = 273 });
	/* The grabbing popup has the keyboard. */
	test_assert(log.keyboard_surface == pop.surface);

	/* Pointer on the menu, then a click on its own toplevel: still there. */
	move_to(&t, 28, 23);
	test_assert(log.pointer_surface == pop.surface && near(log.x, 2) && near(log.y, 1));
	move_to(&t, 18, 14);
	click(&t, 272);
	test_assert(log.pointer_surface == top.surface && !pop.popup_done);
	int buttons = log.buttons;

	/* A click outside the client: dismissed, and the click goes nowhere. */
	move_to(&t, 2, 2);
	test_assert(log.pointer_surface == NULL);
	click(&t, 272);
	test_assert(pop.popup_done);
	test_assert(log.buttons == buttons);
	test_assert(log.keyboard_surface == top.surface);
	input_finish(&log);
	destroy_window(&pop);
	destroy_window(&top);
	test_buffer_finish(&red);
	test_buffer_finish(&green);
	teardown(&t, &g);
}

TEST(seat_keyboard_keymap_passed_through_and_focus)
{
	struct inproc t;
	struct globals g;
	setup(&t, &g, 64, 48);
	struct input_log log;
	input_setup(&t, &g, &log);
	/* The desktop's keymap, byte for byte. */
	static const char keymap[] = "xkb_keymap { the desktop's own };";
	int fd = memfd_create("keymap", MFD_CLOEXEC);
	test_assert(fd >= 0 && write(fd, keymap, sizeof(keymap)) == (ssize_t)sizeof(keymap));
	feed(&t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_KEYBOARD_KEYMAP,
						  .keymap_fd = fd,
						  .keymap_format = WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1,
						  .keymap_size = sizeof(keymap) });
	close(fd);
	test_assert(log.keymap_size == sizeof(keymap) && strcmp(log.keymap, keymap) == 0,
		    "keymap '%s'", log.keymap);

	struct window first, second;
	struct test_buffer red;
	test_buffer_init(&t, &red, 64, 48, WL_SHM_FORMAT_XRGB8888);
	solid(&red, RED);
	map_toplevel(&t, &g, &first, &red);
	/* No keyboard on the window yet: no focus. */
	test_assert(log.keyboard_surface == NULL);
	uint32_t held = 30;
	feed(&t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_KEYBOARD_ENTER,
						  .keys = &held, .key_count = 1 });
	test_assert(log.keyboard_surface == first.surface && log.enter_key_count == 1 &&
		    log.enter_keys[0] == 30);
	feed(&t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_KEYBOARD_KEY,
						  .key = 31, .pressed = true });
	test_assert(log.keys == 1 && log.last_key == 31);

	/* The toplevel mapped last gets the keyboard. */
	map_toplevel(&t, &g, &second, &red);
	test_assert(log.keyboard_surface == second.surface);
	feed(&t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_KEYBOARD_KEY,
						  .key = 32, .pressed = true });
	test_assert(log.keys == 2 && log.last_key == 32);
	feed(&t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_KEYBOARD_LEAVE });
	test_assert(log.keyboard_surface == NULL);
	input_finish(&log);
	destroy_window(&second);
	destroy_window(&first);
	test_buffer_finish(&red);
	teardown(&t, &g);
}

TEST(seat_click_raises_with_compose_all)
{
	/* --compose-all: a click on an older toplevel raises it and gives it
	 * the keyboard, as on a desktop. */
	struct inproc t;
	struct globals g;
	setup(&t, &g, 64, 48);
	t.server->screen.policy = SCREEN_POLICY_ALL;
	struct input_log log;
	input_setup(&t, &g, &log);
	feed(&t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_KEYBOARD_ENTER });
	struct window big, small;
	struct test_buffer red, small_green;
	test_buffer_init(&t, &red, 64, 48, WL_SHM_FORMAT_XRGB8888);
	solid(&red, RED);
	test_buffer_init(&t, &small_green, 10, 10, WL_SHM_FORMAT_XRGB8888);
	solid(&small_green, GREEN);
	map_toplevel(&t, &g, &big, &red);
	map_toplevel(&t, &g, &small, &small_green);
	test_assert_pixel(&t, 32, 24, GREEN);
	test_assert(log.keyboard_surface == small.surface);

	move_to(&t, 2, 2);
	click(&t, 272);
	test_assert_pixel(&t, 32, 24, RED); /* the small one is now under it */
	test_assert(log.keyboard_surface == big.surface);
	/* On top, a click there reaches the big one, not the hidden one. */
	move_to(&t, 32, 24);
	test_assert(log.pointer_surface == big.surface);
	click(&t, 272);
	test_assert_pixel(&t, 32, 24, RED);
	test_assert(log.keyboard_surface == big.surface);

	input_finish(&log);
	destroy_window(&small);
	destroy_window(&big);
	test_buffer_finish(&red);
	test_buffer_finish(&small_green);
	test_assert(inproc_roundtrip(&t));
	teardown(&t, &g);
}

TEST(seat_pointer_on_a_presented_surface_is_scaled)
{
	struct inproc t;
	struct globals g;
	setup(&t, &g, 64, 48);
	struct input_log log;
	input_setup(&t, &g, &log);
	/* A nested compositor's 32x24 output, zoomed to the 64x48 screen. */
	struct wl_surface *surface = wl_compositor_create_surface(t.compositor);
	struct test_buffer red;
	test_buffer_init(&t, &red, 32, 24, WL_SHM_FORMAT_XRGB8888);
	solid(&red, RED);
	zwp_fullscreen_shell_v1_present_surface(t.shell, surface,
						ZWP_FULLSCREEN_SHELL_V1_PRESENT_METHOD_ZOOM,
						t.output);
	commit_buffer(surface, &red);
	test_assert(inproc_roundtrip(&t));
	test_assert_pixel(&t, 63, 47, RED);
	move_to(&t, 10, 30);
	test_assert(log.pointer_surface == surface && near(log.x, 5) && near(log.y, 15),
		    "at %g,%g", log.x, log.y);
	/* A drag keeps the zoom, on the surface and off it. */
	feed(&t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_POINTER_BUTTON,
						  .button = 272, .pressed = true });
	move_to(&t, 20, 40);
	test_assert(log.pointer_surface == surface && near(log.x, 10) && near(log.y, 20),
		    "dragged to %g,%g", log.x, log.y);
	move_to(&t, 70, 50);
	test_assert(log.pointer_surface == surface && near(log.x, 35) && near(log.y, 25),
		    "dragged off to %g,%g", log.x, log.y);
	feed(&t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_POINTER_BUTTON,
						  .button = 272 });
	move_to(&t, 10, 30);
	feed(&t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_KEYBOARD_ENTER });
	test_assert(log.keyboard_surface == surface);
	input_finish(&log);
	wl_surface_destroy(surface);
	test_buffer_finish(&red);
	teardown(&t, &g);
}

/* ---- the wheel: axis_value120 (wl_seat 8) and axis_discrete (5-7) ---- */

struct wheel_log {
	struct wl_pointer *pointer;
	int value120, discrete, discretes, value120s, axes, frames;
	double value;
};

static void wheel_enter(void *data, struct wl_pointer *pointer, uint32_t serial,
			struct wl_surface *surface, wl_fixed_t x, wl_fixed_t y)
{
}

static void wheel_leave(void *data, struct wl_pointer *pointer, uint32_t serial,
			struct wl_surface *surface)
{
}

static void wheel_motion(void *data, struct wl_pointer *pointer, uint32_t time, wl_fixed_t x,
			 wl_fixed_t y)
{
}

static void wheel_button(void *data, struct wl_pointer *pointer, uint32_t serial, uint32_t time,
			 uint32_t button, uint32_t state)
{
}

static void wheel_axis(void *data, struct wl_pointer *pointer, uint32_t time, uint32_t axis,
		       wl_fixed_t value)
{
	struct wheel_log *log = data;
	log->axes++;
	log->value += wl_fixed_to_double(value);
}

static void wheel_frame(void *data, struct wl_pointer *pointer)
{
	((struct wheel_log *)data)->frames++;
}

static void wheel_axis_source(void *data, struct wl_pointer *pointer, uint32_t source)
{
}

static void wheel_axis_stop(void *data, struct wl_pointer *pointer, uint32_t time, uint32_t axis)
{
}

static void wheel_axis_discrete(void *data, struct wl_pointer *pointer, uint32_t axis,
				int32_t discrete)
{
	struct wheel_log *log = data;
	log->discretes++;
	log->discrete += discrete;
}

static void wheel_axis_value120(void *data, struct wl_pointer *pointer, uint32_t axis,
				int32_t value120)
{
	struct wheel_log *log = data;
	log->value120s++;
	log->value120 += value120;
}

static const struct wl_pointer_listener wheel_listener = {
	.enter = wheel_enter,
	.leave = wheel_leave,
	.motion = wheel_motion,
	.button = wheel_button,
	.axis = wheel_axis,
	.frame = wheel_frame,
	.axis_source = wheel_axis_source,
	.axis_stop = wheel_axis_stop,
	.axis_discrete = wheel_axis_discrete,
	.axis_value120 = wheel_axis_value120,
};

struct seat_bind {
	uint32_t version;
	struct wl_seat *seat;
};

static void bind_seat_global(void *data, struct wl_registry *registry, uint32_t name,
			     const char *interface, uint32_t version)
{
	struct seat_bind *bind = data;
	if (strcmp(interface, "wl_seat") == 0) {
		test_assert(version >= bind->version);
		bind->seat = wl_registry_bind(registry, name, &wl_seat_interface, bind->version);
	}
}

static const struct wl_registry_listener bind_seat_listener = {
	.global = bind_seat_global, .global_remove = registry_global_remove,
};

/* One more wl_seat of the test's client, at `version`. */
static struct wl_seat *bind_seat(struct inproc *t, uint32_t version)
{
	struct seat_bind bind = { .version = version };
	struct wl_registry *registry = wl_display_get_registry(t->display);
	wl_registry_add_listener(registry, &bind_seat_listener, &bind);
	test_assert(inproc_roundtrip(t));
	wl_registry_destroy(registry);
	test_assert(bind.seat);
	return bind.seat;
}

/* One wheel frame as the window passes it on: source, the steps (value120
 * from a wl_seat 8 desktop, else discrete), the value, the frame. */
static void wheel(struct inproc *t, bool as_value120, int32_t steps, double value)
{
	feed(t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_POINTER_AXIS_SOURCE,
						 .axis_source = WL_POINTER_AXIS_SOURCE_WHEEL });
	if (as_value120)
		feed(t, &(struct wl_record_input_event){
				.type = WL_RECORD_INPUT_POINTER_AXIS_VALUE120,
				.axis = WL_POINTER_AXIS_VERTICAL_SCROLL, .value120 = steps });
	else
		feed(t, &(struct wl_record_input_event){
				.type = WL_RECORD_INPUT_POINTER_AXIS_DISCRETE,
				.axis = WL_POINTER_AXIS_VERTICAL_SCROLL, .discrete = steps });
	feed(t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_POINTER_AXIS,
						 .axis = WL_POINTER_AXIS_VERTICAL_SCROLL,
						 .value = value });
	feed(t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_POINTER_FRAME });
}

TEST(seat_wheel_value120_and_discrete_by_version)
{
	struct inproc t;
	struct globals g;
	setup(&t, &g, 64, 48);
	seat_enable_input(t.server->seat);
	/* The same client with a wl_seat 8 pointer and a wl_seat 7 one. */
	test_assert(wl_seat_get_version(g.seat) == 8);
	struct wl_seat *seat7 = bind_seat(&t, 7);
	struct wheel_log new = { 0 }, old = { 0 };
	new.pointer = wl_seat_get_pointer(g.seat);
	wl_pointer_add_listener(new.pointer, &wheel_listener, &new);
	old.pointer = wl_seat_get_pointer(seat7);
	wl_pointer_add_listener(old.pointer, &wheel_listener, &old);
	struct window top;
	struct test_buffer red;
	test_buffer_init(&t, &red, 64, 48, WL_SHM_FORMAT_XRGB8888);
	solid(&red, RED);
	map_toplevel(&t, &g, &top, &red);
	move_to(&t, 20, 20);
	new.frames = old.frames = 0;

	/* A wl_seat 8 desktop: a half step, passed on to the new client; the
	 * old one gets nothing until a whole step is there. */
	wheel(&t, true, 60, 7.5);
	test_assert(new.value120s == 1 && new.value120 == 60 && new.discretes == 0);
	test_assert(new.axes == 1 && near(new.value, 7.5) && new.frames == 1);
	test_assert(old.discretes == 0 && old.value120s == 0 && old.axes == 0,
		    "old client: %d discrete, %d axis", old.discretes, old.axes);
	wheel(&t, true, 60, 7.5);
	test_assert(new.value120s == 2 && new.value120 == 120 && new.discretes == 0);
	test_assert(old.discretes == 1 && old.discrete == 1 && old.value120s == 0);
	test_assert(old.axes == 1 && near(old.value, 15), "old axis %g", old.value);
	/* The direction turns: a half step back is nothing yet, a whole one
	 * more is one step (what was summed forwards does not count). */
	wheel(&t, true, 30, 3.75);
	wheel(&t, true, -60, -7.5);
	test_assert(old.discretes == 1);
	wheel(&t, true, -60, -7.5);
	test_assert(old.discretes == 2 && old.discrete == 0, "old discrete sum %d", old.discrete);
	test_assert(new.value120 == 30 && new.value120s == 5 && new.discretes == 0);

	/* A wl_seat 5-7 desktop (sway 1.7): discrete steps are value120 x 120. */
	wheel(&t, false, 2, 30);
	test_assert(new.value120 == 270 && new.value120s == 6 && new.discretes == 0,
		    "new: value120 %d", new.value120);
	test_assert(old.discretes == 3 && old.discrete == 2 && old.value120s == 0);
	wheel(&t, false, -1, -15);
	test_assert(new.value120 == 150 && old.discrete == 1);

	/* Smooth scrolling (no steps) goes to both as it is. */
	int new_axes = new.axes, old_axes = old.axes;
	feed(&t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_POINTER_AXIS,
						  .axis = WL_POINTER_AXIS_VERTICAL_SCROLL,
						  .value = 2.5 });
	feed(&t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_POINTER_FRAME });
	test_assert(new.axes == new_axes + 1 && old.axes == old_axes + 1);
	test_assert(new.value120s == 7 && old.discretes == 4);

	/* The axis before its value120 (their order is not fixed): the same. */
	feed(&t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_POINTER_AXIS,
						  .axis = WL_POINTER_AXIS_VERTICAL_SCROLL,
						  .value = 15 });
	feed(&t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_POINTER_AXIS_VALUE120,
						  .axis = WL_POINTER_AXIS_VERTICAL_SCROLL,
						  .value120 = 120 });
	feed(&t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_POINTER_FRAME });
	test_assert(new.value120s == 8 && new.value120 == 270 && new.discretes == 0);
	test_assert(old.discretes == 5 && old.discrete == 2 && old.value120s == 0);

	wl_pointer_release(new.pointer);
	wl_pointer_release(old.pointer);
	wl_seat_release(seat7);
	destroy_window(&top);
	test_buffer_finish(&red);
	test_assert(inproc_roundtrip(&t));
	teardown(&t, &g);
}

/* ---- touch (when the desktop's seat has it) ---- */

struct touch_log {
	struct wl_touch *touch;
	struct wl_surface *surface; /* of the last down */
	int32_t id;
	double x, y; /* of the last down or motion */
	int downs, ups, motions, frames, cancels;
	double major, minor, orientation;
	int shapes, orientations;
};

static void log_touch_down(void *data, struct wl_touch *touch, uint32_t serial, uint32_t time,
			   struct wl_surface *surface, int32_t id, wl_fixed_t x, wl_fixed_t y)
{
	struct touch_log *log = data;
	log->surface = surface;
	log->id = id;
	log->x = wl_fixed_to_double(x);
	log->y = wl_fixed_to_double(y);
	log->downs++;
}

static void log_touch_up(void *data, struct wl_touch *touch, uint32_t serial, uint32_t time,
			 int32_t id)
{
	struct touch_log *log = data;
	log->id = id;
	log->ups++;
}

static void log_touch_motion(void *data, struct wl_touch *touch, uint32_t time, int32_t id,
			     wl_fixed_t x, wl_fixed_t y)
{
	struct touch_log *log = data;
	log->id = id;
	log->x = wl_fixed_to_double(x);
	log->y = wl_fixed_to_double(y);
	log->motions++;
}

static void log_touch_frame(void *data, struct wl_touch *touch)
{
	((struct touch_log *)data)->frames++;
}

static void log_touch_cancel(void *data, struct wl_touch *touch)
{
	((struct touch_log *)data)->cancels++;
}

static void log_touch_shape(void *data, struct wl_touch *touch, int32_t id, wl_fixed_t major,
			    wl_fixed_t minor)
{
	struct touch_log *log = data;
	log->shapes++;
	log->major = wl_fixed_to_double(major);
	log->minor = wl_fixed_to_double(minor);
}

static void log_touch_orientation(void *data, struct wl_touch *touch, int32_t id,
				  wl_fixed_t orientation)
{
	struct touch_log *log = data;
	log->orientations++;
	log->orientation = wl_fixed_to_double(orientation);
}

static const struct wl_touch_listener log_touch_listener = {
	.down = log_touch_down,
	.up = log_touch_up,
	.motion = log_touch_motion,
	.frame = log_touch_frame,
	.cancel = log_touch_cancel,
	.shape = log_touch_shape,
	.orientation = log_touch_orientation,
};

static void touch_has(struct inproc *t, bool has_touch)
{
	feed(t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_TOUCH_CAPABILITY,
						 .has_touch = has_touch });
}

/* Input and touch on, and the client's wl_touch. */
static void touch_setup(struct inproc *t, struct globals *g, struct input_log *input,
			struct touch_log *log)
{
	input_setup(t, g, input);
	touch_has(t, true);
	test_assert(g->seat_capabilities == (WL_SEAT_CAPABILITY_POINTER |
					     WL_SEAT_CAPABILITY_KEYBOARD |
					     WL_SEAT_CAPABILITY_TOUCH));
	*log = (struct touch_log){ 0 };
	log->touch = wl_seat_get_touch(g->seat);
	wl_touch_add_listener(log->touch, &log_touch_listener, log);
	test_assert(inproc_roundtrip(t));
}

static void touch(struct inproc *t, enum wl_record_input_type type, int32_t id, double x,
		  double y)
{
	feed(t, &(struct wl_record_input_event){ .type = type, .touch_id = id, .x = x, .y = y });
}

static void touch_frame(struct inproc *t)
{
	feed(t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_TOUCH_FRAME });
}

TEST(seat_touch_only_with_the_windows_touch)
{
	struct inproc t;
	struct globals g;
	setup(&t, &g, 64, 48);
	/* Told before input is on (the window tells it first): still none. */
	touch_has(&t, true);
	test_assert(g.seat_capabilities == 0);
	seat_enable_input(t.server->seat);
	test_assert(inproc_roundtrip(&t));
	test_assert(g.seat_capabilities == (WL_SEAT_CAPABILITY_POINTER |
					    WL_SEAT_CAPABILITY_KEYBOARD |
					    WL_SEAT_CAPABILITY_TOUCH));
	/* The desktop's seat loses touch: so does ours. */
	touch_has(&t, false);
	test_assert(g.seat_capabilities ==
		    (WL_SEAT_CAPABILITY_POINTER | WL_SEAT_CAPABILITY_KEYBOARD));
	/* Without touch, touch events go nowhere. */
	struct touch_log log = { 0 };
	log.touch = wl_seat_get_touch(g.seat);
	wl_touch_add_listener(log.touch, &log_touch_listener, &log);
	struct window top;
	struct test_buffer red;
	test_buffer_init(&t, &red, 64, 48, WL_SHM_FORMAT_XRGB8888);
	solid(&red, RED);
	map_toplevel(&t, &g, &top, &red);
	touch(&t, WL_RECORD_INPUT_TOUCH_DOWN, 1, 10, 10);
	touch_frame(&t);
	test_assert(log.downs == 0 && log.frames == 0);
	wl_touch_release(log.touch);
	destroy_window(&top);
	test_buffer_finish(&red);
	test_assert(inproc_roundtrip(&t));
	teardown(&t, &g);
}

TEST(seat_touch_goes_to_the_surface_it_went_down_on)
{
	struct inproc t;
	struct globals g;
	setup(&t, &g, 64, 48);
	t.server->screen.policy = SCREEN_POLICY_ALL;
	struct input_log input;
	struct touch_log log;
	touch_setup(&t, &g, &input, &log);
	feed(&t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_KEYBOARD_ENTER });
	/* A 64x48 toplevel with a subsurface at 10,10, and a 32x24 one over
	 * it, centred (16,12 on the screen). */
	struct window big, small;
	struct test_buffer red, blue;
	test_buffer_init(&t, &red, 64, 48, WL_SHM_FORMAT_XRGB8888);
	solid(&red, RED);
	test_buffer_init(&t, &blue, 32, 24, WL_SHM_FORMAT_XRGB8888);
	solid(&blue, BLUE);
	map_toplevel(&t, &g, &big, &red);
	struct sub sub;
	make_sub(&t, &g, &sub, big.surface, GREEN, 2, 2);
	wl_surface_commit(big.surface);
	test_assert(inproc_roundtrip(&t));
	map_toplevel(&t, &g, &small, &blue);
	test_assert(input.keyboard_surface == small.surface);

	/* Down on the subsurface: its coordinates; it keeps the point when it
	 * moves over the other toplevel. A touch gives the keyboard to its
	 * toplevel, as a click does. */
	touch(&t, WL_RECORD_INPUT_TOUCH_DOWN, 7, 4.5, 5);
	touch_frame(&t);
	test_assert(log.downs == 1 && log.surface == sub.surface && log.id == 7 &&
		    near(log.x, 2.5) && near(log.y, 3), "down at %g,%g", log.x, log.y);
	test_assert(log.frames == 1);
	test_assert(input.keyboard_surface == big.surface);
	touch(&t, WL_RECORD_INPUT_TOUCH_MOTION, 7, 30, 20);
	touch_frame(&t);
	test_assert(log.motions == 1 && near(log.x, 28) && near(log.y, 18),
		    "motion at %g,%g", log.x, log.y);
	/* A second finger on the small toplevel: its own surface; one frame
	 * for the client for both. */
	touch(&t, WL_RECORD_INPUT_TOUCH_DOWN, 8, 20, 14);
	touch(&t, WL_RECORD_INPUT_TOUCH_MOTION, 7, 31, 21);
	touch_frame(&t);
	test_assert(log.downs == 2 && log.surface == small.surface && log.id == 7 &&
		    near(log.x, 29) && near(log.y, 19));
	test_assert(log.frames == 3, "%d frames", log.frames);
	test_assert(input.keyboard_surface == small.surface);
	touch(&t, WL_RECORD_INPUT_TOUCH_UP, 7, 0, 0);
	touch_frame(&t);
	test_assert(log.ups == 1 && log.id == 7 && log.frames == 4);
	/* Lifted: its motion goes nowhere. */
	touch(&t, WL_RECORD_INPUT_TOUCH_MOTION, 7, 40, 30);
	test_assert(log.motions == 2);
	touch(&t, WL_RECORD_INPUT_TOUCH_MOTION, 8, 21, 15);
	test_assert(log.motions == 3 && log.id == 8 && near(log.x, 5) && near(log.y, 3));
	touch(&t, WL_RECORD_INPUT_TOUCH_UP, 8, 0, 0);
	touch_frame(&t);
	test_assert(log.ups == 2 && log.frames == 5);
	/* On nothing (the background): nothing. (The keyboard leaves
	 * first: a leave for a surface the client already destroyed would
	 * reach it without one.) */
	feed(&t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_KEYBOARD_LEAVE });
	destroy_window(&small);
	test_assert(inproc_roundtrip(&t));
	touch(&t, WL_RECORD_INPUT_TOUCH_DOWN, 9, -2, 10);
	touch_frame(&t);
	test_assert(log.downs == 2 && log.frames == 5);

	/* The surface goes while touched: the rest of that touch goes
	 * nowhere, and the id can be used again. */
	touch(&t, WL_RECORD_INPUT_TOUCH_DOWN, 3, 5, 5);
	test_assert(log.downs == 3 && log.surface == sub.surface);
	destroy_sub(&sub);
	test_assert(inproc_roundtrip(&t));
	touch(&t, WL_RECORD_INPUT_TOUCH_MOTION, 3, 6, 6);
	touch(&t, WL_RECORD_INPUT_TOUCH_UP, 3, 0, 0);
	touch_frame(&t);
	test_assert(log.motions == 3 && log.ups == 2);
	touch(&t, WL_RECORD_INPUT_TOUCH_DOWN, 3, 5, 5);
	touch_frame(&t);
	test_assert(log.downs == 4 && log.surface == big.surface && near(log.x, 5));
	/* Cancel: every point goes. */
	feed(&t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_TOUCH_CANCEL });
	test_assert(log.cancels == 1);
	touch(&t, WL_RECORD_INPUT_TOUCH_UP, 3, 0, 0);
	test_assert(log.ups == 2);

	wl_touch_release(log.touch);
	input_finish(&input);
	destroy_window(&big);
	test_buffer_finish(&red);
	test_buffer_finish(&blue);
	test_assert(inproc_roundtrip(&t));
	teardown(&t, &g);
}

TEST(seat_touch_on_a_presented_surface_is_scaled)
{
	struct inproc t;
	struct globals g;
	setup(&t, &g, 64, 48);
	struct input_log input;
	struct touch_log log;
	touch_setup(&t, &g, &input, &log);
	/* A nested compositor's 32x24 output, zoomed to the 64x48 screen. */
	struct wl_surface *surface = wl_compositor_create_surface(t.compositor);
	struct test_buffer red;
	test_buffer_init(&t, &red, 32, 24, WL_SHM_FORMAT_XRGB8888);
	solid(&red, RED);
	zwp_fullscreen_shell_v1_present_surface(t.shell, surface,
						ZWP_FULLSCREEN_SHELL_V1_PRESENT_METHOD_ZOOM,
						t.output);
	commit_buffer(surface, &red);
	test_assert(inproc_roundtrip(&t));
	touch(&t, WL_RECORD_INPUT_TOUCH_DOWN, 0, 10, 30);
	touch_frame(&t);
	test_assert(log.surface == surface && near(log.x, 5) && near(log.y, 15),
		    "down at %g,%g", log.x, log.y);
	/* Its contact, in the surface's units; the angle as it is. */
	feed(&t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_TOUCH_SHAPE,
						  .touch_id = 0, .major = 8, .minor = 4 });
	feed(&t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_TOUCH_ORIENTATION,
						  .touch_id = 0, .orientation = 30 });
	test_assert(log.shapes == 1 && near(log.major, 4) && near(log.minor, 2),
		    "shape %gx%g", log.major, log.minor);
	test_assert(log.orientations == 1 && near(log.orientation, 30));
	/* Off the picture (a letterbox bar): still this surface's, scaled. */
	touch(&t, WL_RECORD_INPUT_TOUCH_MOTION, 0, 70, -4);
	test_assert(log.motions == 1 && near(log.x, 35) && near(log.y, -2),
		    "motion at %g,%g", log.x, log.y);
	touch(&t, WL_RECORD_INPUT_TOUCH_UP, 0, 0, 0);
	touch_frame(&t);
	test_assert(log.ups == 1 && log.frames == 2);
	wl_touch_release(log.touch);
	input_finish(&input);
	wl_surface_destroy(surface);
	test_buffer_finish(&red);
	teardown(&t, &g);
}

TEST(seat_touch_outside_a_grabbing_popup_dismisses_it)
{
	struct inproc t;
	struct globals g;
	setup(&t, &g, 64, 48);
	struct input_log input;
	struct touch_log log;
	touch_setup(&t, &g, &input, &log);
	/* A 32x24 toplevel, centred: at 16,12 on the screen. */
	struct window top, pop = { 0 };
	struct test_buffer red, green;
	test_buffer_init(&t, &red, 32, 24, WL_SHM_FORMAT_XRGB8888);
	solid(&red, RED);
	map_toplevel(&t, &g, &top, &red);
	move_to(&t, 20, 15);
	feed(&t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_POINTER_BUTTON,
						  .button = 273, .pressed = true });
	map_grabbing_menu(&t, &g, &pop, &top, input.button_serial, &green);
	feed(&t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_POINTER_BUTTON,
						  .button = 273 });
	/* On the popup (26,22 on the screen): its own, no dismissal. */
	touch(&t, WL_RECORD_INPUT_TOUCH_DOWN, 1, 28, 23);
	touch(&t, WL_RECORD_INPUT_TOUCH_UP, 1, 0, 0);
	touch_frame(&t);
	test_assert(log.downs == 1 && log.surface == pop.surface && near(log.x, 2) &&
		    near(log.y, 1) && !pop.popup_done);
	/* Outside the client: dismissed, and the touch goes nowhere. */
	touch(&t, WL_RECORD_INPUT_TOUCH_DOWN, 2, 2, 2);
	touch_frame(&t);
	test_assert(pop.popup_done);
	test_assert(log.downs == 1 && log.frames == 1);
	touch(&t, WL_RECORD_INPUT_TOUCH_UP, 2, 0, 0);
	test_assert(log.ups == 1);
	wl_touch_release(log.touch);
	input_finish(&input);
	destroy_window(&pop);
	destroy_window(&top);
	test_buffer_finish(&red);
	test_buffer_finish(&green);
	teardown(&t, &g);
}

/* A second client of the same server, for what happens when one dies. */
struct other_client {
	struct inproc t; /* its server is the first client's: not finished */
	struct globals g;
	struct wl_registry *registry;
};

static void other_global(void *data, struct wl_registry *registry, uint32_t name,
			 const char *interface, uint32_t version)
{
	struct other_client *o = data;
	if (strcmp(interface, "wl_compositor") == 0)
		o->t.compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 4);
	else if (strcmp(interface, "wl_shm") == 0)
		o->t.shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	else
		registry_global(&o->g, registry, name, interface, version);
}

static const struct wl_registry_listener other_registry_listener = {
	.global = other_global, .global_remove = registry_global_remove,
};

static void other_client_connect(struct inproc *t, struct other_client *o)
{
	*o = (struct other_client){ 0 };
	o->t.server = t->server;
	int fds[2];
	test_assert(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0);
	test_assert(wl_client_create(t->server->display, fds[0]));
	o->t.display = wl_display_connect_to_fd(fds[1]);
	test_assert(o->t.display);
	o->registry = wl_display_get_registry(o->t.display);
	wl_registry_add_listener(o->registry, &other_registry_listener, o);
	test_assert(inproc_roundtrip(&o->t));
	test_assert(inproc_roundtrip(&o->t));
	test_assert(o->t.compositor && o->t.shm && o->g.wm_base && o->g.seat);
}

TEST(seat_touch_client_gone_mid_touch)
{
	struct inproc t;
	struct globals g;
	setup(&t, &g, 64, 48);
	t.server->screen.policy = SCREEN_POLICY_ALL;
	struct input_log input;
	struct touch_log log;
	touch_setup(&t, &g, &input, &log);
	struct window big;
	struct test_buffer red;
	test_buffer_init(&t, &red, 64, 48, WL_SHM_FORMAT_XRGB8888);
	solid(&red, RED);
	map_toplevel(&t, &g, &big, &red);

	/* Another client's 32x24 toplevel over it (16,12 on the screen), with
	 * a finger on each. */
	struct other_client o;
	other_client_connect(&t, &o);
	struct touch_log other_log = { 0 };
	other_log.touch = wl_seat_get_touch(o.g.seat);
	wl_touch_add_listener(other_log.touch, &log_touch_listener, &other_log);
	struct window small;
	struct test_buffer blue;
	test_buffer_init(&o.t, &blue, 32, 24, WL_SHM_FORMAT_XRGB8888);
	solid(&blue, BLUE);
	map_toplevel(&o.t, &o.g, &small, &blue);
	touch(&t, WL_RECORD_INPUT_TOUCH_DOWN, 1, 20, 20);
	touch(&t, WL_RECORD_INPUT_TOUCH_DOWN, 2, 2, 2);
	touch_frame(&t);
	test_assert(inproc_roundtrip(&o.t));
	test_assert(other_log.downs == 1 && other_log.frames == 1 && near(other_log.x, 4));
	test_assert(log.downs == 1 && log.surface == big.surface && log.frames == 1);

	/* It dies without a word (but for its buffer, freed here): its objects
	 * go with its connection. */
	test_buffer_finish(&blue);
	wl_proxy_destroy((struct wl_proxy *)other_log.touch);
	wl_proxy_destroy((struct wl_proxy *)small.toplevel);
	wl_proxy_destroy((struct wl_proxy *)small.xdg_surface);
	wl_proxy_destroy((struct wl_proxy *)small.surface);
	wl_proxy_destroy((struct wl_proxy *)o.g.seat);
	wl_proxy_destroy((struct wl_proxy *)o.g.wm_base);
	wl_proxy_destroy((struct wl_proxy *)o.g.subcompositor);
	wl_proxy_destroy((struct wl_proxy *)o.g.viewporter);
	wl_proxy_destroy((struct wl_proxy *)o.t.compositor);
	wl_proxy_destroy((struct wl_proxy *)o.t.shm);
	wl_registry_destroy(o.registry);
	wl_display_disconnect(o.t.display);
	test_assert(inproc_roundtrip(&t));
	test_assert(inproc_roundtrip(&t));

	/* The rest of its touch goes nowhere; the other finger goes on. */
	touch(&t, WL_RECORD_INPUT_TOUCH_MOTION, 1, 22, 22);
	touch(&t, WL_RECORD_INPUT_TOUCH_MOTION, 2, 3, 4);
	touch_frame(&t);
	test_assert(log.motions == 1 && log.id == 2 && near(log.x, 3) && near(log.y, 4));
	touch(&t, WL_RECORD_INPUT_TOUCH_UP, 1, 0, 0);
	touch(&t, WL_RECORD_INPUT_TOUCH_UP, 2, 0, 0);
	touch_frame(&t);
	test_assert(log.ups == 1 && log.id == 2 && log.frames == 3, "%d frames", log.frames);
	wl_touch_release(log.touch);
	input_finish(&input);
	destroy_window(&big);
	test_buffer_finish(&red);
	test_assert(inproc_roundtrip(&t));
	teardown(&t, &g);
}

/* ---- the pointer's image in the picture (--cursor) ---- */

#define CYAN 0xff00ffffu
#define YELLOW 0xffffff00u

struct damage_log {
	struct wl_listener listener;
	int frames;
	bool known;
	struct frame_damage damage;
};

static void log_frame_damage(struct wl_listener *listener, void *data)
{
	struct damage_log *log = wl_container_of(listener, log, listener);
	const struct frame *frame = data;
	log->frames++;
	log->known = frame->damage_known;
	log->damage = frame->damage;
}

static void damage_log_init(struct inproc *t, struct damage_log *log)
{
	*log = (struct damage_log){ .listener.notify = log_frame_damage };
	wl_signal_add(&t->server->screen.events.frame, &log->listener);
}

#define test_assert_damage(log, a, b, c, d)                                                \
	test_assert((log)->known && (log)->damage.x1 == (a) && (log)->damage.y1 == (b) &&  \
			    (log)->damage.x2 == (c) && (log)->damage.y2 == (d),            \
		    "damage %d,%d-%d,%d (known %d)", (log)->damage.x1, (log)->damage.y1,   \
		    (log)->damage.x2, (log)->damage.y2, (log)->known)

/* A 4x4 square of `colour` at x,y, `around` in the pixels next to it. */
static void assert_square(struct inproc *t, int x, int y, uint32_t colour, uint32_t around)
{
	test_assert_pixel(t, x, y, colour);
	test_assert_pixel(t, x + 3, y + 3, colour);
	test_assert_pixel(t, x - 1, y, around);
	test_assert_pixel(t, x, y - 1, around);
	test_assert_pixel(t, x + 4, y + 3, around);
	test_assert_pixel(t, x + 3, y + 4, around);
}

TEST(seat_cursor_drawn_on_the_views)
{
	struct inproc t;
	struct globals g;
	setup(&t, &g, 64, 48);
	t.server->screen.draw_cursor = true;
	struct input_log log;
	input_setup(&t, &g, &log);
	struct window top;
	struct test_buffer red;
	test_buffer_init(&t, &red, 64, 48, WL_SHM_FORMAT_XRGB8888);
	solid(&red, RED);
	map_toplevel(&t, &g, &top, &red);
	struct damage_log damage;
	damage_log_init(&t, &damage);

	/* The pointer on the app, which has set no image yet: none drawn. */
	move_to(&t, 20.5, 30);
	test_assert(log.pointer_surface == top.surface);
	test_assert_pixel(&t, 19, 28, RED);
	struct wl_surface *cursor = wl_compositor_create_surface(t.compositor);
	struct test_buffer cyan, yellow;
	test_buffer_init(&t, &cyan, 4, 4, WL_SHM_FORMAT_ARGB8888);
	test_buffer_init(&t, &yellow, 4, 4, WL_SHM_FORMAT_ARGB8888);
	solid(&cyan, CYAN);
	solid(&yellow, YELLOW);
	commit_buffer(cursor, &cyan);
	/* Hotspot 1,2: the image's top-left corner at 19,28. */
	wl_pointer_set_cursor(log.pointer, log.enter_serial, cursor, 1, 2);
	test_assert(inproc_roundtrip(&t));
	assert_square(&t, 19, 28, CYAN, RED);
	test_assert_damage(&damage, 19, 28, 23, 32);

	/* Moved: the old place is the app again; only the two places changed. */
	int frames = damage.frames;
	move_to(&t, 40.9, 10);
	test_assert(damage.frames > frames);
	assert_square(&t, 39, 8, CYAN, RED);
	test_assert_pixel(&t, 19, 28, RED);
	test_assert_pixel(&t, 22, 31, RED);
	test_assert_damage(&damage, 19, 8, 43, 32);
	/* Where it is, the app's own changes are drawn under it. */
	solid(&red, GREEN);
	wl_surface_attach(top.surface, red.buffer, 0, 0);
	wl_surface_damage_buffer(top.surface, 30, 0, 20, 20);
	wl_surface_commit(top.surface);
	test_assert(inproc_roundtrip(&t));
	assert_square(&t, 39, 8, CYAN, GREEN);

	/* A new image, at the same place. */
	commit_buffer(cursor, &yellow);
	test_assert(inproc_roundtrip(&t));
	assert_square(&t, 39, 8, YELLOW, GREEN);
	test_assert_damage(&damage, 39, 8, 43, 12);

	/* Hidden (set_cursor with no surface), then shown and the pointer off
	 * the picture (the window's bar). */
	wl_pointer_set_cursor(log.pointer, log.enter_serial, NULL, 0, 0);
	test_assert(inproc_roundtrip(&t));
	test_assert_pixel(&t, 39, 8, GREEN);
	test_assert_pixel(&t, 42, 11, GREEN);
	wl_pointer_set_cursor(log.pointer, log.enter_serial, cursor, 1, 2);
	test_assert(inproc_roundtrip(&t));
	assert_square(&t, 39, 8, YELLOW, GREEN);
	feed(&t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_POINTER_LEAVE });
	test_assert_pixel(&t, 39, 8, GREEN);
	test_assert_pixel(&t, 42, 11, GREEN);

	/* Back on the app: its image again once it sets one (a new enter). */
	move_to(&t, 10, 10);
	test_assert_pixel(&t, 9, 8, RED); /* left of the green the app drew */
	wl_pointer_set_cursor(log.pointer, log.enter_serial, cursor, 1, 2);
	test_assert(inproc_roundtrip(&t));
	assert_square(&t, 9, 8, YELLOW, RED);
	/* The image destroyed: gone from the picture. */
	wl_surface_destroy(cursor);
	test_assert(inproc_roundtrip(&t));
	test_assert_pixel(&t, 9, 8, RED);
	test_assert_pixel(&t, 12, 11, RED);

	wl_list_remove(&damage.listener.link);
	input_finish(&log);
	destroy_window(&top);
	test_buffer_finish(&cyan);
	test_buffer_finish(&yellow);
	test_buffer_finish(&red);
	teardown(&t, &g);
}

/* Over a nested compositor's output, zoomed: the image at screen pixels,
 * not scaled with the output. Without --cursor none is drawn. */
static void cursor_on_presented(bool draw_cursor)
{
	struct inproc t;
	struct globals g;
	setup(&t, &g, 64, 48);
	t.server->screen.draw_cursor = draw_cursor;
	struct input_log log;
	input_setup(&t, &g, &log);
	struct wl_surface *surface = wl_compositor_create_surface(t.compositor);
	struct test_buffer red, cyan;
	test_buffer_init(&t, &red, 32, 24, WL_SHM_FORMAT_XRGB8888);
	test_buffer_init(&t, &cyan, 4, 4, WL_SHM_FORMAT_ARGB8888);
	solid(&red, RED);
	solid(&cyan, CYAN);
	zwp_fullscreen_shell_v1_present_surface(t.shell, surface,
						ZWP_FULLSCREEN_SHELL_V1_PRESENT_METHOD_ZOOM,
						t.output);
	commit_buffer(surface, &red);
	test_assert(inproc_roundtrip(&t));
	struct damage_log damage;
	damage_log_init(&t, &damage);
	move_to(&t, 10, 30);
	test_assert(log.pointer_surface == surface);
	struct wl_surface *cursor = wl_compositor_create_surface(t.compositor);
	commit_buffer(cursor, &cyan);
	wl_pointer_set_cursor(log.pointer, log.enter_serial, cursor, 3, 0);
	test_assert(inproc_roundtrip(&t));
	if (draw_cursor) {
		assert_square(&t, 7, 30, CYAN, RED);
		test_assert_damage(&damage, 7, 30, 11, 34);
		move_to(&t, 50, 20);
		assert_square(&t, 47, 20, CYAN, RED);
		test_assert_pixel(&t, 7, 30, RED);
		test_assert_damage(&damage, 7, 20, 51, 34);
		/* The nested compositor's own frames keep it on top. */
		commit_buffer(surface, &red);
		test_assert(inproc_roundtrip(&t));
		assert_square(&t, 47, 20, CYAN, RED);
	} else {
		test_assert(damage.frames == 0, "%d frames for a cursor not drawn", damage.frames);
		test_assert_pixel(&t, 7, 30, RED);
		test_assert_pixel(&t, 10, 33, RED);
	}
	wl_list_remove(&damage.listener.link);
	wl_surface_destroy(cursor);
	input_finish(&log);
	wl_surface_destroy(surface);
	test_buffer_finish(&red);
	test_buffer_finish(&cyan);
	teardown(&t, &g);
}

TEST(seat_cursor_drawn_on_a_presented_surface)
{
	cursor_on_presented(true);
}

TEST(seat_cursor_not_drawn_without_the_option)
{
	cursor_on_presented(false);
}

/* ---- the clipboard (--window): wl_data_device_manager ---- */

struct clip {
	struct wl_data_device_manager *manager;
	struct wl_data_device *device;
	struct wl_data_offer *offer; /* the newest data_offer */
	struct wl_data_offer *offers[16]; /* every one not yet destroyed */
	int offer_count;
	struct wl_data_offer *selection;
	char offered[256];           /* mime types of the newest offer, ';'-joined */
	int selections;              /* selection events */
	/* The peer (the desktop's side), as cmd/ would connect it. */
	char peer_types[256];
	int peer_selections;
	char peer_receive_mime[64];
	int peer_receives;
	/* The client's source. */
	char sent_mime[64];
	int sends, cancels;
};

static void clip_global(void *data, struct wl_registry *registry, uint32_t name,
			const char *interface, uint32_t version)
{
	struct clip *c = data;
	if (strcmp(interface, "wl_data_device_manager") == 0) {
		test_assert(version == 3);
		c->manager = wl_registry_bind(registry, name, &wl_data_device_manager_interface, 3);
	}
}

static const struct wl_registry_listener clip_registry_listener = {
	.global = clip_global, .global_remove = registry_global_remove,
};

static void clip_offer_offer(void *data, struct wl_data_offer *offer, const char *mime_type)
{
	struct clip *c = data;
	size_t used = strlen(c->offered);
	snprintf(c->offered + used, sizeof(c->offered) - used, "%s%s", used ? ";" : "", mime_type);
}

static void clip_offer_source_actions(void *data, struct wl_data_offer *offer, uint32_t actions)
{
}

static void clip_offer_action(void *data, struct wl_data_offer *offer, uint32_t action)
{
}

static const struct wl_data_offer_listener clip_offer_listener = {
	.offer = clip_offer_offer, .source_actions = clip_offer_source_actions,
	.action = clip_offer_action,
};

static void clip_data_offer(void *data, struct wl_data_device *device, struct wl_data_offer *offer)
{
	struct clip *c = data;
	c->offer = offer;
	c->offered[0] = 0;
	test_assert(c->offer_count < 16);
	c->offers[c->offer_count++] = offer;
	wl_data_offer_add_listener(offer, &clip_offer_listener, c);
}

static void clip_enter(void *data, struct wl_data_device *device, uint32_t serial,
		       struct wl_surface *surface, wl_fixed_t x, wl_fixed_t y,
		       struct wl_data_offer *offer)
{
}

static void clip_leave(void *data, struct wl_data_device *device)
{
}

static void clip_motion(void *data, struct wl_data_device *device, uint32_t time, wl_fixed_t x,
			wl_fixed_t y)
{
}

static void clip_drop(void *data, struct wl_data_device *device)
{
}

static void clip_selection(void *data, struct wl_data_device *device, struct wl_data_offer *offer)
{
	struct clip *c = data;
	test_assert(!offer || offer == c->offer);
	c->selection = offer;
	c->selections++;
}

static const struct wl_data_device_listener clip_device_listener = {
	.data_offer = clip_data_offer, .enter = clip_enter, .leave = clip_leave,
	.motion = clip_motion, .drop = clip_drop, .selection = clip_selection,
};

static void peer_selection(void *data, const char *const *mime_types, size_t count)
{
	struct clip *c = data;
	c->peer_selections++;
	c->peer_types[0] = 0;
	for (size_t i = 0; i < count; i++) {
		size_t used = strlen(c->peer_types);
		snprintf(c->peer_types + used, sizeof(c->peer_types) - used, "%s%s",
			 used ? ";" : "", mime_types[i]);
	}
}

/* The desktop's selection is "desktop text" in any type. */
static void peer_receive(void *data, const char *mime_type, int fd)
{
	struct clip *c = data;
	c->peer_receives++;
	snprintf(c->peer_receive_mime, sizeof(c->peer_receive_mime), "%s", mime_type);
	test_assert(write(fd, "desktop text", 12) == 12);
	close(fd);
}

/* The clipboard offered (as with --window), the client's data device. */
static void clip_setup(struct inproc *t, struct globals *g, struct clip *c)
{
	*c = (struct clip){ 0 };
	struct wl_registry *registry = wl_display_get_registry(t->display);
	wl_registry_add_listener(registry, &clip_registry_listener, c);
	test_assert(inproc_roundtrip(t));
	test_assert(!c->manager, "the clipboard is offered without --window");
	struct wl_record_clipboard_peer peer = {
		.selection = peer_selection, .receive = peer_receive, .data = c,
	};
	selection_set_peer(t->server->data_device, &peer);
	selection_enable(t->server->data_device);
	test_assert(inproc_roundtrip(t));
	wl_registry_destroy(registry);
	test_assert(c->manager != NULL);
	c->device = wl_data_device_manager_get_data_device(c->manager, g->seat);
	wl_data_device_add_listener(c->device, &clip_device_listener, c);
	test_assert(inproc_roundtrip(t));
}

/* Destroys one of the offers the client was given. */
static void clip_offer_destroy(struct clip *c, struct wl_data_offer *offer)
{
	for (int i = 0; i < c->offer_count; i++) {
		if (c->offers[i] == offer) {
			c->offers[i] = c->offers[--c->offer_count];
			wl_data_offer_destroy(offer);
			return;
		}
	}
	test_assert(false, "not an offer of this client");
}

/* The client's clipboard objects destroyed (also after a protocol error:
 * a proxy lives on the client side until destroyed). */
static void clip_finish(struct clip *c)
{
	while (c->offer_count)
		clip_offer_destroy(c, c->offers[0]);
	if (c->device)
		wl_data_device_release(c->device);
	wl_data_device_manager_destroy(c->manager);
}

/* What comes out of a pipe's `read_fd` (closed here) once the server has
 * run, into `out`. */
static void read_pasted(struct inproc *t, int read_fd, char *out, size_t size)
{
	test_assert(inproc_roundtrip(t));
	ssize_t n = read(read_fd, out, size - 1);
	out[n > 0 ? n : 0] = 0;
	close(read_fd);
}

/* What the client reads from the selection offered to it, as `mime`. */
static void paste_from(struct inproc *t, struct wl_data_offer *offer, const char *mime, char *out,
		       size_t size)
{
	int fds[2];
	test_assert(pipe(fds) == 0);
	wl_data_offer_receive(offer, mime, fds[1]);
	close(fds[1]);
	read_pasted(t, fds[0], out, size);
}

static void source_target(void *data, struct wl_data_source *source, const char *mime_type)
{
}

/* The client's selection is "client text". */
static void source_send(void *data, struct wl_data_source *source, const char *mime_type,
			int32_t fd)
{
	struct clip *c = data;
	c->sends++;
	snprintf(c->sent_mime, sizeof(c->sent_mime), "%s", mime_type);
	test_assert(write(fd, "client text", 11) == 11);
	close(fd);
}

static void source_cancelled(void *data, struct wl_data_source *source)
{
	((struct clip *)data)->cancels++;
}

static const struct wl_data_source_listener clip_source_listener = {
	.target = source_target, .send = source_send, .cancelled = source_cancelled,
};

static struct wl_data_source *text_source(struct clip *c)
{
	struct wl_data_source *source = wl_data_device_manager_create_data_source(c->manager);
	wl_data_source_add_listener(source, &clip_source_listener, c);
	wl_data_source_offer(source, "text/plain;charset=utf-8");
	wl_data_source_offer(source, "text/plain");
	return source;
}

TEST(clipboard_desktop_selection_follows_the_keyboard)
{
	struct inproc t;
	struct globals g;
	setup(&t, &g, 64, 48);
	struct input_log log;
	input_setup(&t, &g, &log);
	struct clip c;
	clip_setup(&t, &g, &c);
	struct window top;
	struct test_buffer red;
	test_buffer_init(&t, &red, 64, 48, WL_SHM_FORMAT_XRGB8888);
	solid(&red, RED);
	map_toplevel(&t, &g, &top, &red);
	static const char *const types[] = { "text/plain;charset=utf-8", "text/plain" };
	/* The desktop copies while the window lacks the keyboard: nothing. */
	selection_set_desktop(t.server->data_device, types, 2);
	test_assert(inproc_roundtrip(&t));
	test_assert(c.selections == 0 && c.offer == NULL);

	/* The keyboard comes: the selection is offered. */
	feed(&t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_KEYBOARD_ENTER });
	test_assert(log.keyboard_surface == top.surface);
	test_assert(c.selection != NULL && strcmp(c.offered, "text/plain;charset=utf-8;text/plain") == 0,
		    "offered '%s'", c.offered);
	char pasted[64];
	paste_from(&t, c.selection, "text/plain", pasted, sizeof(pasted));
	test_assert(strcmp(pasted, "desktop text") == 0 && c.peer_receives == 1 &&
		    strcmp(c.peer_receive_mime, "text/plain") == 0, "pasted '%s'", pasted);

	/* The keyboard leaves: no selection, and the old offer reads nothing. */
	struct wl_data_offer *old = c.selection;
	feed(&t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_KEYBOARD_LEAVE });
	test_assert(c.selection == NULL);
	paste_from(&t, old, "text/plain", pasted, sizeof(pasted));
	test_assert(pasted[0] == 0 && c.peer_receives == 1, "pasted '%s' without the keyboard", pasted);
	clip_offer_destroy(&c, old);

	/* A client without the keyboard cannot copy. */
	struct wl_data_source *source = text_source(&c);
	wl_data_device_set_selection(c.device, source, 0);
	test_assert(inproc_roundtrip(&t));
	test_assert(c.peer_selections == 0 && c.cancels == 1);
	wl_data_source_destroy(source);

	/* With it, the desktop is told and pastes from the client's source. */
	feed(&t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_KEYBOARD_ENTER });
	if (c.selection)
		clip_offer_destroy(&c, c.selection);
	source = text_source(&c);
	wl_data_device_set_selection(c.device, source, 0);
	test_assert(inproc_roundtrip(&t));
	test_assert(c.peer_selections == 1 &&
		    strcmp(c.peer_types, "text/plain;charset=utf-8;text/plain") == 0,
		    "the desktop was offered '%s'", c.peer_types);
	int fds[2];
	test_assert(pipe(fds) == 0);
	selection_desktop_receive(t.server->data_device, "text/plain;charset=utf-8", fds[1]);
	read_pasted(&t, fds[0], pasted, sizeof(pasted));
	test_assert(strcmp(pasted, "client text") == 0 && c.sends == 1 &&
		    strcmp(c.sent_mime, "text/plain;charset=utf-8") == 0, "the desktop got '%s'", pasted);

	/* The desktop copies again: the client's source is cancelled. */
	selection_set_desktop(t.server->data_device, types, 1);
	test_assert(inproc_roundtrip(&t));
	test_assert(c.cancels == 2 && strcmp(c.offered, "text/plain;charset=utf-8") == 0);
	wl_data_source_destroy(source);
	if (c.selection)
		clip_offer_destroy(&c, c.selection);
	selection_set_peer(t.server->data_device, NULL);
	clip_finish(&c);
	input_finish(&log);
	destroy_window(&top);
	test_buffer_finish(&red);
	teardown(&t, &g);
}

TEST(clipboard_source_used_twice)
{
	struct inproc t;
	struct globals g;
	setup(&t, &g, 64, 48);
	struct clip c;
	clip_setup(&t, &g, &c);
	struct wl_data_source *source = text_source(&c);
	wl_data_device_set_selection(c.device, source, 0);
	test_assert(inproc_roundtrip(&t));
	wl_data_device_set_selection(c.device, source, 0);
	expect_protocol_error(&t, &wl_data_source_interface, source,
			      WL_DATA_SOURCE_ERROR_INVALID_SOURCE);
	selection_set_peer(t.server->data_device, NULL);
	wl_data_source_destroy(source);
	clip_finish(&c);
	teardown(&t, &g);
}

TEST(clipboard_drag_source_is_no_selection)
{
	struct inproc t;
	struct globals g;
	setup(&t, &g, 64, 48);
	struct clip c;
	clip_setup(&t, &g, &c);
	struct wl_data_source *source = text_source(&c);
	wl_data_source_set_actions(source, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY);
	wl_data_device_set_selection(c.device, source, 0);
	expect_protocol_error(&t, &wl_data_source_interface, source,
			      WL_DATA_SOURCE_ERROR_INVALID_SOURCE);
	selection_set_peer(t.server->data_device, NULL);
	wl_data_source_destroy(source);
	clip_finish(&c);
	teardown(&t, &g);
}

TEST(clipboard_finish_on_a_selection)
{
	struct inproc t;
	struct globals g;
	setup(&t, &g, 64, 48);
	struct input_log log;
	input_setup(&t, &g, &log);
	struct clip c;
	clip_setup(&t, &g, &c);
	struct window top;
	struct test_buffer red;
	test_buffer_init(&t, &red, 64, 48, WL_SHM_FORMAT_XRGB8888);
	solid(&red, RED);
	map_toplevel(&t, &g, &top, &red);
	static const char *const types[] = { "text/plain" };
	selection_set_desktop(t.server->data_device, types, 1);
	feed(&t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_KEYBOARD_ENTER });
	test_assert(c.selection != NULL);
	wl_data_offer_finish(c.selection);
	expect_protocol_error(&t, &wl_data_offer_interface, c.selection,
			      WL_DATA_OFFER_ERROR_INVALID_FINISH);
	selection_set_peer(t.server->data_device, NULL);
	clip_finish(&c);
	input_finish(&log);
	destroy_window(&top);
	test_buffer_finish(&red);
	teardown(&t, &g);
}

/* What the title handler was told. */
struct title_log {
	int calls;
	char last[64]; /* "" for NULL */
	bool last_null;
};

static void log_title(void *data, const char *title)
{
	struct title_log *log = data;
	log->calls++;
	log->last_null = !title;
	snprintf(log->last, sizeof(log->last), "%s", title ? title : "");
}

TEST(title_of_the_toplevel_on_top_and_close)
{
	struct inproc t;
	struct globals g;
	setup(&t, &g, 64, 48);
	struct title_log log = { 0 };
	xdg_shell_set_title_handler(t.server->xdg_shell, log_title, &log);
	test_assert(log.calls == 1 && log.last_null); /* nothing on the screen yet */

	struct test_buffer b;
	test_buffer_init(&t, &b, 64, 48, WL_SHM_FORMAT_XRGB8888);
	solid(&b, RED);
	struct window first, second;
	create_toplevel(&t, &g, &first);
	xdg_toplevel_set_title(first.toplevel, "first");
	wl_surface_commit(first.surface);
	test_assert(inproc_roundtrip(&t));
	test_assert(log.calls == 1); /* titled but not shown */
	xdg_surface_ack_configure(first.xdg_surface, first.serial);
	commit_buffer(first.surface, &b);
	test_assert(inproc_roundtrip(&t));
	test_assert(log.calls == 2 && strcmp(log.last, "first") == 0);

	/* A newer toplevel without a title is on top: no title. */
	map_toplevel(&t, &g, &second, &b);
	test_assert(log.calls == 3 && log.last_null);
	xdg_toplevel_set_title(second.toplevel, "second");
	test_assert(inproc_roundtrip(&t));
	test_assert(log.calls == 4 && strcmp(log.last, "second") == 0);
	/* The one below retitles itself: not what is shown. */
	xdg_toplevel_set_title(first.toplevel, "first again");
	xdg_toplevel_set_title(second.toplevel, "second");
	test_assert(inproc_roundtrip(&t));
	test_assert(log.calls == 4);

	/* Both are asked to close; the top one goes: the other's title. */
	test_assert(xdg_shell_close_toplevels(t.server->xdg_shell) == 2);
	test_assert(inproc_roundtrip(&t));
	test_assert(first.closes == 1 && second.closes == 1);
	destroy_window(&second);
	test_assert(inproc_roundtrip(&t));
	test_assert(log.calls == 5 && strcmp(log.last, "first again") == 0);

	xdg_shell_set_title_handler(t.server->xdg_shell, NULL, NULL);
	destroy_window(&first);
	test_buffer_finish(&b);
	test_assert(inproc_roundtrip(&t));
	teardown(&t, &g);
}

/* ---- the primary selection (--window): zwp_primary_selection_device_manager_v1 ---- */

struct primary {
	struct clip peer; /* the desktop's side and the source, logged as for the clipboard */
	struct zwp_primary_selection_device_manager_v1 *manager;
	struct zwp_primary_selection_device_v1 *device;
	struct zwp_primary_selection_offer_v1 *offer; /* the newest data_offer */
	struct zwp_primary_selection_offer_v1 *offers[16]; /* every one not yet destroyed */
	int offer_count;
	struct zwp_primary_selection_offer_v1 *selection;
	char offered[256]; /* mime types of the newest offer, ';'-joined */
	int selections;    /* selection events */
};

static void primary_global(void *data, struct wl_registry *registry, uint32_t name,
			   const char *interface, uint32_t version)
{
	struct primary *p = data;
	if (strcmp(interface, zwp_primary_selection_device_manager_v1_interface.name) == 0) {
		test_assert(version == 1);
		p->manager = wl_registry_bind(registry, name,
					      &zwp_primary_selection_device_manager_v1_interface, 1);
	}
}

static const struct wl_registry_listener primary_registry_listener = {
	.global = primary_global, .global_remove = registry_global_remove,
};

static void primary_offer_offer(void *data, struct zwp_primary_selection_offer_v1 *offer,
				const char *mime_type)
{
	struct primary *p = data;
	size_t used = strlen(p->offered);
	snprintf(p->offered + used, sizeof(p->offered) - used, "%s%s", used ? ";" : "", mime_type);
}

static const struct zwp_primary_selection_offer_v1_listener primary_offer_listener = {
	.offer = primary_offer_offer,
};

static void primary_data_offer(void *data, struct zwp_primary_selection_device_v1 *device,
			       struct zwp_primary_selection_offer_v1 *offer)
{
	struct primary *p = data;
	p->offer = offer;
	p->offered[0] = 0;
	test_assert(p->offer_count < 16);
	p->offers[p->offer_count++] = offer;
	zwp_primary_selection_offer_v1_add_listener(offer, &primary_offer_listener, p);
}

static void primary_selection_event(void *data, struct zwp_primary_selection_device_v1 *device,
				    struct zwp_primary_selection_offer_v1 *offer)
{
	struct primary *p = data;
	test_assert(!offer || offer == p->offer);
	p->selection = offer;
	p->selections++;
}

static const struct zwp_primary_selection_device_v1_listener primary_device_listener = {
	.data_offer = primary_data_offer, .selection = primary_selection_event,
};

/* The primary selection offered (as with --window), the client's device. */
static void primary_setup(struct inproc *t, struct globals *g, struct primary *p)
{
	*p = (struct primary){ 0 };
	struct wl_registry *registry = wl_display_get_registry(t->display);
	wl_registry_add_listener(registry, &primary_registry_listener, p);
	test_assert(inproc_roundtrip(t));
	test_assert(!p->manager, "the primary selection is offered without --window");
	struct wl_record_clipboard_peer peer = {
		.selection = peer_selection, .receive = peer_receive, .data = &p->peer,
	};
	selection_set_peer(t->server->primary_selection, &peer);
	selection_enable(t->server->primary_selection);
	test_assert(inproc_roundtrip(t));
	wl_registry_destroy(registry);
	test_assert(p->manager != NULL);
	p->device = zwp_primary_selection_device_manager_v1_get_device(p->manager, g->seat);
	zwp_primary_selection_device_v1_add_listener(p->device, &primary_device_listener, p);
	test_assert(inproc_roundtrip(t));
}

static void primary_offer_destroy(struct primary *p, struct zwp_primary_selection_offer_v1 *offer)
{
	for (int i = 0; i < p->offer_count; i++) {
		if (p->offers[i] == offer) {
			p->offers[i] = p->offers[--p->offer_count];
			zwp_primary_selection_offer_v1_destroy(offer);
			return;
		}
	}
	test_assert(false, "not an offer of this client");
}

static void primary_finish(struct inproc *t, struct primary *p)
{
	selection_set_peer(t->server->primary_selection, NULL);
	while (p->offer_count)
		primary_offer_destroy(p, p->offers[0]);
	if (p->device)
		zwp_primary_selection_device_v1_destroy(p->device);
	zwp_primary_selection_device_manager_v1_destroy(p->manager);
}

static void primary_paste_from(struct inproc *t, struct zwp_primary_selection_offer_v1 *offer,
			       const char *mime, char *out, size_t size)
{
	int fds[2];
	test_assert(pipe(fds) == 0);
	zwp_primary_selection_offer_v1_receive(offer, mime, fds[1]);
	close(fds[1]);
	read_pasted(t, fds[0], out, size);
}

static void primary_source_send(void *data, struct zwp_primary_selection_source_v1 *source,
				const char *mime_type, int32_t fd)
{
	source_send(data, NULL, mime_type, fd);
}

static void primary_source_cancelled(void *data, struct zwp_primary_selection_source_v1 *source)
{
	source_cancelled(data, NULL);
}

static const struct zwp_primary_selection_source_v1_listener primary_source_listener = {
	.send = primary_source_send, .cancelled = primary_source_cancelled,
};

/* A source of "client text" as text/plain;charset=utf-8. */
static struct zwp_primary_selection_source_v1 *primary_text_source(struct primary *p)
{
	struct zwp_primary_selection_source_v1 *source =
		zwp_primary_selection_device_manager_v1_create_source(p->manager);
	zwp_primary_selection_source_v1_add_listener(source, &primary_source_listener, &p->peer);
	zwp_primary_selection_source_v1_offer(source, "text/plain;charset=utf-8");
	return source;
}

/* A toplevel mapped, the window's keyboard on it when `keyboard`. */
struct primary_scene {
	struct inproc t;
	struct globals g;
	struct input_log log;
	struct primary p;
	struct window top;
	struct test_buffer red;
};

static void primary_scene_setup(struct primary_scene *s)
{
	setup(&s->t, &s->g, 64, 48);
	input_setup(&s->t, &s->g, &s->log);
	primary_setup(&s->t, &s->g, &s->p);
	test_buffer_init(&s->t, &s->red, 64, 48, WL_SHM_FORMAT_XRGB8888);
	solid(&s->red, RED);
	map_toplevel(&s->t, &s->g, &s->top, &s->red);
}

static void primary_scene_finish(struct primary_scene *s)
{
	primary_finish(&s->t, &s->p);
	input_finish(&s->log);
	destroy_window(&s->top);
	test_buffer_finish(&s->red);
	teardown(&s->t, &s->g);
}

static void keyboard_to_window(struct primary_scene *s, bool enter)
{
	feed(&s->t, &(struct wl_record_input_event){
		.type = enter ? WL_RECORD_INPUT_KEYBOARD_ENTER : WL_RECORD_INPUT_KEYBOARD_LEAVE });
}

TEST(primary_selection_follows_the_keyboard)
{
	struct primary_scene s;
	primary_scene_setup(&s);
	struct primary *p = &s.p;
	static const char *const types[] = { "text/plain;charset=utf-8", "text/plain" };
	/* The desktop selects while the window lacks the keyboard: nothing. */
	selection_set_desktop(s.t.server->primary_selection, types, 2);
	test_assert(inproc_roundtrip(&s.t));
	test_assert(p->selections == 0 && p->offer == NULL);

	/* The keyboard comes: the primary selection is offered, and read
	 * through the desktop's side. */
	keyboard_to_window(&s, true);
	test_assert(s.log.keyboard_surface == s.top.surface);
	test_assert(p->selection != NULL &&
		    strcmp(p->offered, "text/plain;charset=utf-8;text/plain") == 0,
		    "offered '%s'", p->offered);
	char pasted[64];
	primary_paste_from(&s.t, p->selection, "text/plain", pasted, sizeof(pasted));
	test_assert(strcmp(pasted, "desktop text") == 0 && p->peer.peer_receives == 1 &&
		    strcmp(p->peer.peer_receive_mime, "text/plain") == 0, "pasted '%s'", pasted);

	/* The keyboard leaves: none, and the old offer reads nothing. */
	struct zwp_primary_selection_offer_v1 *old = p->selection;
	int selections = p->selections;
	keyboard_to_window(&s, false);
	test_assert(p->selection == NULL && p->selections == selections + 1);
	primary_paste_from(&s.t, old, "text/plain", pasted, sizeof(pasted));
	test_assert(pasted[0] == 0 && p->peer.peer_receives == 1,
		    "pasted '%s' without the keyboard", pasted);

	/* The desktop selects again meanwhile: offered only when the
	 * keyboard is back. */
	selection_set_desktop(s.t.server->primary_selection, types, 1);
	test_assert(inproc_roundtrip(&s.t));
	test_assert(p->selections == selections + 1);
	keyboard_to_window(&s, true);
	test_assert(p->selection != NULL && p->selection != old &&
		    strcmp(p->offered, "text/plain;charset=utf-8") == 0, "offered '%s'", p->offered);
	/* The clipboard is another selection: not offered it. */
	test_assert(selection_global(s.t.server->data_device) == NULL);
	primary_scene_finish(&s);
}

TEST(primary_selection_set_only_with_the_keyboard)
{
	struct primary_scene s;
	primary_scene_setup(&s);
	struct primary *p = &s.p;
	/* Without the keyboard: cancelled, the desktop not told. */
	struct zwp_primary_selection_source_v1 *source = primary_text_source(p);
	zwp_primary_selection_device_v1_set_selection(p->device, source, 0);
	test_assert(inproc_roundtrip(&s.t));
	test_assert(p->peer.peer_selections == 0 && p->peer.cancels == 1);
	zwp_primary_selection_source_v1_destroy(source);

	/* With it: the desktop is told, and pastes from the client's source. */
	keyboard_to_window(&s, true);
	source = primary_text_source(p);
	zwp_primary_selection_device_v1_set_selection(p->device, source, 0);
	test_assert(inproc_roundtrip(&s.t));
	test_assert(p->peer.peer_selections == 1 &&
		    strcmp(p->peer.peer_types, "text/plain;charset=utf-8") == 0,
		    "the desktop was offered '%s'", p->peer.peer_types);
	int fds[2];
	test_assert(pipe(fds) == 0);
	selection_desktop_receive(s.t.server->primary_selection, "text/plain;charset=utf-8",
				  fds[1]);
	char pasted[64];
	read_pasted(&s.t, fds[0], pasted, sizeof(pasted));
	test_assert(strcmp(pasted, "client text") == 0 && p->peer.sends == 1,
		    "the desktop got '%s'", pasted);

	/* The client's source goes: the desktop is told there is none. */
	zwp_primary_selection_source_v1_destroy(source);
	test_assert(inproc_roundtrip(&s.t));
	test_assert(p->peer.peer_selections == 2 && p->peer.peer_types[0] == 0);
	primary_scene_finish(&s);
}

/* primary-selection-unstable-v1 names no error for a source set twice
 * (wlroots takes it again): no protocol error, the selection unchanged. */
TEST(primary_selection_source_set_twice_is_no_error)
{
	struct primary_scene s;
	primary_scene_setup(&s);
	struct primary *p = &s.p;
	keyboard_to_window(&s, true);
	struct zwp_primary_selection_source_v1 *source = primary_text_source(p);
	zwp_primary_selection_device_v1_set_selection(p->device, source, 0);
	test_assert(inproc_roundtrip(&s.t));
	zwp_primary_selection_device_v1_set_selection(p->device, source, 0);
	test_assert(inproc_roundtrip(&s.t));
	test_assert(wl_display_get_error(s.t.display) == 0);
	test_assert(p->peer.peer_selections == 1 && p->peer.cancels == 0);
	zwp_primary_selection_source_v1_destroy(source);
	primary_scene_finish(&s);
}

/* ---- drag and drop within the session (--window) ---- */

/* One client's data device and drag source, as it sees them. */
struct dnd {
	struct wl_data_device_manager *manager;
	struct wl_data_device *device;
	struct wl_data_offer *offer; /* the newest */
	struct wl_data_offer *offers[8];
	int offer_count;
	char offered[128];
	uint32_t offer_source_actions, offer_action;
	struct wl_surface *entered; /* NULL after leave */
	uint32_t enter_serial;
	bool enter_had_offer;
	double x, y;
	int enters, leaves, motions, drops;
	/* Its source. */
	char target[64];
	int targets, sends, cancels, drops_performed, finishes, source_actions_told;
	uint32_t source_action;
};

static void dnd_global(void *data, struct wl_registry *registry, uint32_t name,
		       const char *interface, uint32_t version)
{
	struct dnd *d = data;
	if (strcmp(interface, "wl_data_device_manager") == 0)
		d->manager = wl_registry_bind(registry, name, &wl_data_device_manager_interface, 3);
}

static const struct wl_registry_listener dnd_registry_listener = {
	.global = dnd_global, .global_remove = registry_global_remove,
};

static void dnd_offer_offer(void *data, struct wl_data_offer *offer, const char *mime_type)
{
	struct dnd *d = data;
	size_t used = strlen(d->offered);
	snprintf(d->offered + used, sizeof(d->offered) - used, "%s%s", used ? ";" : "", mime_type);
}

static void dnd_offer_source_actions(void *data, struct wl_data_offer *offer, uint32_t actions)
{
	((struct dnd *)data)->offer_source_actions = actions;
}

static void dnd_offer_action(void *data, struct wl_data_offer *offer, uint32_t action)
{
	((struct dnd *)data)->offer_action = action;
}

static const struct wl_data_offer_listener dnd_offer_listener = {
	.offer = dnd_offer_offer, .source_actions = dnd_offer_source_actions,
	.action = dnd_offer_action,
};

static void dnd_data_offer(void *data, struct wl_data_device *device, struct wl_data_offer *offer)
{
	struct dnd *d = data;
	d->offer = offer;
	d->offered[0] = 0;
	d->offer_source_actions = d->offer_action = 0;
	test_assert(d->offer_count < 8);
	d->offers[d->offer_count++] = offer;
	wl_data_offer_add_listener(offer, &dnd_offer_listener, d);
}

static void dnd_enter(void *data, struct wl_data_device *device, uint32_t serial,
		      struct wl_surface *surface, wl_fixed_t x, wl_fixed_t y,
		      struct wl_data_offer *offer)
{
	struct dnd *d = data;
	test_assert(!offer || offer == d->offer);
	d->entered = surface;
	d->enter_serial = serial;
	d->enter_had_offer = offer != NULL;
	d->x = wl_fixed_to_double(x);
	d->y = wl_fixed_to_double(y);
	d->enters++;
}

static void dnd_leave(void *data, struct wl_data_device *device)
{
	struct dnd *d = data;
	test_assert(d->entered != NULL);
	d->entered = NULL;
	d->leaves++;
}

static void dnd_motion(void *data, struct wl_data_device *device, uint32_t time, wl_fixed_t x,
		       wl_fixed_t y)
{
	struct dnd *d = data;
	test_assert(d->entered != NULL);
	d->x = wl_fixed_to_double(x);
	d->y = wl_fixed_to_double(y);
	d->motions++;
}

static void dnd_drop(void *data, struct wl_data_device *device)
{
	struct dnd *d = data;
	test_assert(d->entered != NULL);
	d->drops++;
}

static void dnd_selection(void *data, struct wl_data_device *device, struct wl_data_offer *offer)
{
}

static const struct wl_data_device_listener dnd_device_listener = {
	.data_offer = dnd_data_offer, .enter = dnd_enter, .leave = dnd_leave,
	.motion = dnd_motion, .drop = dnd_drop, .selection = dnd_selection,
};

static void dnd_source_target(void *data, struct wl_data_source *source, const char *mime_type)
{
	struct dnd *d = data;
	d->targets++;
	snprintf(d->target, sizeof(d->target), "%s", mime_type ? mime_type : "");
}

/* What is dragged is "dragged text". */
static void dnd_source_send(void *data, struct wl_data_source *source, const char *mime_type,
			    int32_t fd)
{
	((struct dnd *)data)->sends++;
	test_assert(write(fd, "dragged text", 12) == 12);
	close(fd);
}

static void dnd_source_cancelled(void *data, struct wl_data_source *source)
{
	((struct dnd *)data)->cancels++;
}

static void dnd_source_drop_performed(void *data, struct wl_data_source *source)
{
	((struct dnd *)data)->drops_performed++;
}

static void dnd_source_finished(void *data, struct wl_data_source *source)
{
	((struct dnd *)data)->finishes++;
}

static void dnd_source_action(void *data, struct wl_data_source *source, uint32_t action)
{
	struct dnd *d = data;
	d->source_action = action;
	d->source_actions_told++;
}

static const struct wl_data_source_listener dnd_source_listener = {
	.target = dnd_source_target, .send = dnd_source_send, .cancelled = dnd_source_cancelled,
	.dnd_drop_performed = dnd_source_drop_performed, .dnd_finished = dnd_source_finished,
	.action = dnd_source_action,
};

static void dnd_bind(struct inproc *t, struct globals *g, struct dnd *d)
{
	*d = (struct dnd){ 0 };
	struct wl_registry *registry = wl_display_get_registry(t->display);
	wl_registry_add_listener(registry, &dnd_registry_listener, d);
	test_assert(inproc_roundtrip(t));
	wl_registry_destroy(registry);
	test_assert(d->manager != NULL);
	d->device = wl_data_device_manager_get_data_device(d->manager, g->seat);
	wl_data_device_add_listener(d->device, &dnd_device_listener, d);
	test_assert(inproc_roundtrip(t));
}

static void dnd_finish(struct dnd *d)
{
	for (int i = 0; i < d->offer_count; i++)
		wl_data_offer_destroy(d->offers[i]);
	d->offer_count = 0;
	wl_data_device_release(d->device);
	wl_data_device_manager_destroy(d->manager);
}

/* A text source with `actions` (0: set_actions not called). */
static struct wl_data_source *dnd_source(struct dnd *d, uint32_t actions)
{
	struct wl_data_source *source = wl_data_device_manager_create_data_source(d->manager);
	wl_data_source_add_listener(source, &dnd_source_listener, d);
	wl_data_source_offer(source, "text/plain");
	wl_data_source_offer(source, "text/html");
	if (actions)
		wl_data_source_set_actions(source, actions);
	return source;
}

/* Client A's 32x24 red toplevel (at 16,12 on the screen) over client B's
 * 64x48 blue one, both with a data device; input on. */
struct dnd_scene {
	struct inproc t;
	struct globals g;
	struct input_log log;
	struct dnd a, b;
	struct other_client o;
	struct window top, other;
	struct test_buffer red, blue;
};

static void dnd_sync(struct dnd_scene *s)
{
	test_assert(inproc_roundtrip(&s->t));
	test_assert(inproc_roundtrip(&s->o.t));
	test_assert(inproc_roundtrip(&s->t));
	test_assert(inproc_roundtrip(&s->o.t));
}

static void dnd_scene_setup(struct dnd_scene *s)
{
	setup(&s->t, &s->g, 64, 48);
	s->t.server->screen.policy = SCREEN_POLICY_ALL;
	input_setup(&s->t, &s->g, &s->log);
	selection_enable(s->t.server->data_device);
	dnd_bind(&s->t, &s->g, &s->a);
	other_client_connect(&s->t, &s->o);
	dnd_bind(&s->o.t, &s->o.g, &s->b);
	test_buffer_init(&s->o.t, &s->blue, 64, 48, WL_SHM_FORMAT_XRGB8888);
	solid(&s->blue, BLUE);
	map_toplevel(&s->o.t, &s->o.g, &s->other, &s->blue);
	test_buffer_init(&s->t, &s->red, 32, 24, WL_SHM_FORMAT_XRGB8888);
	solid(&s->red, RED);
	map_toplevel(&s->t, &s->g, &s->top, &s->red);
	dnd_sync(s);
}

static void dnd_scene_finish(struct dnd_scene *s)
{
	dnd_finish(&s->b);
	if (s->other.surface)
		destroy_window(&s->other);
	test_buffer_finish(&s->blue);
	wl_proxy_destroy((struct wl_proxy *)s->o.g.seat);
	wl_proxy_destroy((struct wl_proxy *)s->o.g.wm_base);
	wl_proxy_destroy((struct wl_proxy *)s->o.g.subcompositor);
	wl_proxy_destroy((struct wl_proxy *)s->o.g.viewporter);
	wl_proxy_destroy((struct wl_proxy *)s->o.t.compositor);
	wl_proxy_destroy((struct wl_proxy *)s->o.t.shm);
	wl_registry_destroy(s->o.registry);
	wl_display_disconnect(s->o.t.display);
	/* Not after a protocol error: A's connection is gone. */
	bool alive = wl_display_get_error(s->t.display) == 0;
	test_assert(!alive || inproc_roundtrip(&s->t));
	dnd_finish(&s->a);
	input_finish(&s->log);
	destroy_window(&s->top);
	test_buffer_finish(&s->red);
	test_assert(!alive || inproc_roundtrip(&s->t));
	teardown(&s->t, &s->g);
}

static void press(struct inproc *t, bool pressed)
{
	feed(t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_POINTER_BUTTON,
						 .button = 272, .pressed = pressed });
}

/* A presses the button at 20,16 (4,4 in its toplevel) and starts dragging
 * `source` from its toplevel. */
static void dnd_begin(struct dnd_scene *s, struct wl_data_source *source, struct wl_surface *icon)
{
	move_to(&s->t, 20, 16);
	test_assert(s->log.pointer_surface == s->top.surface);
	press(&s->t, true);
	wl_data_device_start_drag(s->a.device, source, s->top.surface, icon, s->log.button_serial);
	dnd_sync(s);
}

TEST(dnd_between_clients)
{
	struct dnd_scene s;
	dnd_scene_setup(&s);
	struct wl_data_source *source = dnd_source(&s.a, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY |
								  WL_DATA_DEVICE_MANAGER_DND_ACTION_MOVE);
	dnd_begin(&s, source, NULL);
	/* The pointer's own events stop; A's surface under it is entered. */
	test_assert(s.log.pointer_surface == NULL && s.log.leaves == 1);
	test_assert(s.a.entered == s.top.surface && s.a.enter_had_offer &&
		    strcmp(s.a.offered, "text/plain;text/html") == 0, "offered '%s'", s.a.offered);

	/* Over B: A is left, B entered with an offer of the source's types. */
	move_to(&s.t, 4, 8);
	dnd_sync(&s);
	test_assert(s.a.entered == NULL && s.a.leaves == 1);
	test_assert(s.b.entered == s.other.surface && s.b.enter_had_offer &&
		    near(s.b.x, 4) && near(s.b.y, 8), "at %g,%g", s.b.x, s.b.y);
	test_assert(strcmp(s.b.offered, "text/plain;text/html") == 0, "offered '%s'", s.b.offered);
	test_assert(s.b.offer_source_actions == (WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY |
						 WL_DATA_DEVICE_MANAGER_DND_ACTION_MOVE));
	move_to(&s.t, 6, 9);
	dnd_sync(&s);
	test_assert(s.b.motions == 1 && near(s.b.x, 6) && near(s.b.y, 9));

	/* B accepts text and prefers moving: both are told. */
	wl_data_offer_accept(s.b.offer, s.b.enter_serial, "text/plain");
	wl_data_offer_set_actions(s.b.offer, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY |
						     WL_DATA_DEVICE_MANAGER_DND_ACTION_MOVE,
				  WL_DATA_DEVICE_MANAGER_DND_ACTION_MOVE);
	dnd_sync(&s);
	test_assert(strcmp(s.a.target, "text/plain") == 0);
	test_assert(s.a.source_action == WL_DATA_DEVICE_MANAGER_DND_ACTION_MOVE &&
		    s.b.offer_action == WL_DATA_DEVICE_MANAGER_DND_ACTION_MOVE);

	/* The release drops; B reads the data from A's source, then finishes. */
	press(&s.t, false);
	dnd_sync(&s);
	test_assert(s.b.drops == 1 && s.a.drops_performed == 1 && s.a.cancels == 0);
	int fds[2];
	test_assert(pipe(fds) == 0);
	wl_data_offer_receive(s.b.offer, "text/plain", fds[1]);
	close(fds[1]);
	dnd_sync(&s);
	char got[32];
	ssize_t n = read(fds[0], got, sizeof(got) - 1);
	got[n > 0 ? n : 0] = 0;
	close(fds[0]);
	test_assert(strcmp(got, "dragged text") == 0 && s.a.sends == 1, "got '%s'", got);
	test_assert(s.a.finishes == 0);
	wl_data_offer_finish(s.b.offer);
	dnd_sync(&s);
	test_assert(s.a.finishes == 1 && s.a.cancels == 0);

	/* The pointer is back to normal. */
	move_to(&s.t, 18, 14);
	test_assert(s.log.pointer_surface == s.top.surface);
	test_assert(s.a.enters == 1 && s.b.enters == 1);
	wl_data_source_destroy(source);
	dnd_scene_finish(&s);
}

TEST(dnd_cancelled_unless_accepted)
{
	struct dnd_scene s;
	dnd_scene_setup(&s);
	/* Dropped on B, which never accepted: cancelled, B left. */
	struct wl_data_source *source = dnd_source(&s.a, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY);
	dnd_begin(&s, source, NULL);
	move_to(&s.t, 4, 4);
	dnd_sync(&s);
	test_assert(s.b.entered == s.other.surface);
	press(&s.t, false);
	dnd_sync(&s);
	test_assert(s.a.cancels == 1 && s.b.drops == 0 && s.b.leaves == 1 &&
		    s.a.drops_performed == 0);
	wl_data_source_destroy(source);

	/* An action agreed, but no type accepted: cancelled. */
	source = dnd_source(&s.a, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY);
	dnd_begin(&s, source, NULL);
	move_to(&s.t, 4, 4);
	dnd_sync(&s);
	wl_data_offer_set_actions(s.b.offer, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY, 0);
	dnd_sync(&s);
	test_assert(s.a.source_action == WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY);
	press(&s.t, false);
	dnd_sync(&s);
	test_assert(s.a.cancels == 2 && s.b.drops == 0);
	wl_data_source_destroy(source);

	/* Accepted, but B (version 3) never said which actions: cancelled. */
	source = dnd_source(&s.a, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY);
	dnd_begin(&s, source, NULL);
	move_to(&s.t, 4, 4);
	dnd_sync(&s);
	wl_data_offer_accept(s.b.offer, s.b.enter_serial, "text/plain");
	dnd_sync(&s);
	press(&s.t, false);
	dnd_sync(&s);
	test_assert(s.a.cancels == 3 && s.b.drops == 0);
	wl_data_source_destroy(source);

	/* Dropped on nothing (off the picture). */
	source = dnd_source(&s.a, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY);
	dnd_begin(&s, source, NULL);
	move_to(&s.t, -5, 20);
	dnd_sync(&s);
	test_assert(s.a.entered == NULL && s.b.entered == NULL);
	press(&s.t, false);
	dnd_sync(&s);
	test_assert(s.a.cancels == 4 && s.a.drops == 0 && s.b.drops == 0);
	wl_data_source_destroy(source);

	/* A wrong serial: cancelled at once, the pointer stays. */
	move_to(&s.t, 20, 16);
	press(&s.t, true);
	source = dnd_source(&s.a, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY);
	wl_data_device_start_drag(s.a.device, source, s.top.surface, NULL,
				  s.log.button_serial + 1000);
	dnd_sync(&s);
	test_assert(s.a.cancels == 5 && s.log.pointer_surface == s.top.surface);
	press(&s.t, false);
	wl_data_source_destroy(source);

	/* The button already up: cancelled. */
	source = dnd_source(&s.a, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY);
	wl_data_device_start_drag(s.a.device, source, s.top.surface, NULL, s.log.button_serial);
	dnd_sync(&s);
	test_assert(s.a.cancels == 6 && s.log.pointer_surface == s.top.surface);
	wl_data_source_destroy(source);

	/* The pointer leaves the window mid-drag: cancelled. */
	source = dnd_source(&s.a, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY);
	dnd_begin(&s, source, NULL);
	feed(&s.t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_POINTER_LEAVE });
	dnd_sync(&s);
	test_assert(s.a.cancels == 7 && s.a.entered == NULL);
	wl_data_source_destroy(source);

	/* The keyboard leaves the window mid-drag: cancelled too. */
	feed(&s.t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_KEYBOARD_ENTER });
	source = dnd_source(&s.a, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY);
	dnd_begin(&s, source, NULL);
	test_assert(s.a.entered == s.top.surface);
	feed(&s.t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_KEYBOARD_LEAVE });
	dnd_sync(&s);
	test_assert(s.a.cancels == 8 && s.a.entered == NULL);
	press(&s.t, false);
	wl_data_source_destroy(source);
	dnd_scene_finish(&s);
}

TEST(dnd_without_source_stays_in_the_client)
{
	struct dnd_scene s;
	dnd_scene_setup(&s);
	struct sub sub;
	make_sub(&s.t, &s.g, &sub, s.top.surface, GREEN, 20, 14);
	wl_surface_commit(s.top.surface);
	dnd_sync(&s);
	dnd_begin(&s, NULL, NULL);
	test_assert(s.a.entered == s.top.surface && !s.a.enter_had_offer && s.a.offer_count == 0);
	/* Over B: B hears nothing, A is left. */
	move_to(&s.t, 4, 4);
	dnd_sync(&s);
	test_assert(s.b.enters == 0 && s.a.entered == NULL && s.a.leaves == 1);
	/* A's subsurface gets it, and the drop. */
	move_to(&s.t, 38, 29);
	dnd_sync(&s);
	test_assert(s.a.entered == sub.surface && near(s.a.x, 2) && near(s.a.y, 3));
	press(&s.t, false);
	dnd_sync(&s);
	test_assert(s.a.drops == 1 && s.b.drops == 0 && s.b.enters == 0);
	destroy_sub(&sub);
	dnd_scene_finish(&s);
}

TEST(dnd_target_or_source_gone)
{
	struct dnd_scene s;
	dnd_scene_setup(&s);
	struct wl_data_source *source = dnd_source(&s.a, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY);
	dnd_begin(&s, source, NULL);
	move_to(&s.t, 4, 4);
	dnd_sync(&s);
	wl_data_offer_accept(s.b.offer, s.b.enter_serial, "text/plain");
	wl_data_offer_set_actions(s.b.offer, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY, 0);
	dnd_sync(&s);
	test_assert(s.a.source_action == WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY);
	/* The target's window goes under the pointer: the drop is cancelled. */
	destroy_window(&s.other);
	s.other.surface = NULL;
	dnd_sync(&s);
	test_assert(s.b.entered == NULL);
	move_to(&s.t, 5, 4);
	dnd_sync(&s);
	test_assert(s.a.entered == NULL && s.b.enters == 1);
	press(&s.t, false);
	dnd_sync(&s);
	test_assert(s.a.cancels == 1 && s.b.drops == 0 && s.a.drops_performed == 0);
	wl_data_source_destroy(source);

	/* The source goes mid-drag: the target is left, the drag over. */
	source = dnd_source(&s.a, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY);
	dnd_begin(&s, source, NULL);
	test_assert(s.a.entered == s.top.surface);
	wl_data_source_destroy(source);
	dnd_sync(&s);
	test_assert(s.a.entered == NULL);
	press(&s.t, false);
	test_assert(s.log.pointer_surface == s.top.surface);
	dnd_scene_finish(&s);
}

TEST(dnd_icon_drawn_at_the_pointer)
{
	struct dnd_scene s;
	dnd_scene_setup(&s);
	struct damage_log damage;
	damage_log_init(&s.t, &damage);
	struct wl_surface *icon = wl_compositor_create_surface(s.t.compositor);
	struct test_buffer cyan;
	test_buffer_init(&s.t, &cyan, 4, 4, WL_SHM_FORMAT_ARGB8888);
	solid(&cyan, CYAN);
	commit_buffer(icon, &cyan);
	struct wl_data_source *source = dnd_source(&s.a, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY);
	dnd_begin(&s, source, icon);
	/* Without --cursor too: the icon is the app's. */
	test_assert(!s.t.server->screen.draw_cursor);
	assert_square(&s.t, 20, 16, CYAN, RED);
	move_to(&s.t, 50, 40);
	dnd_sync(&s);
	assert_square(&s.t, 50, 40, CYAN, BLUE);
	test_assert_pixel(&s.t, 20, 16, RED);
	test_assert_damage(&damage, 20, 16, 54, 44);
	/* Its own commits are followed, and its origin's moves (attach's
	 * x,y: the hotspot). */
	solid(&cyan, YELLOW);
	wl_surface_attach(icon, cyan.buffer, -2, -1);
	wl_surface_damage_buffer(icon, 0, 0, 4, 4);
	wl_surface_commit(icon);
	dnd_sync(&s);
	assert_square(&s.t, 48, 39, YELLOW, BLUE);
	test_assert_pixel(&s.t, 53, 43, BLUE); /* its old place, redrawn */
	/* Gone with the drag. */
	press(&s.t, false);
	dnd_sync(&s);
	test_assert(s.a.cancels == 1);
	test_assert_pixel(&s.t, 48, 39, BLUE);
	test_assert_pixel(&s.t, 51, 42, BLUE);
	test_assert_damage(&damage, 48, 39, 52, 43);
	wl_list_remove(&damage.listener.link);
	wl_data_source_destroy(source);
	wl_surface_destroy(icon);
	test_buffer_finish(&cyan);
	dnd_scene_finish(&s);
}

TEST(dnd_icon_with_another_role)
{
	struct dnd_scene s;
	dnd_scene_setup(&s);
	struct wl_data_source *source = dnd_source(&s.a, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY);
	/* A subsurface as the icon. */
	struct sub sub;
	make_sub(&s.t, &s.g, &sub, s.top.surface, GREEN, 2, 2);
	wl_surface_commit(s.top.surface);
	dnd_sync(&s);
	move_to(&s.t, 20, 16);
	press(&s.t, true);
	wl_data_device_start_drag(s.a.device, source, s.top.surface, sub.surface,
				  s.log.button_serial);
	expect_protocol_error(&s.t, &wl_data_device_interface, s.a.device,
			      WL_DATA_DEVICE_ERROR_ROLE);
	wl_data_source_destroy(source);
	destroy_sub(&sub);
	dnd_scene_finish(&s);
}

TEST(dnd_ask_settled_after_the_drop)
{
	struct dnd_scene s;
	dnd_scene_setup(&s);
	struct wl_data_source *source = dnd_source(&s.a, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY |
								  WL_DATA_DEVICE_MANAGER_DND_ACTION_ASK);
	dnd_begin(&s, source, NULL);
	move_to(&s.t, 4, 4);
	dnd_sync(&s);
	wl_data_offer_accept(s.b.offer, s.b.enter_serial, "text/html");
	wl_data_offer_set_actions(s.b.offer, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY |
						     WL_DATA_DEVICE_MANAGER_DND_ACTION_ASK,
				  WL_DATA_DEVICE_MANAGER_DND_ACTION_ASK);
	dnd_sync(&s);
	test_assert(s.a.source_action == WL_DATA_DEVICE_MANAGER_DND_ACTION_ASK &&
		    s.b.offer_action == WL_DATA_DEVICE_MANAGER_DND_ACTION_ASK);
	press(&s.t, false);
	dnd_sync(&s);
	test_assert(s.b.drops == 1 && s.a.drops_performed == 1);
	/* The user chose to copy: the target says so, then finishes. */
	wl_data_offer_set_actions(s.b.offer, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY,
				  WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY);
	dnd_sync(&s);
	test_assert(s.a.source_action == WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY &&
		    s.b.offer_action == WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY);
	wl_data_offer_finish(s.b.offer);
	dnd_sync(&s);
	test_assert(s.a.finishes == 1 && s.a.cancels == 0);
	wl_data_source_destroy(source);
	dnd_scene_finish(&s);
}

TEST(dnd_finish_before_the_drop)
{
	struct dnd_scene s;
	dnd_scene_setup(&s);
	struct wl_data_source *source = dnd_source(&s.a, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY);
	dnd_begin(&s, source, NULL);
	move_to(&s.t, 4, 4);
	dnd_sync(&s);
	wl_data_offer_accept(s.b.offer, s.b.enter_serial, "text/plain");
	wl_data_offer_set_actions(s.b.offer, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY, 0);
	wl_data_offer_finish(s.b.offer);
	expect_protocol_error(&s.o.t, &wl_data_offer_interface, s.b.offer,
			      WL_DATA_OFFER_ERROR_INVALID_FINISH);
	/* B is gone with its error: the drag over it ends as a drop on nothing. */
	press(&s.t, false);
	test_assert(inproc_roundtrip(&s.t));
	test_assert(s.a.cancels == 1 && s.a.drops_performed == 0);
	wl_data_source_destroy(source);
	dnd_scene_finish(&s);
}

TEST(dnd_not_during_another_clients_popup_grab)
{
	struct dnd_scene s;
	dnd_scene_setup(&s);
	move_to(&s.t, 20, 16);
	press(&s.t, true);
	/* B's menu grabs (its serial is not checked) while A's button is down. */
	struct window pop = { 0 };
	struct test_buffer green;
	map_grabbing_menu(&s.o.t, &s.o.g, &pop, &s.other, 0, &green);
	dnd_sync(&s);
	test_assert(xdg_shell_grab_surface(s.t.server->xdg_shell) != NULL);
	struct wl_data_source *source = dnd_source(&s.a, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY);
	wl_data_device_start_drag(s.a.device, source, s.top.surface, NULL, s.log.button_serial);
	dnd_sync(&s);
	test_assert(s.a.cancels == 1 && s.a.enters == 0 && s.log.pointer_surface == s.top.surface);
	press(&s.t, false);
	wl_data_source_destroy(source);
	destroy_window(&pop);
	test_buffer_finish(&green);
	dnd_scene_finish(&s);
}
