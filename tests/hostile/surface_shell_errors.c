/* Bad wl_surface and zwp_fullscreen_shell_v1 requests. */
#include <stdint.h>
#include <string.h>

#include "harness.h"

#define SIZE_W 320
#define SIZE_H 240
#define PROOF_COLOUR 0x30a050u

static const char *const screenshot_args[] = { "--screenshot", "--size", "320x240", NULL };

static void run_bad_client(void (*misbehave)(struct hostile_client *c))
{
	struct recorder_process rec;
	recorder_start(&rec, "proof.png", screenshot_args);
	struct hostile_client *bad = client_connect(&rec);
	misbehave(bad);
	client_disconnect(bad);
	recorder_require_alive(&rec, "after the bad client");
	prove_screenshot_serves(&rec, SIZE_W, SIZE_H, PROOF_COLOUR);
	recorder_finish(&rec);
}

static void scale(struct hostile_client *c, int32_t value)
{
	struct wl_surface *surface = wl_compositor_create_surface(c->compositor);
	wl_surface_set_buffer_scale(surface, value);
	expect_protocol_error(c, &wl_surface_interface, surface,
				     WL_SURFACE_ERROR_INVALID_SCALE);
}

static void scale_zero(struct hostile_client *c) { scale(c, 0); }
static void scale_negative(struct hostile_client *c) { scale(c, -2); }

static void transform(struct hostile_client *c, int32_t value)
{
	struct wl_surface *surface = wl_compositor_create_surface(c->compositor);
	wl_surface_set_buffer_transform(surface, value);
	expect_protocol_error(c, &wl_surface_interface, surface,
				     WL_SURFACE_ERROR_INVALID_TRANSFORM);
}

static void transform_99(struct hostile_client *c) { transform(c, 99); }
static void transform_negative(struct hostile_client *c) { transform(c, -1); }

/* A 65x65 buffer cannot be shown at scale 2. */
static void size_not_multiple_of_scale(struct hostile_client *c)
{
	struct wl_surface *surface = wl_compositor_create_surface(c->compositor);
	zwp_fullscreen_shell_v1_present_surface(c->shell, surface,
						ZWP_FULLSCREEN_SHELL_V1_PRESENT_METHOD_DEFAULT, NULL);
	wl_surface_set_buffer_scale(surface, 2);
	wl_surface_attach(surface, client_color_buffer(c, 65, 65, 0xff0000), 0, 0);
	wl_surface_damage(surface, 0, 0, 65, 65);
	wl_surface_commit(surface);
	expect_protocol_error(c, &wl_surface_interface, surface,
				     WL_SURFACE_ERROR_INVALID_SIZE);
}

static void present_method_99(struct hostile_client *c)
{
	struct wl_surface *surface = wl_compositor_create_surface(c->compositor);
	zwp_fullscreen_shell_v1_present_surface(c->shell, surface, 99, NULL);
	expect_protocol_error(c, &zwp_fullscreen_shell_v1_interface, c->shell,
				     ZWP_FULLSCREEN_SHELL_V1_ERROR_INVALID_METHOD);
}

/* release destroys only the client's handle: binding again and presenting
 * must work, and the picture taken must be that client's. */
TEST(release_then_rebind)
{
	struct recorder_process rec;
	recorder_start(&rec, "proof.png", screenshot_args);
	struct hostile_client *c = client_connect(&rec);
	zwp_fullscreen_shell_v1_release(c->shell);
	c->shell = NULL;
	client_expect_no_error(c);
	c->shell = wl_registry_bind(c->registry, c->shell_name, &zwp_fullscreen_shell_v1_interface, 1);
	client_present_color(c, SIZE_W, SIZE_H, PROOF_COLOUR);
	recorder_expect_exit(&rec, 20000, 0);
	client_disconnect(c);
	check_png_uniform(rec.output, SIZE_W, SIZE_H, PROOF_COLOUR);
	recorder_finish(&rec);
}

static void feedback_event(void *data, struct zwp_fullscreen_shell_mode_feedback_v1 *feedback,
			   const char *name)
{
	const char **last = data;
	*last = name;
}
static void mode_successful(void *data, struct zwp_fullscreen_shell_mode_feedback_v1 *f)
{
	feedback_event(data, f, "mode_successful");
}
static void mode_failed(void *data, struct zwp_fullscreen_shell_mode_feedback_v1 *f)
{
	feedback_event(data, f, "mode_failed");
}
static void present_cancelled(void *data, struct zwp_fullscreen_shell_mode_feedback_v1 *f)
{
	feedback_event(data, f, "present_cancelled");
}
static const struct zwp_fullscreen_shell_mode_feedback_v1_listener feedback_listener = {
	.mode_successful = mode_successful,
	.mode_failed = mode_failed,
	.present_cancelled = present_cancelled,
};

/* present_surface_for_mode, then the surface is destroyed before its first
 * commit: the request must be answered present_cancelled (not left hanging,
 * not crash), and the client can go on presenting. */
TEST(for_mode_surface_destroyed)
{
	struct recorder_process rec;
	recorder_start(&rec, "proof.png", screenshot_args);
	struct hostile_client *c = client_connect(&rec);
	struct wl_surface *surface = wl_compositor_create_surface(c->compositor);
	const char *answer = NULL;
	struct zwp_fullscreen_shell_mode_feedback_v1 *feedback =
		zwp_fullscreen_shell_v1_present_surface_for_mode(c->shell, surface, c->output, 0);
	zwp_fullscreen_shell_mode_feedback_v1_add_listener(feedback, &feedback_listener, &answer);
	client_expect_no_error(c);
	test_assert(!answer, "mode feedback %s before any commit", answer);
	wl_surface_destroy(surface);
	client_expect_no_error(c);
	test_assert(answer && strcmp(answer, "present_cancelled") == 0,
		"mode feedback after the surface was destroyed: %s; expected present_cancelled",
		answer ? answer : "none");
	recorder_require_alive(&rec, "after the surface was destroyed");
	client_present_color(c, SIZE_W, SIZE_H, PROOF_COLOUR);
	recorder_expect_exit(&rec, 20000, 0);
	client_disconnect(c);
	check_png_uniform(rec.output, SIZE_W, SIZE_H, PROOF_COLOUR);
	recorder_finish(&rec);
}

/* A client that asked for a mode leaves before committing anything. */
static void for_mode_then_disconnect(struct hostile_client *c)
{
	struct wl_surface *surface = wl_compositor_create_surface(c->compositor);
	zwp_fullscreen_shell_v1_present_surface_for_mode(c->shell, surface, c->output, 0);
	client_expect_no_error(c);
}

/* Damage rectangles at the ends of the int32 range, on a transformed
 * surface, in both coordinate spaces: clamped, never overflowing. The last
 * commit's damage covers the whole surface, so the picture is its colour. */
TEST(extreme_damage_transformed)
{
	static const char *const args[] = { "--screenshot", "--delay", "1", "--size", "320x240",
					    NULL };
	struct recorder_process rec;
	recorder_start(&rec, "proof.png", args);
	struct hostile_client *c = client_connect(&rec);
	struct wl_surface *surface = wl_compositor_create_surface(c->compositor);
	zwp_fullscreen_shell_v1_present_surface(c->shell, surface,
						ZWP_FULLSCREEN_SHELL_V1_PRESENT_METHOD_DEFAULT, NULL);
	wl_surface_set_buffer_transform(surface, WL_OUTPUT_TRANSFORM_180);
	wl_surface_attach(surface, client_color_buffer(c, SIZE_W, SIZE_H, 0x999999), 0, 0);
	wl_surface_damage(surface, 0, 0, SIZE_W, SIZE_H);
	wl_surface_commit(surface);
	client_expect_no_error(c);
	wl_surface_attach(surface, client_color_buffer(c, SIZE_W, SIZE_H, PROOF_COLOUR), 0, 0);
	wl_surface_damage(surface, INT32_MIN, INT32_MIN, INT32_MAX, INT32_MAX);
	wl_surface_damage(surface, INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX);
	wl_surface_damage(surface, 10, 10, -5, INT32_MIN);
	wl_surface_damage_buffer(surface, INT32_MAX - 1, 0, INT32_MAX, 1);
	wl_surface_damage_buffer(surface, INT32_MIN, INT32_MIN, INT32_MAX, INT32_MAX);
	wl_surface_damage(surface, -5, -5, INT32_MAX, INT32_MAX);
	wl_surface_commit(surface);
	client_expect_no_error(c);
	recorder_expect_exit(&rec, 20000, 0);
	client_disconnect(c);
	check_png_uniform(rec.output, SIZE_W, SIZE_H, PROOF_COLOUR);
	recorder_finish(&rec);
}

TEST(scale_zero) { run_bad_client(scale_zero); }
TEST(scale_negative) { run_bad_client(scale_negative); }
TEST(transform_99) { run_bad_client(transform_99); }
TEST(transform_negative) { run_bad_client(transform_negative); }
TEST(size_65x65_scale_2) { run_bad_client(size_not_multiple_of_scale); }
TEST(present_method_99) { run_bad_client(present_method_99); }
TEST(for_mode_then_disconnect) { run_bad_client(for_mode_then_disconnect); }
