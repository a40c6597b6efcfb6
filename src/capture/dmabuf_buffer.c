#define LOG_MODULE "dmabuf"
#include "dmabuf_buffer.h"

#include <drm_fourcc.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wayland-server-protocol.h>

#include "client_dmabuf.h"
#include "dmabuf_read.h"
#include "egl_import.h"
#include "linux-dmabuf-unstable-v1-server-protocol.h"
#include "linux_dmabuf.h"
#include "log.h"
#include "sigbus_guard.h"

struct dmabuf_buffer {
	struct client_buffer base;
	struct linux_dmabuf *dmabuf;
	/* What frames lock instead of a copy: the fds and layout, the release
	 * after the last unlock (client_lease.h). The wl_buffer's reference. */
	struct client_lease *record;
	const struct dmabuf_attributes *attributes; /* the record's */
	bool is_dmabuf;    /* a real dma-buf, not a memfd standing in for one */
	/* LINEAR: the plane mapped for reading. */
	uint8_t *map;
	size_t map_size;
	/* Other modifiers: where the EGL readback lands. */
	uint8_t *readback;
	int readback_stride;
};

static const struct wl_buffer_interface dmabuf_buffer_impl;

struct client_buffer *dmabuf_buffer_try_from_resource(struct wl_resource *resource)
{
	if (!wl_resource_instance_of(resource, &wl_buffer_interface, &dmabuf_buffer_impl))
		return NULL;
	struct dmabuf_buffer *buffer = wl_resource_get_user_data(resource);
	return &buffer->base;
}

static bool linear_begin_read(struct dmabuf_buffer *buffer, const uint8_t **data, int *stride)
{
	/* Implicit sync: see dmabuf_read.h. */
	if (buffer->is_dmabuf) {
		dmabuf_wait_writers(buffer->attributes->fd[0]);
		dmabuf_sync_read(buffer->attributes->fd[0], true);
	}
	sigbus_guard_begin(buffer->map, buffer->map_size);
	*data = buffer->map + buffer->attributes->offset[0];
	*stride = (int)buffer->attributes->stride[0];
	return true;
}

static bool linear_end_read(struct dmabuf_buffer *buffer)
{
	bool intact = sigbus_guard_end();
	if (buffer->is_dmabuf)
		dmabuf_sync_read(buffer->attributes->fd[0], false);
	if (intact)
		return true;
	LOG_WARN("client's dmabuf shrank under its buffer (SIGBUS); disconnecting it");
	/* The params object is gone by now: the error goes on the wl_buffer,
	 * with the code the params would have used. */
	wl_resource_post_error(buffer->base.resource, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_OUT_OF_BOUNDS,
			       "dmabuf plane 0 is smaller than the buffer (SIGBUS on read)");
	return false;
}

static bool dmabuf_begin_read(struct client_buffer *base, const uint8_t **data, int *stride)
{
	struct dmabuf_buffer *buffer = wl_container_of(base, buffer, base);
	if (buffer->map)
		return linear_begin_read(buffer, data, stride);

	char why[256] = "";
	if (!egl_importer_read(buffer->dmabuf->egl, buffer->attributes, buffer->readback,
			       buffer->readback_stride, why, sizeof(why))) {
		LOG_WARN("EGL readback of a dmabuf failed: %s", why);
		wl_resource_post_error(buffer->base.resource,
				       ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_INVALID_WL_BUFFER,
				       "the dmabuf could not be read: %s", why);
		return false;
	}
	*data = buffer->readback;
	*stride = buffer->readback_stride;
	return true;
}

static bool dmabuf_end_read(struct client_buffer *base)
{
	struct dmabuf_buffer *buffer = wl_container_of(base, buffer, base);
	return buffer->map ? linear_end_read(buffer) : true;
}

static const struct client_buffer_impl dmabuf_client_buffer_impl = {
	.begin_read = dmabuf_begin_read,
	.end_read = dmabuf_end_read,
};

static void buffer_handle_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static const struct wl_buffer_interface dmabuf_buffer_impl = {
	.destroy = buffer_handle_destroy,
};

static void buffer_free(struct dmabuf_buffer *buffer)
{
	if (buffer->record)
		client_lease_set_resource(buffer->record, NULL);
	if (buffer->map)
		munmap(buffer->map, buffer->map_size);
	free(buffer->readback);
	if (buffer->record)
		wl_record_buffer_drop(&buffer->record->base);
	free(buffer);
}

static void buffer_resource_destroy(struct wl_resource *resource)
{
	buffer_free(wl_resource_get_user_data(resource));
}

/* LINEAR: a CPU mapping of plane 0 (read-only, shared: we never write). */
static bool map_linear(struct dmabuf_buffer *buffer, char *why, size_t why_size)
{
	const struct dmabuf_attributes *a = buffer->attributes;
	size_t size = (size_t)a->offset[0] + (size_t)a->stride[0] * (size_t)a->height;
	void *map = mmap(NULL, size, PROT_READ, MAP_SHARED, a->fd[0], 0);
	if (map == MAP_FAILED) {
		snprintf(why, why_size, "cannot mmap the LINEAR plane: %s", strerror(errno));
		return false;
	}
	buffer->map = map;
	buffer->map_size = size;
	return true;
}

static bool prepare_egl(struct dmabuf_buffer *buffer, char *why, size_t why_size)
{
	const struct dmabuf_attributes *a = buffer->attributes;
	if (!buffer->dmabuf->egl) {
		snprintf(why, why_size, "no EGL importer for modifier 0x%016llx",
			 (unsigned long long)a->modifier);
		return false;
	}
	if (!egl_importer_check(buffer->dmabuf->egl, a, why, why_size))
		return false;
	buffer->readback_stride = a->width * 4;
	buffer->readback = malloc((size_t)buffer->readback_stride * (size_t)a->height);
	if (!buffer->readback) {
		snprintf(why, why_size, "out of memory for the readback");
		return false;
	}
	return true;
}

struct wl_resource *dmabuf_buffer_create(struct linux_dmabuf *dmabuf, struct wl_client *client,
					 uint32_t id, struct dmabuf_attributes *attributes,
					 char *why, size_t why_size)
{
	if (attributes->flags != 0) {
		/* y_invert and interlacing: nothing that presents a desktop sends them. */
		snprintf(why, why_size, "flags 0x%x (y_invert/interlaced) are not supported",
			 attributes->flags);
		dmabuf_attributes_close(attributes);
		return NULL;
	}
	struct dmabuf_buffer *buffer = calloc(1, sizeof(*buffer));
	if (!buffer) {
		dmabuf_attributes_close(attributes);
		wl_client_post_no_memory(client);
		return NULL;
	}
	buffer->dmabuf = dmabuf;
	buffer->is_dmabuf = dmabuf_fd_is_dmabuf(attributes->fd[0]);
	buffer->record = client_dmabuf_create(attributes, dmabuf->egl, dmabuf->releases);
	if (!buffer->record) {
		free(buffer);
		wl_client_post_no_memory(client);
		return NULL;
	}
	buffer->attributes = wl_record_buffer_get_dmabuf(&buffer->record->base);

	/* Pick the reader now, so that an unusable buffer fails at creation. */
	bool readable = buffer->attributes->modifier == DRM_FORMAT_MOD_LINEAR
				? map_linear(buffer, why, why_size)
				: prepare_egl(buffer, why, why_size);
	if (!readable) {
		buffer_free(buffer);
		return NULL;
	}

	buffer->base.resource = wl_resource_create(client, &wl_buffer_interface, 1, id);
	if (!buffer->base.resource) {
		buffer_free(buffer);
		why[0] = '\0';
		wl_client_post_no_memory(client);
		return NULL;
	}
	client_lease_set_resource(buffer->record, buffer->base.resource);
	buffer->base.impl = &dmabuf_client_buffer_impl;
	buffer->base.width = buffer->attributes->width;
	buffer->base.height = buffer->attributes->height;
	/* Checked by params_validate: one of client_formats. */
	const struct client_format *format = client_format_from_drm(buffer->attributes->format);
	buffer->base.opaque = format->opaque;
	/* The EGL readback converts to the surface copy's layout on the GPU. */
	buffer->base.format = buffer->map ? format->pixman
			      : format->opaque ? PIXMAN_x8r8g8b8 : PIXMAN_a8r8g8b8;
	wl_resource_set_implementation(buffer->base.resource, &dmabuf_buffer_impl, buffer,
				       buffer_resource_destroy);
	return buffer->base.resource;
}

struct wl_record_buffer *dmabuf_buffer_lock(struct client_buffer *base)
{
	if (!base || base->impl != &dmabuf_client_buffer_impl)
		return NULL;
	struct dmabuf_buffer *buffer = wl_container_of(base, buffer, base);
	/* Consumers of a locked buffer (the encoder's reads, VA-API's import)
	 * take XRGB8888/ARGB8888 only: other formats are copied and converted. */
	uint32_t format = buffer->attributes->format;
	if (format != DRM_FORMAT_XRGB8888 && format != DRM_FORMAT_ARGB8888)
		return NULL;
	return client_lease_lock(buffer->record);
}
