#ifndef WL_RECORD_TEST_DMABUF_CLIENT_H
#define WL_RECORD_TEST_DMABUF_CLIENT_H

/* Client side of linux-dmabuf for the tests: binding at a chosen version,
 * what the global told us, and LINEAR "dmabufs" made of sealed memfds (the
 * only kind these GPU-less machines can make; a real udmabuf when
 * /dev/udmabuf exists). */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <wayland-client.h>

#include "linux-dmabuf-unstable-v1-client-protocol.h"

#define DMABUF_CLIENT_MAX_FORMATS 512 /* 8 formats, each with a GPU's modifiers */

struct dmabuf_client {
	struct zwp_linux_dmabuf_v1 *dmabuf;
	uint32_t version;
	/* v1-v3 events */
	int n_format_events, n_modifier_events;
	uint32_t formats[DMABUF_CLIENT_MAX_FORMATS];
	uint64_t modifiers[DMABUF_CLIENT_MAX_FORMATS];
	/* v4 feedback */
	bool feedback_done;
	int n_table;
	uint32_t table_format[DMABUF_CLIENT_MAX_FORMATS];
	uint64_t table_modifier[DMABUF_CLIENT_MAX_FORMATS];
	bool has_main_device, has_target_device;
	dev_t main_device, target_device;
	int n_tranche_indices;
	uint16_t tranche_indices[DMABUF_CLIENT_MAX_FORMATS];
	int tranches;
};

/* Binds zwp_linux_dmabuf_v1 at `version` from `display`; false if absent.
 * `roundtrip` lets the in-process tests run their server in between. */
typedef bool (*dmabuf_client_roundtrip)(void *data);
bool dmabuf_client_bind(struct dmabuf_client *client, struct wl_display *display,
			uint32_t version, dmabuf_client_roundtrip roundtrip, void *data);
void dmabuf_client_finish(struct dmabuf_client *client);

/* Asks for the default (surface NULL) or a surface's feedback; the events
 * fill `client`. Returns the object (destroy it when done). */
struct zwp_linux_dmabuf_feedback_v1 *dmabuf_client_get_feedback(struct dmabuf_client *client,
							       struct wl_surface *surface);

/* A memfd (or udmabuf) of `size` bytes, mapped read-write in *pixels. Sealed
 * against shrinking unless `shrinkable`. Returns the fd. */
int dmabuf_client_make_fd(size_t size, bool shrinkable, void **pixels, bool *is_udmabuf);

#endif
