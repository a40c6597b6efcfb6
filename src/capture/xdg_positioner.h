#ifndef WL_RECORD_XDG_POSITIONER_H
#define WL_RECORD_XDG_POSITIONER_H

#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>

/* What an xdg_positioner describes, copied when a popup is made from it. */
struct xdg_positioner_rules {
	int32_t width, height;
	int32_t anchor_x, anchor_y, anchor_width, anchor_height;
	uint32_t anchor, gravity, constraint_adjustment;
	int32_t offset_x, offset_y;
	bool has_size, has_anchor_rect;
};

void xdg_positioner_create(struct wl_client *client, uint32_t version, uint32_t id);

/* The rules behind an xdg_positioner resource (type-checked); NULL for
 * anything else. */
const struct xdg_positioner_rules *xdg_positioner_from_resource(struct wl_resource *resource);

/* The popup's rectangle relative to its parent's window geometry, placed by
 * anchor, gravity and offset. Constraints are not applied: wl-record's output
 * has no edge a popup must avoid but the picture's, see xdg_shell.c. */
void xdg_positioner_place(const struct xdg_positioner_rules *rules, int32_t *x, int32_t *y,
			  int32_t *width, int32_t *height);

#endif
