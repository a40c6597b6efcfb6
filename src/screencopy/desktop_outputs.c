#include "desktop_outputs.h"

#include <stdlib.h>
#include <string.h>

#include "xdg-output-unstable-v1-client-protocol.h"

static void output_geometry(void *data, struct wl_output *wl_output, int32_t x, int32_t y,
			    int32_t physical_width, int32_t physical_height, int32_t subpixel,
			    const char *make, const char *model, int32_t transform)
{
	struct desktop_output *output = data;
	output->geometry_x = x;
	output->geometry_y = y;
	output->transform = transform;
}

static void output_mode(void *data, struct wl_output *wl_output, uint32_t flags, int32_t width,
			int32_t height, int32_t refresh)
{
	struct desktop_output *output = data;
	if (flags & WL_OUTPUT_MODE_CURRENT) {
		output->mode_width = width;
		output->mode_height = height;
		output->refresh_mhz = refresh;
	}
}

static void output_done(void *data, struct wl_output *wl_output)
{
}

static void output_scale(void *data, struct wl_output *wl_output, int32_t factor)
{
	struct desktop_output *output = data;
	output->scale = factor;
}

static void output_name(void *data, struct wl_output *wl_output, const char *name)
{
	struct desktop_output *output = data;
	snprintf(output->name, sizeof(output->name), "%s", name);
}

static void output_description(void *data, struct wl_output *wl_output, const char *description)
{
}

static const struct wl_output_listener output_listener = {
	.geometry = output_geometry,
	.mode = output_mode,
	.done = output_done,
	.scale = output_scale,
	.name = output_name,
	.description = output_description,
};

static void xdg_output_logical_position(void *data, struct zxdg_output_v1 *xdg_output,
					int32_t x, int32_t y)
{
	struct desktop_output *output = data;
	output->logical_known = true;
	output->logical_x = x;
	output->logical_y = y;
}

static void xdg_output_logical_size(void *data, struct zxdg_output_v1 *xdg_output,
				    int32_t width, int32_t height)
{
	struct desktop_output *output = data;
	output->logical_width = width;
	output->logical_height = height;
}

static void xdg_output_done(void *data, struct zxdg_output_v1 *xdg_output)
{
}

static void xdg_output_name(void *data, struct zxdg_output_v1 *xdg_output, const char *name)
{
	struct desktop_output *output = data;
	snprintf(output->xdg_name, sizeof(output->xdg_name), "%s", name);
}

static void xdg_output_description(void *data, struct zxdg_output_v1 *xdg_output,
				   const char *description)
{
}

static const struct zxdg_output_v1_listener xdg_output_listener = {
	.logical_position = xdg_output_logical_position,
	.logical_size = xdg_output_logical_size,
	.done = xdg_output_done,
	.name = xdg_output_name,
	.description = xdg_output_description,
};

struct desktop_output *desktop_output_bind(struct wl_list *outputs, struct wl_registry *registry,
					   uint32_t name, uint32_t version)
{
	struct desktop_output *output = calloc(1, sizeof(*output));
	if (!output)
		return NULL;
	output->global = name;
	output->version = version < 4 ? version : 4;
	output->scale = 1;
	output->wl_output = wl_registry_bind(registry, name, &wl_output_interface, output->version);
	wl_output_add_listener(output->wl_output, &output_listener, output);
	wl_list_insert(outputs->prev, &output->link);
	return output;
}

void desktop_output_watch(struct desktop_output *output,
			  struct zxdg_output_manager_v1 *xdg_output_manager)
{
	if (!xdg_output_manager || output->xdg_output)
		return;
	output->xdg_output = zxdg_output_manager_v1_get_xdg_output(xdg_output_manager,
								   output->wl_output);
	zxdg_output_v1_add_listener(output->xdg_output, &xdg_output_listener, output);
}

const char *desktop_output_name(const struct desktop_output *output)
{
	return output->name[0] ? output->name : output->xdg_name;
}

/* Without xdg-output: wl_output's position and its mode over the scale,
 * turned for a rotated output. */
void desktop_output_box(const struct desktop_output *output, int *x, int *y, int *width,
			int *height)
{
	if (output->logical_known && output->logical_width > 0 && output->logical_height > 0) {
		*x = output->logical_x;
		*y = output->logical_y;
		*width = output->logical_width;
		*height = output->logical_height;
		return;
	}
	int scale = output->scale > 0 ? output->scale : 1;
	bool turned = output->transform & 1; /* 90 and 270, flipped or not */
	*x = output->geometry_x;
	*y = output->geometry_y;
	*width = (turned ? output->mode_height : output->mode_width) / scale;
	*height = (turned ? output->mode_width : output->mode_height) / scale;
}

void desktop_output_destroy(struct desktop_output *output)
{
	wl_list_remove(&output->link);
	if (output->xdg_output)
		zxdg_output_v1_destroy(output->xdg_output);
	if (output->version >= WL_OUTPUT_RELEASE_SINCE_VERSION)
		wl_output_release(output->wl_output);
	else
		wl_output_destroy(output->wl_output);
	free(output);
}

void desktop_output_names(const struct wl_list *outputs, char *names, size_t size)
{
	names[0] = 0;
	size_t used = 0;
	const struct desktop_output *output;
	wl_list_for_each(output, outputs, link) {
		const char *name = desktop_output_name(output);
		int n = snprintf(names + used, size - used, "%s%s", used ? ", " : "",
				 name[0] ? name : "(unnamed)");
		if (n < 0 || (size_t)n >= size - used)
			break;
		used += (size_t)n;
	}
}

void desktop_outputs_list(const struct wl_list *outputs, FILE *out)
{
	const struct desktop_output *output;
	wl_list_for_each(output, outputs, link) {
		int x, y, width, height;
		desktop_output_box(output, &x, &y, &width, &height);
		const char *name = desktop_output_name(output);
		fprintf(out, "%s  %dx%d@%.3fHz  scale %d  logical %d,%d %dx%d\n",
			name[0] ? name : "(unnamed)", output->mode_width, output->mode_height,
			output->refresh_mhz / 1000.0, output->scale, x, y, width, height);
	}
}
