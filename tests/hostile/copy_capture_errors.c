/* ext-image-copy-capture-v1 as wl-record serves it (src/copy_server/): bad
 * frame and session requests cost the client exactly the error the XML
 * names, a buffer of the wrong size is a failed copy (not an error), and a
 * good client gets the screen's pixels, at once the first time and on the
 * next change after that. */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ext-image-capture-source-v1-client-protocol.h"
#include "ext-image-copy-capture-v1-client-protocol.h"
#include "harness.h"

#define SIZE_W 320
#define SIZE_H 240
#define PROOF_COLOUR 0x2080c0u

static const char *const screenshot_args[] = { "--screenshot", "--size", "320x240", NULL };

struct copier {
	struct hostile_client *c;
	struct ext_image_copy_capture_manager_v1 *manager;
	struct ext_output_image_capture_source_manager_v1 *sources;
	struct wl_seat *seat;
	struct ext_image_copy_capture_session_v1 *session;
	uint32_t width, height;
	bool done, stopped;
	uint32_t formats; /* bit 0 XRGB8888, bit 1 ARGB8888 */
};

struct frame_result {
	bool ready, failed;
	uint32_t reason;
	int damage_x, damage_y, damage_w, damage_h;
	bool have_time;
};

static void registry_global(void *data, struct wl_registry *registry, uint32_t name,
			    const char *interface, uint32_t version)
{
	struct copier *k = data;
	if (strcmp(interface, ext_image_copy_capture_manager_v1_interface.name) == 0)
		k->manager = wl_registry_bind(registry, name,
					      &ext_image_copy_capture_manager_v1_interface, 1);
	else if (strcmp(interface, ext_output_image_capture_source_manager_v1_interface.name) == 0)
		k->sources = wl_registry_bind(registry, name,
					      &ext_output_image_capture_source_manager_v1_interface, 1);
	else if (strcmp(interface, wl_seat_interface.name) == 0)
		k->seat = wl_registry_bind(registry, name, &wl_seat_interface, 1);
}

static void registry_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_global,
	.global_remove = registry_global_remove,
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
	struct copier *k = data;
	if (format == WL_SHM_FORMAT_XRGB8888)
		k->formats |= 1;
	if (format == WL_SHM_FORMAT_ARGB8888)
		k->formats |= 2;
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
	struct copier *k = data;
	k->done = true;
}

static void session_stopped(void *data, struct ext_image_copy_capture_session_v1 *s)
{
	struct copier *k = data;
	k->stopped = true;
}

static const struct ext_image_copy_capture_session_v1_listener session_listener = {
	.buffer_size = session_buffer_size,
	.shm_format = session_shm_format,
	.dmabuf_device = session_dmabuf_device,
	.dmabuf_format = session_dmabuf_format,
	.done = session_done,
	.stopped = session_stopped,
};

/* Binds the two managers and opens a session on the output; its
 * constraints must be the screen's size and both 32-bit shm formats. */
static struct copier copier_open(struct hostile_client *c)
{
	struct copier k = { .c = c };
	struct wl_registry *registry = wl_display_get_registry(c->display);
	wl_registry_add_listener(registry, &registry_listener, &k);
	test_assert(client_roundtrip(c, 5000) == 0, "registry roundtrip failed");
	test_assert(k.manager, "no ext_image_copy_capture_manager_v1 global");
	test_assert(k.sources, "no ext_output_image_capture_source_manager_v1 global");
	return k;
}

static void copier_start_session(struct copier *k, uint32_t options)
{
	struct ext_image_capture_source_v1 *source =
		ext_output_image_capture_source_manager_v1_create_source(k->sources, k->c->output);
	k->session = ext_image_copy_capture_manager_v1_create_session(k->manager, source, options);
	ext_image_copy_capture_session_v1_add_listener(k->session, &session_listener, k);
	test_assert(client_roundtrip(k->c, 5000) == 0, "session roundtrip failed");
	test_assert(k->done && !k->stopped, "the session got no constraints (done %d, stopped %d)",
		    k->done, k->stopped);
	test_assert(k->width == SIZE_W && k->height == SIZE_H, "buffer_size %ux%u, expected %dx%d",
		    k->width, k->height, SIZE_W, SIZE_H);
	test_assert(k->formats == 3, "shm formats: XRGB8888 %s, ARGB8888 %s",
		    k->formats & 1 ? "yes" : "no", k->formats & 2 ? "yes" : "no");
}

static void frame_transform(void *data, struct ext_image_copy_capture_frame_v1 *f, uint32_t t)
{
}

static void frame_damage(void *data, struct ext_image_copy_capture_frame_v1 *f, int32_t x,
			 int32_t y, int32_t w, int32_t h)
{
	struct frame_result *r = data;
	r->damage_x = x;
	r->damage_y = y;
	r->damage_w = w;
	r->damage_h = h;
}

static void frame_presentation_time(void *data, struct ext_image_copy_capture_frame_v1 *f,
				    uint32_t sec_hi, uint32_t sec_lo, uint32_t nsec)
{
	struct frame_result *r = data;
	r->have_time = true;
}

static void frame_ready(void *data, struct ext_image_copy_capture_frame_v1 *f)
{
	struct frame_result *r = data;
	r->ready = true;
}

static void frame_failed(void *data, struct ext_image_copy_capture_frame_v1 *f, uint32_t reason)
{
	struct frame_result *r = data;
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

struct target {
	struct wl_buffer *buffer;
	uint32_t *pixels;
	size_t size;
};

/* A w x h buffer of `format` the test can read, filled with `fill`. */
static struct target target_buffer(struct hostile_client *c, int width, int height,
				   uint32_t format, uint32_t fill)
{
	struct target t = { .size = (size_t)width * (size_t)height * 4 };
	int fd = make_memfd(t.size);
	t.pixels = mmap(NULL, t.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	test_assert(t.pixels != MAP_FAILED, "mmap failed");
	for (size_t i = 0; i < t.size / 4; i++)
		t.pixels[i] = fill;
	struct wl_shm_pool *pool = wl_shm_create_pool(c->shm, fd, (int32_t)t.size);
	close(fd);
	t.buffer = wl_shm_pool_create_buffer(pool, 0, width, height, width * 4, format);
	wl_shm_pool_destroy(pool);
	return t;
}

static struct ext_image_copy_capture_frame_v1 *new_frame(struct copier *k, struct frame_result *r)
{
	struct ext_image_copy_capture_frame_v1 *frame =
		ext_image_copy_capture_session_v1_create_frame(k->session);
	ext_image_copy_capture_frame_v1_add_listener(frame, &frame_listener, r);
	return frame;
}

/* Roundtrips until the frame is answered or `timeout_ms` passed. */
static void wait_answer(struct copier *k, struct frame_result *r, int timeout_ms)
{
	int64_t deadline = now_ms() + timeout_ms;
	while (!r->ready && !r->failed && now_ms() < deadline) {
		test_assert(client_roundtrip(k->c, 1000) != -1, "the connection failed");
		if (!r->ready && !r->failed)
			usleep(10000);
	}
}

/* One wl-record in screenshot mode, one bad copier; then a good client
 * must still get its screenshot. */
static void run_bad_copier(void (*misbehave)(struct copier *k))
{
	struct recorder_process rec;
	recorder_start(&rec, "proof.png", screenshot_args);
	struct hostile_client *bad = client_connect(&rec);
	struct copier k = copier_open(bad);
	copier_start_session(&k, 0);
	misbehave(&k);
	client_disconnect(bad);
	recorder_require_alive(&rec, "after the bad copier");
	prove_screenshot_serves(&rec, SIZE_W, SIZE_H, PROOF_COLOUR);
	recorder_finish(&rec);
}

static void capture_without_buffer(struct copier *k)
{
	struct frame_result r = { 0 };
	struct ext_image_copy_capture_frame_v1 *frame = new_frame(k, &r);
	ext_image_copy_capture_frame_v1_capture(frame);
	expect_protocol_error(k->c, &ext_image_copy_capture_frame_v1_interface, frame,
			      EXT_IMAGE_COPY_CAPTURE_FRAME_V1_ERROR_NO_BUFFER);
}

/* Nothing is presented: the first capture waits for a picture, so the
 * second one finds it under way. */
static void capture_twice(struct copier *k)
{
	struct frame_result r = { 0 };
	struct target t = target_buffer(k->c, SIZE_W, SIZE_H, WL_SHM_FORMAT_XRGB8888, 0);
	struct ext_image_copy_capture_frame_v1 *frame = new_frame(k, &r);
	ext_image_copy_capture_frame_v1_attach_buffer(frame, t.buffer);
	ext_image_copy_capture_frame_v1_damage_buffer(frame, 0, 0, SIZE_W, SIZE_H);
	ext_image_copy_capture_frame_v1_capture(frame);
	ext_image_copy_capture_frame_v1_capture(frame);
	expect_protocol_error(k->c, &ext_image_copy_capture_frame_v1_interface, frame,
			      EXT_IMAGE_COPY_CAPTURE_FRAME_V1_ERROR_ALREADY_CAPTURED);
}

static void attach_after_capture(struct copier *k)
{
	struct frame_result r = { 0 };
	struct target t = target_buffer(k->c, SIZE_W, SIZE_H, WL_SHM_FORMAT_XRGB8888, 0);
	struct ext_image_copy_capture_frame_v1 *frame = new_frame(k, &r);
	ext_image_copy_capture_frame_v1_attach_buffer(frame, t.buffer);
	ext_image_copy_capture_frame_v1_capture(frame);
	ext_image_copy_capture_frame_v1_attach_buffer(frame, t.buffer);
	expect_protocol_error(k->c, &ext_image_copy_capture_frame_v1_interface, frame,
			      EXT_IMAGE_COPY_CAPTURE_FRAME_V1_ERROR_ALREADY_CAPTURED);
}

static void damage_of(struct copier *k, int32_t x, int32_t y, int32_t w, int32_t h)
{
	struct frame_result r = { 0 };
	struct ext_image_copy_capture_frame_v1 *frame = new_frame(k, &r);
	ext_image_copy_capture_frame_v1_damage_buffer(frame, x, y, w, h);
	expect_protocol_error(k->c, &ext_image_copy_capture_frame_v1_interface, frame,
			      EXT_IMAGE_COPY_CAPTURE_FRAME_V1_ERROR_INVALID_BUFFER_DAMAGE);
}

static void damage_negative_x(struct copier *k) { damage_of(k, -1, 0, 10, 10); }
static void damage_zero_width(struct copier *k) { damage_of(k, 0, 0, 0, 10); }
static void damage_negative_height(struct copier *k) { damage_of(k, 0, 0, 10, -10); }

static void duplicate_frame(struct copier *k)
{
	struct frame_result r1 = { 0 }, r2 = { 0 };
	new_frame(k, &r1);
	new_frame(k, &r2);
	expect_protocol_error(k->c, &ext_image_copy_capture_session_v1_interface, k->session,
			      EXT_IMAGE_COPY_CAPTURE_SESSION_V1_ERROR_DUPLICATE_FRAME);
}

/* A buffer of the wrong size or format is a failed copy, not an error:
 * the client may reallocate and retry on the same session. */
static void wrong_buffer(struct copier *k, int width, int height, uint32_t format)
{
	struct frame_result r = { 0 };
	struct target t = target_buffer(k->c, width, height, format, 0);
	struct ext_image_copy_capture_frame_v1 *frame = new_frame(k, &r);
	ext_image_copy_capture_frame_v1_attach_buffer(frame, t.buffer);
	ext_image_copy_capture_frame_v1_damage_buffer(frame, 0, 0, width, height);
	ext_image_copy_capture_frame_v1_capture(frame);
	client_expect_no_error(k->c);
	test_assert(r.failed && !r.ready, "a %dx%d buffer was not failed (ready %d, failed %d)",
		    width, height, r.ready, r.failed);
	test_assert(r.reason == EXT_IMAGE_COPY_CAPTURE_FRAME_V1_FAILURE_REASON_BUFFER_CONSTRAINTS,
		    "failed with reason %u, expected buffer_constraints", r.reason);
	ext_image_copy_capture_frame_v1_destroy(frame);
	/* The session goes on: a new frame object is allowed. */
	struct frame_result r2 = { 0 };
	new_frame(k, &r2);
	client_expect_no_error(k->c);
}

#define XRGB WL_SHM_FORMAT_XRGB8888
static void too_small(struct copier *k) { wrong_buffer(k, SIZE_W / 2, SIZE_H, XRGB); }
static void too_big(struct copier *k) { wrong_buffer(k, SIZE_W, SIZE_H + 1, XRGB); }
static void wrong_format(struct copier *k)
{
	wrong_buffer(k, SIZE_W, SIZE_H, WL_SHM_FORMAT_XBGR8888);
}

/* wl-record composes no cursor: a pointer cursor session is accepted, and
 * its capture session stops at once; asking for a second one is the
 * duplicate_session error. */
static void cursor_session(struct copier *k)
{
	test_assert(k->seat, "no wl_seat global");
	struct wl_pointer *pointer = wl_seat_get_pointer(k->seat);
	struct ext_image_capture_source_v1 *source =
		ext_output_image_capture_source_manager_v1_create_source(k->sources, k->c->output);
	struct ext_image_copy_capture_cursor_session_v1 *cursor =
		ext_image_copy_capture_manager_v1_create_pointer_cursor_session(k->manager, source,
										pointer);
	struct copier stopped = { .c = k->c };
	struct ext_image_copy_capture_session_v1 *session =
		ext_image_copy_capture_cursor_session_v1_get_capture_session(cursor);
	ext_image_copy_capture_session_v1_add_listener(session, &session_listener, &stopped);
	client_expect_no_error(k->c);
	test_assert(stopped.stopped, "the cursor's capture session did not stop");
	/* A frame of a stopped session fails with `stopped`. */
	struct frame_result r = { 0 };
	struct target t = target_buffer(k->c, SIZE_W, SIZE_H, WL_SHM_FORMAT_XRGB8888, 0);
	struct ext_image_copy_capture_frame_v1 *frame =
		ext_image_copy_capture_session_v1_create_frame(session);
	ext_image_copy_capture_frame_v1_add_listener(frame, &frame_listener, &r);
	ext_image_copy_capture_frame_v1_attach_buffer(frame, t.buffer);
	ext_image_copy_capture_frame_v1_capture(frame);
	client_expect_no_error(k->c);
	test_assert(r.failed && r.reason == EXT_IMAGE_COPY_CAPTURE_FRAME_V1_FAILURE_REASON_STOPPED,
		    "a frame of the stopped session: failed %d reason %u", r.failed, r.reason);
	ext_image_copy_capture_cursor_session_v1_get_capture_session(cursor);
	expect_protocol_error(k->c, &ext_image_copy_capture_cursor_session_v1_interface, cursor,
			      EXT_IMAGE_COPY_CAPTURE_CURSOR_SESSION_V1_ERROR_DUPLICATE_SESSION);
}

static void invalid_option(struct copier *k)
{
	struct ext_image_capture_source_v1 *source =
		ext_output_image_capture_source_manager_v1_create_source(k->sources, k->c->output);
	ext_image_copy_capture_manager_v1_create_session(k->manager, source, 2);
	expect_protocol_error(k->c, &ext_image_copy_capture_manager_v1_interface, k->manager,
			      EXT_IMAGE_COPY_CAPTURE_MANAGER_V1_ERROR_INVALID_OPTION);
}

TEST(copy_capture_without_buffer) { run_bad_copier(capture_without_buffer); }
TEST(copy_capture_twice) { run_bad_copier(capture_twice); }
TEST(copy_attach_after_capture) { run_bad_copier(attach_after_capture); }
TEST(copy_damage_negative_x) { run_bad_copier(damage_negative_x); }
TEST(copy_damage_zero_width) { run_bad_copier(damage_zero_width); }
TEST(copy_damage_negative_height) { run_bad_copier(damage_negative_height); }
TEST(copy_duplicate_frame) { run_bad_copier(duplicate_frame); }
TEST(copy_buffer_too_small) { run_bad_copier(too_small); }
TEST(copy_buffer_too_big) { run_bad_copier(too_big); }
TEST(copy_buffer_wrong_format) { run_bad_copier(wrong_format); }
TEST(copy_cursor_session_stops) { run_bad_copier(cursor_session); }
TEST(copy_invalid_option) { run_bad_copier(invalid_option); }

/* A good copier of a recording wl-record: the first capture is answered at
 * once with the screen's pixels and full damage; the next waits until the
 * screen changes, then has the new picture (ARGB8888: opaque). */
TEST(copy_follows_the_screen)
{
	static const char *const args[] = { "--size", "320x240", NULL };
	struct recorder_process rec;
	recorder_start(&rec, "out.mkv", args);
	struct hostile_client *c = client_connect(&rec);
	struct wl_surface *surface = client_present_color(c, SIZE_W, SIZE_H, 0x112233);
	struct copier k = copier_open(c);
	copier_start_session(&k, 0);

	struct frame_result r = { 0 };
	struct target t = target_buffer(c, SIZE_W, SIZE_H, WL_SHM_FORMAT_XRGB8888, 0xdeadbeef);
	struct ext_image_copy_capture_frame_v1 *frame = new_frame(&k, &r);
	ext_image_copy_capture_frame_v1_attach_buffer(frame, t.buffer);
	ext_image_copy_capture_frame_v1_damage_buffer(frame, 0, 0, SIZE_W, SIZE_H);
	ext_image_copy_capture_frame_v1_capture(frame);
	wait_answer(&k, &r, 5000);
	test_assert(r.ready, "the first capture was not answered (failed %d reason %u)", r.failed,
		    r.reason);
	test_assert(r.have_time, "no presentation_time");
	test_assert(r.damage_x == 0 && r.damage_y == 0 && r.damage_w == SIZE_W && r.damage_h == SIZE_H,
		    "first damage %d,%d %dx%d, expected the whole buffer", r.damage_x, r.damage_y,
		    r.damage_w, r.damage_h);
	for (size_t i = 0; i < t.size / 4; i++)
		test_assert((t.pixels[i] & 0xffffff) == 0x112233, "pixel %zu is %08x, expected 112233",
			    i, t.pixels[i]);
	ext_image_copy_capture_frame_v1_destroy(frame);

	/* Nothing changed: the next capture waits. */
	struct frame_result r2 = { 0 };
	struct target t2 = target_buffer(c, SIZE_W, SIZE_H, WL_SHM_FORMAT_ARGB8888, 0);
	frame = new_frame(&k, &r2);
	ext_image_copy_capture_frame_v1_attach_buffer(frame, t2.buffer);
	ext_image_copy_capture_frame_v1_damage_buffer(frame, 0, 0, SIZE_W, SIZE_H);
	ext_image_copy_capture_frame_v1_capture(frame);
	wait_answer(&k, &r2, 300);
	test_assert(!r2.ready && !r2.failed, "a capture with nothing new was answered at once");

	wl_surface_attach(surface, client_color_buffer(c, SIZE_W, SIZE_H, 0x445566), 0, 0);
	wl_surface_damage(surface, 0, 0, SIZE_W, SIZE_H);
	wl_surface_commit(surface);
	wait_answer(&k, &r2, 5000);
	test_assert(r2.ready, "the capture was not answered after the screen changed");
	for (size_t i = 0; i < t2.size / 4; i++)
		test_assert(t2.pixels[i] == 0xff445566, "ARGB pixel %zu is %08x, expected ff445566",
			    i, t2.pixels[i]);
	ext_image_copy_capture_frame_v1_destroy(frame);
	client_expect_no_error(c);
	client_disconnect(c);
	recorder_finish(&rec);
}

/* wl-record stopped while a copier waits for a change: it exits as usual
 * (status 0, the recording complete, nothing leaked: the sanitizer build
 * checks), with the copier still connected. */
TEST(copy_pending_at_exit)
{
	static const char *const args[] = { "--size", "320x240", NULL };
	struct recorder_process rec;
	recorder_start(&rec, "out.mkv", args);
	struct hostile_client *c = client_connect(&rec);
	client_present_color(c, SIZE_W, SIZE_H, 0x112233);
	struct copier k = copier_open(c);
	copier_start_session(&k, 0);
	struct target t = target_buffer(c, SIZE_W, SIZE_H, WL_SHM_FORMAT_XRGB8888, 0);
	for (int i = 0; i < 2; i++) {
		struct frame_result r = { 0 };
		struct ext_image_copy_capture_frame_v1 *frame = new_frame(&k, &r);
		ext_image_copy_capture_frame_v1_attach_buffer(frame, t.buffer);
		ext_image_copy_capture_frame_v1_damage_buffer(frame, 0, 0, SIZE_W, SIZE_H);
		ext_image_copy_capture_frame_v1_capture(frame);
		wait_answer(&k, &r, i == 0 ? 5000 : 300);
		test_assert(i == 0 ? r.ready : !r.ready && !r.failed,
			    "capture %d: ready %d failed %d", i, r.ready, r.failed);
		if (i == 0)
			ext_image_copy_capture_frame_v1_destroy(frame);
	}
	test_assert(kill(rec.pid, SIGTERM) == 0, "cannot signal wl-record");
	recorder_expect_exit(&rec, 20000, 0);
	client_disconnect(c);
	recorder_finish(&rec);
}

/* The output changes size (a mode the client presents for): the session
 * is told the new constraints, the copy waiting in an old-size buffer
 * fails with buffer_constraints, and one at the new size has the picture. */
TEST(copy_follows_a_mode_change)
{
	static const char *const args[] = { "--size", "320x240", NULL };
	struct recorder_process rec;
	recorder_start(&rec, "out.mkv", args);
	struct hostile_client *c = client_connect(&rec);
	struct wl_surface *surface = client_present_color(c, SIZE_W, SIZE_H, 0x112233);
	struct copier k = copier_open(c);
	copier_start_session(&k, 0);
	struct target t = target_buffer(c, SIZE_W, SIZE_H, WL_SHM_FORMAT_XRGB8888, 0);
	struct frame_result r = { 0 };
	struct ext_image_copy_capture_frame_v1 *frame = new_frame(&k, &r);
	ext_image_copy_capture_frame_v1_attach_buffer(frame, t.buffer);
	ext_image_copy_capture_frame_v1_damage_buffer(frame, 0, 0, SIZE_W, SIZE_H);
	ext_image_copy_capture_frame_v1_capture(frame);
	wait_answer(&k, &r, 5000);
	test_assert(r.ready, "the first capture was not answered");
	ext_image_copy_capture_frame_v1_destroy(frame);

	struct frame_result waiting = { 0 };
	frame = new_frame(&k, &waiting);
	ext_image_copy_capture_frame_v1_attach_buffer(frame, t.buffer);
	ext_image_copy_capture_frame_v1_capture(frame);
	client_expect_no_error(c);
	k.done = false;
	const int w = 160, h = 120;
	zwp_fullscreen_shell_v1_present_surface_for_mode(c->shell, surface, c->output, 0);
	wl_surface_attach(surface, client_color_buffer(c, w, h, 0x445566), 0, 0);
	wl_surface_damage(surface, 0, 0, w, h);
	wl_surface_commit(surface);
	wait_answer(&k, &waiting, 5000);
	test_assert(waiting.failed &&
		    waiting.reason == EXT_IMAGE_COPY_CAPTURE_FRAME_V1_FAILURE_REASON_BUFFER_CONSTRAINTS,
		    "the old-size copy: ready %d failed %d reason %u", waiting.ready, waiting.failed,
		    waiting.reason);
	test_assert(k.done && k.width == (uint32_t)w && k.height == (uint32_t)h,
		    "new constraints: done %d, buffer_size %ux%u, expected %dx%d", k.done, k.width,
		    k.height, w, h);
	ext_image_copy_capture_frame_v1_destroy(frame);

	struct frame_result r3 = { 0 };
	struct target t3 = target_buffer(c, w, h, WL_SHM_FORMAT_XRGB8888, 0);
	frame = new_frame(&k, &r3);
	ext_image_copy_capture_frame_v1_attach_buffer(frame, t3.buffer);
	ext_image_copy_capture_frame_v1_damage_buffer(frame, 0, 0, w, h);
	ext_image_copy_capture_frame_v1_capture(frame);
	wait_answer(&k, &r3, 5000);
	test_assert(r3.ready, "the copy at the new size was not answered");
	test_assert(r3.damage_w == w && r3.damage_h == h, "damage %dx%d after the mode change",
		    r3.damage_w, r3.damage_h);
	for (size_t i = 0; i < t3.size / 4; i++)
		test_assert((t3.pixels[i] & 0xffffff) == 0x445566, "pixel %zu is %08x, expected 445566",
			    i, t3.pixels[i]);
	ext_image_copy_capture_frame_v1_destroy(frame);
	client_disconnect(c);
	recorder_finish(&rec);
}

/* A buffer at an odd offset with an odd stride (the client's choice):
 * copied right, ARGB8888 made opaque, without a misaligned access (the
 * UBSan build aborts on one). */
TEST(copy_into_unaligned_buffer)
{
	static const char *const args[] = { "--size", "320x240", NULL };
	struct recorder_process rec;
	recorder_start(&rec, "out.mkv", args);
	struct hostile_client *c = client_connect(&rec);
	client_present_color(c, SIZE_W, SIZE_H, 0x112233);
	struct copier k = copier_open(c);
	copier_start_session(&k, 0);

	const int offset = 1, stride = SIZE_W * 4 + 3;
	size_t size = (size_t)offset + (size_t)stride * SIZE_H;
	int fd = make_memfd(size);
	uint8_t *bytes = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	test_assert(bytes != MAP_FAILED, "mmap failed");
	struct wl_shm_pool *pool = wl_shm_create_pool(c->shm, fd, (int32_t)size);
	close(fd);
	struct wl_buffer *buffer = wl_shm_pool_create_buffer(pool, offset, SIZE_W, SIZE_H, stride,
							     WL_SHM_FORMAT_ARGB8888);
	wl_shm_pool_destroy(pool);

	struct frame_result r = { 0 };
	struct ext_image_copy_capture_frame_v1 *frame = new_frame(&k, &r);
	ext_image_copy_capture_frame_v1_attach_buffer(frame, buffer);
	ext_image_copy_capture_frame_v1_damage_buffer(frame, 0, 0, SIZE_W, SIZE_H);
	ext_image_copy_capture_frame_v1_capture(frame);
	wait_answer(&k, &r, 5000);
	test_assert(r.ready, "the capture was not answered (failed %d reason %u)", r.failed, r.reason);
	for (int y = 0; y < SIZE_H; y++) {
		for (int x = 0; x < SIZE_W; x++) {
			const uint8_t *p = bytes + offset + (size_t)stride * (size_t)y + (size_t)x * 4;
			test_assert(p[0] == 0x33 && p[1] == 0x22 && p[2] == 0x11 && p[3] == 0xff,
				    "pixel %d,%d is %02x %02x %02x %02x (B G R A)", x, y, p[0], p[1],
				    p[2], p[3]);
		}
	}
	ext_image_copy_capture_frame_v1_destroy(frame);
	client_disconnect(c);
	recorder_finish(&rec);
}

/* A pool of a read-only fd: still good for presenting (the compositor maps
 * it read-only), but nothing can be copied into it: buffer_constraints. */
TEST(copy_into_read_only_pool)
{
	static const char *const args[] = { "--size", "320x240", NULL };
	struct recorder_process rec;
	recorder_start(&rec, "out.mkv", args);
	struct hostile_client *c = client_connect(&rec);
	size_t size = (size_t)SIZE_W * SIZE_H * 4;
	int fd = make_memfd(size);
	uint32_t *pixels = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	test_assert(pixels != MAP_FAILED, "mmap failed");
	for (size_t i = 0; i < size / 4; i++)
		pixels[i] = 0x778899;
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	int read_only = open(path, O_RDONLY | O_CLOEXEC);
	test_assert(read_only >= 0, "cannot reopen the memfd read-only");
	close(fd);
	struct wl_shm_pool *pool = wl_shm_create_pool(c->shm, read_only, (int32_t)size);
	close(read_only);
	struct wl_buffer *shown = wl_shm_pool_create_buffer(pool, 0, SIZE_W, SIZE_H, SIZE_W * 4,
							    WL_SHM_FORMAT_XRGB8888);
	struct wl_surface *surface = wl_compositor_create_surface(c->compositor);
	zwp_fullscreen_shell_v1_present_surface(c->shell, surface,
						ZWP_FULLSCREEN_SHELL_V1_PRESENT_METHOD_DEFAULT, NULL);
	wl_surface_attach(surface, shown, 0, 0);
	wl_surface_damage(surface, 0, 0, SIZE_W, SIZE_H);
	wl_surface_commit(surface);
	client_expect_no_error(c);
	struct copier k = copier_open(c);
	copier_start_session(&k, 0);

	/* Into the read-only pool: failed, not an error. */
	struct wl_buffer *target = wl_shm_pool_create_buffer(pool, 0, SIZE_W, SIZE_H, SIZE_W * 4,
							     WL_SHM_FORMAT_XRGB8888);
	struct frame_result r = { 0 };
	struct ext_image_copy_capture_frame_v1 *frame = new_frame(&k, &r);
	ext_image_copy_capture_frame_v1_attach_buffer(frame, target);
	ext_image_copy_capture_frame_v1_capture(frame);
	wait_answer(&k, &r, 5000);
	test_assert(r.failed &&
		    r.reason == EXT_IMAGE_COPY_CAPTURE_FRAME_V1_FAILURE_REASON_BUFFER_CONSTRAINTS,
		    "a copy into a read-only pool: ready %d failed %d reason %u", r.ready, r.failed,
		    r.reason);
	ext_image_copy_capture_frame_v1_destroy(frame);

	/* The picture shown from it is there. */
	struct frame_result r2 = { 0 };
	struct target t = target_buffer(c, SIZE_W, SIZE_H, WL_SHM_FORMAT_XRGB8888, 0);
	frame = new_frame(&k, &r2);
	ext_image_copy_capture_frame_v1_attach_buffer(frame, t.buffer);
	ext_image_copy_capture_frame_v1_damage_buffer(frame, 0, 0, SIZE_W, SIZE_H);
	ext_image_copy_capture_frame_v1_capture(frame);
	wait_answer(&k, &r2, 5000);
	test_assert(r2.ready, "the copy was not answered (failed %d reason %u)", r2.failed, r2.reason);
	for (size_t i = 0; i < t.size / 4; i++)
		test_assert((t.pixels[i] & 0xffffff) == 0x778899, "pixel %zu is %08x, expected 778899",
			    i, t.pixels[i]);
	ext_image_copy_capture_frame_v1_destroy(frame);
	client_disconnect(c);
	recorder_finish(&rec);
}

/* The copier shrinks its pool's file under the buffer it asked a copy
 * into: the write faults (SIGBUS), the copier gets wl_shm's invalid_fd as
 * for a read, and wl-record goes on recording the presenting client. */
TEST(copy_into_truncated_pool)
{
	static const char *const args[] = { "--size", "320x240", NULL };
	struct recorder_process rec;
	recorder_start(&rec, "out.mkv", args);
	struct hostile_client *presenter = client_connect(&rec);
	client_present_color(presenter, SIZE_W, SIZE_H, 0x112233);
	struct hostile_client *c = client_connect(&rec);
	struct copier k = copier_open(c);
	copier_start_session(&k, 0);
	size_t size = (size_t)SIZE_W * SIZE_H * 4;
	int fd = make_memfd(size);
	struct wl_shm_pool *pool = wl_shm_create_pool(c->shm, fd, (int32_t)size);
	struct wl_buffer *buffer = wl_shm_pool_create_buffer(pool, 0, SIZE_W, SIZE_H, SIZE_W * 4,
							     WL_SHM_FORMAT_XRGB8888);
	client_expect_no_error(c);
	test_assert(ftruncate(fd, 0) == 0, "ftruncate");
	close(fd);
	struct frame_result r = { 0 };
	struct ext_image_copy_capture_frame_v1 *frame = new_frame(&k, &r);
	ext_image_copy_capture_frame_v1_attach_buffer(frame, buffer);
	ext_image_copy_capture_frame_v1_damage_buffer(frame, 0, 0, SIZE_W, SIZE_H);
	ext_image_copy_capture_frame_v1_capture(frame);
	expect_protocol_error(c, &wl_buffer_interface, buffer, WL_SHM_ERROR_INVALID_FD);
	client_disconnect(c);
	recorder_require_alive(&rec, "after the copy into a truncated pool");
	client_expect_no_error(presenter);
	client_disconnect(presenter);
	recorder_expect_exit(&rec, 20000, 0);
	check_recording(rec.output, SIZE_W, SIZE_H, 1);
	recorder_finish(&rec);
}
