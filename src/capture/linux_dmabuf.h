#ifndef WL_RECORD_LINUX_DMABUF_H
#define WL_RECORD_LINUX_DMABUF_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <wayland-server-core.h>

#include "dmabuf_attributes.h"

/* zwp_linux_dmabuf_v1 (versions 1 to 4): the global, the formats and
 * modifiers wl-record can consume, and the device they are meant for.
 *
 * What is advertised is what some consumer can read: LINEAR XRGB8888 and
 * ARGB8888 always (mmap + CPU read), plus the modifiers Mesa's EGL can import
 * when a render node exists and EGL_EXT_image_dma_buf_import_modifiers works
 * on it. The VA-API zero-copy path is an optimisation on top: a buffer it
 * cannot map still has one of these readers. */

struct egl_importer;
struct client_release_queue;

struct linux_dmabuf_format {
	uint32_t format;
	uint64_t modifier;
};

struct linux_dmabuf {
	struct wl_global *global;
	struct linux_dmabuf_format *formats;
	int n_formats;
	int table_fd; /* the v4 format table, a sealed memfd */
	size_t table_size;
	/* The render node buffers should be allocated on. Without one (no GPU)
	 * main_device is sent as dev_t 0: see linux_dmabuf_feedback.c. */
	bool has_render_node;
	dev_t main_device;
	char render_node[64];
	struct egl_importer *egl; /* NULL: only LINEAR is readable */
	struct client_release_queue *releases;
	struct wl_listener display_destroy;
};

/* Creates the global on `display`; freed with the display. */
struct linux_dmabuf *linux_dmabuf_create(struct wl_display *display);

/* True when (format, modifier) was advertised. */
bool linux_dmabuf_accepts(const struct linux_dmabuf *dmabuf, uint32_t format, uint64_t modifier);

/* Per-interface implementations, one file each. */
void linux_dmabuf_params_create(struct linux_dmabuf *dmabuf, struct wl_client *client,
				uint32_t version, uint32_t id);
void linux_dmabuf_feedback_create(struct linux_dmabuf *dmabuf, struct wl_client *client,
				  uint32_t version, uint32_t id);
bool linux_dmabuf_feedback_make_table(struct linux_dmabuf *dmabuf);

#endif
