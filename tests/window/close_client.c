/* A hosted app for the --window closing and title tests: a blue xdg
 * toplevel titled TITLE.
 *   close-client MARKER TITLE [--ignore-close]
 * On xdg_toplevel.close it writes "closed" to MARKER and exits 0, or with
 * --ignore-close writes "ignored" and goes on. SIGUSR1 sets the title
 * "TITLE again". */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wayland-client.h>

#include "xdg-shell-client-protocol.h"

static struct wl_display *display;
static struct wl_compositor *compositor;
static struct wl_shm *shm;
static struct xdg_wm_base *wm_base;
static struct wl_surface *surface;
static struct xdg_toplevel *toplevel;
static const char *marker, *title;
static bool ignore_close;
static int retitle_pipe[2];

static void buffer_release(void *data, struct wl_buffer *buffer)
{
	wl_buffer_destroy(buffer);
}

static const struct wl_buffer_listener buffer_listener = { buffer_release };

static void draw(int width, int height)
{
	size_t size = (size_t)width * (size_t)height * 4;
	int fd = memfd_create("close-client", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)size) < 0) {
		perror("close-client: memfd");
		exit(1);
	}
	uint32_t *pixels = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (pixels == MAP_FAILED) {
		perror("close-client: mmap");
		exit(1);
	}
	for (size_t i = 0; i < size / 4; i++)
		pixels[i] = 0x2040c0;
	munmap(pixels, size);
	struct wl_shm_pool *pool = wl_shm_create_pool(shm, fd, (int32_t)size);
	struct wl_buffer *buffer = wl_shm_pool_create_buffer(pool, 0, width, height, width * 4,
							     WL_SHM_FORMAT_XRGB8888);
	wl_shm_pool_destroy(pool);
	close(fd);
	wl_buffer_add_listener(buffer, &buffer_listener, NULL);
	wl_surface_attach(surface, buffer, 0, 0);
	wl_surface_damage_buffer(surface, 0, 0, width, height);
	wl_surface_commit(surface);
}

static void write_marker(const char *text)
{
	FILE *f = fopen(marker, "w");
	if (!f || fprintf(f, "%s\n", text) < 0 || fclose(f) != 0) {
		perror("close-client: marker");
		exit(1);
	}
}

static void registry_global(void *data, struct wl_registry *registry, uint32_t name,
			    const char *interface, uint32_t version)
{
	if (strcmp(interface, wl_compositor_interface.name) == 0)
		compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 4);
	else if (strcmp(interface, wl_shm_interface.name) == 0)
		shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	else if (strcmp(interface, xdg_wm_base_interface.name) == 0)
		wm_base = wl_registry_bind(registry, name, &xdg_wm_base_interface, 1);
}

static void registry_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = {
	registry_global, registry_global_remove,
};

static void wm_base_ping(void *data, struct xdg_wm_base *base, uint32_t serial)
{
	xdg_wm_base_pong(base, serial);
}

static const struct xdg_wm_base_listener wm_base_listener = { wm_base_ping };

static int asked_width, asked_height;

static void xdg_surface_configure(void *data, struct xdg_surface *xdg, uint32_t serial)
{
	xdg_surface_ack_configure(xdg, serial);
	draw(asked_width > 0 ? asked_width : 320, asked_height > 0 ? asked_height : 240);
}

static const struct xdg_surface_listener xdg_surface_listener = { xdg_surface_configure };

static void toplevel_configure(void *data, struct xdg_toplevel *t, int32_t w, int32_t h,
			       struct wl_array *states)
{
	asked_width = w;
	asked_height = h;
}

static void toplevel_close(void *data, struct xdg_toplevel *t)
{
	printf("close\n");
	if (ignore_close) {
		write_marker("ignored");
		return;
	}
	write_marker("closed");
	exit(0);
}

static const struct xdg_toplevel_listener toplevel_listener = {
	.configure = toplevel_configure,
	.close = toplevel_close,
};

static void handle_usr1(int sig)
{
	ssize_t n = write(retitle_pipe[1], "t", 1);
	(void)n;
}

int main(int argc, char **argv)
{
	if (argc < 3 || (argc == 4 && strcmp(argv[3], "--ignore-close") != 0) || argc > 4) {
		fprintf(stderr, "usage: close-client MARKER TITLE [--ignore-close]\n");
		return 2;
	}
	marker = argv[1];
	title = argv[2];
	ignore_close = argc == 4;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (pipe2(retitle_pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
		perror("close-client: pipe");
		return 1;
	}
	struct sigaction action = { .sa_handler = handle_usr1, .sa_flags = SA_RESTART };
	sigaction(SIGUSR1, &action, NULL);
	display = wl_display_connect(NULL);
	if (!display) {
		fprintf(stderr, "close-client: no display\n");
		return 1;
	}
	struct wl_registry *registry = wl_display_get_registry(display);
	wl_registry_add_listener(registry, &registry_listener, NULL);
	wl_display_roundtrip(display);
	if (!compositor || !shm || !wm_base) {
		fprintf(stderr, "close-client: missing globals\n");
		return 1;
	}
	xdg_wm_base_add_listener(wm_base, &wm_base_listener, NULL);
	surface = wl_compositor_create_surface(compositor);
	struct xdg_surface *xdg = xdg_wm_base_get_xdg_surface(wm_base, surface);
	xdg_surface_add_listener(xdg, &xdg_surface_listener, NULL);
	toplevel = xdg_surface_get_toplevel(xdg);
	xdg_toplevel_add_listener(toplevel, &toplevel_listener, NULL);
	xdg_toplevel_set_title(toplevel, title);
	wl_surface_commit(surface);
	printf("ready\n");
	for (;;) {
		while (wl_display_prepare_read(display) != 0)
			wl_display_dispatch_pending(display);
		wl_display_flush(display);
		struct pollfd fds[2] = {
			{ .fd = wl_display_get_fd(display), .events = POLLIN },
			{ .fd = retitle_pipe[0], .events = POLLIN },
		};
		if (poll(fds, 2, -1) < 0 && errno != EINTR) {
			wl_display_cancel_read(display);
			return 1;
		}
		if (fds[0].revents & POLLIN) {
			if (wl_display_read_events(display) < 0)
				return 1;
		} else {
			wl_display_cancel_read(display);
		}
		if (fds[0].revents & (POLLERR | POLLHUP))
			return 1;
		wl_display_dispatch_pending(display);
		char c;
		if (read(retitle_pipe[0], &c, 1) == 1) {
			char again[256];
			snprintf(again, sizeof(again), "%s again", title);
			xdg_toplevel_set_title(toplevel, again);
			wl_surface_commit(surface);
			printf("retitled\n");
		}
	}
}
