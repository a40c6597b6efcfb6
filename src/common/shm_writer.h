#ifndef WL_RECORD_SHM_WRITER_H
#define WL_RECORD_SHM_WRITER_H

#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>

/* Writing into a client's wl_shm buffer, for a part that serves pictures to
 * clients (copy_server/) without knowing the compositor's wl_shm: the
 * compositor (capture/shm.c) lends this interface, cmd/ hands it over. */

struct shm_pixels {
	uint8_t *data;
	int width, height, stride;
	uint32_t format; /* wl_shm format code */
};

struct shm_writer_impl {
	/* Whether `buffer` is a writable wl_shm buffer of this display; when
	 * true, fills `pixels` and starts the SIGBUS guard, which end_write
	 * must end (on the same thread, nothing else guarded in between). */
	bool (*begin_write)(struct wl_resource *buffer, struct shm_pixels *pixels);
	/* False when the client's memory faulted during the write: the
	 * protocol error has been posted, the client is on its way out. */
	bool (*end_write)(struct wl_resource *buffer);
};

#endif
