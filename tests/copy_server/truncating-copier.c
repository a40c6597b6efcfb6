/* truncating-copier: a hosted client that presents known frames
 * (tests/pattern.h) in LINEAR linux-dmabuf buffers made of memfds, and
 * halfway through, on a second connection, asks wl-record's copy server
 * (ext-image-copy-capture-v1) for a copy into a wl_shm buffer whose memfd
 * it has truncated to nothing (issue 30 §3.1).
 *
 * The copy of a new frame reads the presented dmabuf, then writes into the
 * copier's buffer; the write faults. wl-record must catch the fault and
 * answer as libwayland's wl_shm does for a pool that shrank: the
 * wl_shm.invalid_fd error on that wl_buffer. Then a third connection must
 * still get an exact copy, and the presenter goes on to its last frame.
 *
 * usage: truncating-copier [--size WxH] [--frames N] [--bad-copy-at K]
 *        [--interval-ms M] [--hold-ms H] [--times FILE]
 * Prints "truncating-copier: ..." lines; "truncating-copier: done" last.
 * Exit: 0 as expected, 1 a check failed, 2 bad command line. */
#include <drm_fourcc.h>
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>

#include "dmabuf_client.h"
#include "ext-image-capture-source-v1-client-protocol.h"
#include "ext-image-copy-capture-v1-client-protocol.h"
#include "fullscreen-shell-unstable-v1-client-protocol.h"
#include "pattern.h"

#define BUFFER_COUNT 3
#define TIMEOUT_MS 10000

struct options {
	int width, height, frames, bad_copy_at, interval_ms, hold_ms;
	const char *times_path;
};

struct dmabuf_frame {
	struct wl_buffer *wl_buffer;
	void *pixels;
	size_t size;
	bool busy;
};

struct presenter {
	struct wl_display *display;
	struct wl_registry *registry;
	struct wl_compositor *compositor;
	struct wl_output *output;
	struct zwp_fullscreen_shell_v1 *shell;
	struct dmabuf_client dmabuf;
	struct dmabuf_frame buffers[BUFFER_COUNT];
	struct wl_surface *surface;
	bool mode_answered;
	FILE *times;
	int committed;
};

struct copier {
	struct wl_display *display;
	struct wl_registry *registry;
	struct wl_shm *shm;
	struct wl_output *output;
	struct ext_image_copy_capture_manager_v1 *manager;
	struct ext_output_image_capture_source_manager_v1 *sources;
	struct ext_image_copy_capture_session_v1 *session;
	uint32_t width, height;
	bool done, stopped;
};

struct copy_result {
	bool ready, failed;
	uint32_t reason;
};

static void die(const char *fmt, ...)
{
	va_list args;
	va_start(args, fmt);
	fputs("truncating-copier: FAIL: ", stderr);
	vfprintf(stderr, fmt, args);
	fputc('\n', stderr);
	va_end(args);
	exit(1);
}

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Reads and dispatches what came within timeout_ms: 0, or -1 when the
 * connection failed (a protocol error among them). */
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

static void say_protocol_error(struct wl_display *display, const char *who)
{
	const struct wl_interface *interface = NULL;
	uint32_t code = wl_display_get_protocol_error(display, &interface, NULL);
	die("%s: connection failed (errno %d, protocol error %u on %s)", who,
	    wl_display_get_error(display), code, interface ? interface->name : "?");
}

/* ---- the presenter: memfd LINEAR dmabufs through the fullscreen shell ---- */

static void presenter_global(void *data, struct wl_registry *registry, uint32_t name,
			     const char *interface, uint32_t version)
{
	struct presenter *p = data;
	if (strcmp(interface, wl_compositor_interface.name) == 0)
		p->compositor = wl_registry_bind(registry, name, &wl_compositor_interface,
						 version < 4 ? version : 4);
	else if (strcmp(interface, wl_output_interface.name) == 0 && !p->output)
		p->output = wl_registry_bind(registry, name, &wl_output_interface, 1);
	else if (strcmp(interface, zwp_fullscreen_shell_v1_interface.name) == 0)
		p->shell = wl_registry_bind(registry, name, &zwp_fullscreen_shell_v1_interface, 1);
}

static void global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener presenter_registry = {
	.global = presenter_global, .global_remove = global_remove,
};

static void mode_done(void *data, struct zwp_fullscreen_shell_mode_feedback_v1 *feedback)
{
	((struct presenter *)data)->mode_answered = true;
	zwp_fullscreen_shell_mode_feedback_v1_destroy(feedback);
}

static const struct zwp_fullscreen_shell_mode_feedback_v1_listener mode_listener = {
	.mode_successful = mode_done, .mode_failed = mode_done, .present_cancelled = mode_done,
};

static void buffer_release(void *data, struct wl_buffer *wl_buffer)
{
	((struct dmabuf_frame *)data)->busy = false;
}

static const struct wl_buffer_listener buffer_listener = { .release = buffer_release };

static bool roundtrip(void *display)
{
	return wl_display_roundtrip(display) >= 0;
}

static void presenter_open(struct presenter *p, const struct options *o)
{
	p->display = wl_display_connect(NULL);
	if (!p->display)
		die("cannot connect the presenter");
	p->registry = wl_display_get_registry(p->display);
	wl_registry_add_listener(p->registry, &presenter_registry, p);
	wl_display_roundtrip(p->display);
	if (!p->compositor || !p->output || !p->shell ||
	    !dmabuf_client_bind(&p->dmabuf, p->display, 3, roundtrip, p->display))
		die("missing a global (compositor, output, fullscreen shell or linux-dmabuf v3)");
	for (int i = 0; i < BUFFER_COUNT; i++) {
		struct dmabuf_frame *b = &p->buffers[i];
		bool udmabuf;
		b->size = (size_t)o->width * 4 * (size_t)o->height;
		int fd = dmabuf_client_make_fd(b->size, false, &b->pixels, &udmabuf);
		struct zwp_linux_buffer_params_v1 *params =
			zwp_linux_dmabuf_v1_create_params(p->dmabuf.dmabuf);
		zwp_linux_buffer_params_v1_add(params, fd, 0, 0, (uint32_t)o->width * 4,
					       (uint32_t)(DRM_FORMAT_MOD_LINEAR >> 32),
					       (uint32_t)DRM_FORMAT_MOD_LINEAR);
		close(fd);
		b->wl_buffer = zwp_linux_buffer_params_v1_create_immed(params, o->width, o->height,
								       DRM_FORMAT_XRGB8888, 0);
		zwp_linux_buffer_params_v1_destroy(params);
		wl_buffer_add_listener(b->wl_buffer, &buffer_listener, b);
		if (i == 0)
			printf("truncating-copier: presenting LINEAR dmabufs in a %s\n",
			       udmabuf ? "udmabuf" : "memfd");
	}
	p->surface = wl_compositor_create_surface(p->compositor);
	struct zwp_fullscreen_shell_mode_feedback_v1 *feedback =
		zwp_fullscreen_shell_v1_present_surface_for_mode(p->shell, p->surface, p->output, 0);
	zwp_fullscreen_shell_mode_feedback_v1_add_listener(feedback, &mode_listener, p);
	if (wl_display_roundtrip(p->display) < 0)
		say_protocol_error(p->display, "presenter");
}

/* Commits pattern frame `index` in a free buffer, its time in --times. */
static void presenter_commit(struct presenter *p, const struct options *o, int index)
{
	struct dmabuf_frame *b = NULL;
	int64_t deadline = now_ms() + TIMEOUT_MS;
	while (!b) {
		for (int i = 0; i < BUFFER_COUNT && !b; i++)
			if (!p->buffers[i].busy)
				b = &p->buffers[i];
		if (b)
			break;
		if (now_ms() > deadline)
			die("no buffer released in %d ms", TIMEOUT_MS);
		if (dispatch_for(p->display, 100) < 0)
			say_protocol_error(p->display, "presenter");
	}
	pattern_fill_format(b->pixels, o->width * 4, index, o->width, o->height,
			    DRM_FORMAT_XRGB8888);
	wl_surface_attach(p->surface, b->wl_buffer, 0, 0);
	wl_surface_damage_buffer(p->surface, 0, 0, o->width, o->height);
	b->busy = true;
	int64_t commit_ns = now_ns();
	wl_surface_commit(p->surface);
	if (p->times)
		fprintf(p->times, "%d %lld\n", index, (long long)commit_ns);
	p->committed++;
	if (wl_display_flush(p->display) < 0 && errno != EAGAIN)
		say_protocol_error(p->display, "presenter");
	/* The first commit comes before the surface is presented. */
	while (index == 0 && !p->mode_answered)
		if (dispatch_for(p->display, 100) < 0)
			say_protocol_error(p->display, "presenter");
}

/* ---- copiers: ext-image-copy-capture-v1 sessions on the output ---- */

static void copier_global(void *data, struct wl_registry *registry, uint32_t name,
			  const char *interface, uint32_t version)
{
	struct copier *k = data;
	if (strcmp(interface, ext_image_copy_capture_manager_v1_interface.name) == 0)
		k->manager = wl_registry_bind(registry, name,
					      &ext_image_copy_capture_manager_v1_interface, 1);
	else if (strcmp(interface, ext_output_image_capture_source_manager_v1_interface.name) == 0)
		k->sources = wl_registry_bind(registry, name,
					      &ext_output_image_capture_source_manager_v1_interface, 1);
	else if (strcmp(interface, wl_shm_interface.name) == 0)
		k->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	else if (strcmp(interface, wl_output_interface.name) == 0 && !k->output)
		k->output = wl_registry_bind(registry, name, &wl_output_interface, 1);
}

static const struct wl_registry_listener copier_registry = {
	.global = copier_global, .global_remove = global_remove,
};

static void session_buffer_size(void *data, struct ext_image_copy_capture_session_v1 *s,
				uint32_t width, uint32_t height)
{
	struct copier *k = data;
	k->width = width;
	k->height = height;
}

static void session_shm_format(void *data, struct ext_image_copy_capture_session_v1 *s,
			       uint32_t format)
{
}

static void session_dmabuf_device(void *data, struct ext_image_copy_capture_session_v1 *s,
				  struct wl_array *device)
{
}

static void session_dmabuf_format(void *data, struct ext_image_copy_capture_session_v1 *s,
				  uint32_t format, struct wl_array *modifiers)
{
}

static void session_done(void *data, struct ext_image_copy_capture_session_v1 *s)
{
	((struct copier *)data)->done = true;
}

static void session_stopped(void *data, struct ext_image_copy_capture_session_v1 *s)
{
	((struct copier *)data)->stopped = true;
}

static const struct ext_image_copy_capture_session_v1_listener session_listener = {
	.buffer_size = session_buffer_size,
	.shm_format = session_shm_format,
	.dmabuf_device = session_dmabuf_device,
	.dmabuf_format = session_dmabuf_format,
	.done = session_done,
	.stopped = session_stopped,
};

static void frame_transform(void *data, struct ext_image_copy_capture_frame_v1 *f, uint32_t t)
{
}

static void frame_damage(void *data, struct ext_image_copy_capture_frame_v1 *f, int32_t x,
			 int32_t y, int32_t w, int32_t h)
{
}

static void frame_presentation_time(void *data, struct ext_image_copy_capture_frame_v1 *f,
				    uint32_t sec_hi, uint32_t sec_lo, uint32_t nsec)
{
}

static void frame_ready(void *data, struct ext_image_copy_capture_frame_v1 *f)
{
	((struct copy_result *)data)->ready = true;
}

static void frame_failed(void *data, struct ext_image_copy_capture_frame_v1 *f, uint32_t reason)
{
	struct copy_result *r = data;
	r->failed = true;
	r->reason = reason;
}

static const struct ext_image_copy_capture_frame_v1_listener frame_listener = {
	.transform = frame_transform,
	.damage = frame_damage,
	.presentation_time = frame_presentation_time,
	.ready = frame_ready,
	.failed = frame_failed,
};

/* A new connection with a session on the output, its constraints the
 * presenter's size. */
static void copier_open(struct copier *k, const struct options *o)
{
	k->display = wl_display_connect(NULL);
	if (!k->display)
		die("cannot connect a copier");
	k->registry = wl_display_get_registry(k->display);
	wl_registry_add_listener(k->registry, &copier_registry, k);
	wl_display_roundtrip(k->display);
	if (!k->manager || !k->sources || !k->shm || !k->output)
		die("missing a global (ext-image-copy-capture, its output sources, wl_shm, wl_output)");
	struct ext_image_capture_source_v1 *source =
		ext_output_image_capture_source_manager_v1_create_source(k->sources, k->output);
	k->session = ext_image_copy_capture_manager_v1_create_session(k->manager, source, 0);
	ext_image_copy_capture_session_v1_add_listener(k->session, &session_listener, k);
	ext_image_capture_source_v1_destroy(source);
	if (wl_display_roundtrip(k->display) < 0)
		say_protocol_error(k->display, "copier");
	if (!k->done || k->stopped || k->width != (uint32_t)o->width ||
	    k->height != (uint32_t)o->height)
		die("session constraints: done %d stopped %d size %ux%u, expected %dx%d", k->done,
		    k->stopped, k->width, k->height, o->width, o->height);
}

static struct ext_image_copy_capture_frame_v1 *copier_capture(struct copier *k,
							      struct wl_buffer *buffer,
							      struct copy_result *r,
							      const struct options *o)
{
	struct ext_image_copy_capture_frame_v1 *frame =
		ext_image_copy_capture_session_v1_create_frame(k->session);
	ext_image_copy_capture_frame_v1_add_listener(frame, &frame_listener, r);
	ext_image_copy_capture_frame_v1_attach_buffer(frame, buffer);
	ext_image_copy_capture_frame_v1_damage_buffer(frame, 0, 0, o->width, o->height);
	ext_image_copy_capture_frame_v1_capture(frame);
	if (wl_display_flush(k->display) < 0 && errno != EAGAIN)
		say_protocol_error(k->display, "copier");
	return frame;
}

/* A good copy: answered ready, every pixel that of one presented frame
 * (the copy is exact); returns which. */
static int copier_good_copy(struct copier *k, const struct options *o, int last_committed)
{
	size_t size = (size_t)o->width * 4 * (size_t)o->height;
	int fd = memfd_create("truncating-copier-good", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)size) < 0)
		die("memfd: %s", strerror(errno));
	uint32_t *pixels = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (pixels == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	struct wl_shm_pool *pool = wl_shm_create_pool(k->shm, fd, (int32_t)size);
	close(fd);
	struct wl_buffer *buffer = wl_shm_pool_create_buffer(pool, 0, o->width, o->height,
							     o->width * 4, WL_SHM_FORMAT_XRGB8888);
	wl_shm_pool_destroy(pool);
	struct copy_result r = { 0 };
	struct ext_image_copy_capture_frame_v1 *frame = copier_capture(k, buffer, &r, o);
	int64_t deadline = now_ms() + TIMEOUT_MS;
	while (!r.ready && !r.failed && now_ms() < deadline)
		if (dispatch_for(k->display, 100) < 0)
			say_protocol_error(k->display, "good copier");
	if (!r.ready)
		die("a good copy was not answered ready (failed %d, reason %u)", r.failed, r.reason);
	int shown = -1;
	for (int index = last_committed; index >= 0 && shown < 0; index--) {
		bool same = true;
		for (int y = 0; y < o->height && same; y++)
			for (int x = 0; x < o->width && same; x++)
				same = (pixels[(size_t)y * (size_t)o->width + (size_t)x] & 0xffffff) ==
				       pattern_pixel(index, x, y, o->width, o->height);
		if (same)
			shown = index;
	}
	if (shown < 0)
		die("the copy is none of the frames 0..%d exactly", last_committed);
	ext_image_copy_capture_frame_v1_destroy(frame);
	wl_buffer_destroy(buffer);
	munmap(pixels, size);
	return shown;
}

/* Every proxy goes before the connection (the sanitizer build counts them). */
static void copier_close(struct copier *k)
{
	ext_image_copy_capture_session_v1_destroy(k->session);
	ext_image_copy_capture_manager_v1_destroy(k->manager);
	ext_output_image_capture_source_manager_v1_destroy(k->sources);
	wl_shm_destroy(k->shm);
	wl_output_destroy(k->output);
	wl_registry_destroy(k->registry);
	wl_display_disconnect(k->display);
	*k = (struct copier){ 0 };
}

int main(int argc, char **argv)
{
	struct options o = { .width = 320, .height = 240, .frames = 20, .bad_copy_at = 8,
			     .interval_ms = 50, .hold_ms = 150 };
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
		if (!value)
			goto usage;
		i++;
		if (strcmp(arg, "--size") == 0 && sscanf(value, "%dx%d", &o.width, &o.height) == 2)
			;
		else if (strcmp(arg, "--frames") == 0)
			o.frames = atoi(value);
		else if (strcmp(arg, "--bad-copy-at") == 0)
			o.bad_copy_at = atoi(value);
		else if (strcmp(arg, "--interval-ms") == 0)
			o.interval_ms = atoi(value);
		else if (strcmp(arg, "--hold-ms") == 0)
			o.hold_ms = atoi(value);
		else if (strcmp(arg, "--times") == 0)
			o.times_path = value;
		else
			goto usage;
	}
	if (o.width < 1 || o.height < 1 || o.bad_copy_at < 1 || o.frames < o.bad_copy_at + 2 ||
	    o.interval_ms < 0 || o.hold_ms < 0)
		goto usage;
	setvbuf(stdout, NULL, _IOLBF, 0);

	struct presenter p = { 0 };
	if (o.times_path && !(p.times = fopen(o.times_path, "w")))
		die("%s: %s", o.times_path, strerror(errno));
	presenter_open(&p, &o);
	int64_t start = now_ms();
	for (int index = 0; index < o.frames; index++) {
		int64_t due = start + (int64_t)index * o.interval_ms;
		while (now_ms() < due)
			if (dispatch_for(p.display, (int)(due - now_ms()) + 1) < 0)
				say_protocol_error(p.display, "presenter");
		presenter_commit(&p, &o, index);
		if (index != o.bad_copy_at)
			continue;

		/* A good copy first: the copy server serves the dmabuf's
		 * pixels, and the session has had its first capture, so the
		 * next one waits for a new frame, which the copy reads anew. */
		struct copier bad = { 0 };
		copier_open(&bad, &o);
		int shown = copier_good_copy(&bad, &o, index);
		printf("truncating-copier: a good copy holds frame %d exactly\n", shown);

		/* The bad copy: the server has mapped the pool (the roundtrip),
		 * then its file shrinks to nothing. */
		size_t size = (size_t)o.width * 4 * (size_t)o.height;
		int fd = memfd_create("truncating-copier-bad", MFD_CLOEXEC);
		if (fd < 0 || ftruncate(fd, (off_t)size) < 0)
			die("memfd: %s", strerror(errno));
		struct wl_shm_pool *pool = wl_shm_create_pool(bad.shm, fd, (int32_t)size);
		struct wl_buffer *buffer = wl_shm_pool_create_buffer(
			pool, 0, o.width, o.height, o.width * 4, WL_SHM_FORMAT_XRGB8888);
		wl_shm_pool_destroy(pool);
		if (wl_display_roundtrip(bad.display) < 0)
			say_protocol_error(bad.display, "bad copier");
		if (ftruncate(fd, 0) < 0)
			die("ftruncate: %s", strerror(errno));
		close(fd);
		struct copy_result r = { 0 };
		struct ext_image_copy_capture_frame_v1 *frame = copier_capture(&bad, buffer, &r, &o);
		/* A new frame (unless one came since the good copy): the copy
		 * reads the dmabuf again, then writes. */
		index++;
		presenter_commit(&p, &o, index);
		int64_t deadline = now_ms() + TIMEOUT_MS;
		int gone = 0;
		while (!gone && !r.ready && !r.failed && now_ms() < deadline)
			gone = dispatch_for(bad.display, 100);
		if (!gone)
			die("no error for the copy into a truncated pool (ready %d, failed %d "
			    "reason %u)", r.ready, r.failed, r.reason);
		const struct wl_interface *interface = NULL;
		uint32_t code = wl_display_get_protocol_error(bad.display, &interface, NULL);
		if (wl_display_get_error(bad.display) != EPROTO || interface != &wl_buffer_interface ||
		    code != WL_SHM_ERROR_INVALID_FD)
			die("the copy into a truncated pool: errno %d, error %u on %s; expected "
			    "wl_shm.invalid_fd (%d) on the wl_buffer", wl_display_get_error(bad.display),
			    code, interface ? interface->name : "?", WL_SHM_ERROR_INVALID_FD);
		printf("truncating-copier: the copy into a truncated pool: wl_shm.invalid_fd on "
		       "the wl_buffer\n");
		ext_image_copy_capture_frame_v1_destroy(frame);
		wl_buffer_destroy(buffer);
		copier_close(&bad);

		/* wl-record still serves copies, of a newer frame. */
		index++;
		presenter_commit(&p, &o, index);
		struct copier again = { 0 };
		copier_open(&again, &o);
		shown = copier_good_copy(&again, &o, index);
		printf("truncating-copier: a good copy after it holds frame %d exactly\n", shown);
		copier_close(&again);
		start = now_ms() - (int64_t)index * o.interval_ms;
	}
	printf("truncating-copier: committed %d frames\n", p.committed);
	int64_t hold_end = now_ms() + o.hold_ms;
	while (now_ms() < hold_end)
		if (dispatch_for(p.display, 50) < 0)
			say_protocol_error(p.display, "presenter");
	if (wl_display_roundtrip(p.display) < 0)
		say_protocol_error(p.display, "presenter");
	if (p.times && fclose(p.times) != 0)
		die("%s: %s", o.times_path, strerror(errno));
	for (int i = 0; i < BUFFER_COUNT; i++) {
		wl_buffer_destroy(p.buffers[i].wl_buffer);
		munmap(p.buffers[i].pixels, p.buffers[i].size);
	}
	wl_surface_destroy(p.surface);
	dmabuf_client_finish(&p.dmabuf);
	zwp_fullscreen_shell_v1_release(p.shell);
	wl_output_destroy(p.output);
	wl_compositor_destroy(p.compositor);
	wl_registry_destroy(p.registry);
	wl_display_disconnect(p.display);
	printf("truncating-copier: done\n");
	return 0;

usage:
	fprintf(stderr, "usage: truncating-copier [--size WxH] [--frames N] [--bad-copy-at K] "
			"[--interval-ms M] [--hold-ms H] [--times FILE]\n");
	return 2;
}
