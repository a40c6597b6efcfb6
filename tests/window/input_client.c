/* A hosted app for the --window input tests: an xdg toplevel (shm) that
 * draws what it receives, so that the recording shows it:
 *   - a 9x9 magenta square centred where the left button was last pressed
 *     and a 5x5 white one where the pointer is;
 *   - rows of 16 blocks of 16x16 pixels from the top-left corner, each row
 *     a 16-bit number, most significant bit first, white 1 and black 0:
 *     row 0 the keysym of the last key pressed (through the keymap the
 *     compositor sent), rows 1 and 2 the ones before, row 3 the last key
 *     code, row 4 the last button pressed, row 5 how many popups were
 *     dismissed (popup_done), row 6 the wheel steps (summed), row 7 the
 *     axis_value120 summed, row 8 how many axis_discrete events came;
 *   - a 7x7 green square where each touch point is, or was last;
 *   - on a right press, a 60x40 yellow popup with a grab, its top-left
 *     corner at the pointer;
 *   - its pointer image (set_cursor): 16x16 cyan, the hotspot in the
 *     middle (8,8).
 * What it receives is logged on stdout too. It binds wl_seat up to
 * version $INPUT_CLIENT_SEAT (7 when unset: axis_discrete; 8:
 * axis_value120). */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wayland-client.h>
#include <xkbcommon/xkbcommon.h>

#include "xdg-shell-client-protocol.h"

#define ROWS 9
#define TOUCH_MARKS 10
#define BLOCK 16
#define POPUP_W 60
#define POPUP_H 40

static struct wl_display *display;
static struct wl_compositor *compositor;
static struct wl_shm *shm;
static struct xdg_wm_base *wm_base;
static struct wl_seat *seat;
static struct wl_surface *surface;
static struct xdg_surface *xdg_surface;
static struct xdg_toplevel *toplevel;
static int width = 320, height = 240;
static bool configured, running = true;

static struct wl_surface *popup_surface;
static struct xdg_surface *popup_xdg;
static struct xdg_popup *popup;

static struct xkb_context *xkb;
static struct xkb_keymap *keymap;
static struct xkb_state *xkb_state;

static uint16_t rows[ROWS];
static bool have_click;
static double click_x, click_y, pointer_x = -100, pointer_y = -100;
static struct wl_surface *pointer_surface;
static int wheel;
static struct {
	bool used;
	int32_t id;
	double x, y;
} touch_marks[TOUCH_MARKS];
static struct wl_pointer *seat_pointer;
static struct wl_surface *cursor_surface;

static void buffer_release(void *data, struct wl_buffer *buffer)
{
	wl_buffer_destroy(buffer);
}

static const struct wl_buffer_listener buffer_listener = { buffer_release };

static struct wl_buffer *new_buffer_format(int w, int h, uint32_t format, uint32_t **pixels)
{
	size_t size = (size_t)w * (size_t)h * 4;
	int fd = memfd_create("input-client", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)size) < 0) {
		perror("input-client: memfd");
		exit(1);
	}
	*pixels = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (*pixels == MAP_FAILED) {
		perror("input-client: mmap");
		exit(1);
	}
	struct wl_shm_pool *pool = wl_shm_create_pool(shm, fd, (int32_t)size);
	struct wl_buffer *buffer = wl_shm_pool_create_buffer(pool, 0, w, h, w * 4, format);
	wl_shm_pool_destroy(pool);
	close(fd);
	wl_buffer_add_listener(buffer, &buffer_listener, NULL);
	return buffer;
}

static struct wl_buffer *new_buffer(int w, int h, uint32_t **pixels)
{
	return new_buffer_format(w, h, WL_SHM_FORMAT_XRGB8888, pixels);
}

static void fill(uint32_t *pixels, int x, int y, int w, int h, uint32_t colour)
{
	for (int j = y; j < y + h; j++) {
		if (j < 0 || j >= height)
			continue;
		for (int i = x; i < x + w; i++) {
			if (i >= 0 && i < width)
				pixels[(size_t)j * (size_t)width + (size_t)i] = colour;
		}
	}
}

static void redraw(void)
{
	if (!configured)
		return;
	uint32_t *pixels;
	struct wl_buffer *buffer = new_buffer(width, height, &pixels);
	fill(pixels, 0, 0, width, height, 0x404040);
	if (have_click)
		fill(pixels, (int)click_x - 4, (int)click_y - 4, 9, 9, 0xff00ff);
	fill(pixels, (int)pointer_x - 2, (int)pointer_y - 2, 5, 5, 0xffffff);
	for (int i = 0; i < TOUCH_MARKS; i++) {
		if (touch_marks[i].used)
			fill(pixels, (int)touch_marks[i].x - 3, (int)touch_marks[i].y - 3, 7, 7,
			     0x00ff00);
	}
	for (int r = 0; r < ROWS; r++) {
		for (int b = 0; b < 16; b++) {
			bool one = rows[r] >> (15 - b) & 1;
			fill(pixels, b * BLOCK, r * BLOCK, BLOCK, BLOCK, one ? 0xffffff : 0x000000);
		}
	}
	munmap(pixels, (size_t)width * (size_t)height * 4);
	wl_surface_attach(surface, buffer, 0, 0);
	wl_surface_damage_buffer(surface, 0, 0, width, height);
	wl_surface_commit(surface);
}

/* ---- popup ---- */

static void popup_destroy(void)
{
	if (!popup)
		return;
	xdg_popup_destroy(popup);
	xdg_surface_destroy(popup_xdg);
	wl_surface_destroy(popup_surface);
	popup = NULL;
	popup_xdg = NULL;
	popup_surface = NULL;
}

static void popup_surface_configure(void *data, struct xdg_surface *xdg, uint32_t serial)
{
	xdg_surface_ack_configure(xdg, serial);
	uint32_t *pixels;
	struct wl_buffer *buffer = new_buffer(POPUP_W, POPUP_H, &pixels);
	for (int i = 0; i < POPUP_W * POPUP_H; i++)
		pixels[i] = 0xffff00;
	munmap(pixels, POPUP_W * POPUP_H * 4);
	wl_surface_attach(popup_surface, buffer, 0, 0);
	wl_surface_damage_buffer(popup_surface, 0, 0, POPUP_W, POPUP_H);
	wl_surface_commit(popup_surface);
	wl_display_flush(display);
	printf("popup shown\n");
}

static const struct xdg_surface_listener popup_surface_listener = { popup_surface_configure };

static void popup_configure(void *data, struct xdg_popup *p, int32_t x, int32_t y, int32_t w,
			    int32_t h)
{
	printf("popup configured at %d,%d %dx%d\n", x, y, w, h);
}

static void popup_done(void *data, struct xdg_popup *p)
{
	printf("popup done\n");
	popup_destroy();
	rows[5]++;
	redraw();
}

static void popup_repositioned(void *data, struct xdg_popup *p, uint32_t token)
{
}

static const struct xdg_popup_listener popup_listener = {
	popup_configure, popup_done, popup_repositioned,
};

static void open_popup(uint32_t serial)
{
	if (popup)
		return;
	struct xdg_positioner *positioner = xdg_wm_base_create_positioner(wm_base);
	xdg_positioner_set_size(positioner, POPUP_W, POPUP_H);
	xdg_positioner_set_anchor_rect(positioner, (int)pointer_x, (int)pointer_y, 1, 1);
	xdg_positioner_set_anchor(positioner, XDG_POSITIONER_ANCHOR_TOP_LEFT);
	xdg_positioner_set_gravity(positioner, XDG_POSITIONER_GRAVITY_BOTTOM_RIGHT);
	popup_surface = wl_compositor_create_surface(compositor);
	popup_xdg = xdg_wm_base_get_xdg_surface(wm_base, popup_surface);
	xdg_surface_add_listener(popup_xdg, &popup_surface_listener, NULL);
	popup = xdg_surface_get_popup(popup_xdg, xdg_surface, positioner);
	xdg_popup_add_listener(popup, &popup_listener, NULL);
	xdg_positioner_destroy(positioner);
	xdg_popup_grab(popup, seat, serial);
	wl_surface_commit(popup_surface);
	printf("popup opened at %.0f,%.0f\n", pointer_x, pointer_y);
}

/* ---- pointer ---- */

static void pointer_enter(void *data, struct wl_pointer *pointer, uint32_t serial,
			  struct wl_surface *s, wl_fixed_t x, wl_fixed_t y)
{
	pointer_surface = s;
	pointer_x = wl_fixed_to_double(x);
	pointer_y = wl_fixed_to_double(y);
	printf("pointer enter %s %.1f,%.1f\n", s == surface ? "toplevel" : "popup", pointer_x,
	       pointer_y);
	wl_pointer_set_cursor(seat_pointer, serial, cursor_surface, 8, 8);
	if (s == surface)
		redraw();
}

static void pointer_leave(void *data, struct wl_pointer *pointer, uint32_t serial,
			  struct wl_surface *s)
{
	printf("pointer leave\n");
	pointer_surface = NULL;
}

static void pointer_motion(void *data, struct wl_pointer *pointer, uint32_t time, wl_fixed_t x,
			   wl_fixed_t y)
{
	pointer_x = wl_fixed_to_double(x);
	pointer_y = wl_fixed_to_double(y);
	printf("pointer motion %.1f,%.1f\n", pointer_x, pointer_y);
	if (pointer_surface == surface)
		redraw();
}

static void pointer_button(void *data, struct wl_pointer *pointer, uint32_t serial,
			   uint32_t time, uint32_t button, uint32_t state)
{
	printf("button %u %s on the %s at %.1f,%.1f\n", button, state ? "pressed" : "released",
	       pointer_surface == surface ? "toplevel" : "popup", pointer_x, pointer_y);
	if (state != WL_POINTER_BUTTON_STATE_PRESSED)
		return;
	rows[4] = (uint16_t)button;
	if (pointer_surface == surface && button == 272) {
		have_click = true;
		click_x = pointer_x;
		click_y = pointer_y;
	}
	if (pointer_surface == surface && button == 273)
		open_popup(serial);
	redraw();
}

/* Wheel steps of this pointer frame: axis_discrete or axis_value120 where
 * it comes (not through every nested compositor: Weston 10's wayland
 * backend passes the value alone), else the value at 15 a step
 * (libinput's, and the virtual pointer's). */
static bool frame_has_discrete, frame_has_value, frame_has_value120;
static int frame_discrete, frame_value120;
static double frame_value;

static void pointer_axis(void *data, struct wl_pointer *pointer, uint32_t time, uint32_t axis,
			 wl_fixed_t value)
{
	if (axis != WL_POINTER_AXIS_VERTICAL_SCROLL)
		return;
	frame_has_value = true;
	frame_value += wl_fixed_to_double(value);
}

static void pointer_frame(void *data, struct wl_pointer *pointer)
{
	if (!frame_has_discrete && !frame_has_value && !frame_has_value120)
		return;
	int steps = frame_has_value120 ? frame_value120 / 120
		    : frame_has_discrete ? frame_discrete
		    : (int)(frame_value / 15 + (frame_value < 0 ? -0.5 : 0.5));
	printf("wheel %d%s\n", steps,
	       frame_has_value120 ? " (value120)"
	       : frame_has_discrete ? "" : " (from the value)");
	wheel += steps;
	rows[6] = (uint16_t)wheel;
	frame_has_discrete = frame_has_value = frame_has_value120 = false;
	frame_discrete = frame_value120 = 0;
	frame_value = 0;
	redraw();
}

static void pointer_axis_source(void *data, struct wl_pointer *pointer, uint32_t source)
{
}

static void pointer_axis_stop(void *data, struct wl_pointer *pointer, uint32_t time,
			      uint32_t axis)
{
}

static void pointer_axis_discrete(void *data, struct wl_pointer *pointer, uint32_t axis,
				  int32_t discrete)
{
	if (axis != WL_POINTER_AXIS_VERTICAL_SCROLL)
		return;
	printf("axis_discrete %d\n", discrete);
	frame_has_discrete = true;
	frame_discrete += discrete;
	rows[8]++;
}

static void pointer_axis_value120(void *data, struct wl_pointer *pointer, uint32_t axis,
				  int32_t value120)
{
	if (axis != WL_POINTER_AXIS_VERTICAL_SCROLL)
		return;
	printf("axis_value120 %d\n", value120);
	frame_has_value120 = true;
	frame_value120 += value120;
	rows[7] = (uint16_t)(rows[7] + value120);
}

static const struct wl_pointer_listener pointer_listener = {
	.enter = pointer_enter,
	.leave = pointer_leave,
	.motion = pointer_motion,
	.button = pointer_button,
	.axis = pointer_axis,
	.frame = pointer_frame,
	.axis_source = pointer_axis_source,
	.axis_stop = pointer_axis_stop,
	.axis_discrete = pointer_axis_discrete,
	.axis_value120 = pointer_axis_value120,
};

/* ---- touch ---- */

static int touch_mark(int32_t id, bool add)
{
	int free_slot = -1;
	for (int i = 0; i < TOUCH_MARKS; i++) {
		if (touch_marks[i].used && touch_marks[i].id == id)
			return i;
		if (!touch_marks[i].used && free_slot < 0)
			free_slot = i;
	}
	if (!add || free_slot < 0)
		return -1;
	touch_marks[free_slot].used = true;
	touch_marks[free_slot].id = id;
	return free_slot;
}

static void touch_down(void *data, struct wl_touch *touch, uint32_t serial, uint32_t time,
		       struct wl_surface *s, int32_t id, wl_fixed_t x, wl_fixed_t y)
{
	/* A new touch with an id seen before: a mark of its own. */
	int old = touch_mark(id, false);
	if (old >= 0)
		touch_marks[old].id = -1 - touch_marks[old].id;
	int i = touch_mark(id, true);
	printf("touch down %d %.1f,%.1f on the %s\n", id, wl_fixed_to_double(x),
	       wl_fixed_to_double(y), s == surface ? "toplevel" : "popup");
	if (i < 0)
		return;
	touch_marks[i].x = wl_fixed_to_double(x);
	touch_marks[i].y = wl_fixed_to_double(y);
}

static void touch_up(void *data, struct wl_touch *touch, uint32_t serial, uint32_t time,
		     int32_t id)
{
	printf("touch up %d\n", id);
}

static void touch_motion(void *data, struct wl_touch *touch, uint32_t time, int32_t id,
			 wl_fixed_t x, wl_fixed_t y)
{
	printf("touch motion %d %.1f,%.1f\n", id, wl_fixed_to_double(x), wl_fixed_to_double(y));
	int i = touch_mark(id, false);
	if (i < 0)
		return;
	touch_marks[i].x = wl_fixed_to_double(x);
	touch_marks[i].y = wl_fixed_to_double(y);
}

static void touch_frame(void *data, struct wl_touch *touch)
{
	printf("touch frame\n");
	redraw();
}

static void touch_cancel(void *data, struct wl_touch *touch)
{
	printf("touch cancel\n");
}

static void touch_shape(void *data, struct wl_touch *touch, int32_t id, wl_fixed_t major,
			wl_fixed_t minor)
{
	printf("touch shape %d %.1fx%.1f\n", id, wl_fixed_to_double(major),
	       wl_fixed_to_double(minor));
}

static void touch_orientation(void *data, struct wl_touch *touch, int32_t id,
			      wl_fixed_t orientation)
{
	printf("touch orientation %d %.1f\n", id, wl_fixed_to_double(orientation));
}

static const struct wl_touch_listener touch_listener = {
	touch_down, touch_up, touch_motion, touch_frame, touch_cancel, touch_shape,
	touch_orientation,
};

/* ---- keyboard ---- */

static void keyboard_keymap(void *data, struct wl_keyboard *keyboard, uint32_t format, int32_t fd,
			    uint32_t size)
{
	/* wl-record passes the desktop's keymap in a sealed file of its own. */
	int seals = fcntl(fd, F_GET_SEALS);
	bool sealed = seals >= 0 && (seals & (F_SEAL_WRITE | F_SEAL_SHRINK)) ==
					    (F_SEAL_WRITE | F_SEAL_SHRINK);
	char *text = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (text == MAP_FAILED || format != WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1) {
		printf("keymap unusable\n");
		return;
	}
	struct xkb_keymap *map = xkb_keymap_new_from_string(xkb, text, XKB_KEYMAP_FORMAT_TEXT_V1,
							     XKB_KEYMAP_COMPILE_NO_FLAGS);
	munmap(text, size);
	if (!map) {
		printf("keymap does not compile\n");
		return;
	}
	xkb_state_unref(xkb_state);
	xkb_keymap_unref(keymap);
	keymap = map;
	xkb_state = xkb_state_new(keymap);
	printf("keymap of %u bytes, %s\n", size, sealed ? "sealed" : "not sealed");
}

static void keyboard_enter(void *data, struct wl_keyboard *keyboard, uint32_t serial,
			   struct wl_surface *s, struct wl_array *keys)
{
	printf("keyboard enter %s with %zu keys down\n", s == surface ? "toplevel" : "popup",
	       keys->size / sizeof(uint32_t));
}

static void keyboard_leave(void *data, struct wl_keyboard *keyboard, uint32_t serial,
			   struct wl_surface *s)
{
	printf("keyboard leave\n");
}

static void keyboard_key(void *data, struct wl_keyboard *keyboard, uint32_t serial, uint32_t time,
			 uint32_t key, uint32_t state)
{
	if (state != WL_KEYBOARD_KEY_STATE_PRESSED)
		return;
	xkb_keysym_t sym = xkb_state ? xkb_state_key_get_one_sym(xkb_state, key + 8) : 0;
	char name[64] = "?";
	xkb_keysym_get_name(sym, name, sizeof(name));
	printf("key %u keysym 0x%x %s\n", key, sym, name);
	rows[2] = rows[1];
	rows[1] = rows[0];
	rows[0] = (uint16_t)sym;
	rows[3] = (uint16_t)key;
	redraw();
}

static void keyboard_modifiers(void *data, struct wl_keyboard *keyboard, uint32_t serial,
			       uint32_t depressed, uint32_t latched, uint32_t locked,
			       uint32_t group)
{
	if (xkb_state)
		xkb_state_update_mask(xkb_state, depressed, latched, locked, 0, 0, group);
}

static void keyboard_repeat_info(void *data, struct wl_keyboard *keyboard, int32_t rate,
				 int32_t delay)
{
	printf("repeat %d/s after %d ms\n", rate, delay);
}

static const struct wl_keyboard_listener keyboard_listener = {
	keyboard_keymap, keyboard_enter, keyboard_leave, keyboard_key, keyboard_modifiers,
	keyboard_repeat_info,
};

static void seat_capabilities(void *data, struct wl_seat *s, uint32_t capabilities)
{
	static struct wl_keyboard *keyboard;
	static struct wl_touch *touch;
	printf("seat capabilities %u\n", capabilities);
	if ((capabilities & WL_SEAT_CAPABILITY_TOUCH) && !touch) {
		touch = wl_seat_get_touch(s);
		wl_touch_add_listener(touch, &touch_listener, NULL);
	}
	if ((capabilities & WL_SEAT_CAPABILITY_POINTER) && !seat_pointer) {
		seat_pointer = wl_seat_get_pointer(s);
		wl_pointer_add_listener(seat_pointer, &pointer_listener, NULL);
	}
	if ((capabilities & WL_SEAT_CAPABILITY_KEYBOARD) && !keyboard) {
		keyboard = wl_seat_get_keyboard(s);
		wl_keyboard_add_listener(keyboard, &keyboard_listener, NULL);
	}
}

static void seat_name(void *data, struct wl_seat *s, const char *name)
{
}

static const struct wl_seat_listener seat_listener = { seat_capabilities, seat_name };

/* ---- shell ---- */

static void wm_base_ping(void *data, struct xdg_wm_base *base, uint32_t serial)
{
	xdg_wm_base_pong(base, serial);
}

static const struct xdg_wm_base_listener wm_base_listener = { wm_base_ping };

static void surface_configure(void *data, struct xdg_surface *xdg, uint32_t serial)
{
	xdg_surface_ack_configure(xdg, serial);
	configured = true;
	redraw();
}

static const struct xdg_surface_listener surface_listener = { surface_configure };

static void toplevel_configure(void *data, struct xdg_toplevel *t, int32_t w, int32_t h,
			       struct wl_array *states)
{
	if (w > 0 && h > 0) {
		width = w;
		height = h;
	}
}

static void toplevel_close(void *data, struct xdg_toplevel *t)
{
	running = false;
}

static const struct xdg_toplevel_listener toplevel_listener = {
	.configure = toplevel_configure,
	.close = toplevel_close,
};

static void global(void *data, struct wl_registry *registry, uint32_t name,
		   const char *interface, uint32_t version)
{
	if (strcmp(interface, wl_compositor_interface.name) == 0)
		compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 4);
	else if (strcmp(interface, wl_shm_interface.name) == 0)
		shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	else if (strcmp(interface, xdg_wm_base_interface.name) == 0)
		wm_base = wl_registry_bind(registry, name, &xdg_wm_base_interface, 1);
	else if (strcmp(interface, wl_seat_interface.name) == 0 && !seat) {
		const char *wanted = getenv("INPUT_CLIENT_SEAT");
		uint32_t most = wanted && wanted[0] ? (uint32_t)atoi(wanted) : 7;
		seat = wl_registry_bind(registry, name, &wl_seat_interface,
					version < most ? version : most);
		printf("wl_seat version %u\n", version < most ? version : most);
	}
}

static void global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = { global, global_remove };

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	xkb = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
	display = wl_display_connect(NULL);
	if (!display || !xkb) {
		fprintf(stderr, "input-client: cannot connect\n");
		return 1;
	}
	struct wl_registry *registry = wl_display_get_registry(display);
	wl_registry_add_listener(registry, &registry_listener, NULL);
	wl_display_roundtrip(display);
	if (!compositor || !shm || !wm_base || !seat) {
		fprintf(stderr, "input-client: the compositor lacks a global\n");
		return 1;
	}
	xdg_wm_base_add_listener(wm_base, &wm_base_listener, NULL);
	uint32_t *cursor_pixels;
	struct wl_buffer *cursor = new_buffer_format(16, 16, WL_SHM_FORMAT_ARGB8888,
						     &cursor_pixels);
	for (int i = 0; i < 16 * 16; i++)
		cursor_pixels[i] = 0xff00ffff;
	munmap(cursor_pixels, 16 * 16 * 4);
	cursor_surface = wl_compositor_create_surface(compositor);
	wl_surface_attach(cursor_surface, cursor, 0, 0);
	wl_surface_damage_buffer(cursor_surface, 0, 0, 16, 16);
	wl_surface_commit(cursor_surface);
	wl_seat_add_listener(seat, &seat_listener, NULL);
	surface = wl_compositor_create_surface(compositor);
	xdg_surface = xdg_wm_base_get_xdg_surface(wm_base, surface);
	xdg_surface_add_listener(xdg_surface, &surface_listener, NULL);
	toplevel = xdg_surface_get_toplevel(xdg_surface);
	xdg_toplevel_add_listener(toplevel, &toplevel_listener, NULL);
	xdg_toplevel_set_title(toplevel, "input-client");
	wl_surface_commit(surface);
	while (running && wl_display_dispatch(display) >= 0) {
	}
	return 0;
}
