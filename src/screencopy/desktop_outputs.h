#ifndef WL_RECORD_DESKTOP_OUTPUTS_H
#define WL_RECORD_DESKTOP_OUTPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <wayland-client.h>

#define OUTPUT_NAME_SIZE 64

struct zxdg_output_manager_v1;

/* One wl_output of the desktop, with what -o, -g and --list-outputs need
 * whatever the copy protocol: its name (wl_output v4, else xdg-output v2)
 * and its place in the compositor's logical space (xdg-output, else
 * wl_output.geometry and the mode divided by the scale). */
struct desktop_output {
	struct wl_list link; /* in advertised order */
	struct wl_output *wl_output;
	struct zxdg_output_v1 *xdg_output;
	uint32_t global;
	uint32_t version;
	char name[OUTPUT_NAME_SIZE];
	char xdg_name[OUTPUT_NAME_SIZE];
	int mode_width, mode_height, refresh_mhz;
	int scale;
	int32_t transform;
	int geometry_x, geometry_y;
	bool logical_known;
	int logical_x, logical_y, logical_width, logical_height;
};

/* Binds the wl_output global `name` and appends it to `outputs`. */
struct desktop_output *desktop_output_bind(struct wl_list *outputs, struct wl_registry *registry,
					   uint32_t name, uint32_t version);

/* Asks xdg-output for the output's name and logical place (once). */
void desktop_output_watch(struct desktop_output *output,
			  struct zxdg_output_manager_v1 *xdg_output_manager);

/* The wl_output name, else the xdg-output one, else "". */
const char *desktop_output_name(const struct desktop_output *output);

/* Where the output lies in the compositor's logical space. */
void desktop_output_box(const struct desktop_output *output, int *x, int *y, int *width,
			int *height);

void desktop_output_destroy(struct desktop_output *output);

/* "HEADLESS-1, HEADLESS-2": for an error naming what there is. */
void desktop_output_names(const struct wl_list *outputs, char *names, size_t size);

/* One line per output: name, mode, scale, logical position and size. */
void desktop_outputs_list(const struct wl_list *outputs, FILE *out);

#endif
