#ifndef WL_RECORD_TRACKED_SURFACE_H
#define WL_RECORD_TRACKED_SURFACE_H

#include <wayland-server-core.h>

struct surface;

/* A surface pointer that forgets the surface when it is destroyed, then
 * calls `gone` (when set) for the owner to react. */
struct tracked_surface {
	struct surface *surface;
	struct wl_listener destroy;
	void (*gone)(struct tracked_surface *tracked);
};

void tracked_surface_init(struct tracked_surface *tracked,
			  void (*gone)(struct tracked_surface *tracked));

/* Follows `surface` from now on (NULL: none). */
void tracked_surface_set(struct tracked_surface *tracked, struct surface *surface);

#endif
