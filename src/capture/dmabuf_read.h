#ifndef WL_RECORD_DMABUF_READ_H
#define WL_RECORD_DMABUF_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dmabuf_attributes.h"

/* A GPU client commits when its rendering is queued, not done. Before the CPU
 * reads a real dma-buf it waits for the buffer's implicit write fences: a
 * dma-buf fd polls readable once they have signalled (bounded by
 * DMABUF_FENCE_WAIT_MS: a fence still pending then is a hung GPU or a hostile
 * client, and the frame is read as it is). Then DMA_BUF_IOCTL_SYNC brackets
 * the access (cache maintenance on non-coherent hardware). A memfd has
 * neither: it polls readable at once, the ioctl is not attempted (it would
 * fail with ENOTTY, which is tolerated anyway). */
#define DMABUF_FENCE_WAIT_MS 100

void dmabuf_wait_writers(int fd);
/* `start`: DMA_BUF_SYNC_START, else DMA_BUF_SYNC_END (read access). */
void dmabuf_sync_read(int fd, bool start);

/* Maps plane 0 of a LINEAR single-plane buffer and copies it into `dst`,
 * SIGBUS-guarded; any thread. */
bool dmabuf_read_linear(const struct dmabuf_attributes *attributes, bool is_dmabuf, uint8_t *dst,
			int dst_stride, char *why, size_t why_size);

#endif
