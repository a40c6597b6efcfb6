#include "inproc.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"

static void handle_frame(struct wl_listener *listener, void *data)
{
	struct inproc *t = wl_container_of(listener, t, frame_listener);
	const struct frame *frame = data;
	t->frames++;
	free(t->frame);
	t->frame_width = frame->width;
	t->frame_height = frame->height;
	t->frame = malloc((size_t)frame->width * frame->height * 4);
	test_assert(t->frame);
	for (int y = 0; y < frame->height; y++)
		memcpy(t->frame + (size_t)y * frame->width, frame->data + (size_t)y * frame->stride,
		       (size_t)frame->width * 4);
}

static void shm_format(void *data, struct wl_shm *shm, uint32_t format)
{
	struct inproc *t = data;
	if (format < 32)
		t->shm_formats |= 1u << format;
}

static const struct wl_shm_listener shm_listener = { .format = shm_format };

static void output_geometry(void *data, struct wl_output *o, int32_t x, int32_t y, int32_t pw,
			    int32_t ph, int32_t subpixel, const char *make, const char *model,
			    int32_t transform)
{
}

static void output_mode(void *data, struct wl_output *o, uint32_t flags, int32_t w, int32_t h,
			int32_t refresh)
{
	struct inproc *t = data;
	test_assert(flags & WL_OUTPUT_MODE_CURRENT);
	t->mode_width = w;
	t->mode_height = h;
	t->mode_refresh = refresh;
}

static void output_done(void *data, struct wl_output *o)
{
}

static void output_scale(void *data, struct wl_output *o, int32_t scale)
{
	test_assert(scale == 1);
}

static const struct wl_output_listener output_listener = {
	.geometry = output_geometry, .mode = output_mode, .done = output_done,
	.scale = output_scale,
};

static void shell_capability(void *data, struct zwp_fullscreen_shell_v1 *shell, uint32_t cap)
{
	struct inproc *t = data;
	t->shell_capabilities |= cap;
}

static const struct zwp_fullscreen_shell_v1_listener shell_listener = {
	.capability = shell_capability,
};

static void registry_global(void *data, struct wl_registry *registry, uint32_t name,
			    const char *interface, uint32_t version)
{
	struct inproc *t = data;
	if (strcmp(interface, "wl_compositor") == 0) {
		t->compositor_version = version;
		t->compositor = wl_registry_bind(registry, name, &wl_compositor_interface, version);
	} else if (strcmp(interface, "wl_shm") == 0) {
		t->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
		wl_shm_add_listener(t->shm, &shm_listener, t);
	} else if (strcmp(interface, "wl_output") == 0) {
		t->output_version = version;
		t->output = wl_registry_bind(registry, name, &wl_output_interface, version);
		wl_output_add_listener(t->output, &output_listener, t);
	} else if (strcmp(interface, "zwp_fullscreen_shell_v1") == 0) {
		t->shell = wl_registry_bind(registry, name, &zwp_fullscreen_shell_v1_interface, 1);
		zwp_fullscreen_shell_v1_add_listener(t->shell, &shell_listener, t);
	}
}

static void registry_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_global, .global_remove = registry_global_remove,
};

static void pump(struct inproc *t, int server_timeout_ms)
{
	wl_display_flush(t->display);
	wl_event_loop_dispatch(t->server->loop, server_timeout_ms);
	wl_display_flush_clients(t->server->display);
	while (wl_display_prepare_read(t->display) != 0)
		wl_display_dispatch_pending(t->display);
	struct pollfd pfd = { .fd = wl_display_get_fd(t->display), .events = POLLIN };
	if (poll(&pfd, 1, 0) > 0)
		wl_display_read_events(t->display);
	else
		wl_display_cancel_read(t->display);
	wl_display_dispatch_pending(t->display);
}

static void sync_done(void *data, struct wl_callback *callback, uint32_t serial)
{
	*(bool *)data = true;
	wl_callback_destroy(callback);
}

static const struct wl_callback_listener sync_listener = { .done = sync_done };

/* 0 answered, -1 the connection failed, -2 no answer within 10000 turns. */
static int roundtrip(struct inproc *t)
{
	bool done = false;
	struct wl_callback *callback = wl_display_sync(t->display);
	wl_callback_add_listener(callback, &sync_listener, &done);
	for (int i = 0; i < 10000 && !done && !wl_display_get_error(t->display); i++)
		pump(t, 1);
	if (!done)
		wl_callback_destroy(callback); /* never answered: a protocol error came first */
	if (wl_display_get_error(t->display))
		return -1;
	return done ? 0 : -2;
}

bool inproc_roundtrip(struct inproc *t)
{
	return roundtrip(t) != -1;
}

struct test_roundtrip inproc_roundtrip_for_error(struct inproc *t)
{
	return (struct test_roundtrip){ .display = t->display, .result = roundtrip(t) };
}

void inproc_run_for(struct inproc *t, int ms)
{
	int64_t end = clock_now_ns() + (int64_t)ms * 1000000;
	while (clock_now_ns() < end && !wl_display_get_error(t->display))
		pump(t, 1);
}

void inproc_init(struct inproc *t, int width, int height)
{
	*t = (struct inproc){ 0 };
	struct server_config config = { .width = width, .height = height, .fps = 60 };
	t->server = server_create(&config);
	test_assert(t->server);
	int fds[2];
	test_assert(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0);
	test_assert(server_adopt_client_fd(t->server, fds[0]));
	t->display = wl_display_connect_to_fd(fds[1]);
	test_assert(t->display);
	t->frame_listener.notify = handle_frame;
	wl_signal_add(&t->server->screen.events.frame, &t->frame_listener);
	t->registry = wl_display_get_registry(t->display);
	wl_registry_add_listener(t->registry, &registry_listener, t);
	test_assert(inproc_roundtrip(t));
	test_assert(inproc_roundtrip(t)); /* events sent on bind */
}

void inproc_finish(struct inproc *t)
{
	/* Client proxies are freed locally even after a protocol error. */
	if (t->surface)
		wl_surface_destroy(t->surface);
	if (t->shell)
		zwp_fullscreen_shell_v1_destroy(t->shell);
	if (t->output)
		wl_output_destroy(t->output);
	if (t->shm)
		wl_shm_destroy(t->shm);
	if (t->compositor)
		wl_compositor_destroy(t->compositor);
	wl_registry_destroy(t->registry);
	wl_list_remove(&t->frame_listener.link);
	wl_display_disconnect(t->display);
	server_destroy(t->server);
	free(t->frame);
}

void test_buffer_init(struct inproc *t, struct test_buffer *b, int width, int height,
		      uint32_t format)
{
	*b = (struct test_buffer){ .width = width, .height = height, .stride = width * 4 };
	b->size = (size_t)b->stride * height;
	b->fd = memfd_create("test-buffer", MFD_CLOEXEC);
	test_assert(b->fd >= 0);
	test_assert(ftruncate(b->fd, (off_t)b->size) == 0);
	b->pixels = mmap(NULL, b->size, PROT_READ | PROT_WRITE, MAP_SHARED, b->fd, 0);
	test_assert(b->pixels != MAP_FAILED);
	struct wl_shm_pool *pool = wl_shm_create_pool(t->shm, b->fd, (int32_t)b->size);
	b->buffer = wl_shm_pool_create_buffer(pool, 0, width, height, b->stride, format);
	wl_shm_pool_destroy(pool);
}

void test_buffer_fill(struct test_buffer *b, uint32_t (*pixel)(int x, int y))
{
	for (int y = 0; y < b->height; y++)
		for (int x = 0; x < b->width; x++)
			b->pixels[(size_t)y * b->width + x] = pixel(x, y);
}

void test_buffer_finish(struct test_buffer *b)
{
	if (b->buffer)
		wl_buffer_destroy(b->buffer);
	munmap(b->pixels, b->size);
	close(b->fd);
}

uint32_t inproc_frame_pixel(const struct inproc *t, int x, int y)
{
	test_assert(t->frame && x >= 0 && y >= 0 && x < t->frame_width && y < t->frame_height);
	return t->frame[(size_t)y * t->frame_width + x] & 0xffffff;
}

bool inproc_protocol_error(struct inproc *t, const char **interface, uint32_t *code)
{
	if (wl_display_get_error(t->display) != EPROTO)
		return false;
	const struct wl_interface *iface;
	*code = wl_display_get_protocol_error(t->display, &iface, NULL);
	*interface = iface ? iface->name : "";
	return true;
}
