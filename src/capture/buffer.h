#ifndef WL_RECORD_BUFFER_H
#define WL_RECORD_BUFFER_H

#include <pixman.h>
#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>

/* The pixel formats wl-record reads, the one list wl_shm and linux-dmabuf
 * offer: single-plane, 32 bits a pixel. Each names the pixman format of its
 * bytes in memory, so that one pixman composite converts it into the
 * surface's copy (x8r8g8b8, or a8r8g8b8 with alpha). XRGB8888 and ARGB8888
 * are that copy's own layout: copied as they are, and only they are lent
 * to the encoder as dmabufs (zero-copy). */
struct client_format {
	uint32_t drm_format; /* DRM fourcc */
	pixman_format_code_t pixman;
	bool opaque; /* no alpha channel: the X bits are ignored */
};

/* In the order they are advertised. */
extern const struct client_format client_formats[];
extern const int client_format_count;

/* The entry for a DRM fourcc or a wl_shm format code, NULL if not read. */
const struct client_format *client_format_from_drm(uint32_t drm_format);

/* Planes a dmabuf of this format needs; 0 for formats wl-record does not
 * consume. */
int dmabuf_format_plane_count(uint32_t format);
const struct client_format *client_format_from_shm(uint32_t shm_format);
/* wl_shm's code: the fourcc, except for ARGB8888 (0) and XRGB8888 (1). */
uint32_t client_format_shm_code(const struct client_format *format);
/* Pixels the surface's copy takes as they are (memcpy). */
bool client_format_is_native(pixman_format_code_t format);

/* What the frame path needs of a wl_buffer, whatever made it (wl_shm or
 * linux-dmabuf): its size, and a guarded CPU read of its pixels. */

struct client_buffer;

struct client_buffer_impl {
	/* Maps the pixels for reading, laid out as `format` says, and starts
	 * the SIGBUS guard. */
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
	/* The layout of what begin_read gives: the client's format, or
	 * x8r8g8b8/a8r8g8b8 when the pixels were converted on the way (EGL). */
	pixman_format_code_t format;
};

/* The client_buffer behind a wl_buffer resource, or NULL for a kind of buffer
 * wl-record did not create (a client may attach any wl_buffer). */
struct client_buffer *client_buffer_try_from_resource(struct wl_resource *resource);

/* The same for a wl_buffer known to be one of ours (asserts it). */
struct client_buffer *client_buffer_from_resource(struct wl_resource *resource);

#endif
