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
static struct wl_buffer *truncated_buffer(struct hostile_client *c)
{
	const int32_t size = SIDE * SIDE * 4;
	int fd = make_memfd((size_t)size);
	struct wl_shm_pool *pool = wl_shm_create_pool(c->shm, fd, size);
	struct wl_buffer *buffer = wl_shm_pool_create_buffer(pool, 0, SIDE, SIDE, SIDE * 4,
							     WL_SHM_FORMAT_XRGB8888);
	wl_shm_pool_destroy(pool);
	/* Make sure the pool is mapped on the server side before shrinking. */
	client_expect_no_error(c);
	test_assert(ftruncate(fd, 0) == 0, "ftruncate");
	close(fd);
	return buffer;
}

static void commit_truncated(struct hostile_client *c, struct wl_surface *surface)
{
	struct wl_buffer *bad = truncated_buffer(c);
	wl_surface_attach(surface, bad, 0, 0);
	wl_surface_damage(surface, 0, 0, SIDE, SIDE);
	wl_surface_commit(surface);
	expect_protocol_error(c, &wl_buffer_interface, bad, WL_SHM_ERROR_INVALID_FD);
}

/* The bad buffer is the surface's first content: nothing was presented, so
 * wl-record keeps waiting and a second client gets its screenshot. */
TEST(first_commit_screenshot)
{
	static const char *const args[] = { "--screenshot", "--size", "64x64", NULL };
	struct recorder_process rec;
	recorder_start(&rec, "shot.png", args);
	struct hostile_client *bad = client_connect(&rec);
	struct wl_surface *surface = wl_compositor_create_surface(bad->compositor);
	zwp_fullscreen_shell_v1_present_surface(bad->shell, surface,
						ZWP_FULLSCREEN_SHELL_V1_PRESENT_METHOD_DEFAULT, NULL);
	commit_truncated(bad, surface);
	client_disconnect(bad);
	recorder_require_alive(&rec, "after the truncated pool");
	prove_screenshot_serves(&rec, SIDE, SIDE, PROOF_COLOUR);
	recorder_finish(&rec);
}

/* A good frame is presented first (--delay keeps the screenshot from being
 * taken at once), then the bad one: the presenter is disconnected before a
 * picture was taken, so wl-record ends with status 1 -- by itself, not by a
 * signal. */
TEST(presented_screenshot)
{
	static const char *const args[] = { "--screenshot", "--delay", "5", "--size", "64x64",
					    NULL };
	struct recorder_process rec;
	recorder_start(&rec, "shot.png", args);
	struct hostile_client *bad = client_connect(&rec);
	struct wl_surface *surface = client_present_color(bad, SIDE, SIDE, GOOD_COLOUR);
	commit_truncated(bad, surface);
	client_disconnect(bad);
	recorder_expect_exit(&rec, 10000, 1);
	test_assert(access(rec.output, F_OK) != 0, "a screenshot was written although none was taken");
	recorder_finish(&rec);
}

/* Recording: a good frame, then the bad one. The presenter is gone, so the
 * recording ends, is finalised, and holds the good frame. */
TEST(presented_recording)
{
	static const char *const args[] = { "--size", "64x64", NULL };
	struct recorder_process rec;
	recorder_start(&rec, "out.mkv", args);
	struct hostile_client *bad = client_connect(&rec);
	struct wl_surface *surface = client_present_color(bad, SIDE, SIDE, GOOD_COLOUR);
	for (int i = 0; i < 10; i++) {
		usleep(30000);
		client_expect_no_error(bad);
	}
	commit_truncated(bad, surface);
	client_disconnect(bad);
	recorder_expect_exit(&rec, 20000, 0);
	check_recording(rec.output, SIDE, SIDE, 1);
	recorder_finish(&rec);
}
