#ifndef WL_RECORD_SERVER_H
#define WL_RECORD_SERVER_H

#include <stdbool.h>
#include <wayland-server-core.h>

#include "frame_clock.h"
#include "screen.h"

struct output;
struct fullscreen_shell;
struct xdg_shell;
struct seat;
struct selection;

struct server_config {
	int width, height;   /* initial output mode */
	double fps;          /* frame callback rate */
	bool no_fullscreen_shell; /* offer only xdg-shell (nested compositors use it then) */
	uint32_t background;      /* XRGB8888 behind xdg-shell windows */
	bool compose_all;         /* show every toplevel, not only the newest */
	bool draw_cursor;         /* the pointer's image in the picture (--cursor) */
};

/* The nested compositor: a wl_display with wl-record's globals, one output,
 * and the screen that turns presented surfaces into frames. */
struct server {
	struct wl_display *display;
	struct wl_event_loop *loop;
	struct output *output;
	struct screen screen;
	struct frame_clock frame_clock;
	struct fullscreen_shell *fullscreen_shell; /* NULL when disabled */
	struct xdg_shell *xdg_shell;
	struct seat *seat;
	/* The clipboard and the primary selection, offered with --window. */
	struct selection *data_device, *primary_selection;
	struct wl_client *adopted_client; /* handed over by WAYLAND_SERVER_SOCKET */
	struct wl_listener adopted_client_destroy;
	char socket_name[64];
};

struct server *server_create(const struct server_config *config);
void server_destroy(struct server *server);

/* Whether $XDG_RUNTIME_DIR is set, a folder, this user's and writable by
 * no one else (libwayland's clients trust the socket found there); logs why
 * not. server_listen() checks it too; callers may ask before starting. */
bool server_runtime_dir_is_safe(void);

/* Listens on $XDG_RUNTIME_DIR/name, or the first free wl-record-N when
 * name is NULL. The name chosen is in server->socket_name. */
bool server_listen(struct server *server, const char *name);

/* Serves one already-connected client (Weston's screen-share hands one over
 * in WAYLAND_SERVER_SOCKET). Returns the client, NULL on error. */
struct wl_client *server_adopt_client_fd(struct server *server, int fd);

/* Changes the output mode and the screen's size; clients see the new mode. */
void server_set_output_size(struct server *server, int width, int height, int refresh_mhz);

#endif
