#ifndef WL_RECORD_WL_RECORD_BUFFER_H
#define WL_RECORD_WL_RECORD_BUFFER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dmabuf_attributes.h"

/* The one picture type of the frame path: a hosted client's wl_buffer
 * (wl_shm or linux-dmabuf), a buffer a desktop copies into (screencopy's
 * wl_shm or GBM buffers), a picture a PipeWire buffer was copied into, a
 * picture the nested compositor composed. Modelled on wlroots' wlr_buffer:
 *
 * - Its producer (whoever made it: the compositor, a pool) holds one
 *   reference from wl_record_buffer_init() and lets go with
 *   wl_record_buffer_drop().
 * - Consumers that keep its content past a call lock it
 *   (wl_record_buffer_lock, through frame_ref). While locked, the producer
 *   neither writes into it nor gives it back (a client's wl_buffer.release
 *   waits for the last unlock: hold, don't copy).
 * - Caches keyed by `id` (an import of a dmabuf into VA-API or the desktop)
 *   may keep the object alone with wl_record_buffer_ref/unref: that keeps
 *   the fds open and the memory mapped but holds nothing back.
 *
 * Locks and references may be dropped on any thread (the encoder's); the
 * impl's callbacks then run on that thread and queue what needs the
 * compositor's. */

struct wl_record_buffer;

struct wl_record_buffer_impl {
	/* The last reference went (any thread): free it. */
	void (*destroy)(struct wl_record_buffer *buffer);
	/* Optional. The last lock went (any thread): the producer may reuse it
	 * or give it back. */
	void (*unlocked)(struct wl_record_buffer *buffer);
	/* Optional. The pixels in memory, as `format` says, rows `*stride`
	 * bytes apart, readable until end_data_ptr_access. For memory of another
	 * process this starts the SIGBUS guard. False: no CPU mapping (a tiled
	 * dmabuf; use wl_record_buffer_read). */
	bool (*begin_data_ptr_access)(struct wl_record_buffer *buffer, const uint8_t **data,
				      int *stride);
	/* False when the memory faulted during the access (the impl has already
	 * told its owner, for a client a protocol error). */
	bool (*end_data_ptr_access)(struct wl_record_buffer *buffer);
	/* Optional. The dmabuf behind it (the fds stay the buffer's). */
	const struct dmabuf_attributes *(*get_dmabuf)(struct wl_record_buffer *buffer);
	/* Optional. The CPU fallback for a buffer without data-pointer access:
	 * its pixels into `dst` as XRGB8888, rows `dst_stride` bytes apart
	 * (mmap of a LINEAR dmabuf, an EGL readback on the compositor thread). */
	bool (*read)(struct wl_record_buffer *buffer, uint8_t *dst, int dst_stride, char *why,
		     size_t why_size);
};

struct wl_record_buffer {
	const struct wl_record_buffer_impl *impl;
	int width, height;
	uint32_t format; /* DRM fourcc of the pixels (DRM_FORMAT_XRGB8888 for frames) */
	uint64_t id;     /* never reused: a key for caches of imports */
	atomic_int locks;
	atomic_int refs; /* the producer's, one per lock, one per cache */
};

/* For producers: one reference (the producer's), no lock, a new id. */
void wl_record_buffer_init(struct wl_record_buffer *buffer, const struct wl_record_buffer_impl *impl,
			   int width, int height, uint32_t format);
/* The producer lets go; the buffer goes once the last lock and reference
 * have. NULL is accepted. */
void wl_record_buffer_drop(struct wl_record_buffer *buffer);

/* For consumers: keeps the content (and the object). Any thread. */
struct wl_record_buffer *wl_record_buffer_lock(struct wl_record_buffer *buffer);
/* Any thread; NULL is accepted. */
void wl_record_buffer_unlock(struct wl_record_buffer *buffer);
bool wl_record_buffer_is_locked(const struct wl_record_buffer *buffer);

/* For caches: keeps the object only. Any thread; NULL accepted by unref. */
struct wl_record_buffer *wl_record_buffer_ref(struct wl_record_buffer *buffer);
void wl_record_buffer_unref(struct wl_record_buffer *buffer);
/* True when the caller's reference is the only one: the producer and every
 * lock are gone, so a cache may drop its import. */
bool wl_record_buffer_unused(const struct wl_record_buffer *buffer);

bool wl_record_buffer_begin_data_ptr_access(struct wl_record_buffer *buffer,
					    const uint8_t **data, int *stride);
bool wl_record_buffer_end_data_ptr_access(struct wl_record_buffer *buffer);

/* NULL when it is not a dmabuf. */
const struct dmabuf_attributes *wl_record_buffer_get_dmabuf(struct wl_record_buffer *buffer);

/* Its pixels into `dst` (XRGB8888, rows `dst_stride` bytes apart), whatever
 * it is: a guarded copy through the data pointer, else the impl's read.
 * False with the reason in `why`. */
bool wl_record_buffer_read(struct wl_record_buffer *buffer, uint8_t *dst, int dst_stride,
			   char *why, size_t why_size);

#endif
