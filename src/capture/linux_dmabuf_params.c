#define LOG_MODULE "dmabuf"
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dmabuf_buffer.h"
#include "linux-dmabuf-unstable-v1-server-protocol.h"
#include "linux_dmabuf.h"
#include "log.h"

/* zwp_linux_buffer_params_v1: collects planes, checks them as the protocol
 * demands, and makes the wl_buffer. Every fd received is either handed to
 * the buffer or closed, on every path. */

struct dmabuf_params {
	struct wl_resource *resource;
	struct linux_dmabuf *dmabuf;
	struct dmabuf_attributes attributes;
	bool used;
};

static const struct zwp_linux_buffer_params_v1_interface params_impl;

static struct dmabuf_params *params_from_resource(struct wl_resource *resource)
{
	assert(wl_resource_instance_of(resource, &zwp_linux_buffer_params_v1_interface,
				       &params_impl));
	return wl_resource_get_user_data(resource);
}

static void params_handle_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static void params_handle_add(struct wl_client *client, struct wl_resource *resource, int32_t fd,
			      uint32_t plane_idx, uint32_t offset, uint32_t stride,
			      uint32_t modifier_hi, uint32_t modifier_lo)
{
	struct dmabuf_params *params = params_from_resource(resource);
	struct dmabuf_attributes *attributes = &params->attributes;
	uint64_t modifier = (uint64_t)modifier_hi << 32 | modifier_lo;

	if (params->used) {
		wl_resource_post_error(resource, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_ALREADY_USED,
				       "params were already used to create a wl_buffer");
		goto fail;
	}
	if (plane_idx >= DMABUF_MAX_PLANES) {
		wl_resource_post_error(resource, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_PLANE_IDX,
				       "plane index %u is not below %d", plane_idx,
				       DMABUF_MAX_PLANES);
		goto fail;
	}
	if (attributes->fd[plane_idx] >= 0) {
		wl_resource_post_error(resource, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_PLANE_SET,
				       "plane %u was already set", plane_idx);
		goto fail;
	}
	/* Every plane of a buffer shares one modifier. */
	if (attributes->n_planes > 0 && attributes->modifier != modifier) {
		wl_resource_post_error(resource, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_INVALID_FORMAT,
				       "plane %u has modifier 0x%016llx, earlier planes 0x%016llx",
				       plane_idx, (unsigned long long)modifier,
				       (unsigned long long)attributes->modifier);
		goto fail;
	}
	attributes->fd[plane_idx] = fd;
	attributes->offset[plane_idx] = offset;
	attributes->stride[plane_idx] = stride;
	attributes->modifier = modifier;
	attributes->n_planes++;
	return;

fail:
	close(fd);
}

/* Checks a plane against the size of its fd. Returns false after posting
 * OUT_OF_BOUNDS. */
static bool check_plane_bounds(struct wl_resource *resource, const struct dmabuf_attributes *a,
			       int plane)
{
	uint64_t offset = a->offset[plane], stride = a->stride[plane];
	/* Single-plane 32-bit formats: every row holds width pixels of 4 bytes. */
	uint64_t rows = (uint64_t)a->height, min_stride = (uint64_t)a->width * 4;

	if (offset + stride > UINT32_MAX || stride * rows + offset > UINT32_MAX) {
		wl_resource_post_error(resource, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_OUT_OF_BOUNDS,
				       "plane %d: offset %llu + stride %llu x %llu rows overflows 32 "
				       "bits", plane, (unsigned long long)offset,
				       (unsigned long long)stride, (unsigned long long)rows);
		return false;
	}
	if (a->modifier == 0 /* LINEAR */ && stride < min_stride) {
		wl_resource_post_error(resource, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_OUT_OF_BOUNDS,
				       "plane %d: stride %llu is less than a row (%llu bytes)",
				       plane, (unsigned long long)stride,
				       (unsigned long long)min_stride);
		return false;
	}
	off_t size = lseek(a->fd[plane], 0, SEEK_END);
	if (size < 0)
		return true; /* not seekable: the protocol lets us skip this check */
	if (offset >= (uint64_t)size || offset + stride * rows > (uint64_t)size) {
		wl_resource_post_error(resource, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_OUT_OF_BOUNDS,
				       "plane %d: offset %llu + stride %llu x %llu rows is past the "
				       "end of its fd (%lld bytes)", plane, (unsigned long long)offset,
				       (unsigned long long)stride, (unsigned long long)rows,
				       (long long)size);
		return false;
	}
	return true;
}

/* The checks the protocol lists, in its order. False after posting the error. */
static bool params_validate(struct dmabuf_params *params)
{
	struct wl_resource *resource = params->resource;
	struct dmabuf_attributes *a = &params->attributes;

	if (a->fd[0] < 0) {
		wl_resource_post_error(resource, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_INCOMPLETE,
				       "no plane 0");
		return false;
	}
	/* Planes must be 0..n-1 without holes. */
	for (int i = 0; i < a->n_planes; i++) {
		if (a->fd[i] < 0) {
			wl_resource_post_error(resource, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_INCOMPLETE,
					       "plane %d is missing below plane %d", i, a->n_planes - 1);
			return false;
		}
	}
	if (a->width <= 0 || a->height <= 0 || a->width > DMABUF_MAX_SIDE ||
	    a->height > DMABUF_MAX_SIDE) {
		wl_resource_post_error(resource, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_INVALID_DIMENSIONS,
				       "invalid size %dx%d (1 to %d per side)", a->width, a->height,
				       DMABUF_MAX_SIDE);
		return false;
	}
	int planes = dmabuf_format_plane_count(a->format);
	if (planes == 0) {
		wl_resource_post_error(resource, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_INVALID_FORMAT,
				       "format 0x%08x is not supported", a->format);
		return false;
	}
	if (a->n_planes != planes) {
		wl_resource_post_error(resource, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_INVALID_FORMAT,
				       "format 0x%08x has %d plane(s), %d were given", a->format,
				       planes, a->n_planes);
		return false;
	}
	if (!linux_dmabuf_accepts(params->dmabuf, a->format, a->modifier)) {
		wl_resource_post_error(resource, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_INVALID_FORMAT,
				       "modifier 0x%016llx was not advertised for format 0x%08x",
				       (unsigned long long)a->modifier, a->format);
		return false;
	}
	for (int i = 0; i < a->n_planes; i++)
		if (!check_plane_bounds(resource, a, i))
			return false;
	return true;
}

static void params_create_common(struct wl_client *client, struct dmabuf_params *params,
				 uint32_t buffer_id, int32_t width, int32_t height,
				 uint32_t format, uint32_t flags)
{
	struct wl_resource *resource = params->resource;
	if (params->used) {
		wl_resource_post_error(resource, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_ALREADY_USED,
				       "params were already used to create a wl_buffer");
		return;
	}
	params->used = true;
	struct dmabuf_attributes *a = &params->attributes;
	a->width = width;
	a->height = height;
	a->format = format;
	a->flags = flags;
	if (!params_validate(params))
		goto out;

	/* The buffer takes the fds, whatever happens next. */
	struct dmabuf_attributes taken = *a;
	dmabuf_attributes_init(a);
	char why[256] = "";
	struct wl_resource *buffer =
		dmabuf_buffer_create(params->dmabuf, client, buffer_id, &taken, why, sizeof(why));
	if (buffer) {
		if (buffer_id == 0)
			zwp_linux_buffer_params_v1_send_created(resource, buffer);
		goto out;
	}
	if (why[0] == '\0') /* out of memory, already posted */
		goto out;
	LOG_WARN("cannot use a %dx%d dmabuf (format 0x%08x, modifier 0x%016llx): %s", width,
		 height, format, (unsigned long long)taken.modifier, why);
	if (buffer_id == 0)
		zwp_linux_buffer_params_v1_send_failed(resource);
	else
		wl_resource_post_error(resource, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_INVALID_WL_BUFFER,
				       "cannot use this dmabuf: %s", why);
out:
	dmabuf_attributes_close(a);
}

static void params_handle_create(struct wl_client *client, struct wl_resource *resource,
				 int32_t width, int32_t height, uint32_t format, uint32_t flags)
{
	params_create_common(client, params_from_resource(resource), 0, width, height, format,
			     flags);
}

static void params_handle_create_immed(struct wl_client *client, struct wl_resource *resource,
				       uint32_t buffer_id, int32_t width, int32_t height,
				       uint32_t format, uint32_t flags)
{
	params_create_common(client, params_from_resource(resource), buffer_id, width, height,
			     format, flags);
}

static const struct zwp_linux_buffer_params_v1_interface params_impl = {
	.destroy = params_handle_destroy,
	.add = params_handle_add,
	.create = params_handle_create,
	.create_immed = params_handle_create_immed,
};

static void params_resource_destroy(struct wl_resource *resource)
{
	struct dmabuf_params *params = params_from_resource(resource);
	dmabuf_attributes_close(&params->attributes);
	free(params);
}

void linux_dmabuf_params_create(struct linux_dmabuf *dmabuf, struct wl_client *client,
				uint32_t version, uint32_t id)
{
	struct dmabuf_params *params = calloc(1, sizeof(*params));
	if (!params) {
		wl_client_post_no_memory(client);
		return;
	}
	params->dmabuf = dmabuf;
	dmabuf_attributes_init(&params->attributes);
	params->resource = wl_resource_create(client, &zwp_linux_buffer_params_v1_interface,
					      (int)version, id);
	if (!params->resource) {
		free(params);
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(params->resource, &params_impl, params,
				       params_resource_destroy);
}
