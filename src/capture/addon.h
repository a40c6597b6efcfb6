#ifndef WL_RECORD_ADDON_H
#define WL_RECORD_ADDON_H

#include <wayland-server-core.h>

/* Extension state kept beside an object (a viewport, a subsurface parent's
 * children, an xdg_surface beside a wl_surface), found by who added it and
 * what it is rather than by searching the object's destroy listeners. An
 * object holds an addon_set; each kind of addon is at most once per owner. */

struct addon;

struct addon_interface {
	const char *name;
	/* Called when the set is finished with the addon still in it; must
	 * call addon_finish() (and usually frees what holds the addon). */
	void (*destroy)(struct addon *addon);
};

struct addon {
	const struct addon_interface *impl;
	const void *owner;
	struct wl_list link; /* addon_set.addons */
};

struct addon_set {
	struct wl_list addons;
};

void addon_set_init(struct addon_set *set);
/* Destroys the addons still in the set (the object is going away). */
void addon_set_finish(struct addon_set *set);

/* Adds `addon`; there must be no addon of the same owner and kind yet. */
void addon_init(struct addon *addon, struct addon_set *set, const void *owner,
		const struct addon_interface *impl);
/* Takes `addon` out of its set. */
void addon_finish(struct addon *addon);

/* The addon of that owner and kind, or NULL. */
struct addon *addon_find(struct addon_set *set, const void *owner,
			 const struct addon_interface *impl);

#endif
