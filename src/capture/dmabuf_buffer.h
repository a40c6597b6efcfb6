#ifndef WL_RECORD_DMABUF_BUFFER_H
#define WL_RECORD_DMABUF_BUFFER_H

#include <stdbool.h>
#include <stddef.h>
#include <wayland-server-core.h>

#include "buffer.h"
#include "dmabuf_attributes.h"

/* Largest side accepted, as for wl_shm buffers. */
#define DMABUF_MAX_SIDE 16384

struct linux_dmabuf;
struct wl_record_buffer;

/* A wl_buffer made from a dmabuf. Its client_buffer reads pixels by:
 *  - LINEAR: mmap of the plane, DMA_BUF_IOCTL_SYNC around the read (after
 *    waiting for the writers' implicit fences), SIGBUS-guarded;
 *  - any other modifier: the EGL importer (GPU import + GL readback).
 * Takes the fds of `attributes` in every case. Returns the resource, or NULL
 * with the reason in `why` (empty when out of memory, already posted). */
struct wl_resource *dmabuf_buffer_create(struct linux_dmabuf *dmabuf, struct wl_client *client,
					 uint32_t id, struct dmabuf_attributes *attributes,
					 char *why, size_t why_size);

/* The buffer behind a wl_buffer made by linux-dmabuf, or NULL. */
struct client_buffer *dmabuf_buffer_try_from_resource(struct wl_resource *resource);

/* Locks the buffer for the frames (zero-copy path): the wl_buffer is not
 * released until this lock and every lock taken while it lasts are gone.
 * NULL when `buffer` is not a dmabuf or not XRGB8888/ARGB8888 (other
 * formats are copied and converted). Main thread. */
struct wl_record_buffer *dmabuf_buffer_lock(struct client_buffer *buffer);

#endif
