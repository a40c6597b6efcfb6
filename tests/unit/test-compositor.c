/* The compositor side through the real protocol: globals, the fullscreen
 * shell's methods and mode switches, damage, scale and transforms, and the
 * errors a client earns. Each check looks at the pixels the screen emits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inproc.h"

#define RED 0xffff0000u
#define GREEN 0xff00ff00u
#define BLUE 0xff0000ffu
#define WHITE 0xffffffffu
#define BLACK 0xff000000u

static uint32_t gradient(int x, int y)
{
	return 0xff000000u | (uint32_t)(x * 3 % 256) << 16 | (uint32_t)(y * 5 % 256) << 8 |
	       (uint32_t)((x + y) % 256);
}

/* Quadrants: red top-left, green top-right, blue bottom-left, white bottom-right. */
static int quad_w, quad_h;
static uint32_t quadrants(int x, int y)
{
	bool right = x >= quad_w / 2, bottom = y >= quad_h / 2;
	return bottom ? (right ? WHITE : BLUE) : (right ? GREEN : RED);
}

struct feedback_result {
	int successful, failed, cancelled;
};

static void fb_ok(void *data, struct zwp_fullscreen_shell_mode_feedback_v1 *fb)
{
	((struct feedback_result *)data)->successful++;
	zwp_fullscreen_shell_mode_feedback_v1_destroy(fb);
}

static void fb_failed(void *data, struct zwp_fullscreen_shell_mode_feedback_v1 *fb)
{
	((struct feedback_result *)data)->failed++;
	zwp_fullscreen_shell_mode_feedback_v1_destroy(fb);
}

static void fb_cancelled(void *data, struct zwp_fullscreen_shell_mode_feedback_v1 *fb)
{
	((struct feedback_result *)data)->cancelled++;
	zwp_fullscreen_shell_mode_feedback_v1_destroy(fb);
}

static const struct zwp_fullscreen_shell_mode_feedback_v1_listener feedback_listener = {
	.mode_successful = fb_ok, .mode_failed = fb_failed, .present_cancelled = fb_cancelled,
};

static void commit_buffer(struct wl_surface *surface, struct test_buffer *b)
{
	wl_surface_attach(surface, b->buffer, 0, 0);
	wl_surface_damage_buffer(surface, 0, 0, b->width, b->height);
	wl_surface_commit(surface);
}

TEST(globals)
{
	struct inproc t;
	inproc_init(&t, 320, 240);
	test_assert(t.compositor && t.compositor_version >= 4);
	test_assert(t.shm && (t.shm_formats & (1u << WL_SHM_FORMAT_ARGB8888)) &&
	      (t.shm_formats & (1u << WL_SHM_FORMAT_XRGB8888)));
	test_assert(t.output && t.output_version >= 3);
	test_assert(t.mode_width == 320 && t.mode_height == 240 && t.mode_refresh == 60000);
	test_assert(t.shell && (t.shell_capabilities & ZWP_FULLSCREEN_SHELL_V1_CAPABILITY_ARBITRARY_MODES));
	inproc_finish(&t);
}

TEST(present_for_mode)
{
	struct inproc t;
	inproc_init(&t, 320, 240);
	struct feedback_result result = { 0 };
	struct wl_surface *surface = wl_compositor_create_surface(t.compositor);
	struct zwp_fullscreen_shell_mode_feedback_v1 *fb =
		zwp_fullscreen_shell_v1_present_surface_for_mode(t.shell, surface, t.output, 50000);
	zwp_fullscreen_shell_mode_feedback_v1_add_listener(fb, &feedback_listener, &result);
	test_assert(inproc_roundtrip(&t));
	test_assert(result.successful == 0 && t.frames == 0); /* takes effect on commit */

	struct test_buffer b;
	test_buffer_init(&t, &b, 641, 479, WL_SHM_FORMAT_XRGB8888);
	test_buffer_fill(&b, gradient);
	commit_buffer(surface, &b);
	test_assert(inproc_roundtrip(&t));
	test_assert(result.successful == 1 && result.failed == 0 && result.cancelled == 0);
	test_assert(t.mode_width == 641 && t.mode_height == 479 && t.mode_refresh == 50000);
	test_assert(t.frames == 1 && t.frame_width == 641 && t.frame_height == 479);
	for (int y = 0; y < 479; y += 7)
		for (int x = 0; x < 641; x += 5)
			test_assert_pixel(&t, x, y, gradient(x, y));
	test_assert_pixel(&t, 640, 478, gradient(640, 478));

	/* A commit without damage is no new frame; partial damage copies only
	 * the damaged part (the rest keeps what was copied before). */
	quad_w = 641, quad_h = 479;
	test_buffer_fill(&b, quadrants);
	wl_surface_attach(surface, b.buffer, 0, 0);
	wl_surface_commit(surface);
	test_assert(inproc_roundtrip(&t));
	test_assert(t.frames == 1);
	wl_surface_attach(surface, b.buffer, 0, 0);
	wl_surface_damage(surface, 10, 10, 20, 20);
	wl_surface_commit(surface);
	test_assert(inproc_roundtrip(&t));
	test_assert(t.frames == 2);
	test_assert_pixel(&t, 15, 15, RED);
	test_assert_pixel(&t, 5, 5, gradient(5, 5));
	test_assert_pixel(&t, 31, 31, gradient(31, 31));

	/* Huge damage (Weston's GL renderer sends INT32_MAX) is clamped. */
	wl_surface_attach(surface, b.buffer, 0, 0);
	wl_surface_damage(surface, 5, 5, INT32_MAX, INT32_MAX);
	wl_surface_commit(surface);
	test_assert(inproc_roundtrip(&t));
	test_assert(t.frames == 3);
	test_assert_pixel(&t, 5, 5, RED);
	test_assert_pixel(&t, 4, 4, gradient(4, 4));

	/* The buffer was released after each copy. */
	test_buffer_finish(&b);
	wl_surface_destroy(surface);
	test_assert(inproc_roundtrip(&t));
	inproc_finish(&t);
}

TEST(present_cancelled)
{
	struct inproc t;
	inproc_init(&t, 64, 48);
	struct feedback_result first = { 0 }, second = { 0 };
	struct wl_surface *a = wl_compositor_create_surface(t.compositor);
	struct wl_surface *b = wl_compositor_create_surface(t.compositor);
	struct zwp_fullscreen_shell_mode_feedback_v1 *fa =
		zwp_fullscreen_shell_v1_present_surface_for_mode(t.shell, a, t.output, 0);
	zwp_fullscreen_shell_mode_feedback_v1_add_listener(fa, &feedback_listener, &first);
	struct zwp_fullscreen_shell_mode_feedback_v1 *fbb =
		zwp_fullscreen_shell_v1_present_surface_for_mode(t.shell, b, t.output, 0);
	zwp_fullscreen_shell_mode_feedback_v1_add_listener(fbb, &feedback_listener, &second);
	test_assert(inproc_roundtrip(&t));
	test_assert(first.cancelled == 1 && first.successful == 0);
	test_assert(second.cancelled == 0 && second.successful == 0);

	struct test_buffer buf;
	test_buffer_init(&t, &buf, 32, 16, WL_SHM_FORMAT_ARGB8888);
	quad_w = 32, quad_h = 16;
	test_buffer_fill(&buf, quadrants);
	commit_buffer(b, &buf);
	test_assert(inproc_roundtrip(&t));
	test_assert(second.successful == 1);
	test_assert(t.mode_width == 32 && t.mode_height == 16);
	/* The frame rate asked was 0: the output keeps its rate. */
	test_assert(t.mode_refresh == 60000);
	test_assert_pixel(&t, 0, 0, RED);
	test_assert_pixel(&t, 31, 15, WHITE);

	/* Presenting nothing blanks the output at once. */
	zwp_fullscreen_shell_v1_present_surface(t.shell, NULL, 0, NULL);
	test_assert(inproc_roundtrip(&t));
	test_assert(t.frames == 2);
	test_assert_pixel(&t, 0, 0, BLACK);
	test_assert_pixel(&t, 31, 15, BLACK);

	test_buffer_finish(&buf);
	wl_surface_destroy(a);
	wl_surface_destroy(b);
	test_assert(inproc_roundtrip(&t));
	inproc_finish(&t);
}

/* Presents a 32x16 quadrant buffer on a 64x48 output with `method`. */
static void present_with_method(struct inproc *t, struct test_buffer *buf, uint32_t method,
				int32_t scale, int32_t transform, int bw, int bh)
{
	inproc_init(t, 64, 48);
	struct wl_surface *surface = t->surface = wl_compositor_create_surface(t->compositor);
	zwp_fullscreen_shell_v1_present_surface(t->shell, surface, method, t->output);
	test_buffer_init(t, buf, bw, bh, WL_SHM_FORMAT_XRGB8888);
	quad_w = bw, quad_h = bh;
	test_buffer_fill(buf, quadrants);
	wl_surface_set_buffer_scale(surface, scale);
	wl_surface_set_buffer_transform(surface, transform);
	commit_buffer(surface, buf);
	test_assert(inproc_roundtrip(t));
	test_assert(t->frames >= 1 && t->frame_width == 64 && t->frame_height == 48);
	/* Plain present_surface never changes the mode. */
	test_assert(t->mode_width == 64 && t->mode_height == 48);
}

TEST(methods)
{
	struct inproc t;
	struct test_buffer buf;

	/* Center: 32x16 at (16,16). */
	present_with_method(&t, &buf, ZWP_FULLSCREEN_SHELL_V1_PRESENT_METHOD_CENTER, 1, 0, 32, 16);
	test_assert_pixel(&t, 15, 15, BLACK);
	test_assert_pixel(&t, 16, 16, RED);
	test_assert_pixel(&t, 47, 16, GREEN);
	test_assert_pixel(&t, 16, 31, BLUE);
	test_assert_pixel(&t, 47, 31, WHITE);
	test_assert_pixel(&t, 48, 32, BLACK);
	test_buffer_finish(&buf);
	inproc_finish(&t);

	/* Default behaves as center. */
	present_with_method(&t, &buf, ZWP_FULLSCREEN_SHELL_V1_PRESENT_METHOD_DEFAULT, 1, 0, 32, 16);
	test_assert_pixel(&t, 16, 16, RED);
	test_assert_pixel(&t, 15, 16, BLACK);
	test_buffer_finish(&buf);
	inproc_finish(&t);

	/* Zoom: x2 to 64x32, letterboxed at y 8..40. */
	present_with_method(&t, &buf, ZWP_FULLSCREEN_SHELL_V1_PRESENT_METHOD_ZOOM, 1, 0, 32, 16);
	test_assert_pixel(&t, 10, 4, BLACK);
	test_assert_pixel(&t, 10, 12, RED);
	test_assert_pixel(&t, 50, 12, GREEN);
	test_assert_pixel(&t, 10, 36, BLUE);
	test_assert_pixel(&t, 50, 36, WHITE);
	test_assert_pixel(&t, 50, 44, BLACK);
	test_buffer_finish(&buf);
	inproc_finish(&t);

	/* Zoom-crop: x3 to 96x48, cropped to x 16..80 of it. */
	present_with_method(&t, &buf, ZWP_FULLSCREEN_SHELL_V1_PRESENT_METHOD_ZOOM_CROP, 1, 0, 32, 16);
	test_assert_pixel(&t, 0, 0, RED);
	test_assert_pixel(&t, 20, 10, RED);
	test_assert_pixel(&t, 40, 10, GREEN);
	test_assert_pixel(&t, 63, 47, WHITE);
	test_assert_pixel(&t, 0, 47, BLUE);
	test_buffer_finish(&buf);
	inproc_finish(&t);

	/* Stretch: fills 64x48, quadrants of 32x24. */
	present_with_method(&t, &buf, ZWP_FULLSCREEN_SHELL_V1_PRESENT_METHOD_STRETCH, 1, 0, 32, 16);
	test_assert_pixel(&t, 0, 0, RED);
	test_assert_pixel(&t, 28, 20, RED);
	test_assert_pixel(&t, 36, 20, GREEN);
	test_assert_pixel(&t, 28, 28, BLUE);
	test_assert_pixel(&t, 63, 47, WHITE);
	test_buffer_finish(&buf);
	inproc_finish(&t);

	/* Buffer scale 2, centered: a 64x32 buffer is a 32x16 surface. */
	present_with_method(&t, &buf, ZWP_FULLSCREEN_SHELL_V1_PRESENT_METHOD_CENTER, 2, 0, 64, 32);
	test_assert_pixel(&t, 15, 15, BLACK);
	test_assert_pixel(&t, 17, 17, RED);
	test_assert_pixel(&t, 46, 17, GREEN);
	test_assert_pixel(&t, 17, 30, BLUE);
	test_assert_pixel(&t, 46, 30, WHITE);
	test_assert_pixel(&t, 48, 32, BLACK);
	test_buffer_finish(&buf);
	inproc_finish(&t);

	/* Transform 90: a 16x32 buffer shows as a 32x16 surface; the buffer's
	 * top-right (green) lands top-left, as in Weston. */
	present_with_method(&t, &buf, ZWP_FULLSCREEN_SHELL_V1_PRESENT_METHOD_CENTER, 1,
			    WL_OUTPUT_TRANSFORM_90, 16, 32);
	test_assert_pixel(&t, 17, 17, GREEN);
	test_assert_pixel(&t, 46, 17, WHITE);
	test_assert_pixel(&t, 17, 30, RED);
	test_assert_pixel(&t, 46, 30, BLUE);
	test_assert_pixel(&t, 15, 17, BLACK);
	test_buffer_finish(&buf);
	inproc_finish(&t);

	/* Transform 180: everything swaps corners. */
	present_with_method(&t, &buf, ZWP_FULLSCREEN_SHELL_V1_PRESENT_METHOD_CENTER, 1,
			    WL_OUTPUT_TRANSFORM_180, 32, 16);
	test_assert_pixel(&t, 17, 17, WHITE);
	test_assert_pixel(&t, 46, 30, RED);
	test_buffer_finish(&buf);
	inproc_finish(&t);

	/* Flipped: left and right swap. */
	present_with_method(&t, &buf, ZWP_FULLSCREEN_SHELL_V1_PRESENT_METHOD_CENTER, 1,
			    WL_OUTPUT_TRANSFORM_FLIPPED, 32, 16);
	test_assert_pixel(&t, 17, 17, GREEN);
	test_assert_pixel(&t, 46, 17, RED);
	test_buffer_finish(&buf);
	inproc_finish(&t);
}

TEST(error_scale_zero)
{
	struct inproc t;
	inproc_init(&t, 64, 48);
	struct wl_surface *surface = t.surface = wl_compositor_create_surface(t.compositor);
	wl_surface_set_buffer_scale(surface, 0);
	expect_protocol_error(&t, &wl_surface_interface, surface, WL_SURFACE_ERROR_INVALID_SCALE);
	inproc_finish(&t);
}

TEST(error_transform_8)
{
	struct inproc t;
	inproc_init(&t, 64, 48);
	struct wl_surface *surface = t.surface = wl_compositor_create_surface(t.compositor);
	wl_surface_set_buffer_transform(surface, 8);
	expect_protocol_error(&t, &wl_surface_interface, surface,
			      WL_SURFACE_ERROR_INVALID_TRANSFORM);
	inproc_finish(&t);
}

TEST(error_size_not_multiple_of_scale)
{
	struct inproc t;
	struct test_buffer buf;
	inproc_init(&t, 64, 48);
	struct wl_surface *surface = t.surface = wl_compositor_create_surface(t.compositor);
	test_buffer_init(&t, &buf, 33, 16, WL_SHM_FORMAT_XRGB8888);
	wl_surface_set_buffer_scale(surface, 2);
	commit_buffer(surface, &buf);
	expect_protocol_error(&t, &wl_surface_interface, surface, WL_SURFACE_ERROR_INVALID_SIZE);
	test_buffer_finish(&buf);
	inproc_finish(&t);
}

TEST(error_present_method_5)
{
	struct inproc t;
	inproc_init(&t, 64, 48);
	struct wl_surface *surface = t.surface = wl_compositor_create_surface(t.compositor);
	zwp_fullscreen_shell_v1_present_surface(t.shell, surface, 5, NULL);
	expect_protocol_error(&t, &zwp_fullscreen_shell_v1_interface, t.shell,
			      ZWP_FULLSCREEN_SHELL_V1_ERROR_INVALID_METHOD);
	inproc_finish(&t);
}

static int callbacks_done;
static void frame_done(void *data, struct wl_callback *callback, uint32_t time)
{
	callbacks_done++;
	wl_callback_destroy(callback);
}
static const struct wl_callback_listener frame_listener = { .done = frame_done };

TEST(frame_callbacks_and_release)
{
	struct inproc t;
	inproc_init(&t, 64, 48);
	struct wl_surface *surface = t.surface = wl_compositor_create_surface(t.compositor);
	zwp_fullscreen_shell_v1_present_surface(t.shell, surface, 0, NULL);
	struct test_buffer buf;
	test_buffer_init(&t, &buf, 64, 48, WL_SHM_FORMAT_XRGB8888);
	test_buffer_fill(&buf, gradient);

	/* A destroyed buffer attached before commit shows nothing and is no
	 * error. */
	struct test_buffer doomed;
	test_buffer_init(&t, &doomed, 64, 48, WL_SHM_FORMAT_XRGB8888);
	wl_surface_attach(surface, doomed.buffer, 0, 0);
	wl_buffer_destroy(doomed.buffer);
	doomed.buffer = NULL;
	wl_surface_commit(surface);
	test_assert(inproc_roundtrip(&t));
	test_buffer_finish(&doomed);

	for (int i = 0; i < 3; i++) {
		struct wl_callback *cb = wl_surface_frame(surface);
		wl_callback_add_listener(cb, &frame_listener, NULL);
		commit_buffer(surface, &buf);
		inproc_run_for(&t, 60);
	}
	test_assert(callbacks_done == 3);
	test_assert(t.frames == 3);
	test_assert_pixel(&t, 63, 47, gradient(63, 47));
	test_buffer_finish(&buf);
	inproc_finish(&t);
}
