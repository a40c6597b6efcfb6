/* dmabuf-presenter: presents known frames (tests/pattern.h) through
 * zwp_fullscreen_shell_v1 in LINEAR linux-dmabuf buffers (a sealed memfd per
 * buffer; a real udmabuf when /dev/udmabuf exists), and writes when it
 * committed each one.
 *
 * usage: dmabuf-presenter --version 3|4 [--immed] [--format FORMAT]
 *        [--size WxH] [--frames N] [--interval-ms M] [--hold-ms H] [--times FILE]
 * FORMAT: xrgb (default), argb, xbgr, abgr or their 2101010 forms
 * (pattern.h); the X bits are 0.
 * Exit: 0 done (the server may close after the last frame), 1 failure or
 * protocol error, 2 bad command line, 3 the server left early. */
#include <drm_fourcc.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>

#include "dmabuf_client.h"
#include "fullscreen-shell-unstable-v1-client-protocol.h"
#include "pattern.h"

#define BUFFER_COUNT 3
#define TIMEOUT_MS 5000

struct buffer {
	struct wl_buffer *wl_buffer;
	void *pixels;
	size_t size;
	bool busy;
};

struct client {
	struct wl_display *display;
	struct wl_compositor *compositor;
	struct wl_output *output;
	struct zwp_fullscreen_shell_v1 *shell;
	struct dmabuf_client dmabuf;
	struct buffer buffers[BUFFER_COUNT];
	bool mode_answered;
};

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void registry_global(void *data, struct wl_registry *registry, uint32_t name,
			    const char *interface, uint32_t version)
{
	struct client *c = data;
	if (strcmp(interface, wl_compositor_interface.name) == 0)
		c->compositor = wl_registry_bind(registry, name, &wl_compositor_interface,
					 version < 4 ? version : 4);
	else if (strcmp(interface, wl_output_interface.name) == 0 && !c->output)
		c->output = wl_registry_bind(registry, name, &wl_output_interface, 1);
	else if (strcmp(interface, zwp_fullscreen_shell_v1_interface.name) == 0)
		c->shell = wl_registry_bind(registry, name, &zwp_fullscreen_shell_v1_interface, 1);
}

static void registry_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_global, .global_remove = registry_global_remove,
};

static void mode_done(void *data, struct zwp_fullscreen_shell_mode_feedback_v1 *feedback)
{
	((struct client *)data)->mode_answered = true;
	zwp_fullscreen_shell_mode_feedback_v1_destroy(feedback);
}

static const struct zwp_fullscreen_shell_mode_feedback_v1_listener mode_listener = {
	.mode_successful = mode_done, .mode_failed = mode_done, .present_cancelled = mode_done,
};

static void buffer_release(void *data, struct wl_buffer *wl_buffer)
{
	((struct buffer *)data)->busy = false;
}

static const struct wl_buffer_listener buffer_listener = { .release = buffer_release };

static bool roundtrip(void *display)
{
	return wl_display_roundtrip(display) >= 0;
}

static int dispatch_for(struct wl_display *display, int timeout_ms)
{
	while (wl_display_prepare_read(display) != 0)
		if (wl_display_dispatch_pending(display) < 0)
			return -1;
	if (wl_display_flush(display) < 0 && errno != EAGAIN) {
		wl_display_cancel_read(display);
		return -1;
	}
	struct pollfd pfd = { .fd = wl_display_get_fd(display), .events = POLLIN };
	if (poll(&pfd, 1, timeout_ms) <= 0) {
		wl_display_cancel_read(display);
		return 0;
	}
	if (wl_display_read_events(display) < 0)
		return -1;
	return wl_display_dispatch_pending(display) < 0 ? -1 : 0;
}

static struct wl_buffer *make_buffer_immed(struct client *c, struct buffer *b, uint32_t format,
					   int width, int height)
{
	bool udmabuf;
	b->size = (size_t)width * 4 * (size_t)height;
	int fd = dmabuf_client_make_fd(b->size, false, &b->pixels, &udmabuf);
	struct zwp_linux_buffer_params_v1 *params = zwp_linux_dmabuf_v1_create_params(c->dmabuf.dmabuf);
	zwp_linux_buffer_params_v1_add(params, fd, 0, 0, (uint32_t)width * 4,
				       (uint32_t)(DRM_FORMAT_MOD_LINEAR >> 32),
				       (uint32_t)DRM_FORMAT_MOD_LINEAR);
	close(fd);
	struct wl_buffer *buffer =
		zwp_linux_buffer_params_v1_create_immed(params, width, height, format, 0);
	zwp_linux_buffer_params_v1_destroy(params);
	printf("dmabuf-presenter: buffer in a %s\n", udmabuf ? "udmabuf" : "memfd");
	return buffer;
}

static void created(void *data, struct zwp_linux_buffer_params_v1 *params, struct wl_buffer *buffer)
{
	*(struct wl_buffer **)data = buffer;
}

static void failed(void *data, struct zwp_linux_buffer_params_v1 *params)
{
	fprintf(stderr, "dmabuf-presenter: the server failed the buffer\n");
}

static const struct zwp_linux_buffer_params_v1_listener params_listener = {
	.created = created, .failed = failed,
};

static struct wl_buffer *make_buffer_create(struct client *c, struct buffer *b, uint32_t format,
					    int width, int height)
{
	bool udmabuf;
	b->size = (size_t)width * 4 * (size_t)height;
	int fd = dmabuf_client_make_fd(b->size, false, &b->pixels, &udmabuf);
	struct zwp_linux_buffer_params_v1 *params = zwp_linux_dmabuf_v1_create_params(c->dmabuf.dmabuf);
	struct wl_buffer *buffer = NULL;
	zwp_linux_buffer_params_v1_add_listener(params, &params_listener, &buffer);
	zwp_linux_buffer_params_v1_add(params, fd, 0, 0, (uint32_t)width * 4, 0, 0);
	close(fd);
	zwp_linux_buffer_params_v1_create(params, width, height, format, 0);
	if (wl_display_roundtrip(c->display) < 0)
		buffer = NULL;
	zwp_linux_buffer_params_v1_destroy(params);
	printf("dmabuf-presenter: buffer in a %s (create)\n", udmabuf ? "udmabuf" : "memfd");
	return buffer;
}

int main(int argc, char **argv)
{
	int version = 4, width = 320, height = 240, frames = 1, interval_ms = 50, hold_ms = 0;
	bool immed = false;
	uint32_t format = DRM_FORMAT_XRGB8888;
	const char *times_path = NULL;
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(arg, "--immed") == 0) {
			immed = true;
			continue;
		}
		if (!value)
			goto usage;
		i++;
		if (strcmp(arg, "--version") == 0)
			version = atoi(value);
		else if (strcmp(arg, "--format") == 0)
			format = pattern_format_from_name(value);
		else if (strcmp(arg, "--size") == 0 && sscanf(value, "%dx%d", &width, &height) == 2)
			;
		else if (strcmp(arg, "--frames") == 0)
			frames = atoi(value);
		else if (strcmp(arg, "--interval-ms") == 0)
			interval_ms = atoi(value);
		else if (strcmp(arg, "--hold-ms") == 0)
			hold_ms = atoi(value);
		else if (strcmp(arg, "--times") == 0)
			times_path = value;
		else
			goto usage;
	}
	if (version < 2 || version > 4 || width < 1 || height < 1 || frames < 1 || !format)
		goto usage;

	struct client c = { 0 };
	struct wl_surface *surface = NULL;
	int status = 1, committed = 0;
	FILE *times = times_path ? fopen(times_path, "w") : NULL;
	if (times_path && !times) {
		perror(times_path);
		return 1;
	}
	c.display = wl_display_connect(NULL);
	if (!c.display) {
		perror("dmabuf-presenter: connect");
		return 1;
	}
	struct wl_registry *registry = wl_display_get_registry(c.display);
	wl_registry_add_listener(registry, &registry_listener, &c);
	wl_display_roundtrip(c.display);
	if (!c.compositor || !c.output || !c.shell ||
	    !dmabuf_client_bind(&c.dmabuf, c.display, (uint32_t)version, roundtrip, c.display)) {
		fprintf(stderr, "dmabuf-presenter: missing a global (compositor, output, shell or "
				"zwp_linux_dmabuf_v1 v%d)\n", version);
		goto out;
	}
	for (int i = 0; i < BUFFER_COUNT; i++) {
		struct buffer *b = &c.buffers[i];
		b->wl_buffer = immed ? make_buffer_immed(&c, b, format, width, height)
				     : make_buffer_create(&c, b, format, width, height);
		if (!b->wl_buffer)
			goto out;
		wl_buffer_add_listener(b->wl_buffer, &buffer_listener, b);
	}
	surface = wl_compositor_create_surface(c.compositor);
	struct zwp_fullscreen_shell_mode_feedback_v1 *feedback =
		zwp_fullscreen_shell_v1_present_surface_for_mode(c.shell, surface, c.output, 0);
	zwp_fullscreen_shell_mode_feedback_v1_add_listener(feedback, &mode_listener, &c);

	int64_t start = now_ns();
	for (int index = 0; index < frames; index++) {
		int64_t due = start + (int64_t)index * interval_ms * 1000000;
		while (now_ns() < due)
			if (dispatch_for(c.display, (int)((due - now_ns()) / 1000000) + 1) < 0)
				goto gone;
		struct buffer *b = NULL;
		int64_t deadline = now_ns() + (int64_t)TIMEOUT_MS * 1000000;
		while (!b && now_ns() < deadline) {
			for (int i = 0; i < BUFFER_COUNT && !b; i++)
				if (!c.buffers[i].busy)
					b = &c.buffers[i];
			if (!b && dispatch_for(c.display, 100) < 0)
				goto gone;
		}
		if (!b) {
			fprintf(stderr, "dmabuf-presenter: no buffer released in %d ms\n", TIMEOUT_MS);
			goto out;
		}
		pattern_fill_format(b->pixels, width * 4, index, width, height, format);
		wl_surface_attach(surface, b->wl_buffer, 0, 0);
		wl_surface_damage_buffer(surface, 0, 0, width, height);
		b->busy = true;
		int64_t commit_ns = now_ns();
		wl_surface_commit(surface);
		if (times)
			fprintf(times, "%d %lld\n", index, (long long)commit_ns);
		committed++;
		if (wl_display_flush(c.display) < 0 && errno != EAGAIN)
			goto gone;
		if (index == 0)
			while (!c.mode_answered)
				if (dispatch_for(c.display, 100) < 0)
					goto gone;
	}
	printf("dmabuf-presenter: committed %d frames\n", committed);
	fflush(stdout);
	int64_t hold_end = now_ns() + (int64_t)hold_ms * 1000000;
	while (now_ns() < hold_end)
		if (dispatch_for(c.display, 50) < 0)
			goto gone;
	status = wl_display_roundtrip(c.display) < 0 ? 1 : 0;
	goto out;
gone:
	if (wl_display_get_error(c.display) == EPROTO) {
		const struct wl_interface *interface;
		uint32_t code = wl_display_get_protocol_error(c.display, &interface, NULL);
		fprintf(stderr, "dmabuf-presenter: protocol error %u on %s\n", code,
			interface ? interface->name : "?");
		status = 1;
	} else {
		status = committed == frames ? 0 : 3;
	}
out:
	if (times && fclose(times) != 0)
		status = 1;
	for (int i = 0; i < BUFFER_COUNT; i++) {
		if (c.buffers[i].wl_buffer)
			wl_buffer_destroy(c.buffers[i].wl_buffer);
		if (c.buffers[i].pixels)
			munmap(c.buffers[i].pixels, c.buffers[i].size);
	}
	if (surface)
		wl_surface_destroy(surface);
	dmabuf_client_finish(&c.dmabuf);
	if (c.shell)
		zwp_fullscreen_shell_v1_release(c.shell);
	if (c.output)
		wl_output_destroy(c.output);
	if (c.compositor)
		wl_compositor_destroy(c.compositor);
	wl_registry_destroy(registry);
	wl_display_disconnect(c.display);
	return status;

usage:
	fprintf(stderr, "usage: dmabuf-presenter --version 3|4 [--immed] [--format FORMAT] "
			"[--size WxH] [--frames N] [--interval-ms M] [--hold-ms H] [--times FILE]\n");
	return 2;
}
