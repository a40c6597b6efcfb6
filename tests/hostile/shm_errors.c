/* Bad wl_shm and wl_shm_pool requests: each must cost the client exactly the
 * error libwayland's own wl_shm would post, and nothing more. */
#include <stdint.h>
#include <unistd.h>

#include "harness.h"

#define SIZE_W 320
#define SIZE_H 240
#define PROOF_COLOUR 0x2080c0u

static const char *const screenshot_args[] = { "--screenshot", "--size", "320x240", NULL };

/* One wl-record, one bad client: `misbehave` sends the bad request and checks
 * the error; then a good client must still get its screenshot. */
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

static void pool_of_size(struct client *c, int32_t size)
{
	int fd = make_memfd(4096);
	wl_shm_create_pool(c->shm, fd, size);
	close(fd);
	client_expect_protocol_error(c, c->shm, &wl_shm_interface, WL_SHM_ERROR_INVALID_STRIDE);
}

static void pool_size_zero(struct client *c) { pool_of_size(c, 0); }
static void pool_size_negative(struct client *c) { pool_of_size(c, -4096); }

/* A 64x64 XRGB pool (16 KiB) and one create_buffer with these numbers. */
static void buffer_in_pool(struct client *c, int32_t offset, int32_t width, int32_t height,
			   int32_t stride, uint32_t format, uint32_t expected)
{
	const int32_t pool_size = 64 * 64 * 4;
	int fd = make_memfd((size_t)pool_size);
	struct wl_shm_pool *pool = wl_shm_create_pool(c->shm, fd, pool_size);
	close(fd);
	wl_shm_pool_create_buffer(pool, offset, width, height, stride, format);
	client_expect_protocol_error(c, pool, &wl_shm_pool_interface, expected);
}

#define XRGB WL_SHM_FORMAT_XRGB8888
#define STRIDE_ERR WL_SHM_ERROR_INVALID_STRIDE

static void beyond_pool(struct client *c) { buffer_in_pool(c, 4, 64, 64, 256, XRGB, STRIDE_ERR); }
static void beyond_pool_rows(struct client *c) { buffer_in_pool(c, 0, 64, 65, 256, XRGB, STRIDE_ERR); }
static void negative_offset(struct client *c) { buffer_in_pool(c, -256, 64, 32, 256, XRGB, STRIDE_ERR); }
static void small_stride(struct client *c) { buffer_in_pool(c, 0, 64, 32, 255, XRGB, STRIDE_ERR); }
static void negative_stride(struct client *c) { buffer_in_pool(c, 0, 64, 32, -256, XRGB, STRIDE_ERR); }
static void zero_width(struct client *c) { buffer_in_pool(c, 0, 0, 32, 256, XRGB, STRIDE_ERR); }
static void zero_height(struct client *c) { buffer_in_pool(c, 0, 64, 0, 256, XRGB, STRIDE_ERR); }
static void negative_width(struct client *c) { buffer_in_pool(c, 0, -64, 32, 256, XRGB, STRIDE_ERR); }
static void negative_height(struct client *c) { buffer_in_pool(c, 0, 64, -32, 256, XRGB, STRIDE_ERR); }
/* offset + stride*height = 0x7fffff37 + 0x80000100 wraps to 0x37 in 32 bits. */
static void overflow_offset(struct client *c) { buffer_in_pool(c, INT32_MAX - 200, 1, 2, 0x40000080, XRGB, STRIDE_ERR); }
/* stride*height = 0x40000000 * 4 wraps to 0 in 32 bits. */
static void overflow_stride(struct client *c) { buffer_in_pool(c, 0, 1, 4, 0x40000000, XRGB, STRIDE_ERR); }
/* 4 * 0x40000001 wraps to 4 in 32 bits. */
static void overflow_height(struct client *c) { buffer_in_pool(c, 0, 1, 0x40000001, 4, XRGB, STRIDE_ERR); }
static void huge_buffer(struct client *c) { buffer_in_pool(c, 0, 100000, 100000, 400000, XRGB, STRIDE_ERR); }
static void format_rgb565(struct client *c)
{
	buffer_in_pool(c, 0, 64, 32, 128, WL_SHM_FORMAT_RGB565, WL_SHM_ERROR_INVALID_FORMAT);
}
static void format_unknown(struct client *c)
{
	buffer_in_pool(c, 0, 64, 32, 256, 0x12345678, WL_SHM_ERROR_INVALID_FORMAT);
}

static void resize_to(struct client *c, int32_t size)
{
	int fd = make_memfd(64 * 64 * 4);
	struct wl_shm_pool *pool = wl_shm_create_pool(c->shm, fd, 64 * 64 * 4);
	close(fd);
	wl_shm_pool_resize(pool, size);
	client_expect_protocol_error(c, pool, &wl_shm_pool_interface, WL_SHM_ERROR_INVALID_FD);
}

static void resize_shrink(struct client *c) { resize_to(c, 64 * 64 * 4 - 4096); }
static void resize_negative(struct client *c) { resize_to(c, -1); }

/* A pool may grow (nested Weston does it): the grown part must be usable. */
static void resize_grow_positive(void)
{
	struct wlr w;
	wlr_start(&w, "proof.png", screenshot_args);
	struct client *c = client_connect(&w);
	const size_t small = 4096, big = (size_t)SIZE_W * SIZE_H * 4 + 4096;
	int fd = make_memfd(small);
	struct wl_shm_pool *pool = wl_shm_create_pool(c->shm, fd, (int32_t)small);
	REQUIRE(ftruncate(fd, (off_t)big) == 0, "ftruncate");
	wl_shm_pool_resize(pool, (int32_t)big);
	client_expect_no_error(c);
	/* Fill the grown file, then use a buffer that lies beyond the old size. */
	for (size_t off = 4096; off < big; off += 4) {
		uint32_t pixel = PROOF_COLOUR;
		REQUIRE(pwrite(fd, &pixel, 4, (off_t)off) == 4, "pwrite");
	}
	close(fd);
	struct wl_buffer *buffer = wl_shm_pool_create_buffer(pool, 4096, SIZE_W, SIZE_H, SIZE_W * 4,
							     WL_SHM_FORMAT_XRGB8888);
	struct wl_surface *surface = wl_compositor_create_surface(c->compositor);
	zwp_fullscreen_shell_v1_present_surface(c->shell, surface,
						ZWP_FULLSCREEN_SHELL_V1_PRESENT_METHOD_DEFAULT, NULL);
	wl_surface_attach(surface, buffer, 0, 0);
	wl_surface_damage(surface, 0, 0, SIZE_W, SIZE_H);
	wl_surface_commit(surface);
	client_expect_no_error(c);
	wlr_expect_exit(&w, 20000, 0);
	client_disconnect(c);
	check_png_uniform(w.output, SIZE_W, SIZE_H, PROOF_COLOUR);
	wlr_finish(&w);
}

#define BAD(name, fn) { name, fn##_case }
#define DEFINE_CASE(fn) static void fn##_case(void) { run_bad_client(fn); }
DEFINE_CASE(pool_size_zero)
DEFINE_CASE(pool_size_negative)
DEFINE_CASE(beyond_pool)
DEFINE_CASE(beyond_pool_rows)
DEFINE_CASE(negative_offset)
DEFINE_CASE(small_stride)
DEFINE_CASE(negative_stride)
DEFINE_CASE(zero_width)
DEFINE_CASE(zero_height)
DEFINE_CASE(negative_width)
DEFINE_CASE(negative_height)
DEFINE_CASE(overflow_offset)
DEFINE_CASE(overflow_stride)
DEFINE_CASE(overflow_height)
DEFINE_CASE(huge_buffer)
DEFINE_CASE(format_rgb565)
DEFINE_CASE(format_unknown)
DEFINE_CASE(resize_shrink)
DEFINE_CASE(resize_negative)

static const struct hostile_case cases[] = {
	BAD("pool-size-zero", pool_size_zero),
	BAD("pool-size-negative", pool_size_negative),
	BAD("buffer-beyond-pool", beyond_pool),
	BAD("buffer-beyond-pool-rows", beyond_pool_rows),
	BAD("buffer-negative-offset", negative_offset),
	BAD("buffer-stride-too-small", small_stride),
	BAD("buffer-negative-stride", negative_stride),
	BAD("buffer-zero-width", zero_width),
	BAD("buffer-zero-height", zero_height),
	BAD("buffer-negative-width", negative_width),
	BAD("buffer-negative-height", negative_height),
	BAD("buffer-offset-overflow", overflow_offset),
	BAD("buffer-stride-overflow", overflow_stride),
	BAD("buffer-height-overflow", overflow_height),
	BAD("buffer-100000x100000", huge_buffer),
	BAD("format-rgb565", format_rgb565),
	BAD("format-unknown", format_unknown),
	BAD("resize-shrink", resize_shrink),
	BAD("resize-negative", resize_negative),
	{ "resize-grow-works", resize_grow_positive },
};

int main(int argc, char **argv)
{
	return harness_main(argc, argv, cases, (int)(sizeof(cases) / sizeof(cases[0])));
}
