/* The seat as the desktop window (--window) feeds it, through the real
 * protocol: the pointer and keyboard, popup grabs, the wheel by wl_seat
 * version, and the pointer's image in the picture (--cursor). */
#include "xdg-common.h"

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

/* ---- the pointer's image passed to the desktop (--window) ---- */

struct cursor_log {
	int images;
	int width, height;
};

static void log_cursor(void *data, const struct wl_record_cursor_image *image)
{
	struct cursor_log *log = data;
	log->images++;
	log->width = image ? image->width : 0;
	log->height = image ? image->height : 0;
}

TEST(seat_cursor_too_large_is_hidden_on_the_desktop)
{
	/* Each commit of the image is copied and forwarded: a client's
	 * 4096x4096 cursor is not (issue 30 §3.7); a real one is. */
	struct inproc t;
	struct globals g;
	setup(&t, &g, 64, 48);
	struct cursor_log cursors = { 0 };
	seat_set_cursor_handler(t.server->seat, log_cursor, &cursors);
	struct input_log log;
	input_setup(&t, &g, &log);
	struct window top;
	struct test_buffer red, small, large;
	test_buffer_init(&t, &red, 64, 48, WL_SHM_FORMAT_XRGB8888);
	solid(&red, RED);
	map_toplevel(&t, &g, &top, &red);
	move_to(&t, 20.5, 30);
	test_assert(log.pointer_surface == top.surface);

	struct wl_surface *cursor = wl_compositor_create_surface(t.compositor);
	test_buffer_init(&t, &small, SEAT_CURSOR_SIZE_MAX, 24, WL_SHM_FORMAT_ARGB8888);
	test_buffer_init(&t, &large, 4096, 4096, WL_SHM_FORMAT_ARGB8888);
	solid(&small, CYAN);
	commit_buffer(cursor, &small);
	wl_pointer_set_cursor(log.pointer, log.enter_serial, cursor, 0, 0);
	test_assert(inproc_roundtrip(&t));
	test_assert(cursors.width == SEAT_CURSOR_SIZE_MAX && cursors.height == 24,
		    "the desktop got a %dx%d image", cursors.width, cursors.height);

	int images = cursors.images;
	commit_buffer(cursor, &large);
	test_assert(inproc_roundtrip(&t));
	test_assert(cursors.images > images);
	test_assert(cursors.width == 1 && cursors.height == 1,
		    "a 4096x4096 cursor reached the desktop as %dx%d", cursors.width, cursors.height);

	wl_surface_destroy(cursor);
	test_assert(inproc_roundtrip(&t));
	seat_set_cursor_handler(t.server->seat, NULL, NULL);
	input_finish(&log);
	destroy_window(&top);
	test_buffer_finish(&small);
	test_buffer_finish(&large);
	test_buffer_finish(&red);
	teardown(&t, &g);
}

/* ---- the pointer's image in the picture (--cursor) ---- */

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
