/* pattern-client: a fullscreen xdg-shell client showing the known frames of
 * tests/pattern.h on a desktop compositor (sway), so that a recording of
 * that desktop can be checked frame by frame.
 *
 *   pattern-client --size WxH --frames N [--interval-ms MS]
 *
 * Shows pattern frame 0 at the size the compositor configures (WxH when the
 * first configure leaves the size to the client, as sway 1.7 does before
 * the window is mapped; a later different size is reported) and prints
 * "ready WxH" on stdout once it has been presented (its frame callback
 * came). On SIGUSR1 it shows frames 1 to N-1, one every MS milliseconds
 * (default 50: slower than the output's refresh, so that a recorder running
 * late on a loaded machine still sees nearly every frame), prints "done",
 * and keeps the last frame on screen until it is terminated.
 * Exit status: 0 terminated by SIGTERM/SIGINT or closed (xdg_toplevel.close),
 * 1 failure. */

#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include <wayland-client.h>

#include "pattern.h"
#include "xdg-shell-client-protocol.h"

#define BUFFERS 3

struct buffer {
	struct wl_buffer *wl_buffer;
	void *data;
	bool busy;
};

struct client {
	struct wl_display *display;
	struct wl_compositor *compositor;
	struct wl_shm *shm;
	struct xdg_wm_base *wm_base;
	struct wl_surface *surface;
	struct xdg_surface *xdg_surface;
	struct xdg_toplevel *toplevel;
	bool configured;
	int width, height;
	struct buffer buffers[BUFFERS];
	bool first_presented;
};

static _Noreturn void die(const char *message)
{
	fprintf(stderr, "pattern-client: %s\n", message);
	exit(1);
}

static void buffer_release(void *data, struct wl_buffer *wl_buffer)
{
	struct buffer *buffer = data;
	buffer->busy = false;
}

static const struct wl_buffer_listener buffer_listener = { .release = buffer_release };

static void wm_ping(void *data, struct xdg_wm_base *wm_base, uint32_t serial)
{
	xdg_wm_base_pong(wm_base, serial);
}

static const struct xdg_wm_base_listener wm_base_listener = { .ping = wm_ping };

static void xdg_surface_configure(void *data, struct xdg_surface *surface, uint32_t serial)
{
	struct client *c = data;
	xdg_surface_ack_configure(surface, serial);
	c->configured = true;
}

static const struct xdg_surface_listener xdg_surface_listener = {
	.configure = xdg_surface_configure,
};

static void toplevel_configure(void *data, struct xdg_toplevel *toplevel, int32_t width,
			       int32_t height, struct wl_array *states)
{
	struct client *c = data;
	if (width <= 0 || height <= 0)
		return;
	if (!c->buffers[0].wl_buffer) {
		c->width = width;
		c->height = height;
	} else if (width != c->width || height != c->height) {
		fprintf(stderr, "pattern-client: configured %dx%d, drawing %dx%d\n", width, height,
			c->width, c->height);
	}
}

static void toplevel_close(void *data, struct xdg_toplevel *toplevel)
{
	/* Asked as a desktop asks when the recording stops: done. */
	exit(0);
}

static const struct xdg_toplevel_listener toplevel_listener = {
	.configure = toplevel_configure,
	.close = toplevel_close,
};

static void registry_global(void *data, struct wl_registry *registry, uint32_t name,
			    const char *interface, uint32_t version)
{
	struct client *c = data;
	if (strcmp(interface, "wl_compositor") == 0)
		c->compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 1);
	else if (strcmp(interface, "wl_shm") == 0)
		c->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	else if (strcmp(interface, "xdg_wm_base") == 0) {
		c->wm_base = wl_registry_bind(registry, name, &xdg_wm_base_interface, 1);
		xdg_wm_base_add_listener(c->wm_base, &wm_base_listener, c);
	}
}

static void registry_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_global,
	.global_remove = registry_global_remove,
};

static void create_buffers(struct client *c)
{
	int stride = c->width * 4;
	size_t size = (size_t)stride * (size_t)c->height;
	int fd = memfd_create("pattern-client", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)(size * BUFFERS)) < 0)
		die("cannot create the shm pool");
	uint8_t *pool_data = mmap(NULL, size * BUFFERS, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (pool_data == MAP_FAILED)
		die("cannot map the shm pool");
	struct wl_shm_pool *pool = wl_shm_create_pool(c->shm, fd, (int32_t)(size * BUFFERS));
	for (int i = 0; i < BUFFERS; i++) {
		c->buffers[i].data = pool_data + size * (size_t)i;
		c->buffers[i].wl_buffer = wl_shm_pool_create_buffer(pool, (int32_t)(size * (size_t)i),
								    c->width, c->height, stride,
								    WL_SHM_FORMAT_XRGB8888);
		wl_buffer_add_listener(c->buffers[i].wl_buffer, &buffer_listener, &c->buffers[i]);
	}
	wl_shm_pool_destroy(pool);
	close(fd);
}

static void first_frame_done(void *data, struct wl_callback *callback, uint32_t time)
{
	struct client *c = data;
	wl_callback_destroy(callback);
	c->first_presented = true;
}

static const struct wl_callback_listener first_frame_listener = { .done = first_frame_done };

/* Shows pattern frame `index`; false when every buffer is still held. */
static bool show(struct client *c, int index)
{
	for (int i = 0; i < BUFFERS; i++) {
		struct buffer *b = &c->buffers[i];
		if (b->busy)
			continue;
		pattern_fill(b->data, c->width * 4, index, c->width, c->height, 0);
		wl_surface_attach(c->surface, b->wl_buffer, 0, 0);
		wl_surface_damage(c->surface, 0, 0, c->width, c->height);
		if (index == 0) {
			struct wl_callback *callback = wl_surface_frame(c->surface);
			wl_callback_add_listener(callback, &first_frame_listener, c);
		}
		wl_surface_commit(c->surface);
		b->busy = true;
		return true;
	}
	return false;
}

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	int frames = 0, interval_ms = 50, width = 0, height = 0;
	static const struct option options[] = {
		{ "frames", required_argument, NULL, 'f' },
		{ "interval-ms", required_argument, NULL, 'i' },
		{ "size", required_argument, NULL, 's' },
		{ 0 },
	};
	int opt;
	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		if (opt == 'f')
			frames = atoi(optarg);
		else if (opt == 'i')
			interval_ms = atoi(optarg);
		else if (opt == 's' && sscanf(optarg, "%dx%d", &width, &height) == 2)
			continue;
		else
			die("usage: pattern-client --size WxH --frames N [--interval-ms MS]");
	}
	if (frames < 1 || interval_ms < 1 || width < 1 || height < 1)
		die("usage: pattern-client --size WxH --frames N [--interval-ms MS]");

	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	int signal_fd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (signal_fd < 0)
		die("signalfd failed");

	struct client c = { .width = width, .height = height };
	c.display = wl_display_connect(NULL);
	if (!c.display)
		die("cannot connect to WAYLAND_DISPLAY");
	struct wl_registry *registry = wl_display_get_registry(c.display);
	wl_registry_add_listener(registry, &registry_listener, &c);
	wl_display_roundtrip(c.display);
	if (!c.compositor || !c.shm || !c.wm_base)
		die("the compositor lacks wl_compositor, wl_shm or xdg_wm_base");
	c.surface = wl_compositor_create_surface(c.compositor);
	c.xdg_surface = xdg_wm_base_get_xdg_surface(c.wm_base, c.surface);
	xdg_surface_add_listener(c.xdg_surface, &xdg_surface_listener, &c);
	c.toplevel = xdg_surface_get_toplevel(c.xdg_surface);
	xdg_toplevel_add_listener(c.toplevel, &toplevel_listener, &c);
	xdg_toplevel_set_fullscreen(c.toplevel, NULL);
	wl_surface_commit(c.surface);
	while (!c.configured) {
		if (wl_display_dispatch(c.display) < 0)
			die("the compositor went away before configuring the window");
	}
	create_buffers(&c);
	show(&c, 0);

	bool ready_said = false, animating = false, done_said = false;
	int next = 1;
	int64_t next_at = 0;
	for (;;) {
		if (c.first_presented && !ready_said) {
			printf("ready %dx%d\n", c.width, c.height);
			fflush(stdout);
			ready_said = true;
		}
		if (animating && next < frames && now_ms() >= next_at) {
			if (show(&c, next)) {
				next++;
				next_at += interval_ms;
			}
		}
		if (animating && next == frames && !done_said) {
			printf("done\n");
			fflush(stdout);
			done_said = true;
		}
		if (wl_display_flush(c.display) < 0 && errno != EAGAIN)
			die("the connection broke");
		int timeout = -1;
		if (animating && next < frames) {
			int64_t wait = next_at - now_ms();
			timeout = wait < 0 ? 1 : (int)wait;
		}
		struct pollfd fds[2] = {
			{ .fd = wl_display_get_fd(c.display), .events = POLLIN },
			{ .fd = signal_fd, .events = POLLIN },
		};
		if (poll(fds, 2, timeout) < 0 && errno != EINTR)
			die("poll failed");
		if (fds[0].revents & (POLLERR | POLLHUP) && !(fds[0].revents & POLLIN))
			die("the compositor went away");
		if (fds[0].revents & POLLIN && wl_display_dispatch(c.display) < 0)
			die("the compositor went away");
		if (fds[1].revents & POLLIN) {
			struct signalfd_siginfo info;
			if (read(signal_fd, &info, sizeof(info)) != sizeof(info))
				continue;
			if (info.ssi_signo != SIGUSR1)
				return 0;
			if (!animating) {
				animating = true;
				next_at = now_ms();
			}
		}
	}
}
