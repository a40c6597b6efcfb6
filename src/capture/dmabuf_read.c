#define LOG_MODULE "dmabuf"
#include "dmabuf_read.h"

#include <errno.h>
#include <linux/dma-buf.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "log.h"
#include "sigbus_guard.h"

void dmabuf_wait_writers(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int ready;
	do {
		ready = poll(&pfd, 1, DMABUF_FENCE_WAIT_MS);
	} while (ready < 0 && errno == EINTR);
	if (ready == 0)
		LOG_WARN("dmabuf still being written after %d ms; reading it anyway",
			 DMABUF_FENCE_WAIT_MS);
}

void dmabuf_sync_read(int fd, bool start)
{
	struct dma_buf_sync sync = {
		.flags = (start ? DMA_BUF_SYNC_START : DMA_BUF_SYNC_END) | DMA_BUF_SYNC_READ,
	};
	int ret;
	do {
		ret = ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync);
	} while (ret < 0 && (errno == EINTR || errno == EAGAIN));
	if (ret < 0 && errno != ENOTTY)
		LOG_DBG("DMA_BUF_IOCTL_SYNC: %s", strerror(errno));
}

bool dmabuf_read_linear(const struct dmabuf_attributes *a, bool is_dmabuf, uint8_t *dst,
			int dst_stride, char *why, size_t why_size)
{
	size_t size = (size_t)a->offset[0] + (size_t)a->stride[0] * (size_t)a->height;
	uint8_t *map = mmap(NULL, size, PROT_READ, MAP_SHARED, a->fd[0], 0);
	if (map == MAP_FAILED) {
		snprintf(why, why_size, "cannot mmap the LINEAR plane: %s", strerror(errno));
		return false;
	}
	if (is_dmabuf) {
		dmabuf_wait_writers(a->fd[0]);
		dmabuf_sync_read(a->fd[0], true);
	}
	sigbus_guard_begin(map, size);
	size_t row = (size_t)a->width * 4;
	for (int y = 0; y < a->height; y++)
		memcpy(dst + (size_t)y * (size_t)dst_stride,
		       map + a->offset[0] + (size_t)y * a->stride[0], row);
	bool intact = sigbus_guard_end();
	if (is_dmabuf)
		dmabuf_sync_read(a->fd[0], false);
	munmap(map, size);
	if (!intact)
		snprintf(why, why_size, "the plane is smaller than the buffer (SIGBUS)");
	return intact;
}
