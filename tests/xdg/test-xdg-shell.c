/* xdg-shell, subsurfaces and viewports through the real protocol (the
 * in-process harness of tests/unit): configure and ack, what the screen
 * shows of toplevels, popups and subsurfaces, the errors clients earn, and
 * the title the window shows. Every check looks at the pixels the screen
 * emits. */
#include "xdg-common.h"

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
