/* Touch, when the desktop's seat has it, through the real protocol: which
 * surface a touch point goes to, scaling on a presented surface, popup
 * dismissal, and a client gone mid-touch. */
#include "xdg-common.h"

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
