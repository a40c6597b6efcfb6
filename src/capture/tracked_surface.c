#include "tracked_surface.h"

#include "surface.h"

static void handle_destroy(struct wl_listener *listener, void *data)
{
	struct tracked_surface *tracked = wl_container_of(listener, tracked, destroy);
	tracked_surface_set(tracked, NULL);
	if (tracked->gone)
		tracked->gone(tracked);
}

void tracked_surface_init(struct tracked_surface *tracked,
			  void (*gone)(struct tracked_surface *tracked))
{
	tracked->surface = NULL;
	tracked->gone = gone;
	tracked->destroy.notify = handle_destroy;
	wl_list_init(&tracked->destroy.link);
}

void tracked_surface_set(struct tracked_surface *tracked, struct surface *surface)
{
	wl_list_remove(&tracked->destroy.link);
	wl_list_init(&tracked->destroy.link);
	tracked->surface = surface;
	if (surface)
		wl_signal_add(&surface->events.destroy, &tracked->destroy);
}
