#ifndef WL_RECORD_DMABUF_LEASE_H
#define WL_RECORD_DMABUF_LEASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dmabuf_attributes.h"

/* A client's dmabuf lent to the encoder: the zero-copy path's alternative to
 * pixels in a struct frame. The client's wl_buffer is released when the last
 * lease on it ends, so the GPU memory stays untouched until the encoder is
 * done with it.
 *
 * Leases are taken on the compositor (main) thread and may be dropped on any
 * thread: dropping queues the release, which the main loop sends. The planes
 * stay open while a lease exists, even after the client destroyed the
 * wl_buffer. */

struct dmabuf_lease;

struct dmabuf_lease *dmabuf_lease_ref(struct dmabuf_lease *lease);

/* Any thread; NULL is accepted. */
void dmabuf_lease_unref(struct dmabuf_lease *lease);

const struct dmabuf_attributes *dmabuf_lease_attributes(const struct dmabuf_lease *lease);

/* Stays the same for every lease on one client buffer, and is never reused:
 * a key for caches of imported buffers. */
uint64_t dmabuf_lease_buffer_id(const struct dmabuf_lease *lease);

/* The planes alone, for caches of imports: keeps the fds open, holds no
 * wl_buffer back from release. Any thread. */
struct dmabuf_planes;
struct dmabuf_planes *dmabuf_lease_planes_ref(struct dmabuf_lease *lease);
void dmabuf_planes_unref(struct dmabuf_planes *planes);

/* The CPU fallback: reads the buffer into `dst` (XRGB8888, rows `dst_stride`
 * bytes apart). LINEAR buffers from any thread (mmap, fences waited for,
 * DMA_BUF_IOCTL_SYNC, SIGBUS-guarded); other modifiers through EGL, on the
 * compositor thread only. False with the reason in `why`. */
bool dmabuf_lease_read(struct dmabuf_lease *lease, uint8_t *dst, int dst_stride, char *why,
		       size_t why_size);

#endif
