#ifndef WL_RECORD_DMABUF_LEASE_H
#define WL_RECORD_DMABUF_LEASE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dmabuf_attributes.h"
#include "frame.h"

/* A client's dmabuf lent to the encoder: the zero-copy path's alternative to
 * pixels in a struct frame. The client's wl_buffer is released when the last
 * lease on it ends, so the GPU memory stays untouched until the encoder is
 * done with it.
 *
 * Leases are taken on the compositor (main) thread and may be dropped on any
 * thread: dropping queues the release, which the main loop sends. The planes
 * stay open while a lease exists, even after the client destroyed the
 * wl_buffer. */

/* A lease is a reference to one picture a source lends; the planes are the
 * buffer's fds and layout, shared by all its leases. Both are reference
 * counted and may be dropped on any thread. The source that lends them (the
 * compositor's client buffers today; buffers a capture source allocates
 * later) embeds these structures and says, through the impl, what ending
 * one means. The encoder sees only the functions below. */
struct dmabuf_planes;
struct dmabuf_lease;

struct dmabuf_planes_impl {
	/* The CPU fallback of dmabuf_lease_read(). */
	bool (*read)(struct dmabuf_planes *planes, uint8_t *dst, int dst_stride, char *why,
		     size_t why_size);
	/* The last reference went (any thread): close the fds, free the planes. */
	void (*destroy)(struct dmabuf_planes *planes);
};

struct dmabuf_planes {
	const struct dmabuf_planes_impl *impl;
	atomic_int refs;
	uint64_t id;
	struct dmabuf_attributes attributes; /* the fds belong to the planes */
};

struct dmabuf_lease_impl {
	/* The last reference went (any thread): give the buffer back when it is
	 * safe, unreference the planes and free the lease. */
	void (*end)(struct dmabuf_lease *lease);
};

struct dmabuf_lease {
	const struct dmabuf_lease_impl *impl;
	atomic_int refs;
	struct dmabuf_planes *planes; /* a reference of the lease's own */
};

/* For the lender. The planes copy `attributes` (taking its fds) with one
 * reference and an id never used before; the lease takes one reference of
 * the planes and starts with one of its own. */
void dmabuf_planes_init(struct dmabuf_planes *planes, const struct dmabuf_planes_impl *impl,
			const struct dmabuf_attributes *attributes);
void dmabuf_lease_init(struct dmabuf_lease *lease, const struct dmabuf_lease_impl *impl,
		       struct dmabuf_planes *planes);

struct dmabuf_lease *dmabuf_lease_ref(struct dmabuf_lease *lease);

/* Any thread; NULL is accepted. */
void dmabuf_lease_unref(struct dmabuf_lease *lease);

const struct dmabuf_attributes *dmabuf_lease_attributes(const struct dmabuf_lease *lease);

/* Stays the same for every lease on one buffer, and is never reused: a key
 * for caches of imported buffers. */
uint64_t dmabuf_lease_buffer_id(const struct dmabuf_lease *lease);

/* The planes alone, for caches of imports: keeps the fds open, holds no
 * buffer back from its release. Any thread; NULL is accepted by unref. */
struct dmabuf_planes *dmabuf_lease_planes_ref(struct dmabuf_lease *lease);
const struct dmabuf_attributes *dmabuf_planes_attributes(const struct dmabuf_planes *planes);
void dmabuf_planes_unref(struct dmabuf_planes *planes);
/* True when the caller's reference is the only one left: the buffer and
 * every lease on it are gone, so a cache may drop its import. */
bool dmabuf_planes_unused(const struct dmabuf_planes *planes);

/* The CPU fallback: reads the buffer into `dst` (XRGB8888, rows `dst_stride`
 * bytes apart). The compositor's buffers: LINEAR ones from any thread (mmap,
 * fences waited for, DMA_BUF_IOCTL_SYNC, SIGBUS-guarded), other modifiers
 * through EGL on the compositor thread only. False with the reason in `why`. */
bool dmabuf_lease_read(struct dmabuf_lease *lease, uint8_t *dst, int dst_stride, char *why,
		       size_t why_size);

/* For a frame whose `dmabuf` is a lease and whose `picture` is that lease:
 * a kept frame holds one more lease (every source that lends dmabufs). */
extern const struct frame_picture_impl dmabuf_lease_picture;

#endif
