#ifndef WL_RECORD_CLIENT_DMABUF_H
#define WL_RECORD_CLIENT_DMABUF_H

#include <stdbool.h>
#include <wayland-server-core.h>

#include "client_lease.h"
#include "dmabuf_attributes.h"
#include "wl_record_buffer.h"

/* A hosted client's dmabuf as a lease (client_lease.h): the fds and layout
 * of one wl_buffer, read by mmap (LINEAR) or through EGL. */

struct egl_importer;

/* Takes the fds of `attributes`; one reference (the wl_buffer's, dropped
 * with wl_record_buffer_drop). `egl` (may be NULL) reads non-LINEAR planes
 * on the compositor thread. NULL without memory. Main thread. */
struct client_lease *client_dmabuf_create(struct dmabuf_attributes *attributes,
					  struct egl_importer *egl,
					  struct client_release_queue *queue);

#endif
