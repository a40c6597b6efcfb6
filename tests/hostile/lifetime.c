/* Objects destroyed in awkward orders: none of it is a protocol error, and
 * none of it may crash wl-record or show stale pixels. */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "harness.h"

#define SIZE_W 320
#define SIZE_H 240
#define COLOUR 0xc04020u
#define BLACK 0x000000u

/* attach, destroy the buffer, commit: the commit attaches nothing, so the
 * presented surface has no content and the picture (taken after the 1 s
 * black grace) is black, not the red of the destroyed buffer. */
TEST(attach_destroyed_buffer)
{
	static const char *const args[] = { "--screenshot", "--size", "320x240", NULL };
	struct recorder_process rec;
	recorder_start(&rec, "shot.png", args);
	struct hostile_client *c = client_connect(&rec);
	struct wl_surface *surface = wl_compositor_create_surface(c->compositor);
	zwp_fullscreen_shell_v1_present_surface(c->shell, surface,
						ZWP_FULLSCREEN_SHELL_V1_PRESENT_METHOD_DEFAULT, NULL);
	struct wl_buffer *buffer = client_color_buffer(c, SIZE_W, SIZE_H, 0xff0000);
	wl_surface_attach(surface, buffer, 0, 0);
	wl_surface_damage(surface, 0, 0, SIZE_W, SIZE_H);
	wl_buffer_destroy(buffer);
	wl_surface_commit(surface);
	client_expect_no_error(c);
	recorder_require_alive(&rec, "after committing a destroyed buffer");
	/* That commit showed nothing (no black frame either: nothing was ever
	 * shown); the surface still works with a live buffer. */
	struct wl_buffer *live = client_color_buffer(c, SIZE_W, SIZE_H, COLOUR);
	wl_surface_attach(surface, live, 0, 0);
	wl_surface_damage(surface, 0, 0, SIZE_W, SIZE_H);
	wl_surface_commit(surface);
	client_expect_no_error(c);
	recorder_expect_exit(&rec, 20000, 0);
	client_disconnect(c);
	check_png_uniform(rec.output, SIZE_W, SIZE_H, COLOUR);
	recorder_finish(&rec);
}

/* The presented surface is destroyed: the output goes black. --delay takes
 * the newest picture 1.5 s after the first frame, well after the destroy. */
TEST(destroy_presented_surface_screenshot)
{
	static const char *const args[] = { "--screenshot", "--delay", "1.5", "--size", "320x240",
					    NULL };
	struct recorder_process rec;
	recorder_start(&rec, "shot.png", args);
	struct hostile_client *c = client_connect(&rec);
	struct wl_surface *surface = client_present_color(c, SIZE_W, SIZE_H, COLOUR);
	wl_surface_destroy(surface);
	client_expect_no_error(c);
	recorder_require_alive(&rec, "after destroying the presented surface");
	recorder_expect_exit(&rec, 20000, 0);
	client_disconnect(c);
	check_png_uniform(rec.output, SIZE_W, SIZE_H, BLACK);
	recorder_finish(&rec);
}

static void sleep_roundtrips(struct hostile_client *c, int ms)
{
	int64_t end = now_ms() + ms;
	while (now_ms() < end) {
		client_expect_no_error(c);
		usleep(20000);
	}
}

/* Same while recording; then a new surface is presented and the client
 * leaves: the recording must end and decode. */
TEST(destroy_presented_surface_recording)
{
	static const char *const args[] = { "--size", "320x240", NULL };
	struct recorder_process rec;
	recorder_start(&rec, "out.mkv", args);
	struct hostile_client *c = client_connect(&rec);
	struct wl_surface *surface = client_present_color(c, SIZE_W, SIZE_H, COLOUR);
	sleep_roundtrips(c, 300);
	wl_surface_destroy(surface);
	sleep_roundtrips(c, 300);
	recorder_require_alive(&rec, "after destroying the presented surface");
	client_present_color(c, SIZE_W, SIZE_H, 0x2040ff);
	sleep_roundtrips(c, 300);
	client_disconnect(c);
	recorder_expect_exit(&rec, 20000, 0);
	check_recording(rec.output, SIZE_W, SIZE_H, 1);
	recorder_finish(&rec);
}

/* The pool is destroyed (and its fd closed) before the buffer is used; the
 * pixels are written afterwards through the client's own mapping: the
 * buffer still reads the shared memory. */
TEST(destroy_pool_before_buffer)
{
	static const char *const args[] = { "--screenshot", "--size", "320x240", NULL };
	struct recorder_process rec;
	recorder_start(&rec, "shot.png", args);
	struct hostile_client *c = client_connect(&rec);
	size_t size = (size_t)SIZE_W * SIZE_H * 4;
	int fd = make_memfd(size);
	uint32_t *pixels = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	test_assert(pixels != MAP_FAILED, "mmap");
	struct wl_shm_pool *pool = wl_shm_create_pool(c->shm, fd, (int32_t)size);
	struct wl_buffer *buffer = wl_shm_pool_create_buffer(pool, 0, SIZE_W, SIZE_H, SIZE_W * 4,
							     WL_SHM_FORMAT_XRGB8888);
	wl_shm_pool_destroy(pool);
	close(fd);
	client_expect_no_error(c);
	for (size_t i = 0; i < size / 4; i++)
		pixels[i] = COLOUR;
	struct wl_surface *surface = wl_compositor_create_surface(c->compositor);
	zwp_fullscreen_shell_v1_present_surface(c->shell, surface,
						ZWP_FULLSCREEN_SHELL_V1_PRESENT_METHOD_DEFAULT, NULL);
	wl_surface_attach(surface, buffer, 0, 0);
	wl_surface_damage(surface, 0, 0, SIZE_W, SIZE_H);
	wl_surface_commit(surface);
	client_expect_no_error(c);
	recorder_expect_exit(&rec, 20000, 0);
	client_disconnect(c);
	munmap(pixels, size);
	check_png_uniform(rec.output, SIZE_W, SIZE_H, COLOUR);
	recorder_finish(&rec);
}

/* The committed buffer is destroyed, then the surface is committed again
 * with damage but no new buffer: wl-record shows its own copy. */
TEST(destroy_committed_buffer)
{
	static const char *const args[] = { "--screenshot", "--delay", "1", "--size", "320x240",
					    NULL };
	struct recorder_process rec;
	recorder_start(&rec, "shot.png", args);
	struct hostile_client *c = client_connect(&rec);
	struct wl_surface *surface = wl_compositor_create_surface(c->compositor);
	zwp_fullscreen_shell_v1_present_surface(c->shell, surface,
						ZWP_FULLSCREEN_SHELL_V1_PRESENT_METHOD_DEFAULT, NULL);
	struct wl_buffer *buffer = client_color_buffer(c, SIZE_W, SIZE_H, COLOUR);
	wl_surface_attach(surface, buffer, 0, 0);
	wl_surface_damage(surface, 0, 0, SIZE_W, SIZE_H);
	wl_surface_commit(surface);
	client_expect_no_error(c);
	wl_buffer_destroy(buffer);
	wl_surface_damage(surface, 0, 0, SIZE_W, SIZE_H);
	wl_surface_commit(surface);
	client_expect_no_error(c);
	recorder_expect_exit(&rec, 20000, 0);
	client_disconnect(c);
	check_png_uniform(rec.output, SIZE_W, SIZE_H, COLOUR);
	recorder_finish(&rec);
}
