#ifndef WL_RECORD_SHM_H
#define WL_RECORD_SHM_H

#include <stdbool.h>
#include <wayland-server-core.h>

#include "buffer.h"
#include "shm_writer.h"

/* Largest buffer side accepted; anything bigger is refused at create_buffer
 * instead of being allocated or read. */
#define SHM_MAX_BUFFER_SIDE 16384

bool shm_create_global(struct wl_display *display);

/* The buffer behind a wl_buffer made by our wl_shm, or NULL. */
struct client_buffer *shm_buffer_try_from_resource(struct wl_resource *resource);

/* Writes into our wl_shm buffers (SIGBUS-guarded), for copy_server/. */
const struct shm_writer_impl *shm_buffer_writer(void);

#endif
