#define LOG_MODULE "capture"
#include "server.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fullscreen_shell.h"
#include "linux_dmabuf.h"
#include "log.h"
#include "output.h"
#include "shm.h"
#include "surface.h"

struct server *server_create(const struct server_config *config)
{
	struct server *server = calloc(1, sizeof(*server));
	if (!server) {
		LOG_ERRNO("cannot allocate the compositor");
		return NULL;
	}
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
	server->fullscreen_shell = fullscreen_shell_create(server);
	if (!server->fullscreen_shell)
		goto fail;
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
		frame_clock_finish(&server->frame_clock);
		output_destroy(server->output);
		screen_finish(&server->screen);
		wl_display_destroy(server->display);
	}
	free(server);
}

bool server_listen(struct server *server, const char *name)
{
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
	if (!client)
		LOG_ERRNO("cannot serve the client on fd %d", fd);
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
}
