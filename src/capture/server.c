#define LOG_MODULE "capture"
#include "server.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data_device.h"
#include "primary_selection.h"
#include "selection.h"
#include "fullscreen_shell.h"
#include "linux_dmabuf.h"
#include "log.h"
#include "output.h"
#include "seat.h"
#include "shm.h"
#include "subcompositor.h"
#include "surface.h"
#include "viewporter.h"
#include "xdg_shell.h"

/* Weston 10's screen-share (the client handed over in WAYLAND_SERVER_SOCKET)
 * makes a second weston_seat for any wl_seat its parent offers, and the main
 * Weston then crashes (seen: SIGSEGV right after the registry). That client
 * does not see the seat (it takes no input from wl-record anyway), nor the
 * clipboard that goes with it. */
static bool global_filter(const struct wl_client *client, const struct wl_global *global,
			  void *data)
{
	const struct server *server = data;
	if (client != server->adopted_client)
		return true;
	return global != seat_global(server->seat) &&
	       global != selection_global(server->data_device) &&
	       global != selection_global(server->primary_selection);
}

static void adopted_client_destroyed(struct wl_listener *listener, void *data)
{
	struct server *server = wl_container_of(listener, server, adopted_client_destroy);
	wl_list_remove(&server->adopted_client_destroy.link);
	wl_list_init(&server->adopted_client_destroy.link);
	server->adopted_client = NULL;
}

struct server *server_create(const struct server_config *config)
{
	struct server *server = calloc(1, sizeof(*server));
	if (!server) {
		LOG_ERRNO("cannot allocate the compositor");
		return NULL;
	}
	wl_list_init(&server->adopted_client_destroy.link);
	server->adopted_client_destroy.notify = adopted_client_destroyed;
	server->display = wl_display_create();
	if (!server->display) {
		LOG_ERR("cannot create the Wayland display");
		goto fail;
	}
	server->loop = wl_display_get_event_loop(server->display);
	if (!screen_init(&server->screen, config->width, config->height))
		goto fail;
	if (!frame_clock_init(&server->frame_clock, server->loop, config->fps))
		goto fail;
	server->output = output_create(server->display, config->width, config->height,
				       (int)(config->fps * 1000));
	if (!server->output || !compositor_create_global(server) ||
	    !shm_create_global(server->display) || !linux_dmabuf_create(server->display))
		goto fail;
	if (!config->no_fullscreen_shell) {
		server->fullscreen_shell = fullscreen_shell_create(server);
		if (!server->fullscreen_shell)
			goto fail;
	}
	/* Desktop clients: xdg-shell and what its clients expect beside it. */
	server->screen.background = config->background;
	server->screen.policy = config->compose_all ? SCREEN_POLICY_ALL : SCREEN_POLICY_TOPMOST;
	server->screen.draw_cursor = config->draw_cursor;
	server->xdg_shell = xdg_shell_create(server);
	if (!server->xdg_shell || !subcompositor_create_global(server) ||
	    !viewporter_create_global(server))
		goto fail;
	server->data_device = data_device_create(server);
	if (!server->data_device)
		goto fail;
	server->primary_selection = primary_selection_create(server);
	if (!server->primary_selection)
		goto fail;
	server->seat = seat_create(server);
	if (!server->seat)
		goto fail;
	wl_display_set_global_filter(server->display, global_filter, server);
	return server;

fail:
	server_destroy(server);
	return NULL;
}

void server_destroy(struct server *server)
{
	if (!server)
		return;
	if (server->display) {
		/* Clients first: their resources point into what follows. */
		wl_display_destroy_clients(server->display);
		fullscreen_shell_destroy(server->fullscreen_shell);
		seat_destroy(server->seat);
		selection_destroy(server->data_device);
		selection_destroy(server->primary_selection);
		xdg_shell_destroy(server->xdg_shell);
		frame_clock_finish(&server->frame_clock);
		output_destroy(server->output);
		screen_finish(&server->screen);
		wl_display_destroy(server->display);
	}
	wl_list_remove(&server->adopted_client_destroy.link);
	free(server);
}

/* Whoever can replace the socket there can pose as wl-record and be sent the
 * whole screen: the directory must be the user's alone, as libwayland's
 * clients assume. */
bool server_runtime_dir_is_safe(void)
{
	const char *dir = getenv("XDG_RUNTIME_DIR");
	if (!dir || !*dir) {
		LOG_ERR("XDG_RUNTIME_DIR is not set: cannot create the listening socket");
		return false;
	}
	struct stat st;
	if (stat(dir, &st) < 0) {
		LOG_ERRNO("XDG_RUNTIME_DIR %s is unusable", dir);
		return false;
	}
	if (!S_ISDIR(st.st_mode)) {
		LOG_ERR("XDG_RUNTIME_DIR %s is not a directory", dir);
		return false;
	}
	if (st.st_uid != geteuid()) {
		LOG_ERR("XDG_RUNTIME_DIR %s belongs to uid %u, not to this user (uid %u): refusing "
			"to listen there", dir, (unsigned)st.st_uid, (unsigned)geteuid());
		return false;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		LOG_ERR("XDG_RUNTIME_DIR %s is writable by others (mode %04o): refusing to listen "
			"there; it should be mode 0700", dir, (unsigned)(st.st_mode & 07777));
		return false;
	}
	return true;
}

bool server_listen(struct server *server, const char *name)
{
	if (!server_runtime_dir_is_safe())
		return false;
	if (name) {
		if (wl_display_add_socket(server->display, name) < 0) {
			LOG_ERRNO("cannot listen on $XDG_RUNTIME_DIR/%s", name);
			return false;
		}
		snprintf(server->socket_name, sizeof(server->socket_name), "%s", name);
		return true;
	}
	for (int i = 0; i < 32; i++) {
		char candidate[sizeof(server->socket_name)];
		snprintf(candidate, sizeof(candidate), "wl-record-%d", i);
		if (wl_display_add_socket(server->display, candidate) == 0) {
			memcpy(server->socket_name, candidate, sizeof(candidate));
			return true;
		}
	}
	LOG_ERR("no free socket name wl-record-0..31 in $XDG_RUNTIME_DIR (is it set and writable?)");
	return false;
}

struct wl_client *server_adopt_client_fd(struct server *server, int fd)
{
	struct wl_client *client = wl_client_create(server->display, fd);
	if (!client) {
		LOG_ERRNO("cannot serve the client on fd %d", fd);
		return NULL;
	}
	wl_list_remove(&server->adopted_client_destroy.link);
	server->adopted_client = client;
	wl_client_add_destroy_listener(client, &server->adopted_client_destroy);
	return client;
}

void server_set_output_size(struct server *server, int width, int height, int refresh_mhz)
{
	if (width != server->screen.width || height != server->screen.height)
		LOG_INFO("output mode %dx%d -> %dx%d", server->screen.width, server->screen.height,
			 width, height);
	if (!screen_resize(&server->screen, width, height))
		return;
	output_set_mode(server->output, width, height, refresh_mhz);
	xdg_shell_output_resized(server->xdg_shell);
}
