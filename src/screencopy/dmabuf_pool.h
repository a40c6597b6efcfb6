#ifndef WL_RECORD_DMABUF_POOL_H
#define WL_RECORD_DMABUF_POOL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <wayland-client.h>

#include "dmabuf_attributes.h"
#include "frame.h"
#include "buffer_pool.h"

/* The dmabufs a compositor copies an output into, allocated through GBM on
 * a render node, the counterpart of shm_pool.h for the zero-copy path: each
 * copy goes to the sinks as a frame with its wl_record_buffer and no
 * pixels, which VA-API maps without a CPU copy; the buffer's read() is the
 * CPU fallback (an mmap of a LINEAR buffer, else gbm_bo_map).
 *
 * A buffer is copied into again only when no frame locks it: an encoder's
 * cache of imports references it (keeps the fds open), never holds it from
 * reuse.
 *
 * Built without libgbm (dmabuf_pool_none.c), nothing opens: every copy
 * goes into shm. */

#define DMABUF_POOL_MAX_BUFFERS 4
#define DMABUF_OFFER_MAX_MODIFIERS 32

/* What the compositor copies into: a format (DRM fourcc) and size, and for
 * ext-image-copy-capture the modifiers it takes and its device. */
struct dmabuf_offer {
	uint32_t format;
	int width, height;
	int rank; /* wl_record_dmabuf_format_rank(); 0: none offered */
	int n_modifiers; /* 0: not said (wlr-screencopy): LINEAR */
	uint64_t modifiers[DMABUF_OFFER_MAX_MODIFIERS];
	bool device_known;
	dev_t device;
};

struct gbm_bo;
struct dmabuf_node;

struct screencopy_dmabuf_buffer {
	/* The pool holds the producer's reference, each kept frame a lock,
	 * each encoder cache of imports a reference. The GBM object and the
	 * fds go with the last. */
	struct wl_record_buffer base;
	struct dmabuf_attributes attributes; /* the fds are the buffer's */
	struct dmabuf_node *node;
	struct gbm_bo *bo;
	struct wl_buffer *wl_buffer; /* the pool's, main thread */
	int width, height;
	uint32_t format;
	/* As screencopy_shm_buffer's: what changed since it was last copied into. */
	bool stale_known;
	struct frame_damage stale;
};

struct zwp_linux_dmabuf_v1;

struct screencopy_dmabuf_pool {
	struct zwp_linux_dmabuf_v1 *linux_dmabuf; /* bound by the source */
	struct dmabuf_node *node;                 /* NULL until opened */
	struct wl_record_buffer_pool buffers;
	/* During dmabuf_pool_buffer_for: what to make, where to say why not. */
	const struct dmabuf_offer *asked;
	char *why;
	size_t why_size;
};

/* Whether this build can allocate dmabufs at all (libgbm). */
bool dmabuf_pool_available(void);

void dmabuf_pool_init(struct screencopy_dmabuf_pool *pool);

/* Opens the render node at `path` and its GBM device. False with why. */
bool dmabuf_pool_open(struct screencopy_dmabuf_pool *pool, const char *path, char *why,
		      size_t why_size);

/* A free buffer for `offer`, locked for the copy, as shm_pool_buffer_for().
 * NULL when every buffer is kept (why is then "") or when one cannot be
 * allocated or exported (why says so). */
struct screencopy_dmabuf_buffer *dmabuf_pool_buffer_for(struct screencopy_dmabuf_pool *pool,
							const struct dmabuf_offer *offer,
							char *why, size_t why_size);

bool dmabuf_pool_full(const struct screencopy_dmabuf_pool *pool);

/* As shm_pool_note_copy(); `filled` may be NULL (a shm copy). */
void dmabuf_pool_note_copy(struct screencopy_dmabuf_pool *pool,
			   struct screencopy_dmabuf_buffer *filled, bool known,
			   const struct frame_damage *damage);

/* Lets go of every buffer and the node: what frames and caches keep stays
 * until they let go. The wl_buffers are destroyed now. */
void dmabuf_pool_finish(struct screencopy_dmabuf_pool *pool);

#endif
