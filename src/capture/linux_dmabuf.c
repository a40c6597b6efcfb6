#define LOG_MODULE "dmabuf"
#include "linux_dmabuf.h"

#include <dirent.h>
#include <errno.h>
#include <drm_fourcc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buffer.h"
#include "client_dmabuf.h"
#include "egl_import.h"
#include "linux-dmabuf-unstable-v1-server-protocol.h"
#include "log.h"
#include "sigbus_guard.h"

#define LINUX_DMABUF_VERSION 4

bool linux_dmabuf_accepts(const struct linux_dmabuf *dmabuf, uint32_t format, uint64_t modifier)
{
	for (int i = 0; i < dmabuf->n_formats; i++)
		if (dmabuf->formats[i].format == format && dmabuf->formats[i].modifier == modifier)
			return true;
	return false;
}

static bool add_format(struct linux_dmabuf *dmabuf, uint32_t format, uint64_t modifier)
{
	if (linux_dmabuf_accepts(dmabuf, format, modifier))
		return true;
	struct linux_dmabuf_format *formats =
		realloc(dmabuf->formats, sizeof(*formats) * (size_t)(dmabuf->n_formats + 1));
	if (!formats)
		return false;
	formats[dmabuf->n_formats++] = (struct linux_dmabuf_format){ format, modifier };
	dmabuf->formats = formats;
	return true;
}

/* The first render node, the one the VA-API encoder picks by default too. */
static bool find_render_node(struct linux_dmabuf *dmabuf)
{
	DIR *dir = opendir("/dev/dri");
	if (!dir)
		return false;
	bool found = false;
	char best[64] = "";
	struct dirent *entry;
	while ((entry = readdir(dir))) {
		if (strncmp(entry->d_name, "renderD", 7) != 0)
			continue;
		char path[64];
		if (strlen(entry->d_name) > 32)
			continue;
		snprintf(path, sizeof(path), "/dev/dri/%.32s", entry->d_name);
		if (!best[0] || strcmp(path, best) < 0)
			memcpy(best, path, sizeof(best));
	}
	closedir(dir);
	struct stat info;
	if (best[0] && stat(best, &info) == 0 && S_ISCHR(info.st_mode)) {
		memcpy(dmabuf->render_node, best, sizeof(best));
		dmabuf->main_device = info.st_rdev;
		found = true;
	}
	return found;
}

static void add_egl_formats(struct linux_dmabuf *dmabuf)
{
	char why[256] = "";
	dmabuf->egl = egl_importer_create(dmabuf->render_node, why, sizeof(why));
	if (!dmabuf->egl) {
		LOG_INFO("no EGL dmabuf import (%s): only LINEAR dmabufs are accepted", why);
		return;
	}
	/* The readback gives XRGB8888 whatever the format (egl_import.h). */
	for (int f = 0; f < client_format_count; f++) {
		uint32_t format = client_formats[f].drm_format;
		uint64_t modifiers[64];
		int n = egl_importer_query_modifiers(dmabuf->egl, format, modifiers, 64);
		for (int i = 0; i < n; i++)
			if (!add_format(dmabuf, format, modifiers[i]))
				return;
	}
}

static void handle_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static void handle_create_params(struct wl_client *client, struct wl_resource *resource,
				 uint32_t id)
{
	linux_dmabuf_params_create(wl_resource_get_user_data(resource), client,
				   (uint32_t)wl_resource_get_version(resource), id);
}

static void handle_get_default_feedback(struct wl_client *client, struct wl_resource *resource,
					uint32_t id)
{
	linux_dmabuf_feedback_create(wl_resource_get_user_data(resource), client,
				     (uint32_t)wl_resource_get_version(resource), id);
}

static void handle_get_surface_feedback(struct wl_client *client, struct wl_resource *resource,
					uint32_t id, struct wl_resource *surface_resource)
{
	/* One device and one way of consuming buffers, whatever the surface:
	 * the per-surface feedback is the default one. */
	handle_get_default_feedback(client, resource, id);
}

static const struct zwp_linux_dmabuf_v1_interface linux_dmabuf_impl = {
	.destroy = handle_destroy,
	.create_params = handle_create_params,
	.get_default_feedback = handle_get_default_feedback,
	.get_surface_feedback = handle_get_surface_feedback,
};

static void linux_dmabuf_bind(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct linux_dmabuf *dmabuf = data;
	struct wl_resource *resource =
		wl_resource_create(client, &zwp_linux_dmabuf_v1_interface, (int)version, id);
	if (!resource) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &linux_dmabuf_impl, dmabuf, NULL);
	/* Version 4 clients learn formats from the feedback object only. */
	if (version >= 4)
		return;
	for (int f = 0; f < client_format_count; f++) {
		uint32_t format = client_formats[f].drm_format;
		zwp_linux_dmabuf_v1_send_format(resource, format);
		if (version < ZWP_LINUX_DMABUF_V1_MODIFIER_SINCE_VERSION)
			continue;
		for (int i = 0; i < dmabuf->n_formats; i++)
			if (dmabuf->formats[i].format == format)
				zwp_linux_dmabuf_v1_send_modifier(
					resource, format,
					(uint32_t)(dmabuf->formats[i].modifier >> 32),
					(uint32_t)(dmabuf->formats[i].modifier & 0xffffffff));
	}
}

static void linux_dmabuf_free(struct linux_dmabuf *dmabuf)
{
	if (dmabuf->table_fd >= 0)
		close(dmabuf->table_fd);
	client_release_queue_destroy(dmabuf->releases);
	egl_importer_destroy(dmabuf->egl);
	free(dmabuf->formats);
	free(dmabuf);
}

static void handle_display_destroy(struct wl_listener *listener, void *data)
{
	struct linux_dmabuf *dmabuf = wl_container_of(listener, dmabuf, display_destroy);
	wl_list_remove(&dmabuf->display_destroy.link);
	wl_global_destroy(dmabuf->global);
	linux_dmabuf_free(dmabuf);
}

struct linux_dmabuf *linux_dmabuf_create(struct wl_display *display)
{
	if (!sigbus_guard_install())
		return NULL;
	struct linux_dmabuf *dmabuf = calloc(1, sizeof(*dmabuf));
	if (!dmabuf) {
		LOG_ERRNO("cannot allocate the linux-dmabuf global");
		return NULL;
	}
	dmabuf->table_fd = -1;
	dmabuf->releases = client_release_queue_create(wl_display_get_event_loop(display));
	if (!dmabuf->releases)
		goto fail;
	/* LINEAR: read by the CPU and converted like shm (buffer.h). */
	for (int f = 0; f < client_format_count; f++)
		if (!add_format(dmabuf, client_formats[f].drm_format, DRM_FORMAT_MOD_LINEAR))
			goto fail;
	dmabuf->has_render_node = find_render_node(dmabuf);
	if (dmabuf->has_render_node)
		add_egl_formats(dmabuf);
	else /* a normal machine without a GPU: nothing for the user to do */
		LOG_DBG("no render node in /dev/dri: LINEAR dmabufs only, read by the CPU");
	if (!linux_dmabuf_feedback_make_table(dmabuf))
		goto fail;
	dmabuf->global = wl_global_create(display, &zwp_linux_dmabuf_v1_interface,
					  LINUX_DMABUF_VERSION, dmabuf, linux_dmabuf_bind);
	if (!dmabuf->global) {
		LOG_ERR("cannot create the zwp_linux_dmabuf_v1 global");
		goto fail;
	}
	dmabuf->display_destroy.notify = handle_display_destroy;
	wl_display_add_destroy_listener(display, &dmabuf->display_destroy);
	return dmabuf;

fail:
	linux_dmabuf_free(dmabuf);
	return NULL;
}
