#ifndef WL_RECORD_SHM_H
#define WL_RECORD_SHM_H

#include <pixman.h>
#include <stdbool.h>
#include <wayland-server-core.h>

#include "buffer.h"
#include "wl_record_buffer.h"
#include "shm_writer.h"

/* Largest buffer side accepted; anything bigger is refused at create_buffer
 * instead of being allocated or read. */
#define SHM_MAX_BUFFER_SIDE 16384

bool shm_create_global(struct wl_display *display);

/* The buffer behind a wl_buffer made by our wl_shm, or NULL. */
struct client_buffer *shm_buffer_try_from_resource(struct wl_resource *resource);

/* Lends the buffer to the frames (hold, don't copy): a commit's lock on
 * its lease (client_lease.h), whose last unlock releases the wl_buffer.
 * Should the client still wait for it `hold_ms` later, its pixels are
 * copied into memory of ours and it is released then: a client with few
 * buffers never waits long for the frames. NULL when `buffer` is not a
 * wl_shm buffer or not XRGB8888/ARGB8888 (other formats are converted into
 * the surface's copy), or when the client's memory faulted (`faulted`;
 * the protocol error is posted). Main thread. */
struct wl_record_buffer *shm_buffer_lease(struct client_buffer *buffer, int hold_ms,
					  bool *faulted);

/* For a wl_shm buffer just lent (shm_buffer_lease): 1 when its pixels in
 * `damage` are those of `lease`, the surface's previous one (a client that
 * sends each picture once per buffer it rotates through, as Weston's
 * screen-share does, commits pictures already shown: no new frame then);
 * 0 when they differ or cannot be compared (another kind, size or format,
 * or the same buffer again); -1 when either memory faulted (the protocol
 * error is posted). Reads rows until the first difference. Main thread. */
int shm_buffer_same_as_lease(struct client_buffer *buffer, struct wl_record_buffer *lease,
			     const pixman_region32_t *damage);

/* True when `buffer` is a wl_shm lease whose pixels were copied out of the
 * client's memory (it was held too long). Any thread. */
bool shm_lease_is_detached(struct wl_record_buffer *buffer);

/* Writes into our wl_shm buffers (SIGBUS-guarded), for copy_server/. */
const struct shm_writer_impl *shm_buffer_writer(void);

#endif
