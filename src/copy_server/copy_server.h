#ifndef WL_RECORD_COPY_SERVER_H
#define WL_RECORD_COPY_SERVER_H

#include <wayland-server-core.h>

#include "frame_source.h"
#include "shm_writer.h"

/* ext-image-copy-capture-v1 served on wl-record's own display, so that
 * other tools (grim-like ext clients, another wl-record) can capture what a
 * hosted session shows. A frame sink (frame_source.h): it keeps the newest
 * frame and copies it into the clients' wl_shm buffers, written through
 * `shm` (the compositor's wl_shm, shm_writer.h). One output source (the
 * display has one output); a pointer cursor session is offered but stops at
 * once (no separate cursor image; --cursor draws it into the picture). Everything runs on the compositor
 * thread and never waits: a capture is answered from the newest frame, or
 * when the next frame brings damage. */

struct copy_server;

/* width x height: the output's size until the first frame says otherwise. */
struct copy_server *copy_server_create(struct wl_display *display,
				       const struct shm_writer_impl *shm, int width, int height);

/* Takes the pictures of `source` (connect once). */
void copy_server_connect(struct copy_server *server, struct frame_source *source);

/* Before the display goes: disconnects, removes the globals, stops every
 * session (clients are told) and leaves their objects inert. NULL is
 * accepted. */
void copy_server_destroy(struct copy_server *server);

#endif
