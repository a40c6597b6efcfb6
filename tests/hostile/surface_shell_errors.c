/* Bad wl_surface and zwp_fullscreen_shell_v1 requests. */
#include <stdint.h>
#include <string.h>

#include "harness.h"

#define SIZE_W 320
#define SIZE_H 240
#define PROOF_COLOUR 0x30a050u

static const char *const screenshot_args[] = { "--screenshot", "--size", "320x240", NULL };

static void run_bad_client(void (*misbehave)(struct client *c))
{
	struct wlr w;
	wlr_start(&w, "proof.png", screenshot_args);
	struct client *bad = client_connect(&w);
	misbehave(bad);
	client_disconnect(bad);
	wlr_require_alive(&w, "after the bad client");
	prove_screenshot_serves(&w, SIZE_W, SIZE_H, PROOF_COLOUR);
	wlr_finish(&w);
}

static void scale(struct client *c, int32_t value)
{
	struct wl_surface *surface = wl_compositor_create_surface(c->compositor);
	wl_surface_set_buffer_scale(surface, value);
	client_expect_protocol_error(c, surface, &wl_surface_interface,
				     WL_SURFACE_ERROR_INVALID_SCALE);
}

static void scale_zero(struct client *c) { scale(c, 0); }
static void scale_negative(struct client *c) { scale(c, -2); }

static void transform(struct client *c, int32_t value)
{
	struct wl_surface *surface = wl_compositor_create_surface(c->compositor);
	wl_surface_set_buffer_transform(surface, value);
	client_expect_protocol_error(c, surface, &wl_surface_interface,
				     WL_SURFACE_ERROR_INVALID_TRANSFORM);
}

static void transform_99(struct client *c) { transform(c, 99); }
static void transform_negative(struct client *c) { transform(c, -1); }

/* A 65x65 buffer cannot be shown at scale 2. */
static void size_not_multiple_of_scale(struct client *c)
{
	struct wl_surface *surface = wl_compositor_create_surface(c->compositor);
	zwp_fullscreen_shell_v1_present_surface(c->shell, surface,
						ZWP_FULLSCREEN_SHELL_V1_PRESENT_METHOD_DEFAULT, NULL);
	wl_surface_set_buffer_scale(surface, 2);
	wl_surface_attach(surface, client_color_buffer(c, 65, 65, 0xff0000), 0, 0);
	wl_surface_damage(surface, 0, 0, 65, 65);
	wl_surface_commit(surface);
	client_expect_protocol_error(c, surface, &wl_surface_interface,
				     WL_SURFACE_ERROR_INVALID_SIZE);
}

static void present_method_99(struct client *c)
{
	struct wl_surface *surface = wl_compositor_create_surface(c->compositor);
	zwp_fullscreen_shell_v1_present_surface(c->shell, surface, 99, NULL);
	client_expect_protocol_error(c, c->shell, &zwp_fullscreen_shell_v1_interface,
				     ZWP_FULLSCREEN_SHELL_V1_ERROR_INVALID_METHOD);
}

/* release destroys only the client's handle: binding again and presenting
 * must work, and the picture taken must be that client's. */
static void release_then_rebind(void)
{
	struct wlr w;
	wlr_start(&w, "proof.png", screenshot_args);
	struct client *c = client_connect(&w);
	zwp_fullscreen_shell_v1_release(c->shell);
	c->shell = NULL;
	client_expect_no_error(c);
	c->shell = wl_registry_bind(c->registry, c->shell_name, &zwp_fullscreen_shell_v1_interface, 1);
	client_present_color(c, SIZE_W, SIZE_H, PROOF_COLOUR);
	wlr_expect_exit(&w, 20000, 0);
	client_disconnect(c);
	check_png_uniform(w.output, SIZE_W, SIZE_H, PROOF_COLOUR);
	wlr_finish(&w);
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
static void for_mode_surface_destroyed(void)
{
	struct wlr w;
	wlr_start(&w, "proof.png", screenshot_args);
	struct client *c = client_connect(&w);
	struct wl_surface *surface = wl_compositor_create_surface(c->compositor);
	const char *answer = NULL;
	struct zwp_fullscreen_shell_mode_feedback_v1 *feedback =
		zwp_fullscreen_shell_v1_present_surface_for_mode(c->shell, surface, c->output, 0);
	zwp_fullscreen_shell_mode_feedback_v1_add_listener(feedback, &feedback_listener, &answer);
	client_expect_no_error(c);
	REQUIRE(!answer, "mode feedback %s before any commit", answer);
	wl_surface_destroy(surface);
	client_expect_no_error(c);
	REQUIRE(answer && strcmp(answer, "present_cancelled") == 0,
		"mode feedback after the surface was destroyed: %s; expected present_cancelled",
		answer ? answer : "none");
	wlr_require_alive(&w, "after the surface was destroyed");
	client_present_color(c, SIZE_W, SIZE_H, PROOF_COLOUR);
	wlr_expect_exit(&w, 20000, 0);
	client_disconnect(c);
	check_png_uniform(w.output, SIZE_W, SIZE_H, PROOF_COLOUR);
	wlr_finish(&w);
}

/* A client that asked for a mode leaves before committing anything. */
static void for_mode_then_disconnect(struct client *c)
{
	struct wl_surface *surface = wl_compositor_create_surface(c->compositor);
	zwp_fullscreen_shell_v1_present_surface_for_mode(c->shell, surface, c->output, 0);
	client_expect_no_error(c);
}

/* Damage rectangles at the ends of the int32 range, on a transformed
 * surface, in both coordinate spaces: clamped, never overflowing. The last
 * commit's damage covers the whole surface, so the picture is its colour. */
static void extreme_damage_transformed(void)
{
	static const char *const args[] = { "--screenshot", "--delay", "1", "--size", "320x240",
					    NULL };
	struct wlr w;
	wlr_start(&w, "proof.png", args);
	struct client *c = client_connect(&w);
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
	wlr_expect_exit(&w, 20000, 0);
	client_disconnect(c);
	check_png_uniform(w.output, SIZE_W, SIZE_H, PROOF_COLOUR);
	wlr_finish(&w);
}

#define DEFINE_CASE(fn) static void fn##_case(void) { run_bad_client(fn); }
DEFINE_CASE(scale_zero)
DEFINE_CASE(scale_negative)
DEFINE_CASE(transform_99)
DEFINE_CASE(transform_negative)
DEFINE_CASE(size_not_multiple_of_scale)
DEFINE_CASE(present_method_99)
DEFINE_CASE(for_mode_then_disconnect)

static const struct hostile_case cases[] = {
	{ "scale-zero", scale_zero_case },
	{ "scale-negative", scale_negative_case },
	{ "transform-99", transform_99_case },
	{ "transform-negative", transform_negative_case },
	{ "size-65x65-scale-2", size_not_multiple_of_scale_case },
	{ "present-method-99", present_method_99_case },
	{ "release-then-rebind", release_then_rebind },
	{ "for-mode-surface-destroyed", for_mode_surface_destroyed },
	{ "for-mode-then-disconnect", for_mode_then_disconnect_case },
	{ "extreme-damage-transformed", extreme_damage_transformed },
};

int main(int argc, char **argv)
{
	return harness_main(argc, argv, cases, (int)(sizeof(cases) / sizeof(cases[0])));
}
