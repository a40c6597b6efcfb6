#ifndef WL_RECORD_INPUT_EVENT_H
#define WL_RECORD_INPUT_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Input as it goes from the --window on the desktop (src/window/) to the
 * nested compositor's seat (src/capture/), in neither's types: the two do
 * not know each other; cmd/ connects a sink. Values follow wl_pointer and
 * wl_keyboard (buttons, axes, key codes, modifier masks, keymap format). */
enum wl_record_input_type {
	/* The pointer is at x,y in recording coordinates (entered or moved). */
	WL_RECORD_INPUT_POINTER_MOTION,
	/* The pointer left the picture (off the window, or onto its bars). */
	WL_RECORD_INPUT_POINTER_LEAVE,
	WL_RECORD_INPUT_POINTER_BUTTON,      /* button, pressed */
	WL_RECORD_INPUT_POINTER_AXIS,        /* axis, value */
	WL_RECORD_INPUT_POINTER_AXIS_SOURCE, /* axis_source */
	WL_RECORD_INPUT_POINTER_AXIS_STOP,   /* axis */
	/* Wheel steps of the frame's AXIS event of that axis (in any order
	 * within the frame): axis, discrete (whole steps, a wl_seat 5-7
	 * desktop) or axis, value120 (1/120 steps, wl_seat 8). */
	WL_RECORD_INPUT_POINTER_AXIS_DISCRETE,
	WL_RECORD_INPUT_POINTER_AXIS_VALUE120,
	WL_RECORD_INPUT_POINTER_FRAME,
	/* keymap_fd (lent for the call), keymap_format, keymap_size. */
	WL_RECORD_INPUT_KEYBOARD_KEYMAP,
	/* The window got the keyboard; keys/key_count are held down. */
	WL_RECORD_INPUT_KEYBOARD_ENTER,
	WL_RECORD_INPUT_KEYBOARD_LEAVE,
	WL_RECORD_INPUT_KEYBOARD_KEY,        /* key, pressed */
	WL_RECORD_INPUT_KEYBOARD_MODIFIERS,  /* mods_* and group */
	WL_RECORD_INPUT_KEYBOARD_REPEAT,     /* repeat_rate, repeat_delay */
	/* The desktop's seat has touch (has_touch) or not: the hosted apps
	 * are offered touch only while it has. */
	WL_RECORD_INPUT_TOUCH_CAPABILITY,
	/* touch_id went down at x,y in recording coordinates (only touches
	 * that begin on the picture are passed on). */
	WL_RECORD_INPUT_TOUCH_DOWN,
	WL_RECORD_INPUT_TOUCH_MOTION,        /* touch_id, x, y */
	WL_RECORD_INPUT_TOUCH_UP,            /* touch_id */
	WL_RECORD_INPUT_TOUCH_FRAME,
	WL_RECORD_INPUT_TOUCH_CANCEL,        /* every touch point is gone */
	/* touch_id's contact: major, minor (recording units) ... */
	WL_RECORD_INPUT_TOUCH_SHAPE,
	WL_RECORD_INPUT_TOUCH_ORIENTATION,   /* ... and its angle (degrees) */
};

struct wl_record_input_event {
	enum wl_record_input_type type;
	uint32_t time_ms;
	double x, y;
	uint32_t button;
	bool pressed;
	uint32_t axis;
	double value;
	int32_t discrete;
	int32_t value120;
	uint32_t axis_source;
	int keymap_fd;
	uint32_t keymap_format, keymap_size;
	const uint32_t *keys;
	size_t key_count;
	uint32_t key;
	uint32_t mods_depressed, mods_latched, mods_locked, group;
	int32_t repeat_rate, repeat_delay;
	int32_t touch_id;
	bool has_touch;
	double major, minor, orientation;
};

struct wl_record_input_sink {
	void (*event)(void *data, const struct wl_record_input_event *event);
	void *data;
};

/* A pointer image, the hosted client's cursor, going the other way: ARGB8888
 * premultiplied, `stride` bytes a row, lent for the call. */
struct wl_record_cursor_image {
	const uint8_t *pixels;
	int width, height, stride;
	int hotspot_x, hotspot_y;
};

#endif
