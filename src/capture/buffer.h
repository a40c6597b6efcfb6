#ifndef WL_RECORD_BUFFER_H
#define WL_RECORD_BUFFER_H

#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>

/* What the frame path needs of a wl_buffer, whatever made it (wl_shm or
 * linux-dmabuf): its size, and a guarded CPU read of its pixels. */

struct client_buffer;

struct client_buffer_impl {
	/* Maps the pixels for reading as XRGB8888-compatible 32-bit pixels
	 * and starts the SIGBUS guard. */
	bool (*begin_read)(struct client_buffer *buffer, const uint8_t **data, int *stride);
	/* Ends the read; false when the client's memory faulted during it, in
	 * which case this has already posted the protocol error. */
	bool (*end_read)(struct client_buffer *buffer);
};

struct client_buffer {
	struct wl_resource *resource;
	const struct client_buffer_impl *impl;
	int width, height;
	bool opaque; /* no alpha channel, or alpha to be ignored */
};

/* The client_buffer behind a wl_buffer resource, or NULL for a kind of buffer
 * wl-record did not create (a client may attach any wl_buffer). */
struct client_buffer *client_buffer_try_from_resource(struct wl_resource *resource);

/* The same for a wl_buffer known to be one of ours (asserts it). */
struct client_buffer *client_buffer_from_resource(struct wl_resource *resource);

#endif
