#define LOG_MODULE "dmabuf"
#include "client_dmabuf.h"

#include <drm_fourcc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <wayland-server-protocol.h>

#include "dmabuf_read.h"
#include "egl_import.h"
#include "linux-dmabuf-unstable-v1-server-protocol.h"
#include "log.h"

struct client_dmabuf {
	struct client_lease lease;
	struct dmabuf_attributes attributes; /* the fds are ours */
	bool is_dmabuf; /* a real dma-buf, not a memfd standing in for one */
	struct egl_importer *egl;
	pthread_t main_thread; /* the only one that may use `egl` */
};

static bool client_dmabuf_read(struct wl_record_buffer *base, uint8_t *dst, int dst_stride,
			       char *why, size_t why_size)
{
	struct client_dmabuf *buffer = wl_container_of(base, buffer, lease.base);
	const struct dmabuf_attributes *attributes = &buffer->attributes;
	if (attributes->modifier == DRM_FORMAT_MOD_LINEAR)
		return dmabuf_read_linear(attributes, buffer->is_dmabuf, dst, dst_stride, why,
					  why_size);
	if (!buffer->egl) {
		snprintf(why, why_size, "no EGL importer for modifier 0x%016llx",
			 (unsigned long long)attributes->modifier);
		return false;
	}
	if (!pthread_equal(pthread_self(), buffer->main_thread)) {
		snprintf(why, why_size, "EGL readback only runs on the compositor thread");
		return false;
	}
	return egl_importer_read(buffer->egl, attributes, dst, dst_stride, why, why_size);
}

static const struct dmabuf_attributes *client_dmabuf_get_dmabuf(struct wl_record_buffer *base)
{
	struct client_dmabuf *buffer = wl_container_of(base, buffer, lease.base);
	return &buffer->attributes;
}

/* Any thread: the last reference went. */
static void client_dmabuf_destroy(struct wl_record_buffer *base)
{
	struct client_dmabuf *buffer = wl_container_of(base, buffer, lease.base);
	dmabuf_attributes_close(&buffer->attributes);
	client_lease_finish(&buffer->lease);
	free(buffer);
}

static const struct wl_record_buffer_impl client_dmabuf_impl = {
	.destroy = client_dmabuf_destroy,
	.unlocked = client_lease_unlocked,
	.get_dmabuf = client_dmabuf_get_dmabuf,
	.read = client_dmabuf_read,
};

struct client_lease *client_dmabuf_create(struct dmabuf_attributes *attributes,
					  struct egl_importer *egl,
					  struct client_release_queue *queue)
{
	struct client_dmabuf *buffer = calloc(1, sizeof(*buffer));
	if (!buffer) {
		dmabuf_attributes_close(attributes);
		return NULL;
	}
	client_lease_init(&buffer->lease, &client_dmabuf_impl, attributes->width,
			  attributes->height, attributes->format, queue);
	buffer->lease.fault_code = ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_OUT_OF_BOUNDS;
	buffer->lease.fault_message = "dmabuf plane 0 is smaller than the buffer (SIGBUS on read)";
	buffer->attributes = *attributes;
	dmabuf_attributes_init(attributes);
	buffer->is_dmabuf = dmabuf_fd_is_dmabuf(buffer->attributes.fd[0]);
	buffer->egl = egl;
	buffer->main_thread = pthread_self();
	return &buffer->lease;
}
