/* A client shrinks the file behind its pool after making a buffer, so
 * reading the buffer faults (SIGBUS). wl-record must survive it, post
 * wl_shm.invalid_fd on the wl_buffer (as libwayland's wl_shm does) and
 * disconnect that client. */
#include <unistd.h>

#include "harness.h"

#define SIDE 64
#define GOOD_COLOUR 0x40c080u
#define PROOF_COLOUR 0x8040c0u

/* A 64x64 buffer whose file is then truncated to 0 bytes. */
static struct wl_buffer *truncated_buffer(struct client *c)
{
	const int32_t size = SIDE * SIDE * 4;
	int fd = make_memfd((size_t)size);
	struct wl_shm_pool *pool = wl_shm_create_pool(c->shm, fd, size);
	struct wl_buffer *buffer = wl_shm_pool_create_buffer(pool, 0, SIDE, SIDE, SIDE * 4,
							     WL_SHM_FORMAT_XRGB8888);
	wl_shm_pool_destroy(pool);
	/* Make sure the pool is mapped on the server side before shrinking. */
	client_expect_no_error(c);
	REQUIRE(ftruncate(fd, 0) == 0, "ftruncate");
	close(fd);
	return buffer;
}

static void commit_truncated(struct client *c, struct wl_surface *surface)
{
	struct wl_buffer *bad = truncated_buffer(c);
	wl_surface_attach(surface, bad, 0, 0);
	wl_surface_damage(surface, 0, 0, SIDE, SIDE);
	wl_surface_commit(surface);
	client_expect_protocol_error(c, bad, &wl_buffer_interface, WL_SHM_ERROR_INVALID_FD);
}

/* The bad buffer is the surface's first content: nothing was presented, so
 * wl-record keeps waiting and a second client gets its screenshot. */
static void first_commit_screenshot(void)
{
	static const char *const args[] = { "--screenshot", "--size", "64x64", NULL };
	struct wlr w;
	wlr_start(&w, "shot.png", args);
	struct client *bad = client_connect(&w);
	struct wl_surface *surface = wl_compositor_create_surface(bad->compositor);
	zwp_fullscreen_shell_v1_present_surface(bad->shell, surface,
						ZWP_FULLSCREEN_SHELL_V1_PRESENT_METHOD_DEFAULT, NULL);
	commit_truncated(bad, surface);
	client_disconnect(bad);
	wlr_require_alive(&w, "after the truncated pool");
	prove_screenshot_serves(&w, SIDE, SIDE, PROOF_COLOUR);
	wlr_finish(&w);
}

/* A good frame is presented first (--delay keeps the screenshot from being
 * taken at once), then the bad one: the presenter is disconnected before a
 * picture was taken, so wl-record ends with status 1 -- by itself, not by a
 * signal. */
static void presented_screenshot(void)
{
	static const char *const args[] = { "--screenshot", "--delay", "5", "--size", "64x64",
					    NULL };
	struct wlr w;
	wlr_start(&w, "shot.png", args);
	struct client *bad = client_connect(&w);
	struct wl_surface *surface = client_present_color(bad, SIDE, SIDE, GOOD_COLOUR);
	commit_truncated(bad, surface);
	client_disconnect(bad);
	wlr_expect_exit(&w, 10000, 1);
	REQUIRE(access(w.output, F_OK) != 0, "a screenshot was written although none was taken");
	wlr_finish(&w);
}

/* Recording: a good frame, then the bad one. The presenter is gone, so the
 * recording ends, is finalised, and holds the good frame. */
static void presented_recording(void)
{
	static const char *const args[] = { "--size", "64x64", NULL };
	struct wlr w;
	wlr_start(&w, "out.mkv", args);
	struct client *bad = client_connect(&w);
	struct wl_surface *surface = client_present_color(bad, SIDE, SIDE, GOOD_COLOUR);
	for (int i = 0; i < 10; i++) {
		usleep(30000);
		client_expect_no_error(bad);
	}
	commit_truncated(bad, surface);
	client_disconnect(bad);
	wlr_expect_exit(&w, 20000, 0);
	check_recording(w.output, SIDE, SIDE, 1);
	wlr_finish(&w);
}

static const struct hostile_case cases[] = {
	{ "first-commit-screenshot", first_commit_screenshot },
	{ "presented-screenshot", presented_screenshot },
	{ "presented-recording", presented_recording },
};

int main(int argc, char **argv)
{
	return harness_main(argc, argv, cases, (int)(sizeof(cases) / sizeof(cases[0])));
}
