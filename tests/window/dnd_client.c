/* A hosted app for the --window drag-and-drop test: a 320x240 grey xdg
 * toplevel with a 100x100 red subsurface (the target) at 200,100. A left
 * press on the toplevel starts a drag of "text/plain" (copy) with a 16x16
 * cyan icon; the target accepts it, and on the drop reads the data through
 * the compositor, finishes, and turns blue when it got DND_TEXT. Events go
 * to stdout, one a line:
 *   ready | drag start | enter toplevel|target X,Y (screen coordinates)
 *   | motion X,Y | leave | drop | dropped TEXT | drop performed | finished
 *   | cancelled */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wayland-client.h>

#include "xdg-shell-client-protocol.h"

#define DND_TEXT "dragged through wl-record"
#define TARGET_X 200
#define TARGET_Y 100
#define TARGET_SIZE 100

static struct wl_display *display;
static struct wl_compositor *compositor;
static struct wl_subcompositor *subcompositor;
static struct wl_shm *shm;
static struct xdg_wm_base *wm_base;
static struct wl_seat *seat;
static struct wl_data_device_manager *manager;
static struct wl_data_device *device;
static struct wl_pointer *pointer;
static struct wl_surface *surface, *target, *icon;
static struct xdg_surface *xdg_surface;
static struct xdg_toplevel *toplevel;
static struct wl_data_source *source;
static struct wl_data_offer *offer;
static struct wl_surface *pointer_surface, *drag_surface;
static bool configured, running = true;

static void buffer_release(void *data, struct wl_buffer *buffer)
{
	wl_buffer_destroy(buffer);
}

static const struct wl_buffer_listener buffer_listener = { buffer_release };

static void fill(struct wl_surface *s, int w, int h, uint32_t format, uint32_t colour)
{
	size_t size = (size_t)w * (size_t)h * 4;
	int fd = memfd_create("dnd-client", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)size) != 0)
		exit(1);
	uint32_t *pixels = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (pixels == MAP_FAILED)
		exit(1);
	for (size_t i = 0; i < size / 4; i++)
		pixels[i] = colour;
	munmap(pixels, size);
	struct wl_shm_pool *pool = wl_shm_create_pool(shm, fd, (int32_t)size);
	struct wl_buffer *buffer = wl_shm_pool_create_buffer(pool, 0, w, h, w * 4, format);
	wl_shm_pool_destroy(pool);
	close(fd);
	wl_buffer_add_listener(buffer, &buffer_listener, NULL);
	wl_surface_attach(s, buffer, 0, 0);
	wl_surface_damage_buffer(s, 0, 0, w, h);
	wl_surface_commit(s);
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void say(const char *fmt, ...)
{
	va_list args;
	va_start(args, fmt);
	vprintf(fmt, args);
	va_end(args);
	putchar('\n');
	fflush(stdout);
}

/* ---- the source ---- */

static void source_target(void *data, struct wl_data_source *s, const char *mime_type)
{
}

static void source_send(void *data, struct wl_data_source *s, const char *mime_type, int32_t fd)
{
	if (write(fd, DND_TEXT, strlen(DND_TEXT)) < 0)
		say("cannot write");
	close(fd);
}

static void source_cancelled(void *data, struct wl_data_source *s)
{
	say("cancelled");
	wl_data_source_destroy(source);
	source = NULL;
}

static void source_drop_performed(void *data, struct wl_data_source *s)
{
	say("drop performed");
}

static void source_finished(void *data, struct wl_data_source *s)
{
	say("finished");
	wl_data_source_destroy(source);
	source = NULL;
}

static void source_action(void *data, struct wl_data_source *s, uint32_t action)
{
}

static const struct wl_data_source_listener source_listener = {
	source_target, source_send, source_cancelled, source_drop_performed, source_finished,
	source_action,
};

/* ---- the target ---- */

static void offer_offer(void *data, struct wl_data_offer *o, const char *mime_type)
{
}

static void offer_source_actions(void *data, struct wl_data_offer *o, uint32_t actions)
{
}

static void offer_action(void *data, struct wl_data_offer *o, uint32_t action)
{
}

static const struct wl_data_offer_listener offer_listener = {
	offer_offer, offer_source_actions, offer_action,
};

static void device_data_offer(void *data, struct wl_data_device *d, struct wl_data_offer *o)
{
	wl_data_offer_add_listener(o, &offer_listener, NULL);
}

static void screen_point(wl_fixed_t x, wl_fixed_t y, int *sx, int *sy)
{
	int dx = drag_surface == target ? TARGET_X : 0, dy = drag_surface == target ? TARGET_Y : 0;
	*sx = dx + wl_fixed_to_int(x);
	*sy = dy + wl_fixed_to_int(y);
}

static void device_enter(void *data, struct wl_data_device *d, uint32_t serial,
			 struct wl_surface *s, wl_fixed_t x, wl_fixed_t y, struct wl_data_offer *o)
{
	if (offer)
		wl_data_offer_destroy(offer);
	offer = o;
	drag_surface = s;
	int sx, sy;
	screen_point(x, y, &sx, &sy);
	say("enter %s %d,%d", s == target ? "target" : "toplevel", sx, sy);
	if (!o)
		return;
	wl_data_offer_accept(o, serial, s == target ? "text/plain" : NULL);
	wl_data_offer_set_actions(o, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY,
				  WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY);
}

static void device_leave(void *data, struct wl_data_device *d)
{
	say("leave");
	drag_surface = NULL;
	if (offer)
		wl_data_offer_destroy(offer);
	offer = NULL;
}

static void device_motion(void *data, struct wl_data_device *d, uint32_t time, wl_fixed_t x,
			  wl_fixed_t y)
{
	int sx, sy;
	screen_point(x, y, &sx, &sy);
	say("motion %d,%d", sx, sy);
}

static void device_drop(void *data, struct wl_data_device *d)
{
	say("drop");
	if (!offer || drag_surface != target)
		return;
	int fds[2];
	if (pipe(fds) != 0)
		exit(1);
	wl_data_offer_receive(offer, "text/plain", fds[1]);
	close(fds[1]);
	/* Our own source writes it: its send comes in this roundtrip. */
	wl_display_roundtrip(display);
	char text[64];
	ssize_t n = read(fds[0], text, sizeof(text) - 1);
	close(fds[0]);
	text[n > 0 ? n : 0] = 0;
	say("dropped %s", text);
	wl_data_offer_finish(offer);
	wl_data_offer_destroy(offer);
	offer = NULL;
	if (strcmp(text, DND_TEXT) == 0) {
		fill(target, TARGET_SIZE, TARGET_SIZE, WL_SHM_FORMAT_XRGB8888, 0xff0000ff);
		wl_surface_commit(surface);
	}
}

static void device_selection(void *data, struct wl_data_device *d, struct wl_data_offer *o)
{
	if (o)
		wl_data_offer_destroy(o);
}

static const struct wl_data_device_listener device_listener = {
	device_data_offer, device_enter, device_leave, device_motion, device_drop,
	device_selection,
};

/* ---- the pointer ---- */

static void pointer_enter(void *data, struct wl_pointer *p, uint32_t serial, struct wl_surface *s,
			  wl_fixed_t x, wl_fixed_t y)
{
	pointer_surface = s;
}

static void pointer_leave(void *data, struct wl_pointer *p, uint32_t serial, struct wl_surface *s)
{
	pointer_surface = NULL;
}

static void pointer_motion(void *data, struct wl_pointer *p, uint32_t time, wl_fixed_t x,
			   wl_fixed_t y)
{
}

static void pointer_button(void *data, struct wl_pointer *p, uint32_t serial, uint32_t time,
			   uint32_t button, uint32_t state)
{
	if (state != WL_POINTER_BUTTON_STATE_PRESSED || button != 272 ||
	    pointer_surface != surface || source)
		return;
	source = wl_data_device_manager_create_data_source(manager);
	wl_data_source_add_listener(source, &source_listener, NULL);
	wl_data_source_offer(source, "text/plain");
	wl_data_source_set_actions(source, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY);
	wl_data_device_start_drag(device, source, surface, icon, serial);
	say("drag start");
}

static void pointer_axis(void *data, struct wl_pointer *p, uint32_t time, uint32_t axis,
			 wl_fixed_t value)
{
}

/* wl_seat version 1: no frames or other axis events. */
static const struct wl_pointer_listener pointer_listener = {
	.enter = pointer_enter, .leave = pointer_leave, .motion = pointer_motion,
	.button = pointer_button, .axis = pointer_axis,
};

/* ---- the rest ---- */

static void wm_ping(void *data, struct xdg_wm_base *base, uint32_t serial)
{
	xdg_wm_base_pong(base, serial);
}

static const struct xdg_wm_base_listener wm_listener = { wm_ping };

static void xdg_configure(void *data, struct xdg_surface *s, uint32_t serial)
{
	xdg_surface_ack_configure(s, serial);
	if (!configured) {
		configured = true;
		fill(target, TARGET_SIZE, TARGET_SIZE, WL_SHM_FORMAT_XRGB8888, 0xffff0000);
		fill(surface, 320, 240, WL_SHM_FORMAT_XRGB8888, 0xff404040);
	}
}

static const struct xdg_surface_listener xdg_listener = { xdg_configure };

static void top_configure(void *data, struct xdg_toplevel *t, int32_t w, int32_t h,
			  struct wl_array *states)
{
}

static void top_close(void *data, struct xdg_toplevel *t)
{
	running = false;
}

static const struct xdg_toplevel_listener top_listener = {
	.configure = top_configure, .close = top_close,
};

static void global(void *data, struct wl_registry *registry, uint32_t name, const char *interface,
		   uint32_t version)
{
	if (strcmp(interface, "wl_compositor") == 0)
		compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 4);
	else if (strcmp(interface, "wl_subcompositor") == 0)
		subcompositor = wl_registry_bind(registry, name, &wl_subcompositor_interface, 1);
	else if (strcmp(interface, "wl_shm") == 0)
		shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	else if (strcmp(interface, "xdg_wm_base") == 0)
		wm_base = wl_registry_bind(registry, name, &xdg_wm_base_interface, 1);
	else if (strcmp(interface, "wl_seat") == 0)
		seat = wl_registry_bind(registry, name, &wl_seat_interface, 1);
	else if (strcmp(interface, "wl_data_device_manager") == 0)
		manager = wl_registry_bind(registry, name, &wl_data_device_manager_interface, 3);
}

static void global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = { global, global_remove };

int main(void)
{
	display = wl_display_connect(NULL);
	if (!display)
		return 1;
	struct wl_registry *registry = wl_display_get_registry(display);
	wl_registry_add_listener(registry, &registry_listener, NULL);
	wl_display_roundtrip(display);
	if (!compositor || !subcompositor || !shm || !wm_base || !seat || !manager) {
		fprintf(stderr, "dnd-client: a global is missing\n");
		return 1;
	}
	xdg_wm_base_add_listener(wm_base, &wm_listener, NULL);
	pointer = wl_seat_get_pointer(seat);
	wl_pointer_add_listener(pointer, &pointer_listener, NULL);
	device = wl_data_device_manager_get_data_device(manager, seat);
	wl_data_device_add_listener(device, &device_listener, NULL);
	surface = wl_compositor_create_surface(compositor);
	target = wl_compositor_create_surface(compositor);
	struct wl_subsurface *sub = wl_subcompositor_get_subsurface(subcompositor, target, surface);
	wl_subsurface_set_position(sub, TARGET_X, TARGET_Y);
	wl_subsurface_set_desync(sub);
	icon = wl_compositor_create_surface(compositor);
	fill(icon, 16, 16, WL_SHM_FORMAT_ARGB8888, 0xff00ffff);
	xdg_surface = xdg_wm_base_get_xdg_surface(wm_base, surface);
	xdg_surface_add_listener(xdg_surface, &xdg_listener, NULL);
	toplevel = xdg_surface_get_toplevel(xdg_surface);
	xdg_toplevel_add_listener(toplevel, &top_listener, NULL);
	xdg_toplevel_set_title(toplevel, "dnd-client");
	wl_surface_commit(surface);
	wl_display_roundtrip(display);
	say("ready");
	while (running && wl_display_dispatch(display) != -1)
		;
	return 0;
}
