#ifndef WL_RECORD_BUFFER_POOL_H
#define WL_RECORD_BUFFER_POOL_H

#include <stdbool.h>
#include <stdint.h>

#include "wl_record_buffer.h"

/* The one pool of buffers a source fills (modelled on wlroots'
 * render/swapchain.c): screencopy's wl_shm and GBM buffers, the pictures
 * PipeWire buffers are copied into. A buffer is free when nothing locks it.
 * The pool owns what it made (the producer's reference) and drops it when
 * a new size or format replaces it, or at wl_record_buffer_pool_finish. */

#define WL_RECORD_BUFFER_POOL_CAPACITY 8

struct wl_record_buffer_pool;

/* Makes a buffer of that size and format (NULL on failure, said by it). */
typedef struct wl_record_buffer *(*wl_record_buffer_create_fn)(void *data, int width, int height,
							       uint32_t format);
/* The pool lets go of `buffer` (replaced, or at finish), on the pool's
 * thread, just before dropping its reference: what must happen there
 * rather than at the last unlock on any thread (a wl_buffer proxy). */
typedef void (*wl_record_buffer_retire_fn)(struct wl_record_buffer *buffer, void *data);

struct wl_record_buffer_pool {
	wl_record_buffer_create_fn create;
	wl_record_buffer_retire_fn retire; /* NULL: nothing to do */
	void *data;
	int capacity; /* at most WL_RECORD_BUFFER_POOL_CAPACITY */
	struct wl_record_buffer *slots[WL_RECORD_BUFFER_POOL_CAPACITY];
};

void wl_record_buffer_pool_init(struct wl_record_buffer_pool *pool, int capacity,
				wl_record_buffer_create_fn create, void *data);
void wl_record_buffer_pool_set_retire(struct wl_record_buffer_pool *pool,
				      wl_record_buffer_retire_fn retire);

/* A free buffer of that size and format, locked once for the caller: one of
 * the pool's that fits, else a new one in an empty slot or in place of a
 * free one that does not fit (the output changed). NULL when every slot is
 * locked (wl_record_buffer_pool_full) or creating failed. `created` (may be
 * NULL) tells whether it is new, so that its content is unknown. */
struct wl_record_buffer *wl_record_buffer_pool_acquire(struct wl_record_buffer_pool *pool,
						       int width, int height, uint32_t format,
						       bool *created);

/* Whether every slot holds a locked buffer. */
bool wl_record_buffer_pool_full(const struct wl_record_buffer_pool *pool);

/* Calls `fn` on each buffer the pool holds (for damage bookkeeping). */
void wl_record_buffer_pool_for_each(struct wl_record_buffer_pool *pool,
				    void (*fn)(struct wl_record_buffer *buffer, void *data),
				    void *data);

/* Drops every buffer: each goes with its last lock. */
void wl_record_buffer_pool_finish(struct wl_record_buffer_pool *pool);

#endif
