#ifndef WL_RECORD_DMABUF_ATTRIBUTES_H
#define WL_RECORD_DMABUF_ATTRIBUTES_H

#include <stdbool.h>
#include <stdint.h>

/* What a client described with zwp_linux_buffer_params_v1: the planes of one
 * buffer, each an fd wl-record owns. */

#define DMABUF_MAX_PLANES 4

struct dmabuf_attributes {
	int32_t width, height;
	uint32_t format;   /* DRM fourcc */
	uint32_t flags;    /* zwp_linux_buffer_params_v1.flags */
	uint64_t modifier;
	int n_planes;
	int fd[DMABUF_MAX_PLANES];     /* -1 when unset */
	uint32_t offset[DMABUF_MAX_PLANES];
	uint32_t stride[DMABUF_MAX_PLANES];
};

void dmabuf_attributes_init(struct dmabuf_attributes *attributes);

/* Closes every plane fd still held (accepts already closed ones). */
void dmabuf_attributes_close(struct dmabuf_attributes *attributes);

/* True when the fd is a real dma-buf (its filesystem is dmabuf), false for
 * anything else that can be mmapped (a memfd on these test machines). */
bool dmabuf_fd_is_dmabuf(int fd);

#endif
