#include "dmabuf_attributes.h"

#include <drm_fourcc.h>
#include <sys/vfs.h>
#include <unistd.h>

/* From linux/magic.h; spelled out so older headers still build. */
#define DMA_BUF_FS_MAGIC 0x444d4142

void dmabuf_attributes_init(struct dmabuf_attributes *attributes)
{
	*attributes = (struct dmabuf_attributes){ .modifier = DRM_FORMAT_MOD_INVALID };
	for (int i = 0; i < DMABUF_MAX_PLANES; i++)
		attributes->fd[i] = -1;
}

void dmabuf_attributes_close(struct dmabuf_attributes *attributes)
{
	for (int i = 0; i < DMABUF_MAX_PLANES; i++) {
		if (attributes->fd[i] >= 0)
			close(attributes->fd[i]);
		attributes->fd[i] = -1;
	}
}

bool dmabuf_fd_is_dmabuf(int fd)
{
	struct statfs info;
	return fstatfs(fd, &info) == 0 && info.f_type == DMA_BUF_FS_MAGIC;
}
