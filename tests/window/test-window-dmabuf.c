/* The window's dmabuf path (src/window/window_dmabuf.c) against a fake
 * desktop in a thread of this process: a Wayland server with wl_compositor,
 * wl_shm, xdg_wm_base and zwp_linux_dmabuf_v1 (version 3), which either
 * makes the buffers it is asked for or refuses them (`failed`), the cases a
 * desktop without a GPU here never gives. It holds the buffer a surface
 * shows until the next commit replaces it, as compositors do. The frames
 * are buffers of a producer of this file (memfd planes, a known colour).
 *
 * Every request of every object goes through one dispatcher; what matters
 * is counted in atomics the cases read. */
#include <drm_fourcc.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <wayland-server-core.h>
#include <wayland-server-protocol.h>

#include "desktop_window.h"
#include "frame_source.h"
#include "linux-dmabuf-unstable-v1-server-protocol.h"
#include "test-runner.h"
#include "xdg-shell-server-protocol.h"

#define WIDTH 64
#define HEIGHT 48
#define MAX_SURFACES 8

/* ---- the fake desktop ---- */

struct fake_pool {
	uint8_t *map;
	size_t size;
	int refs;
};

struct fake_buffer {
	bool dmabuf;
	struct fake_pool *pool;
	int32_t offset, width, height, stride;
};

struct fake_surface {
	struct wl_resource *resource, *xdg_surface, *toplevel;
	struct wl_resource *pending, *current;
	bool attached, configured;
	struct wl_resource *callbacks[8];
	int callback_count;
};

static struct {
	struct wl_display *display;
	pthread_t thread;
	atomic_bool stop;
	/* Set before the thread starts. */
	bool refuse;
	uint32_t offered_format;
	/* Server thread only. */
	struct fake_surface *surfaces[MAX_SURFACES];
	uint32_t serial;
	/* What the cases read. */
	atomic_int creates, dmabuf_commits, shm_commits;
	atomic_uint shm_centre; /* the centre pixel of the newest shm picture */
	atomic_uintptr_t last_dmabuf; /* the newest dmabuf picture's wl_buffer */
	atomic_uint last_flags;       /* of the newest buffer made */
	atomic_int damage[4];         /* the newest wl_surface.damage_buffer: x, y, w, h */
	atomic_bool hidden;           /* frame callbacks are kept, as for a hidden window */
} fake;

static int dispatch(const void *implementation, void *target, uint32_t opcode,
		    const struct wl_message *message, union wl_argument *args);

static void pool_unref(struct fake_pool *pool)
{
	if (pool && --pool->refs == 0) {
		munmap(pool->map, pool->size);
		free(pool);
	}
}

/* Any resource going: nothing may point at it any more. */
static void resource_gone(struct wl_resource *resource)
{
	const char *class = wl_resource_get_class(resource);
	void *data = wl_resource_get_user_data(resource);
	for (int i = 0; i < MAX_SURFACES; i++) {
		struct fake_surface *s = fake.surfaces[i];
		if (!s)
			continue;
		if (s->resource == resource) {
			fake.surfaces[i] = NULL;
			free(s);
			continue;
		}
		if (s->xdg_surface == resource)
			s->xdg_surface = NULL;
		if (s->toplevel == resource)
			s->toplevel = NULL;
		if (s->pending == resource)
			s->pending = NULL;
		if (s->current == resource)
			s->current = NULL;
		for (int c = 0; c < s->callback_count; c++)
			if (s->callbacks[c] == resource)
				s->callbacks[c] = NULL;
	}
	if (strcmp(class, "wl_buffer") == 0 && data) {
		struct fake_buffer *buffer = data;
		pool_unref(buffer->pool);
		free(buffer);
	} else if (strcmp(class, "wl_shm_pool") == 0) {
		pool_unref(data);
	}
}

static struct wl_resource *new_object(struct wl_client *client, const struct wl_interface *interface,
				      int version, uint32_t id, void *data)
{
	struct wl_resource *resource = wl_resource_create(client, interface, version, id);
	test_assert(resource != NULL);
	wl_resource_set_dispatcher(resource, dispatch, NULL, data, resource_gone);
	return resource;
}

static struct fake_surface *surface_of(struct wl_resource *resource)
{
	for (int i = 0; i < MAX_SURFACES; i++)
		if (fake.surfaces[i] && fake.surfaces[i]->resource == resource)
			return fake.surfaces[i];
	return NULL;
}

static void commit(struct fake_surface *s)
{
	if (s->xdg_surface && s->toplevel && !s->configured) {
		struct wl_array states;
		wl_array_init(&states);
		xdg_toplevel_send_configure(s->toplevel, 0, 0, &states);
		wl_array_release(&states);
		xdg_surface_send_configure(s->xdg_surface, ++fake.serial);
		s->configured = true;
	}
	if (s->attached) {
		s->attached = false;
		struct wl_resource *shown = s->pending;
		struct fake_buffer *buffer = shown ? wl_resource_get_user_data(shown) : NULL;
		if (buffer && buffer->dmabuf) {
			fake.last_dmabuf = (uintptr_t)shown;
			fake.dmabuf_commits++;
		} else if (buffer) {
			const uint8_t *row = buffer->pool->map + buffer->offset +
					     (size_t)buffer->stride * (size_t)(buffer->height / 2);
			uint32_t pixel;
			memcpy(&pixel, row + (size_t)(buffer->width / 2) * 4, 4);
			fake.shm_centre = pixel & 0xffffff;
			fake.shm_commits++;
		}
		/* The buffer shown before is free now that another replaced it. */
		if (s->current && s->current != shown)
			wl_buffer_send_release(s->current);
		s->current = shown;
	}
	if (fake.hidden)
		return;
	for (int c = 0; c < s->callback_count; c++) {
		if (!s->callbacks[c])
			continue;
		wl_callback_send_done(s->callbacks[c], 0);
		wl_resource_destroy(s->callbacks[c]);
	}
	s->callback_count = 0;
}

static int dispatch(const void *implementation, void *target, uint32_t opcode,
		    const struct wl_message *message, union wl_argument *args)
{
	struct wl_resource *resource = target;
	struct wl_client *client = wl_resource_get_client(resource);
	int version = wl_resource_get_version(resource);
	const char *class = wl_resource_get_class(resource);
	const char *name = message->name;
	/* The arguments' types, without nullability marks and versions. */
	char types[16];
	int n = 0;
	for (const char *c = message->signature; *c && n < 16; c++)
		if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z'))
			types[n++] = *c;

	if (strcmp(class, "wl_compositor") == 0 && strcmp(name, "create_surface") == 0) {
		struct fake_surface *s = calloc(1, sizeof(*s));
		test_assert(s != NULL);
		s->resource = new_object(client, &wl_surface_interface, version, args[0].n, NULL);
		for (int i = 0; i < MAX_SURFACES; i++)
			if (!fake.surfaces[i]) {
				fake.surfaces[i] = s;
				return 0;
			}
		test_assert(false, "too many surfaces");
	}
	if (strcmp(class, "wl_surface") == 0) {
		struct fake_surface *s = surface_of(resource);
		if (strcmp(name, "attach") == 0) {
			s->pending = (struct wl_resource *)args[0].o;
			s->attached = true;
		} else if (strcmp(name, "damage_buffer") == 0) {
			for (int i = 0; i < 4; i++)
				fake.damage[i] = args[i].i;
		} else if (strcmp(name, "frame") == 0) {
			struct wl_resource *callback =
				new_object(client, &wl_callback_interface, 1, args[0].n, NULL);
			test_assert(s->callback_count < 8);
			s->callbacks[s->callback_count++] = callback;
		} else if (strcmp(name, "commit") == 0) {
			commit(s);
		} else if (strcmp(name, "destroy") == 0) {
			wl_resource_destroy(resource);
		}
		return 0;
	}
	if (strcmp(class, "xdg_wm_base") == 0 && strcmp(name, "get_xdg_surface") == 0) {
		struct fake_surface *s = surface_of((struct wl_resource *)args[1].o);
		s->xdg_surface = new_object(client, &xdg_surface_interface, version, args[0].n, NULL);
		return 0;
	}
	if (strcmp(class, "xdg_surface") == 0 && strcmp(name, "get_toplevel") == 0) {
		struct wl_resource *toplevel =
			new_object(client, &xdg_toplevel_interface, version, args[0].n, NULL);
		for (int i = 0; i < MAX_SURFACES; i++)
			if (fake.surfaces[i] && fake.surfaces[i]->xdg_surface == resource)
				fake.surfaces[i]->toplevel = toplevel;
		return 0;
	}
	if (strcmp(class, "wl_shm") == 0 && strcmp(name, "create_pool") == 0) {
		struct fake_pool *pool = calloc(1, sizeof(*pool));
		test_assert(pool != NULL);
		pool->size = (size_t)args[2].i;
		pool->map = mmap(NULL, pool->size, PROT_READ, MAP_SHARED, args[1].h, 0);
		test_assert(pool->map != MAP_FAILED);
		close(args[1].h);
		pool->refs = 1;
		new_object(client, &wl_shm_pool_interface, version, args[0].n, pool);
		return 0;
	}
	if (strcmp(class, "wl_shm_pool") == 0 && strcmp(name, "create_buffer") == 0) {
		struct fake_buffer *buffer = calloc(1, sizeof(*buffer));
		test_assert(buffer != NULL);
		buffer->pool = wl_resource_get_user_data(resource);
		buffer->pool->refs++;
		buffer->offset = args[1].i;
		buffer->width = args[2].i;
		buffer->height = args[3].i;
		buffer->stride = args[4].i;
		new_object(client, &wl_buffer_interface, 1, args[0].n, buffer);
		return 0;
	}
	if (strcmp(class, "zwp_linux_buffer_params_v1") == 0 && strcmp(name, "add") == 0) {
		close(args[0].h);
		return 0;
	}
	if (strcmp(class, "zwp_linux_buffer_params_v1") == 0 && strcmp(name, "create") == 0) {
		fake.creates++;
		fake.last_flags = args[3].u;
		if (fake.refuse) {
			zwp_linux_buffer_params_v1_send_failed(resource);
			return 0;
		}
		struct fake_buffer *buffer = calloc(1, sizeof(*buffer));
		test_assert(buffer != NULL);
		buffer->dmabuf = true;
		struct wl_resource *made = new_object(client, &wl_buffer_interface, 1, 0, buffer);
		zwp_linux_buffer_params_v1_send_created(resource, made);
		return 0;
	}
	/* Anything else that makes an object: a plain one of its interface. */
	for (int i = 0; i < n; i++)
		if (types[i] == 'n' && message->types[i])
			new_object(client, message->types[i], version, args[i].n, NULL);
		else if (types[i] == 'h')
			close(args[i].h);
	if (strcmp(name, "destroy") == 0 || strcmp(name, "release") == 0)
		wl_resource_destroy(resource);
	return 0;
}

static void bind_global(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	const struct wl_interface *interface = data;
	struct wl_resource *resource = new_object(client, interface, (int)version, id, NULL);
	if (interface == &wl_shm_interface) {
		wl_shm_send_format(resource, WL_SHM_FORMAT_XRGB8888);
		wl_shm_send_format(resource, WL_SHM_FORMAT_ARGB8888);
	} else if (interface == &zwp_linux_dmabuf_v1_interface) {
		zwp_linux_dmabuf_v1_send_format(resource, fake.offered_format);
		zwp_linux_dmabuf_v1_send_modifier(resource, fake.offered_format, 0,
						  (uint32_t)DRM_FORMAT_MOD_LINEAR);
	}
}

static void *serve(void *data)
{
	struct wl_event_loop *loop = wl_display_get_event_loop(fake.display);
	while (!fake.stop) {
		wl_event_loop_dispatch(loop, 10);
		wl_display_flush_clients(fake.display);
	}
	return NULL;
}

/* Starts the fake desktop; returns its socket's name. */
static const char *fake_start(bool refuse, uint32_t offered_format)
{
	char runtime[] = "/tmp/wlr-window-dmabuf.XXXXXX";
	test_assert(mkdtemp(runtime) != NULL);
	setenv("XDG_RUNTIME_DIR", runtime, 1);
	fake.refuse = refuse;
	fake.offered_format = offered_format;
	fake.display = wl_display_create();
	test_assert(fake.display != NULL);
	wl_global_create(fake.display, &wl_compositor_interface, 4, (void *)&wl_compositor_interface,
			 bind_global);
	wl_global_create(fake.display, &wl_shm_interface, 1, (void *)&wl_shm_interface, bind_global);
	wl_global_create(fake.display, &xdg_wm_base_interface, 1, (void *)&xdg_wm_base_interface,
			 bind_global);
	wl_global_create(fake.display, &zwp_linux_dmabuf_v1_interface, 3,
			 (void *)&zwp_linux_dmabuf_v1_interface, bind_global);
	const char *socket = wl_display_add_socket_auto(fake.display);
	test_assert(socket != NULL);
	test_assert(pthread_create(&fake.thread, NULL, serve, NULL) == 0);
	return socket;
}

static void fake_stop(void)
{
	fake.stop = true;
	pthread_join(fake.thread, NULL);
	wl_display_destroy_clients(fake.display);
	wl_display_destroy(fake.display);
	rmdir(getenv("XDG_RUNTIME_DIR"));
}

/* ---- the producer: a client's buffers, one colour each ---- */

struct test_planes {
	struct wl_record_buffer base;
	struct dmabuf_attributes attributes;
	uint32_t colour;
	atomic_bool destroyed;
};

static bool planes_read(struct wl_record_buffer *base, uint8_t *dst, int dst_stride, char *why,
			size_t why_size)
{
	struct test_planes *planes = (struct test_planes *)base;
	for (int y = 0; y < HEIGHT; y++)
		for (int x = 0; x < WIDTH; x++)
			memcpy(dst + (size_t)y * (size_t)dst_stride + (size_t)x * 4, &planes->colour, 4);
	return true;
}

static const struct dmabuf_attributes *planes_get_dmabuf(struct wl_record_buffer *base)
{
	return &((struct test_planes *)base)->attributes;
}

static void planes_destroy(struct wl_record_buffer *base)
{
	struct test_planes *planes = (struct test_planes *)base;
	close(planes->attributes.fd[0]);
	planes->destroyed = true;
}

static const struct wl_record_buffer_impl planes_impl = {
	.destroy = planes_destroy,
	.get_dmabuf = planes_get_dmabuf,
	.read = planes_read,
};

/* The locks on a buffer: the frames the window keeps of it. */
static int locks(struct test_planes *planes)
{
	return atomic_load(&planes->base.locks);
}

static void planes_init_flags(struct test_planes *planes, uint32_t format, uint32_t colour,
			      uint32_t flags)
{
	struct dmabuf_attributes attributes = {
		.width = WIDTH, .height = HEIGHT, .format = format, .flags = flags,
		.modifier = DRM_FORMAT_MOD_LINEAR, .n_planes = 1,
		.fd = { memfd_create("test-planes", MFD_CLOEXEC), -1, -1, -1 },
		.stride = { WIDTH * 4 },
	};
	test_assert(attributes.fd[0] >= 0 && ftruncate(attributes.fd[0], WIDTH * HEIGHT * 4) == 0);
	planes->colour = colour;
	atomic_init(&planes->destroyed, false);
	planes->attributes = attributes;
	wl_record_buffer_init(&planes->base, &planes_impl, WIDTH, HEIGHT, format);
}

static void planes_init(struct test_planes *planes, uint32_t format, uint32_t colour)
{
	planes_init_flags(planes, format, colour, 0);
}

/* ---- the window ---- */

static struct {
	struct desktop_window *window;
	struct wl_event_loop *loop;
	struct frame_source source;
} w;

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Runs the window's loop until `cond` holds (5 s at most). */
#define PUMP_UNTIL(cond)                                                                   \
	do {                                                                               \
		int64_t end = now_ms() + 5000;                                             \
		while (!(cond) && now_ms() < end)                                          \
			wl_event_loop_dispatch(w.loop, 10);                                \
		test_assert(cond);                                                         \
	} while (0)

/* Runs the window's loop for a while: what was going to happen, did. */
static void settle(void)
{
	int64_t end = now_ms() + 200;
	while (now_ms() < end)
		wl_event_loop_dispatch(w.loop, 10);
}

static void closed(void *data)
{
}

static void gone(void *data, const char *why)
{
	test_assert(false, "the window lost the fake desktop: %s", why);
}

static void window_start(bool refuse, uint32_t offered_format)
{
	const char *socket = fake_start(refuse, offered_format);
	char why[256] = "";
	w.window = desktop_window_connect(socket, why, sizeof(why));
	test_assert(w.window != NULL, "%s", why);
	w.loop = wl_event_loop_create();
	struct desktop_window_events events = { .closed = closed, .gone = gone };
	test_assert(desktop_window_open(w.window, w.loop, "test", WIDTH, HEIGHT, &events));
	frame_source_init(&w.source);
	desktop_window_connect_source(w.window, &w.source);
	/* Configured, and the black first picture shown. */
	PUMP_UNTIL(fake.shm_commits == 1);
}

static void window_finish(void)
{
	desktop_window_destroy(w.window);
	wl_event_loop_destroy(w.loop);
	fake_stop();
}

/* A frame of `planes` with no pixels, as the compositor sends a 1:1
 * dmabuf surface's. */
static void emit_lease_damaged(struct test_planes *planes, const struct frame_damage *damage)
{
	struct frame frame = {
		.width = WIDTH, .height = HEIGHT, .stride = WIDTH * 4,
		.buffer = &planes->base,
		.damage_known = damage != NULL,
		.damage = damage ? *damage : (struct frame_damage){ 0 },
	};
	frame_source_emit(&w.source, &frame);
}

static void emit_lease(struct test_planes *planes)
{
	emit_lease_damaged(planes, NULL);
}

static void no_destroy(struct wl_record_buffer *buffer)
{
}

static const struct wl_record_buffer_impl static_picture_impl = { .destroy = no_destroy };

/* A frame in memory (a composed screen), all of `colour`. */
static void emit_pixels(uint32_t colour)
{
	static uint32_t pixels[WIDTH * HEIGHT];
	static struct wl_record_buffer picture;
	if (!picture.impl)
		wl_record_buffer_init(&picture, &static_picture_impl, WIDTH, HEIGHT,
				      DRM_FORMAT_XRGB8888);
	for (int i = 0; i < WIDTH * HEIGHT; i++)
		pixels[i] = colour;
	struct frame frame = {
		.data = (uint8_t *)pixels, .width = WIDTH, .height = HEIGHT, .stride = WIDTH * 4,
		.buffer = &picture,
	};
	frame_source_emit(&w.source, &frame);
}

static struct desktop_window_stats stats(void)
{
	struct desktop_window_stats s;
	desktop_window_get_stats(w.window, &s);
	return s;
}

/* The desktop makes the buffers: each client buffer is imported once, shown
 * without a copy, and its lease held exactly while the desktop shows it. */
TEST(made_buffers_are_shown_and_held_until_released)
{
	window_start(false, DRM_FORMAT_XRGB8888);
	struct test_planes one, two;
	planes_init(&one, DRM_FORMAT_XRGB8888, 0x112233);
	planes_init(&two, DRM_FORMAT_XRGB8888, 0x445566);

	emit_lease(&one);
	PUMP_UNTIL(fake.dmabuf_commits == 1);
	uintptr_t first = fake.last_dmabuf;
	emit_lease(&two);
	PUMP_UNTIL(fake.dmabuf_commits == 2);
	test_assert(fake.last_dmabuf != first);
	emit_lease(&one);
	PUMP_UNTIL(fake.dmabuf_commits == 3);
	test_assert(fake.last_dmabuf == first, "the cached buffer was not reused");
	test_assert(fake.creates == 2, "%d imports for two client buffers", fake.creates);

	/* Replaced by a copied picture: the desktop still shows `one` until that
	 * commit reaches it, and the window still holds its lease. */
	emit_pixels(0x778899);
	test_assert(locks(&one) == 1, "%d leases on the buffer the desktop shows", locks(&one));
	PUMP_UNTIL(fake.shm_commits == 2 && locks(&one) == 0);
	test_assert(fake.shm_centre == 0x778899, "the copied picture shows %06x", fake.shm_centre);
	test_assert(locks(&two) == 0);

	/* The client destroys its buffers: the imports go with the next frame. */
	wl_record_buffer_drop(&one.base);
	wl_record_buffer_drop(&two.base);
	test_assert(!one.destroyed && !two.destroyed);
	emit_pixels(0x778899);
	test_assert(one.destroyed && two.destroyed, "the window keeps gone buffers' planes");

	struct desktop_window_stats s = stats();
	test_assert(s.pictures_dmabuf == 3 && s.pictures_copied == 2,
		    "%llu dmabuf pictures, %llu copied", (unsigned long long)s.pictures_dmabuf,
		    (unsigned long long)s.pictures_copied);
	window_finish();
}

/* A desktop that stops refreshing the window (hidden) still gets the newer
 * buffer after a while, so that it gives the client's older one back: a
 * client with two buffers never waits for the window. */
TEST(a_hidden_window_gives_the_clients_buffers_back)
{
	window_start(false, DRM_FORMAT_XRGB8888);
	struct test_planes one, two;
	planes_init(&one, DRM_FORMAT_XRGB8888, 0x112233);
	planes_init(&two, DRM_FORMAT_XRGB8888, 0x445566);
	emit_lease(&one);
	PUMP_UNTIL(fake.dmabuf_commits == 1);
	fake.hidden = true;
	emit_lease(&two);
	PUMP_UNTIL(fake.dmabuf_commits == 2 && locks(&one) == 0);
	/* No frame callback now: `two` stays with the desktop until `one`
	 * replaces it, and `one` goes without one. */
	emit_lease(&one);
	test_assert(locks(&two) == 1, "%d leases on the buffer the desktop shows", locks(&two));
	PUMP_UNTIL(fake.dmabuf_commits == 3 && locks(&two) == 0);
	emit_lease(&two);
	PUMP_UNTIL(fake.dmabuf_commits == 4 && locks(&one) == 0);
	/* Shown again: the callbacks kept come with that commit. */
	fake.hidden = false;
	emit_lease(&one);
	PUMP_UNTIL(fake.dmabuf_commits == 5 && locks(&two) == 0);
	struct desktop_window_stats s = stats();
	test_assert(s.pictures_copied == 0 && s.pictures_dmabuf == 5,
		    "%llu dmabuf pictures, %llu copied", (unsigned long long)s.pictures_dmabuf,
		    (unsigned long long)s.pictures_copied);
	wl_record_buffer_drop(&one.base);
	wl_record_buffer_drop(&two.base);
	window_finish();
}

/* The desktop refuses (`failed`): the pictures are copied, right, and the
 * format is not asked for again, for this buffer or another. */
TEST(refused_buffers_are_copied_and_not_asked_again)
{
	window_start(true, DRM_FORMAT_XRGB8888);
	struct test_planes one, two;
	planes_init(&one, DRM_FORMAT_XRGB8888, 0x112233);
	planes_init(&two, DRM_FORMAT_XRGB8888, 0x445566);

	emit_lease(&one);
	PUMP_UNTIL(fake.shm_commits == 2);
	test_assert(fake.shm_centre == 0x112233, "the window shows %06x", fake.shm_centre);
	emit_lease(&two);
	PUMP_UNTIL(fake.shm_commits == 3);
	test_assert(fake.shm_centre == 0x445566, "the window shows %06x", fake.shm_centre);
	emit_lease(&one);
	PUMP_UNTIL(fake.shm_commits == 4);
	test_assert(fake.shm_centre == 0x112233, "the window shows %06x", fake.shm_centre);
	settle();
	test_assert(fake.creates == 1, "%d imports asked for after a refusal", fake.creates);
	test_assert(fake.dmabuf_commits == 0);
	struct desktop_window_stats s = stats();
	test_assert(s.pictures_dmabuf == 0 && s.pictures_copied == 3,
		    "%llu dmabuf pictures, %llu copied", (unsigned long long)s.pictures_dmabuf,
		    (unsigned long long)s.pictures_copied);

	window_finish();
	test_assert(locks(&one) == 0 && locks(&two) == 0);
	wl_record_buffer_drop(&one.base);
	wl_record_buffer_drop(&two.base);
}

/* The desktop lists another format only: nothing is asked for, the
 * pictures are copied. */
TEST(formats_not_offered_are_copied)
{
	window_start(false, DRM_FORMAT_XBGR8888);
	struct test_planes one;
	planes_init(&one, DRM_FORMAT_XRGB8888, 0x123456);
	emit_lease(&one);
	PUMP_UNTIL(fake.shm_commits == 2);
	test_assert(fake.shm_centre == 0x123456, "the window shows %06x", fake.shm_centre);
	settle();
	test_assert(fake.creates == 0 && fake.dmabuf_commits == 0);
	window_finish();
	wl_record_buffer_drop(&one.base);
}

/* The frame's damage goes to the desktop as the buffer's; a y-inverted
 * buffer keeps its flag, and is damaged whole (its rows are stored bottom
 * up: the frame's rectangle is not the buffer's). */
TEST(damage_is_passed_and_y_inverted_buffers_damaged_whole)
{
	window_start(false, DRM_FORMAT_XRGB8888);
	struct test_planes one, two, inverted;
	planes_init(&one, DRM_FORMAT_XRGB8888, 0x112233);
	planes_init(&two, DRM_FORMAT_XRGB8888, 0x445566);
	planes_init_flags(&inverted, DRM_FORMAT_XRGB8888, 0x778899,
			  ZWP_LINUX_BUFFER_PARAMS_V1_FLAGS_Y_INVERT);
	struct frame_damage box = { 8, 4, 24, 12 };

	emit_lease(&one);
	PUMP_UNTIL(fake.dmabuf_commits == 1);
	test_assert(fake.last_flags == 0);
	emit_lease_damaged(&two, &box);
	PUMP_UNTIL(fake.dmabuf_commits == 2);
	test_assert(fake.damage[0] == 8 && fake.damage[1] == 4 && fake.damage[2] == 16 &&
		    fake.damage[3] == 8, "damage %d,%d %dx%d", fake.damage[0], fake.damage[1],
		    fake.damage[2], fake.damage[3]);
	emit_lease_damaged(&inverted, &box);
	PUMP_UNTIL(fake.dmabuf_commits == 3);
	test_assert(fake.last_flags == ZWP_LINUX_BUFFER_PARAMS_V1_FLAGS_Y_INVERT,
		    "made with flags %u", fake.last_flags);
	test_assert(fake.damage[0] == 0 && fake.damage[1] == 0 && fake.damage[2] >= WIDTH &&
		    fake.damage[3] >= HEIGHT, "damage %d,%d %dx%d", fake.damage[0], fake.damage[1],
		    fake.damage[2], fake.damage[3]);

	window_finish();
	wl_record_buffer_drop(&one.base);
	wl_record_buffer_drop(&two.base);
	wl_record_buffer_drop(&inverted.base);
	test_assert(one.destroyed && two.destroyed && inverted.destroyed);
}
