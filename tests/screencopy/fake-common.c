#include "fake-common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pattern.h"

_Noreturn void fake_die(const char *who, const char *message)
{
	fprintf(stderr, "%s: %s\n", who, message);
	exit(1);
}

static void output_release(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static const struct wl_output_interface output_impl = { .release = output_release };

static void send_mode(struct wl_resource *resource, const struct fake_output *output)
{
	wl_output_send_mode(resource, WL_OUTPUT_MODE_CURRENT, output->width, output->height, 60000);
	if (wl_resource_get_version(resource) >= 2)
		wl_output_send_done(resource);
}

static void unlink_resource(struct wl_resource *resource)
{
	wl_list_remove(wl_resource_get_link(resource));
}

static void bind_output(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct fake_output *output = data;
	struct wl_resource *resource = wl_resource_create(client, &wl_output_interface, (int)version, id);
	if (!resource) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &output_impl, output, unlink_resource);
	wl_list_insert(&output->resources, wl_resource_get_link(resource));
	wl_output_send_geometry(resource, 0, 0, 0, 0, WL_OUTPUT_SUBPIXEL_UNKNOWN, "fake", "fake",
				output->transform);
	if (version >= 2)
		wl_output_send_scale(resource, output->scale);
	send_mode(resource, output);
}

bool fake_output_init(struct fake_output *output, struct wl_display *display, int width,
		      int height)
{
	wl_list_init(&output->resources);
	output->width = width;
	output->height = height;
	output->scale = 1;
	output->global = wl_global_create(display, &wl_output_interface, 3, output, bind_output);
	return output->global != NULL;
}

void fake_output_set_mode(struct fake_output *output, int width, int height)
{
	output->width = width;
	output->height = height;
	struct wl_resource *resource;
	wl_resource_for_each(resource, &output->resources)
		send_mode(resource, output);
}

void fake_output_remove(struct fake_output *output)
{
	if (output->global)
		wl_global_destroy(output->global);
	output->global = NULL;
}

uint32_t fake_shm_format(const char *name)
{
	return strcmp(name, "argb") == 0 ? WL_SHM_FORMAT_ARGB8888
	       : strcmp(name, "xbgr") == 0 ? WL_SHM_FORMAT_XBGR8888
	       : strcmp(name, "abgr") == 0 ? WL_SHM_FORMAT_ABGR8888
	       : WL_SHM_FORMAT_XRGB8888;
}

static uint32_t in_format(uint32_t xrgb, uint32_t format)
{
	if (format == WL_SHM_FORMAT_XBGR8888 || format == WL_SHM_FORMAT_ABGR8888)
		return (xrgb & 0xff00u) | ((xrgb >> 16) & 0xffu) | ((xrgb & 0xffu) << 16) | 0xff000000u;
	return xrgb | 0xff000000u;
}

bool fake_fill(struct wl_shm_buffer *shm, uint32_t format, int width, int height, int picture,
	       int background, bool y_invert, int x1, int y1, int x2, int y2)
{
	if (!shm || wl_shm_buffer_get_width(shm) != width ||
	    wl_shm_buffer_get_height(shm) != height || wl_shm_buffer_get_format(shm) != format)
		return false;
	int stride = wl_shm_buffer_get_stride(shm);
	x1 = x1 < 0 ? 0 : x1;
	y1 = y1 < 0 ? 0 : y1;
	x2 = x2 > width ? width : x2;
	y2 = y2 > height ? height : y2;
	wl_shm_buffer_begin_access(shm);
	uint8_t *bytes = wl_shm_buffer_get_data(shm);
	for (int y = y1; y < y2; y++) {
		int row = y_invert ? height - 1 - y : y;
		uint32_t *out = (uint32_t *)(bytes + (size_t)stride * (size_t)row);
		for (int x = x1; x < x2; x++)
			out[x] = in_format(pattern_pixel_with_background(picture, background, x, y,
									 width, height),
					   format);
	}
	wl_shm_buffer_end_access(shm);
	return true;
}

void fake_args_init(struct fake_args *args)
{
	*args = (struct fake_args){ .format = WL_SHM_FORMAT_XRGB8888, .frames = 1, .fail_at = -1 };
}

bool fake_common_option(const char *who, int opt, const char *arg, struct fake_args *args)
{
	switch (opt) {
	case 's': args->socket = arg; return true;
	case 'z':
		if (sscanf(arg, "%dx%d", &args->width, &args->height) != 2)
			fake_die(who, "bad --size");
		return true;
	case 'f': args->format = fake_shm_format(arg); return true;
	case 'n': args->frames = atoi(arg); return true;
	case 'x': args->fail_at = atoi(arg); return true;
	case 'D': args->dmabuf = true; return true;
	default: return false;
	}
}

struct wl_display *fake_display_create(const char *who, const struct fake_args *args,
				       struct fake_output *output)
{
	if (!args->socket || args->width < 1 || args->height < 1 || args->frames < 1)
		fake_die(who, "give --socket NAME --size WxH (and --frames >= 1)");
	struct wl_display *display = wl_display_create();
	if (!display || wl_display_add_socket(display, args->socket) < 0)
		fake_die(who, "cannot create the display or its socket");
	if (wl_display_init_shm(display) < 0)
		fake_die(who, "cannot offer wl_shm");
	wl_display_add_shm_format(display, WL_SHM_FORMAT_XBGR8888);
	wl_display_add_shm_format(display, WL_SHM_FORMAT_ABGR8888);
	if (!fake_output_init(output, display, args->width, args->height))
		fake_die(who, "cannot create the output");
	return display;
}

int64_t fake_now_ns(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}
