#ifndef WL_RECORD_DRAG_H
#define WL_RECORD_DRAG_H

#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>

struct server;
struct drag;

/* Drag and drop within the hosted session (wl_data_device version 3): one
 * drag at a time, started by wl_data_device.start_drag during the implicit
 * grab of a button press, followed by the seat's pointer, dropped when the
 * last button is released. The surface under the pointer gets enter (with
 * an offer of the source's types), motion and leave on its client's data
 * devices; the action is negotiated between the source's and the target's
 * actions. The icon, if any, is drawn into the picture at the pointer. The
 * drag is cancelled when the pointer or the keyboard leaves the window, or
 * the source, origin or origin's client goes. Nothing crosses the window.
 * Only the pointer drags: a touch's serial starts nothing (cancelled). */
struct drag *drag_create(struct server *server);
void drag_destroy(struct drag *drag);

/* start_drag on `device_resource`; `devices` the resource links of every
 * wl_data_device; `mime_types` (char *) and `source_actions` those of the
 * source (NULL: a drag within the client). */
void drag_start(struct drag *drag, struct wl_list *devices, struct wl_resource *device_resource,
		struct wl_resource *source, const struct wl_array *mime_types,
		uint32_t source_actions, struct wl_resource *origin, struct wl_resource *icon,
		uint32_t serial);

bool drag_active(const struct drag *drag);

/* The seat's pointer moved to x,y on the screen during the drag. */
void drag_motion(struct drag *drag, double x, double y, uint32_t time_ms);

/* The last button was released: dropped on the target, or cancelled. */
void drag_drop(struct drag *drag);

/* Ends the drag, cancelled (nothing when none). */
void drag_cancel(struct drag *drag);

#endif
