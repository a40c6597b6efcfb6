/* A desktop with a touchscreen, for the --window touch test: sway headless
 * has no touch device, so this small compositor of our own stands in for
 * the user's desktop. It offers wl_compositor, wl_shm, wl_subcompositor,
 * wp_viewporter, xdg_wm_base and a wl_seat (version SEAT_VERSION, 7 by
 * default) with touch and a pointer (for the wheel of a version 8 desktop,
 * which sway 1.7 is not);
 * it shows nothing (buffers are released at once, frame callbacks done at
 * each commit). Its one toplevel is configured at WIDTH x HEIGHT; touch
 * points go to that toplevel's surface, driven by commands read from the
 * file COMMANDS (a fifo), one a line, "ok LINE" on stdout after each:
 *
 *   down ID X Y     touch point ID down at surface point X,Y
 *   motion ID X Y
 *   up ID
 *   frame
 *   shape ID MAJOR MINOR
 *   orientation ID DEGREES
 *   enter X Y       the pointer enters the toplevel at X,Y (and a frame)
 *   wheel V120 V    one wheel frame: axis_source wheel, axis_value120 V120
 *                   (before version 8: axis_discrete V120 / 120), axis V
 *
 * It says "ready" once listening on SOCKET, "touch bound" when the client
 * has a wl_touch and "mapped" when the toplevel committed a buffer after
 * its configure. Commands that come before are kept until both.
 *
 * usage: fake-desktop SOCKET WIDTH HEIGHT COMMANDS [SEAT_VERSION] */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wayland-server.h>

#include "viewporter-server-protocol.h"
#include "xdg-shell-server-protocol.h"

static struct wl_display *display;
static int width, height;
static struct wl_resource *toplevel_surface; /* its wl_surface */
static struct wl_resource *touch;
static struct wl_resource *pointer; /* the newest */
static uint32_t seat_version = 7;
static bool mapped;
static int commands_fd;
static char pending[4096];
static size_t pending_size;
static struct wl_event_source *commands_source;
static uint32_t now_ms = 1000;

struct fake_surface {
	struct wl_resource *resource;
	struct wl_resource *buffer; /* attached, not committed */
	bool attached;
	bool toplevel, configured;
	struct wl_list callbacks; /* wl_callback resource links */
};

static void destroy_resource(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static void commands_watch(bool on);

/* ---- wl_region, wl_subsurface, wp_viewport, xdg_toplevel: accepted ---- */

static void region_add(struct wl_client *c, struct wl_resource *r, int32_t x, int32_t y,
		       int32_t w, int32_t h)
{
}

static const struct wl_region_interface region_impl = {
	.destroy = destroy_resource, .add = region_add, .subtract = region_add,
};

static void subsurface_position(struct wl_client *c, struct wl_resource *r, int32_t x, int32_t y)
{
}

static void subsurface_place(struct wl_client *c, struct wl_resource *r,
			     struct wl_resource *sibling)
{
}

static void subsurface_sync(struct wl_client *c, struct wl_resource *r)
{
}

static const struct wl_subsurface_interface subsurface_impl = {
	.destroy = destroy_resource,
	.set_position = subsurface_position,
	.place_above = subsurface_place,
	.place_below = subsurface_place,
	.set_sync = subsurface_sync,
	.set_desync = subsurface_sync,
};

static void viewport_source(struct wl_client *c, struct wl_resource *r, wl_fixed_t x,
			    wl_fixed_t y, wl_fixed_t w, wl_fixed_t h)
{
}

static void viewport_destination(struct wl_client *c, struct wl_resource *r, int32_t w, int32_t h)
{
}

static const struct wp_viewport_interface viewport_impl = {
	.destroy = destroy_resource,
	.set_source = viewport_source,
	.set_destination = viewport_destination,
};

static void toplevel_parent(struct wl_client *c, struct wl_resource *r, struct wl_resource *p)
{
}

static void toplevel_string(struct wl_client *c, struct wl_resource *r, const char *s)
{
}

static void toplevel_menu(struct wl_client *c, struct wl_resource *r, struct wl_resource *seat,
			  uint32_t serial, int32_t x, int32_t y)
{
}

static void toplevel_move(struct wl_client *c, struct wl_resource *r, struct wl_resource *seat,
			  uint32_t serial)
{
}

static void toplevel_resize(struct wl_client *c, struct wl_resource *r, struct wl_resource *seat,
			    uint32_t serial, uint32_t edges)
{
}

static void toplevel_size(struct wl_client *c, struct wl_resource *r, int32_t w, int32_t h)
{
}

static void toplevel_nothing(struct wl_client *c, struct wl_resource *r)
{
}

static void toplevel_fullscreen(struct wl_client *c, struct wl_resource *r,
				struct wl_resource *output)
{
}

static const struct xdg_toplevel_interface toplevel_impl = {
	.destroy = destroy_resource,
	.set_parent = toplevel_parent,
	.set_title = toplevel_string,
	.set_app_id = toplevel_string,
	.show_window_menu = toplevel_menu,
	.move = toplevel_move,
	.resize = toplevel_resize,
	.set_max_size = toplevel_size,
	.set_min_size = toplevel_size,
	.set_maximized = toplevel_nothing,
	.unset_maximized = toplevel_nothing,
	.set_fullscreen = toplevel_fullscreen,
	.unset_fullscreen = toplevel_nothing,
	.set_minimized = toplevel_nothing,
};

/* ---- wl_surface ---- */

static void surface_attach(struct wl_client *c, struct wl_resource *r, struct wl_resource *buffer,
			   int32_t x, int32_t y)
{
	struct fake_surface *surface = wl_resource_get_user_data(r);
	surface->buffer = buffer;
	surface->attached = true;
}

static void surface_damage(struct wl_client *c, struct wl_resource *r, int32_t x, int32_t y,
			   int32_t w, int32_t h)
{
}

static void callback_destroyed(struct wl_resource *resource)
{
	wl_list_remove(wl_resource_get_link(resource));
}

static void surface_frame(struct wl_client *client, struct wl_resource *r, uint32_t id)
{
	struct fake_surface *surface = wl_resource_get_user_data(r);
	struct wl_resource *callback = wl_resource_create(client, &wl_callback_interface, 1, id);
	if (!callback) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(callback, NULL, NULL, callback_destroyed);
	wl_list_insert(surface->callbacks.prev, wl_resource_get_link(callback));
}

static void surface_region(struct wl_client *c, struct wl_resource *r, struct wl_resource *region)
{
}

static void surface_commit(struct wl_client *c, struct wl_resource *r)
{
	struct fake_surface *surface = wl_resource_get_user_data(r);
	if (surface->attached && surface->buffer) {
		wl_buffer_send_release(surface->buffer);
		if (surface->toplevel && surface->configured && !mapped) {
			mapped = true;
			printf("mapped\n");
			fflush(stdout);
			commands_watch(touch != NULL);
		}
	}
	surface->attached = false;
	surface->buffer = NULL;
	struct wl_resource *callback, *tmp;
	wl_resource_for_each_safe(callback, tmp, &surface->callbacks) {
		wl_callback_send_done(callback, now_ms);
		wl_resource_destroy(callback);
	}
}

static void surface_int(struct wl_client *c, struct wl_resource *r, int32_t value)
{
}

static const struct wl_surface_interface surface_impl = {
	.destroy = destroy_resource,
	.attach = surface_attach,
	.damage = surface_damage,
	.frame = surface_frame,
	.set_opaque_region = surface_region,
	.set_input_region = surface_region,
	.commit = surface_commit,
	.set_buffer_transform = surface_int,
	.set_buffer_scale = surface_int,
	.damage_buffer = surface_damage,
};

static void surface_destroyed(struct wl_resource *resource)
{
	struct fake_surface *surface = wl_resource_get_user_data(resource);
	struct wl_resource *callback, *tmp;
	wl_resource_for_each_safe(callback, tmp, &surface->callbacks) {
		wl_list_remove(wl_resource_get_link(callback));
		wl_list_init(wl_resource_get_link(callback));
	}
	if (resource == toplevel_surface) {
		/* The next window to come says "mapped" again. */
		toplevel_surface = NULL;
		mapped = false;
	}
	free(surface);
}

static void compositor_create_surface(struct wl_client *client, struct wl_resource *r, uint32_t id)
{
	struct fake_surface *surface = calloc(1, sizeof(*surface));
	if (surface)
		surface->resource = wl_resource_create(client, &wl_surface_interface,
						       wl_resource_get_version(r), id);
	if (!surface || !surface->resource) {
		free(surface);
		wl_client_post_no_memory(client);
		return;
	}
	wl_list_init(&surface->callbacks);
	wl_resource_set_implementation(surface->resource, &surface_impl, surface,
				       surface_destroyed);
}

static void compositor_create_region(struct wl_client *client, struct wl_resource *r, uint32_t id)
{
	struct wl_resource *region = wl_resource_create(client, &wl_region_interface, 1, id);
	if (region)
		wl_resource_set_implementation(region, &region_impl, NULL, NULL);
}

static const struct wl_compositor_interface compositor_impl = {
	.create_surface = compositor_create_surface,
	.create_region = compositor_create_region,
};

/* ---- wl_subcompositor, wp_viewporter ---- */

static void get_subsurface(struct wl_client *client, struct wl_resource *r, uint32_t id,
			   struct wl_resource *surface, struct wl_resource *parent)
{
	struct wl_resource *sub = wl_resource_create(client, &wl_subsurface_interface, 1, id);
	if (sub)
		wl_resource_set_implementation(sub, &subsurface_impl, NULL, NULL);
}

static const struct wl_subcompositor_interface subcompositor_impl = {
	.destroy = destroy_resource, .get_subsurface = get_subsurface,
};

static void get_viewport(struct wl_client *client, struct wl_resource *r, uint32_t id,
			 struct wl_resource *surface)
{
	struct wl_resource *viewport = wl_resource_create(client, &wp_viewport_interface, 1, id);
	if (viewport)
		wl_resource_set_implementation(viewport, &viewport_impl, NULL, NULL);
}

static const struct wp_viewporter_interface viewporter_impl = {
	.destroy = destroy_resource, .get_viewport = get_viewport,
};

/* ---- xdg_wm_base ---- */

static void xdg_surface_get_toplevel(struct wl_client *client, struct wl_resource *r, uint32_t id)
{
	struct fake_surface *surface = wl_resource_get_user_data(r);
	struct wl_resource *toplevel = wl_resource_create(client, &xdg_toplevel_interface,
							  wl_resource_get_version(r), id);
	if (!toplevel) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(toplevel, &toplevel_impl, NULL, NULL);
	surface->toplevel = true;
	toplevel_surface = surface->resource;
	struct wl_array states;
	wl_array_init(&states);
	xdg_toplevel_send_configure(toplevel, width, height, &states);
	wl_array_release(&states);
	xdg_surface_send_configure(r, wl_display_next_serial(display));
}

static void xdg_surface_get_popup(struct wl_client *client, struct wl_resource *r, uint32_t id,
				  struct wl_resource *parent, struct wl_resource *positioner)
{
	wl_resource_post_error(r, XDG_WM_BASE_ERROR_INVALID_POPUP_PARENT, "no popups here");
}

static void xdg_surface_geometry(struct wl_client *c, struct wl_resource *r, int32_t x,
				 int32_t y, int32_t w, int32_t h)
{
}

static void xdg_surface_ack(struct wl_client *c, struct wl_resource *r, uint32_t serial)
{
	struct fake_surface *surface = wl_resource_get_user_data(r);
	surface->configured = true;
}

static const struct xdg_surface_interface xdg_surface_impl = {
	.destroy = destroy_resource,
	.get_toplevel = xdg_surface_get_toplevel,
	.get_popup = xdg_surface_get_popup,
	.set_window_geometry = xdg_surface_geometry,
	.ack_configure = xdg_surface_ack,
};

static void wm_base_positioner(struct wl_client *c, struct wl_resource *r, uint32_t id)
{
	wl_resource_post_error(r, XDG_WM_BASE_ERROR_INVALID_POSITIONER, "no popups here");
}

static void wm_base_get_xdg_surface(struct wl_client *client, struct wl_resource *r, uint32_t id,
				    struct wl_resource *surface_resource)
{
	struct wl_resource *xdg = wl_resource_create(client, &xdg_surface_interface,
						     wl_resource_get_version(r), id);
	if (!xdg) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(xdg, &xdg_surface_impl,
				       wl_resource_get_user_data(surface_resource), NULL);
}

static void wm_base_pong(struct wl_client *c, struct wl_resource *r, uint32_t serial)
{
}

static const struct xdg_wm_base_interface wm_base_impl = {
	.destroy = destroy_resource,
	.create_positioner = wm_base_positioner,
	.get_xdg_surface = wm_base_get_xdg_surface,
	.pong = wm_base_pong,
};

/* ---- wl_seat: touch only ---- */

static void touch_destroyed(struct wl_resource *resource)
{
	if (resource == touch)
		touch = NULL;
}

static const struct wl_touch_interface touch_impl = { .release = destroy_resource };
static void pointer_set_cursor(struct wl_client *c, struct wl_resource *r, uint32_t serial,
			       struct wl_resource *surface, int32_t x, int32_t y);
static const struct wl_pointer_interface pointer_impl = {
	.set_cursor = pointer_set_cursor, .release = destroy_resource,
};
static const struct wl_keyboard_interface keyboard_impl = { .release = destroy_resource };

static void pointer_destroyed(struct wl_resource *resource)
{
	if (resource == pointer)
		pointer = NULL;
}

static void pointer_set_cursor(struct wl_client *c, struct wl_resource *r, uint32_t serial,
			       struct wl_resource *surface, int32_t x, int32_t y)
{
}

static void seat_get_pointer(struct wl_client *client, struct wl_resource *r, uint32_t id)
{
	struct wl_resource *resource = wl_resource_create(client, &wl_pointer_interface,
							  wl_resource_get_version(r), id);
	if (!resource) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &pointer_impl, NULL, pointer_destroyed);
	pointer = resource;
}

static void seat_get_keyboard(struct wl_client *client, struct wl_resource *r, uint32_t id)
{
	struct wl_resource *keyboard = wl_resource_create(client, &wl_keyboard_interface,
							  wl_resource_get_version(r), id);
	if (keyboard)
		wl_resource_set_implementation(keyboard, &keyboard_impl, NULL, NULL);
}

static void seat_get_touch(struct wl_client *client, struct wl_resource *r, uint32_t id)
{
	struct wl_resource *resource = wl_resource_create(client, &wl_touch_interface,
							  wl_resource_get_version(r), id);
	if (!resource) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &touch_impl, NULL, touch_destroyed);
	touch = resource;
	printf("touch bound\n");
	fflush(stdout);
	commands_watch(mapped);
}

static const struct wl_seat_interface seat_impl = {
	.get_pointer = seat_get_pointer,
	.get_keyboard = seat_get_keyboard,
	.get_touch = seat_get_touch,
	.release = destroy_resource,
};

/* ---- binding ---- */

static void bind_compositor(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct wl_resource *r = wl_resource_create(client, &wl_compositor_interface, (int)version,
						   id);
	if (r)
		wl_resource_set_implementation(r, &compositor_impl, NULL, NULL);
}

static void bind_subcompositor(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct wl_resource *r = wl_resource_create(client, &wl_subcompositor_interface,
						   (int)version, id);
	if (r)
		wl_resource_set_implementation(r, &subcompositor_impl, NULL, NULL);
}

static void bind_viewporter(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct wl_resource *r = wl_resource_create(client, &wp_viewporter_interface, (int)version,
						   id);
	if (r)
		wl_resource_set_implementation(r, &viewporter_impl, NULL, NULL);
}

static void bind_wm_base(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct wl_resource *r = wl_resource_create(client, &xdg_wm_base_interface, (int)version,
						   id);
	if (r)
		wl_resource_set_implementation(r, &wm_base_impl, NULL, NULL);
}

static void bind_seat(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct wl_resource *r = wl_resource_create(client, &wl_seat_interface, (int)version, id);
	if (!r)
		return;
	wl_resource_set_implementation(r, &seat_impl, NULL, NULL);
	wl_seat_send_capabilities(r, WL_SEAT_CAPABILITY_TOUCH | WL_SEAT_CAPABILITY_POINTER);
	if (version >= WL_SEAT_NAME_SINCE_VERSION)
		wl_seat_send_name(r, "touchscreen");
}

/* ---- commands ---- */

static void run_command(const char *line)
{
	int id, value120;
	double x, y;
	now_ms += 10;
	uint32_t version = pointer ? (uint32_t)wl_resource_get_version(pointer) : 0;
	if (!touch || !toplevel_surface) {
		fprintf(stderr, "fake-desktop: '%s' with no touch or no window\n", line);
	} else if (sscanf(line, "down %d %lf %lf", &id, &x, &y) == 3) {
		wl_touch_send_down(touch, wl_display_next_serial(display), now_ms, toplevel_surface,
				   id, wl_fixed_from_double(x), wl_fixed_from_double(y));
	} else if (sscanf(line, "motion %d %lf %lf", &id, &x, &y) == 3) {
		wl_touch_send_motion(touch, now_ms, id, wl_fixed_from_double(x),
				     wl_fixed_from_double(y));
	} else if (sscanf(line, "up %d", &id) == 1) {
		wl_touch_send_up(touch, wl_display_next_serial(display), now_ms, id);
	} else if (strcmp(line, "frame") == 0) {
		wl_touch_send_frame(touch);
	} else if (sscanf(line, "shape %d %lf %lf", &id, &x, &y) == 3) {
		if (wl_resource_get_version(touch) >= WL_TOUCH_SHAPE_SINCE_VERSION)
			wl_touch_send_shape(touch, id, wl_fixed_from_double(x),
					    wl_fixed_from_double(y));
	} else if (sscanf(line, "orientation %d %lf", &id, &x) == 2) {
		if (wl_resource_get_version(touch) >= WL_TOUCH_ORIENTATION_SINCE_VERSION)
			wl_touch_send_orientation(touch, id, wl_fixed_from_double(x));
	} else if (pointer && sscanf(line, "enter %lf %lf", &x, &y) == 2) {
		wl_pointer_send_enter(pointer, wl_display_next_serial(display), toplevel_surface,
				      wl_fixed_from_double(x), wl_fixed_from_double(y));
		if (version >= WL_POINTER_FRAME_SINCE_VERSION)
			wl_pointer_send_frame(pointer);
	} else if (pointer && sscanf(line, "wheel %d %lf", &value120, &x) == 2) {
		if (version >= WL_POINTER_AXIS_SOURCE_SINCE_VERSION)
			wl_pointer_send_axis_source(pointer, WL_POINTER_AXIS_SOURCE_WHEEL);
		if (version >= WL_POINTER_AXIS_VALUE120_SINCE_VERSION)
			wl_pointer_send_axis_value120(pointer, WL_POINTER_AXIS_VERTICAL_SCROLL,
						      value120);
		else if (version >= WL_POINTER_AXIS_DISCRETE_SINCE_VERSION && value120 / 120 != 0)
			wl_pointer_send_axis_discrete(pointer, WL_POINTER_AXIS_VERTICAL_SCROLL,
						      value120 / 120);
		wl_pointer_send_axis(pointer, now_ms, WL_POINTER_AXIS_VERTICAL_SCROLL,
				     wl_fixed_from_double(x));
		if (version >= WL_POINTER_FRAME_SINCE_VERSION)
			wl_pointer_send_frame(pointer);
	} else {
		fprintf(stderr, "fake-desktop: unknown command '%s'\n", line);
	}
	wl_display_flush_clients(display);
	printf("ok %s\n", line);
	fflush(stdout);
}

static int handle_commands(int fd, uint32_t mask, void *data)
{
	ssize_t n = read(fd, pending + pending_size, sizeof(pending) - 1 - pending_size);
	if (n <= 0) {
		wl_display_terminate(display);
		return 0;
	}
	pending_size += (size_t)n;
	pending[pending_size] = 0;
	char *line = pending, *end;
	while ((end = strchr(line, '\n'))) {
		*end = 0;
		run_command(line);
		line = end + 1;
	}
	pending_size -= (size_t)(line - pending);
	memmove(pending, line, pending_size);
	return 0;
}

/* Commands are read once the window is mapped and has touch. */
static void commands_watch(bool on)
{
	if (!on || commands_source)
		return;
	commands_source = wl_event_loop_add_fd(wl_display_get_event_loop(display),
					       commands_fd, WL_EVENT_READABLE,
					       handle_commands, NULL);
}

int main(int argc, char **argv)
{
	if (argc != 5 && argc != 6) {
		fprintf(stderr, "usage: %s SOCKET WIDTH HEIGHT COMMANDS [SEAT_VERSION]\n", argv[0]);
		return 2;
	}
	if (argc == 6)
		seat_version = (uint32_t)atoi(argv[5]);
	width = atoi(argv[2]);
	height = atoi(argv[3]);
	/* Read and write: the fifo never reads as ended while we wait. */
	commands_fd = open(argv[4], O_RDWR | O_CLOEXEC);
	if (commands_fd < 0) {
		perror("fake-desktop: cannot open the commands");
		return 1;
	}
	display = wl_display_create();
	if (!display || wl_display_add_socket(display, argv[1]) != 0) {
		fprintf(stderr, "fake-desktop: cannot listen on %s\n", argv[1]);
		return 1;
	}
	if (wl_display_init_shm(display) != 0 ||
	    !wl_global_create(display, &wl_compositor_interface, 4, NULL, bind_compositor) ||
	    !wl_global_create(display, &wl_subcompositor_interface, 1, NULL, bind_subcompositor) ||
	    !wl_global_create(display, &wp_viewporter_interface, 1, NULL, bind_viewporter) ||
	    !wl_global_create(display, &xdg_wm_base_interface, 1, NULL, bind_wm_base) ||
	    !wl_global_create(display, &wl_seat_interface, (int)seat_version, NULL, bind_seat)) {
		fprintf(stderr, "fake-desktop: cannot create the globals\n");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	wl_display_run(display);
	wl_display_destroy(display);
	return 0;
}
