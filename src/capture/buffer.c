#include "buffer.h"

#include <assert.h>
#include <drm_fourcc.h>
#include <wayland-server-protocol.h>

#include "dmabuf_buffer.h"
#include "shm.h"

/* pixman names a format's channels from the top bit of the 32-bit word
 * down, DRM from the same word: the same order. XRGB8888 first: clients
 * that take the first format they see take the fast one. */
const struct client_format client_formats[] = {
	{ DRM_FORMAT_XRGB8888, PIXMAN_x8r8g8b8, true },
	{ DRM_FORMAT_ARGB8888, PIXMAN_a8r8g8b8, false },
	{ DRM_FORMAT_XBGR8888, PIXMAN_x8b8g8r8, true },
	{ DRM_FORMAT_ABGR8888, PIXMAN_a8b8g8r8, false },
	{ DRM_FORMAT_XRGB2101010, PIXMAN_x2r10g10b10, true },
	{ DRM_FORMAT_ARGB2101010, PIXMAN_a2r10g10b10, false },
	{ DRM_FORMAT_XBGR2101010, PIXMAN_x2b10g10r10, true },
	{ DRM_FORMAT_ABGR2101010, PIXMAN_a2b10g10r10, false },
};
const int client_format_count = (int)(sizeof(client_formats) / sizeof(client_formats[0]));

const struct client_format *client_format_from_drm(uint32_t drm_format)
{
	for (int i = 0; i < client_format_count; i++)
		if (client_formats[i].drm_format == drm_format)
			return &client_formats[i];
	return NULL;
}

uint32_t client_format_shm_code(const struct client_format *format)
{
	switch (format->drm_format) {
	case DRM_FORMAT_ARGB8888:
		return WL_SHM_FORMAT_ARGB8888;
	case DRM_FORMAT_XRGB8888:
		return WL_SHM_FORMAT_XRGB8888;
	default:
		return format->drm_format;
	}
}

const struct client_format *client_format_from_shm(uint32_t shm_format)
{
	for (int i = 0; i < client_format_count; i++)
		if (client_format_shm_code(&client_formats[i]) == shm_format)
			return &client_formats[i];
	return NULL;
}

bool client_format_is_native(pixman_format_code_t format)
{
	return format == PIXMAN_x8r8g8b8 || format == PIXMAN_a8r8g8b8;
}

struct client_buffer *client_buffer_try_from_resource(struct wl_resource *resource)
{
	/* One line per kind of buffer wl-record can read. */
	struct client_buffer *buffer = shm_buffer_try_from_resource(resource);
	if (!buffer)
		buffer = dmabuf_buffer_try_from_resource(resource);
	return buffer;
}

struct client_buffer *client_buffer_from_resource(struct wl_resource *resource)
{
	struct client_buffer *buffer = client_buffer_try_from_resource(resource);
	assert(buffer);
	return buffer;
}

int dmabuf_format_plane_count(uint32_t format)
{
	/* Every format read is single-plane (client_formats above). */
	return client_format_from_drm(format) ? 1 : 0;
}
