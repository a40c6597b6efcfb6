/* The desktop window's input: the desktop's first seat, its pointer and
 * keyboard passed on to the input sink (touch: window_touch.c), and the
 * hosted client's cursor shown while the pointer is on the window. */
#define LOG_MODULE "window"
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wayland-client.h>
#include <wayland-cursor.h>

#include "desktop_window_internal.h"
#include "input_event.h"
#include "keymap_copy.h"
#include "log.h"
#include "window_fit.h"

void window_input_send(struct desktop_window *window, struct wl_record_input_event *event)
{
	if (window->input.event && !window->broken)
		window->input.event(window->input.data, event);
}

void window_input_send_type(struct desktop_window *window, enum wl_record_input_type type,
			    uint32_t time)
{
	struct wl_record_input_event event = { .type = type, .time_ms = time };
	window_input_send(window, &event);
}

/* Desktops before wl_seat 5 send no pointer frames: each event is one. */
static void pointer_frame_if_old(struct desktop_window *window)
{
	if (window->seat_version < WL_POINTER_FRAME_SINCE_VERSION)
		window_input_send_type(window, WL_RECORD_INPUT_POINTER_FRAME, 0);
}

bool window_to_picture(const struct desktop_window *window, wl_fixed_t sx, wl_fixed_t sy,
		       double *x, double *y)
{
	*x = wl_fixed_to_double(sx);
	*y = wl_fixed_to_double(sy);
	if (!window->scaled)
		return *x >= 0 && *y >= 0 && *x < window->picture_width &&
		       *y < window->picture_height;
	struct window_fit fit = window_fit_picture(window->window_width, window->window_height,
						   window->picture_width, window->picture_height);
	return window_fit_to_picture(&fit, window->picture_width, window->picture_height, *x, *y,
				     x, y);
}

/* The pointer at window point sx,sy (points on the bars land outside the
 * picture). */
static void pointer_moved(struct desktop_window *window, uint32_t time, wl_fixed_t sx,
			  wl_fixed_t sy)
{
	struct wl_record_input_event event = {
		.type = WL_RECORD_INPUT_POINTER_MOTION,
		.time_ms = time,
	};
	window_to_picture(window, sx, sy, &event.x, &event.y);
	window_input_send(window, &event);
	pointer_frame_if_old(window);
}

static void show_cursor(struct desktop_window *window)
{
	if (window->pointer && window->pointer_on_window && window->cursor_set)
		wl_pointer_set_cursor(window->pointer, window->pointer_serial,
				      window->cursor_surface, window->cursor_hotspot_x,
				      window->cursor_hotspot_y);
}

static void handle_pointer_enter(void *data, struct wl_pointer *pointer, uint32_t serial,
				 struct wl_surface *surface, wl_fixed_t sx, wl_fixed_t sy)
{
	struct desktop_window *window = data;
	window->pointer_serial = serial;
	window->pointer_on_window = true;
	show_cursor(window);
	pointer_moved(window, 0, sx, sy);
}

static void handle_pointer_leave(void *data, struct wl_pointer *pointer, uint32_t serial,
				 struct wl_surface *surface)
{
	struct desktop_window *window = data;
	window->pointer_on_window = false;
	window_input_send_type(window, WL_RECORD_INPUT_POINTER_LEAVE, 0);
	pointer_frame_if_old(window);
}

static void handle_pointer_motion(void *data, struct wl_pointer *pointer, uint32_t time,
				  wl_fixed_t sx, wl_fixed_t sy)
{
	pointer_moved(data, time, sx, sy);
}

static void handle_pointer_button(void *data, struct wl_pointer *pointer, uint32_t serial,
				  uint32_t time, uint32_t button, uint32_t state)
{
	struct desktop_window *window = data;
	window->input_serial = serial;
	struct wl_record_input_event event = {
		.type = WL_RECORD_INPUT_POINTER_BUTTON,
		.time_ms = time,
		.button = button,
		.pressed = state == WL_POINTER_BUTTON_STATE_PRESSED,
	};
	window_input_send(window, &event);
	pointer_frame_if_old(window);
}

static void handle_pointer_axis(void *data, struct wl_pointer *pointer, uint32_t time,
				uint32_t axis, wl_fixed_t value)
{
	struct desktop_window *window = data;
	struct wl_record_input_event event = {
		.type = WL_RECORD_INPUT_POINTER_AXIS,
		.time_ms = time,
		.axis = axis,
		.value = wl_fixed_to_double(value),
	};
	window_input_send(window, &event);
	pointer_frame_if_old(window);
}

static void handle_pointer_frame(void *data, struct wl_pointer *pointer)
{
	window_input_send_type(data, WL_RECORD_INPUT_POINTER_FRAME, 0);
}

static void handle_pointer_axis_source(void *data, struct wl_pointer *pointer, uint32_t source)
{
	struct wl_record_input_event event = {
		.type = WL_RECORD_INPUT_POINTER_AXIS_SOURCE,
		.axis_source = source,
	};
	window_input_send(data, &event);
}

static void handle_pointer_axis_stop(void *data, struct wl_pointer *pointer, uint32_t time,
				     uint32_t axis)
{
	struct wl_record_input_event event = {
		.type = WL_RECORD_INPUT_POINTER_AXIS_STOP,
		.time_ms = time,
		.axis = axis,
	};
	window_input_send(data, &event);
}

static void handle_pointer_axis_discrete(void *data, struct wl_pointer *pointer, uint32_t axis,
					 int32_t discrete)
{
	struct wl_record_input_event event = {
		.type = WL_RECORD_INPUT_POINTER_AXIS_DISCRETE,
		.axis = axis,
		.discrete = discrete,
	};
	window_input_send(data, &event);
}

/* wl_seat 8 desktops send this instead of axis_discrete. */
static void handle_pointer_axis_value120(void *data, struct wl_pointer *pointer, uint32_t axis,
					 int32_t value120)
{
	struct wl_record_input_event event = {
		.type = WL_RECORD_INPUT_POINTER_AXIS_VALUE120,
		.axis = axis,
		.value120 = value120,
	};
	window_input_send(data, &event);
}

static const struct wl_pointer_listener pointer_listener = {
	.enter = handle_pointer_enter,
	.leave = handle_pointer_leave,
	.motion = handle_pointer_motion,
	.button = handle_pointer_button,
	.axis = handle_pointer_axis,
	.frame = handle_pointer_frame,
	.axis_source = handle_pointer_axis_source,
	.axis_stop = handle_pointer_axis_stop,
	.axis_discrete = handle_pointer_axis_discrete,
	.axis_value120 = handle_pointer_axis_value120,
};

static void send_keymap(struct desktop_window *window);

/* The hosted apps type with the desktop's keymap, copied into a sealed
 * file of ours (keymap_copy.h). */
static void handle_keyboard_keymap(void *data, struct wl_keyboard *keyboard, uint32_t format,
				   int32_t fd, uint32_t size)
{
	struct desktop_window *window = data;
	if (format == WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1) {
		const char *why = NULL;
		int copy = keymap_copy_sealed(fd, size, &why);
		close(fd);
		if (copy < 0) {
			LOG_WARN("the desktop's keymap is not passed on (%s): the hosted apps keep "
				 "theirs", why);
			return;
		}
		fd = copy;
	}
	if (window->keymap_fd >= 0)
		close(window->keymap_fd);
	window->keymap_fd = fd;
	window->keymap_format = format;
	window->keymap_size = size;
	send_keymap(window);
}

static void send_keymap(struct desktop_window *window)
{
	if (window->keymap_fd >= 0) {
		struct wl_record_input_event event = {
			.type = WL_RECORD_INPUT_KEYBOARD_KEYMAP,
			.keymap_fd = window->keymap_fd,
			.keymap_format = window->keymap_format,
			.keymap_size = window->keymap_size,
		};
		window_input_send(window, &event);
	}
	if (window->have_repeat) {
		struct wl_record_input_event event = {
			.type = WL_RECORD_INPUT_KEYBOARD_REPEAT,
			.repeat_rate = window->repeat_rate,
			.repeat_delay = window->repeat_delay,
		};
		window_input_send(window, &event);
	}
}

static void handle_keyboard_enter(void *data, struct wl_keyboard *keyboard, uint32_t serial,
				  struct wl_surface *surface, struct wl_array *keys)
{
	struct desktop_window *window = data;
	window->input_serial = serial;
	struct wl_record_input_event event = {
		.type = WL_RECORD_INPUT_KEYBOARD_ENTER,
		.keys = keys->data,
		.key_count = keys->size / sizeof(uint32_t),
	};
	window_input_send(data, &event);
}

static void handle_keyboard_leave(void *data, struct wl_keyboard *keyboard, uint32_t serial,
				  struct wl_surface *surface)
{
	window_input_send_type(data, WL_RECORD_INPUT_KEYBOARD_LEAVE, 0);
}

static void handle_keyboard_key(void *data, struct wl_keyboard *keyboard, uint32_t serial,
				uint32_t time, uint32_t key, uint32_t state)
{
	struct desktop_window *window = data;
	window->input_serial = serial;
	struct wl_record_input_event event = {
		.type = WL_RECORD_INPUT_KEYBOARD_KEY,
		.time_ms = time,
		.key = key,
		.pressed = state == WL_KEYBOARD_KEY_STATE_PRESSED,
	};
	window_input_send(data, &event);
}

static void handle_keyboard_modifiers(void *data, struct wl_keyboard *keyboard, uint32_t serial,
				      uint32_t depressed, uint32_t latched, uint32_t locked,
				      uint32_t group)
{
	struct wl_record_input_event event = {
		.type = WL_RECORD_INPUT_KEYBOARD_MODIFIERS,
		.mods_depressed = depressed,
		.mods_latched = latched,
		.mods_locked = locked,
		.group = group,
	};
	window_input_send(data, &event);
}

static void handle_keyboard_repeat_info(void *data, struct wl_keyboard *keyboard, int32_t rate,
					int32_t delay)
{
	struct desktop_window *window = data;
	window->have_repeat = true;
	window->repeat_rate = rate;
	window->repeat_delay = delay;
	send_keymap(window);
}

static const struct wl_keyboard_listener keyboard_listener = {
	.keymap = handle_keyboard_keymap,
	.enter = handle_keyboard_enter,
	.leave = handle_keyboard_leave,
	.key = handle_keyboard_key,
	.modifiers = handle_keyboard_modifiers,
	.repeat_info = handle_keyboard_repeat_info,
};

static void release_pointer(struct desktop_window *window)
{
	if (!window->pointer)
		return;
	if (window->seat_version >= WL_POINTER_RELEASE_SINCE_VERSION)
		wl_pointer_release(window->pointer);
	else
		wl_pointer_destroy(window->pointer);
	window->pointer = NULL;
	window->pointer_on_window = false;
}

static void release_keyboard(struct desktop_window *window)
{
	if (!window->keyboard)
		return;
	if (window->seat_version >= WL_KEYBOARD_RELEASE_SINCE_VERSION)
		wl_keyboard_release(window->keyboard);
	else
		wl_keyboard_destroy(window->keyboard);
	window->keyboard = NULL;
}

static void handle_seat_capabilities(void *data, struct wl_seat *seat, uint32_t capabilities)
{
	struct desktop_window *window = data;
	bool pointer = capabilities & WL_SEAT_CAPABILITY_POINTER;
	bool keyboard = capabilities & WL_SEAT_CAPABILITY_KEYBOARD;
	bool touch = capabilities & WL_SEAT_CAPABILITY_TOUCH;
	window_touch_capability(window, seat, touch);
	if (pointer && !window->pointer) {
		window->pointer = wl_seat_get_pointer(seat);
		wl_pointer_add_listener(window->pointer, &pointer_listener, window);
	} else if (!pointer && window->pointer) {
		release_pointer(window);
		window_input_send_type(window, WL_RECORD_INPUT_POINTER_LEAVE, 0);
	}
	if (keyboard && !window->keyboard) {
		window->keyboard = wl_seat_get_keyboard(seat);
		wl_keyboard_add_listener(window->keyboard, &keyboard_listener, window);
	} else if (!keyboard && window->keyboard) {
		release_keyboard(window);
		window_input_send_type(window, WL_RECORD_INPUT_KEYBOARD_LEAVE, 0);
	}
	window_flush(window);
}

static void handle_seat_name(void *data, struct wl_seat *seat, const char *name)
{
}

static const struct wl_seat_listener seat_listener = {
	.capabilities = handle_seat_capabilities,
	.name = handle_seat_name,
};

void desktop_window_set_input_sink(struct desktop_window *window,
				   const struct wl_record_input_sink *sink)
{
	window->input = *sink;
	send_keymap(window);
	window_touch_send_capability(window);
}

static void attach_cursor(struct desktop_window *window, struct wl_buffer *buffer, bool ours,
			  int hotspot_x, int hotspot_y)
{
	if (!window->cursor_surface)
		window->cursor_surface = wl_compositor_create_surface(window->compositor);
	wl_surface_attach(window->cursor_surface, buffer, 0, 0);
	wl_surface_damage_buffer(window->cursor_surface, 0, 0, INT32_MAX, INT32_MAX);
	wl_surface_commit(window->cursor_surface);
	/* The desktop has the new content now: the old buffer can go. */
	if (window->cursor_buffer)
		wl_buffer_destroy(window->cursor_buffer);
	window->cursor_buffer = ours ? buffer : NULL;
	bool moved = !window->cursor_set || hotspot_x != window->cursor_hotspot_x ||
		     hotspot_y != window->cursor_hotspot_y;
	window->cursor_hotspot_x = hotspot_x;
	window->cursor_hotspot_y = hotspot_y;
	window->cursor_set = true;
	if (moved)
		show_cursor(window);
	window_flush(window);
}

/* The desktop's arrow, from the cursor theme it uses (XCURSOR_THEME and
 * XCURSOR_SIZE, as wlroots reads them); false when there is none. */
static bool attach_default_cursor(struct desktop_window *window)
{
	if (!window->cursor_theme) {
		const char *size = getenv("XCURSOR_SIZE");
		int pixels = size && atoi(size) > 0 ? atoi(size) : 24;
		window->cursor_theme = wl_cursor_theme_load(getenv("XCURSOR_THEME"), pixels,
							    window->shm);
		if (!window->cursor_theme)
			return false;
	}
	struct wl_cursor *cursor = wl_cursor_theme_get_cursor(window->cursor_theme, "left_ptr");
	if (!cursor)
		cursor = wl_cursor_theme_get_cursor(window->cursor_theme, "default");
	if (!cursor || cursor->image_count == 0)
		return false;
	struct wl_cursor_image *image = cursor->images[0];
	struct wl_buffer *buffer = wl_cursor_image_get_buffer(image);
	if (!buffer)
		return false;
	attach_cursor(window, buffer, false, (int)image->hotspot_x, (int)image->hotspot_y);
	return true;
}

void desktop_window_set_cursor(struct desktop_window *window,
			       const struct wl_record_cursor_image *image)
{
	if (window->broken || !window->compositor)
		return;
	if (!image || image->width <= 0 || image->height <= 0) {
		/* Without a theme the last image stays: better than none. */
		attach_default_cursor(window);
		return;
	}
	uint8_t *data;
	size_t size;
	struct wl_buffer *buffer = window_create_shm_buffer(window, image->width, image->height,
							    WL_SHM_FORMAT_ARGB8888, &data, &size);
	if (!buffer)
		return;
	for (int y = 0; y < image->height; y++)
		memcpy(data + (size_t)y * (size_t)image->width * 4,
		       image->pixels + (size_t)y * (size_t)image->stride, (size_t)image->width * 4);
	munmap(data, size);
	attach_cursor(window, buffer, true, image->hotspot_x, image->hotspot_y);
}

void window_input_watch_seat(struct desktop_window *window)
{
	wl_seat_add_listener(window->seat, &seat_listener, window);
}

void window_input_finish(struct desktop_window *window)
{
	release_pointer(window);
	release_keyboard(window);
	window_touch_finish(window);
	if (window->seat)
		wl_seat_destroy(window->seat);
	if (window->cursor_surface)
		wl_surface_destroy(window->cursor_surface);
	if (window->cursor_buffer)
		wl_buffer_destroy(window->cursor_buffer);
	if (window->cursor_theme)
		wl_cursor_theme_destroy(window->cursor_theme);
	if (window->keymap_fd >= 0)
		close(window->keymap_fd);
}
