#ifndef WL_RECORD_SHM_POOL_H
#define WL_RECORD_SHM_POOL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pixman.h>
#include <wayland-client.h>

#include "frame.h"
#include "buffer_pool.h"

/* The wl_shm buffers a compositor copies an output into, shared by every
 * copy protocol (wlr-screencopy, ext-image-copy-capture).
 *
 * Three do for a recording: the last picture (kept by the source and the
 * sinks' newest), the pacer's pending one, the copy under way; one more when
 * a sink keeps one longer. */
#define SHM_POOL_MAX_BUFFERS 4

/* One wl_shm buffer the compositor copies into, and the buffer of the
 * frames made from it: the pool holds the producer's reference, each kept
 * frame a lock (any thread), so it is free to copy into again when nothing
 * locks it. The memory goes with the last reference, the wl_buffer with
 * the pool. */
struct screencopy_shm_buffer {
	struct wl_record_buffer base;
	struct wl_buffer *wl_buffer;
	uint8_t *data;
	size_t size;
	uint32_t format; /* wl_shm format */
	int width, height, stride;
	/* XBGR/ABGR pictures are converted into this XRGB copy for the sinks. */
	pixman_image_t *converted;
	/* A turned or mirrored output's copy turned upright for the sinks
	 * (output_transform.h), made at the first such copy. */
	pixman_image_t *upright;
	/* What changed on the output since this buffer was last copied into,
	 * for protocols that ask (ext-image-copy-capture's damage_buffer):
	 * all of it when `stale_known` is false. */
	bool stale_known;
	struct frame_damage stale;
};

/* A buffer the compositor can copy into. */
struct copy_offer {
	uint32_t format;
	int width, height, stride;
	int rank; /* 0: unusable */
};

struct screencopy_shm_pool {
	struct wl_shm *shm;
	struct wl_record_buffer_pool buffers;
	int stride;                     /* of the buffers it holds */
	const struct copy_offer *asked; /* during shm_pool_buffer_for */
};

/* How well wl-record reads a wl_shm format: XRGB and ARGB are what frames
 * hold (2), XBGR and ABGR are converted (1), anything else is not read (0).
 * 0 too for a size or stride no output has. */
int shm_offer_rank(uint32_t format, uint32_t width, uint32_t height, uint32_t stride);

void shm_pool_init(struct screencopy_shm_pool *pool);

/* A free buffer for `offer`, locked for the copy (the caller unlocks it):
 * one of the pool's if it fits, else a new one in place of a free one that
 * no longer fits (the output changed size). NULL when every buffer is
 * still kept by a sink (shm_pool_full()) or one cannot be made. */
struct screencopy_shm_buffer *shm_pool_buffer_for(struct screencopy_shm_pool *pool,
						  const struct copy_offer *offer);

bool shm_pool_full(const struct screencopy_shm_pool *pool);

/* `filled` now holds the output as it is; what changed since the last copy
 * (`damage`, everything when not `known`) is stale in every other buffer. */
void shm_pool_note_copy(struct screencopy_shm_pool *pool, struct screencopy_shm_buffer *filled,
			bool known, const struct frame_damage *damage);

/* Lets go of every buffer: their memory stays while frames keep them. */
void shm_pool_finish(struct screencopy_shm_pool *pool);

#endif
