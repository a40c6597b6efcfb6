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
static void attach_destroyed_buffer(void)
{
	static const char *const args[] = { "--screenshot", "--size", "320x240", NULL };
	struct wlr w;
	wlr_start(&w, "shot.png", args);
	struct client *c = client_connect(&w);
	struct wl_surface *surface = wl_compositor_create_surface(c->compositor);
	zwp_fullscreen_shell_v1_present_surface(c->shell, surface,
						ZWP_FULLSCREEN_SHELL_V1_PRESENT_METHOD_DEFAULT, NULL);
	struct wl_buffer *buffer = client_color_buffer(c, SIZE_W, SIZE_H, 0xff0000);
	wl_surface_attach(surface, buffer, 0, 0);
	wl_surface_damage(surface, 0, 0, SIZE_W, SIZE_H);
	wl_buffer_destroy(buffer);
	wl_surface_commit(surface);
	client_expect_no_error(c);
	wlr_require_alive(&w, "after committing a destroyed buffer");
	/* That commit showed nothing (no black frame either: nothing was ever
	 * shown); the surface still works with a live buffer. */
	struct wl_buffer *live = client_color_buffer(c, SIZE_W, SIZE_H, COLOUR);
	wl_surface_attach(surface, live, 0, 0);
	wl_surface_damage(surface, 0, 0, SIZE_W, SIZE_H);
	wl_surface_commit(surface);
	client_expect_no_error(c);
	wlr_expect_exit(&w, 20000, 0);
	client_disconnect(c);
	check_png_uniform(w.output, SIZE_W, SIZE_H, COLOUR);
	wlr_finish(&w);
}

/* The presented surface is destroyed: the output goes black. --delay takes
 * the newest picture 1.5 s after the first frame, well after the destroy. */
static void destroy_presented_surface_screenshot(void)
{
	static const char *const args[] = { "--screenshot", "--delay", "1.5", "--size", "320x240",
					    NULL };
	struct wlr w;
	wlr_start(&w, "shot.png", args);
	struct client *c = client_connect(&w);
	struct wl_surface *surface = client_present_color(c, SIZE_W, SIZE_H, COLOUR);
	wl_surface_destroy(surface);
	client_expect_no_error(c);
	wlr_require_alive(&w, "after destroying the presented surface");
	wlr_expect_exit(&w, 20000, 0);
	client_disconnect(c);
	check_png_uniform(w.output, SIZE_W, SIZE_H, BLACK);
	wlr_finish(&w);
}

static void sleep_roundtrips(struct client *c, int ms)
{
	int64_t end = now_ms() + ms;
	while (now_ms() < end) {
		client_expect_no_error(c);
		usleep(20000);
	}
}

/* Same while recording; then a new surface is presented and the client
 * leaves: the recording must end and decode. */
static void destroy_presented_surface_recording(void)
{
	static const char *const args[] = { "--size", "320x240", NULL };
	struct wlr w;
	wlr_start(&w, "out.mkv", args);
	struct client *c = client_connect(&w);
	struct wl_surface *surface = client_present_color(c, SIZE_W, SIZE_H, COLOUR);
	sleep_roundtrips(c, 300);
	wl_surface_destroy(surface);
	sleep_roundtrips(c, 300);
	wlr_require_alive(&w, "after destroying the presented surface");
	client_present_color(c, SIZE_W, SIZE_H, 0x2040ff);
	sleep_roundtrips(c, 300);
	client_disconnect(c);
	wlr_expect_exit(&w, 20000, 0);
	check_recording(w.output, SIZE_W, SIZE_H, 1);
	wlr_finish(&w);
}

/* The pool is destroyed (and its fd closed) before the buffer is used; the
 * pixels are written afterwards through the client's own mapping: the
 * buffer still reads the shared memory. */
static void destroy_pool_before_buffer(void)
{
	static const char *const args[] = { "--screenshot", "--size", "320x240", NULL };
	struct wlr w;
	wlr_start(&w, "shot.png", args);
	struct client *c = client_connect(&w);
	size_t size = (size_t)SIZE_W * SIZE_H * 4;
	int fd = make_memfd(size);
	uint32_t *pixels = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	REQUIRE(pixels != MAP_FAILED, "mmap");
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
	wlr_expect_exit(&w, 20000, 0);
	client_disconnect(c);
	munmap(pixels, size);
	check_png_uniform(w.output, SIZE_W, SIZE_H, COLOUR);
	wlr_finish(&w);
}

/* The committed buffer is destroyed, then the surface is committed again
 * with damage but no new buffer: wl-record shows its own copy. */
static void destroy_committed_buffer(void)
{
	static const char *const args[] = { "--screenshot", "--delay", "1", "--size", "320x240",
					    NULL };
	struct wlr w;
	wlr_start(&w, "shot.png", args);
	struct client *c = client_connect(&w);
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
	wlr_expect_exit(&w, 20000, 0);
	client_disconnect(c);
	check_png_uniform(w.output, SIZE_W, SIZE_H, COLOUR);
	wlr_finish(&w);
}

static const struct hostile_case cases[] = {
	{ "attach-destroyed-buffer", attach_destroyed_buffer },
	{ "destroy-presented-surface-screenshot", destroy_presented_surface_screenshot },
	{ "destroy-presented-surface-recording", destroy_presented_surface_recording },
	{ "destroy-pool-before-buffer", destroy_pool_before_buffer },
	{ "destroy-committed-buffer", destroy_committed_buffer },
};

int main(int argc, char **argv)
{
	return harness_main(argc, argv, cases, (int)(sizeof(cases) / sizeof(cases[0])));
}
