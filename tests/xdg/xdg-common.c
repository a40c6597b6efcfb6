#include "xdg-common.h"

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

void registry_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_global, .global_remove = registry_global_remove,
};

static void xdg_surface_configure(void *data, struct xdg_surface *xdg_surface, uint32_t serial)
{
	struct window *w = data;
	w->serial = serial;
	w->configures++;
}

const struct xdg_surface_listener xdg_surface_listener = {
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

const struct xdg_popup_listener popup_listener = {
	.configure = popup_configure, .popup_done = popup_done, .repositioned = popup_repositioned,
};

void setup(struct inproc *t, struct globals *g, int width, int height)
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

void teardown(struct inproc *t, struct globals *g)
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

void solid(struct test_buffer *b, uint32_t colour)
{
	for (int i = 0; i < b->width * b->height; i++)
		b->pixels[i] = colour;
}

void commit_buffer(struct wl_surface *surface, struct test_buffer *b)
{
	wl_surface_attach(surface, b->buffer, 0, 0);
	wl_surface_damage_buffer(surface, 0, 0, b->width, b->height);
	wl_surface_commit(surface);
}

void create_toplevel(struct inproc *t, struct globals *g, struct window *w)
{
	*w = (struct window){ 0 };
	w->surface = wl_compositor_create_surface(t->compositor);
	w->xdg_surface = xdg_wm_base_get_xdg_surface(g->wm_base, w->surface);
	xdg_surface_add_listener(w->xdg_surface, &xdg_surface_listener, w);
	w->toplevel = xdg_surface_get_toplevel(w->xdg_surface);
	xdg_toplevel_add_listener(w->toplevel, &toplevel_listener, w);
}

void destroy_window(struct window *w)
{
	if (w->popup)
		xdg_popup_destroy(w->popup);
	if (w->toplevel)
		xdg_toplevel_destroy(w->toplevel);
	xdg_surface_destroy(w->xdg_surface);
	wl_surface_destroy(w->surface);
}

void map_toplevel(struct inproc *t, struct globals *g, struct window *w,
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

void make_sub(struct inproc *t, struct globals *g, struct sub *s, struct wl_surface *parent,
	      uint32_t colour, int x, int y)
{
	s->surface = wl_compositor_create_surface(t->compositor);
	s->subsurface = wl_subcompositor_get_subsurface(g->subcompositor, s->surface, parent);
	wl_subsurface_set_position(s->subsurface, x, y);
	test_buffer_init(t, &s->buffer, 16, 16, WL_SHM_FORMAT_XRGB8888);
	solid(&s->buffer, colour);
	commit_buffer(s->surface, &s->buffer);
}

void destroy_sub(struct sub *s)
{
	wl_subsurface_destroy(s->subsurface);
	wl_surface_destroy(s->surface);
	test_buffer_finish(&s->buffer);
}

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

void input_setup(struct inproc *t, struct globals *g, struct input_log *log)
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

void input_finish(struct input_log *log)
{
	wl_pointer_release(log->pointer);
	wl_keyboard_release(log->keyboard);
}

void feed(struct inproc *t, const struct wl_record_input_event *event)
{
	seat_handle_input(t->server->seat, event);
	test_assert(inproc_roundtrip(t));
}

void move_to(struct inproc *t, double x, double y)
{
	feed(t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_POINTER_MOTION,
						 .x = x, .y = y });
	feed(t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_POINTER_FRAME });
}

void click(struct inproc *t, uint32_t button)
{
	feed(t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_POINTER_BUTTON,
						 .button = button, .pressed = true });
	feed(t, &(struct wl_record_input_event){ .type = WL_RECORD_INPUT_POINTER_BUTTON,
						 .button = button });
}

void map_grabbing_menu(struct inproc *t, struct globals *g, struct window *pop,
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

void other_client_connect(struct inproc *t, struct other_client *o)
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

static void log_frame_damage(struct wl_listener *listener, void *data)
{
	struct damage_log *log = wl_container_of(listener, log, listener);
	const struct frame *frame = data;
	log->frames++;
	log->known = frame->damage_known;
	log->damage = frame->damage;
}

void damage_log_init(struct inproc *t, struct damage_log *log)
{
	*log = (struct damage_log){ .listener.notify = log_frame_damage };
	wl_signal_add(&t->server->screen.events.frame, &log->listener);
}

void assert_square(struct inproc *t, int x, int y, uint32_t colour, uint32_t around)
{
	test_assert_pixel(t, x, y, colour);
	test_assert_pixel(t, x + 3, y + 3, colour);
	test_assert_pixel(t, x - 1, y, around);
	test_assert_pixel(t, x, y - 1, around);
	test_assert_pixel(t, x + 4, y + 3, around);
	test_assert_pixel(t, x + 3, y + 4, around);
}
