#ifndef WL_RECORD_OUTPUT_H
#define WL_RECORD_OUTPUT_H

#include <stdbool.h>
#include <wayland-server-core.h>

/* The one wl_output wl-record shows to clients. */
struct output {
	struct wl_global *global;
	struct wl_list resources;
	int width, height;
	int refresh_mhz;
};

struct output *output_create(struct wl_display *display, int width, int height, int refresh_mhz);
void output_destroy(struct output *output);

/* Announces a new current mode to every bound client. */
void output_set_mode(struct output *output, int width, int height, int refresh_mhz);

/* Sends wl_surface.enter for every wl_output the surface's client bound. */
void output_send_enter(struct output *output, struct wl_resource *surface);

#endif
