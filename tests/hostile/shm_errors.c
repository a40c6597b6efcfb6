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

static void pool_of_size(struct hostile_client *c, int32_t size)
{
	int fd = make_memfd(4096);
	wl_shm_create_pool(c->shm, fd, size);
	close(fd);
	expect_protocol_error(c, &wl_shm_interface, c->shm, WL_SHM_ERROR_INVALID_STRIDE);
}

static void pool_size_zero(struct hostile_client *c) { pool_of_size(c, 0); }
static void pool_size_negative(struct hostile_client *c) { pool_of_size(c, -4096); }

/* A 64x64 XRGB pool (16 KiB) and one create_buffer with these numbers. */
static void buffer_in_pool(struct hostile_client *c, int32_t offset, int32_t width, int32_t height,
			   int32_t stride, uint32_t format, uint32_t expected)
{
	const int32_t pool_size = 64 * 64 * 4;
	int fd = make_memfd((size_t)pool_size);
	struct wl_shm_pool *pool = wl_shm_create_pool(c->shm, fd, pool_size);
	close(fd);
	wl_shm_pool_create_buffer(pool, offset, width, height, stride, format);
	expect_protocol_error(c, &wl_shm_pool_interface, pool, expected);
}

#define XRGB WL_SHM_FORMAT_XRGB8888
#define STRIDE_ERR WL_SHM_ERROR_INVALID_STRIDE

static void beyond_pool(struct hostile_client *c) { buffer_in_pool(c, 4, 64, 64, 256, XRGB, STRIDE_ERR); }
static void beyond_pool_rows(struct hostile_client *c) { buffer_in_pool(c, 0, 64, 65, 256, XRGB, STRIDE_ERR); }
static void negative_offset(struct hostile_client *c) { buffer_in_pool(c, -256, 64, 32, 256, XRGB, STRIDE_ERR); }
static void small_stride(struct hostile_client *c) { buffer_in_pool(c, 0, 64, 32, 255, XRGB, STRIDE_ERR); }
static void negative_stride(struct hostile_client *c) { buffer_in_pool(c, 0, 64, 32, -256, XRGB, STRIDE_ERR); }
static void zero_width(struct hostile_client *c) { buffer_in_pool(c, 0, 0, 32, 256, XRGB, STRIDE_ERR); }
static void zero_height(struct hostile_client *c) { buffer_in_pool(c, 0, 64, 0, 256, XRGB, STRIDE_ERR); }
static void negative_width(struct hostile_client *c) { buffer_in_pool(c, 0, -64, 32, 256, XRGB, STRIDE_ERR); }
static void negative_height(struct hostile_client *c) { buffer_in_pool(c, 0, 64, -32, 256, XRGB, STRIDE_ERR); }
/* offset + stride*height = 0x7fffff37 + 0x80000100 wraps to 0x37 in 32 bits. */
static void overflow_offset(struct hostile_client *c) { buffer_in_pool(c, INT32_MAX - 200, 1, 2, 0x40000080, XRGB, STRIDE_ERR); }
/* stride*height = 0x40000000 * 4 wraps to 0 in 32 bits. */
static void overflow_stride(struct hostile_client *c) { buffer_in_pool(c, 0, 1, 4, 0x40000000, XRGB, STRIDE_ERR); }
/* 4 * 0x40000001 wraps to 4 in 32 bits. */
static void overflow_height(struct hostile_client *c) { buffer_in_pool(c, 0, 1, 0x40000001, 4, XRGB, STRIDE_ERR); }
static void huge_buffer(struct hostile_client *c) { buffer_in_pool(c, 0, 100000, 100000, 400000, XRGB, STRIDE_ERR); }
static void format_rgb565(struct hostile_client *c)
{
	buffer_in_pool(c, 0, 64, 32, 128, WL_SHM_FORMAT_RGB565, WL_SHM_ERROR_INVALID_FORMAT);
}
static void format_unknown(struct hostile_client *c)
{
	buffer_in_pool(c, 0, 64, 32, 256, 0x12345678, WL_SHM_ERROR_INVALID_FORMAT);
}

static void resize_to(struct hostile_client *c, int32_t size)
{
	int fd = make_memfd(64 * 64 * 4);
	struct wl_shm_pool *pool = wl_shm_create_pool(c->shm, fd, 64 * 64 * 4);
	close(fd);
	wl_shm_pool_resize(pool, size);
	expect_protocol_error(c, &wl_shm_pool_interface, pool, WL_SHM_ERROR_INVALID_FD);
}

static void resize_shrink(struct hostile_client *c) { resize_to(c, 64 * 64 * 4 - 4096); }
static void resize_negative(struct hostile_client *c) { resize_to(c, -1); }

/* A pool may grow (nested Weston does it): the grown part must be usable. */
static void resize_grow_positive(void)
{
	struct recorder_process rec;
	recorder_start(&rec, "proof.png", screenshot_args);
	struct hostile_client *c = client_connect(&rec);
	const size_t small = 4096, big = (size_t)SIZE_W * SIZE_H * 4 + 4096;
	int fd = make_memfd(small);
	struct wl_shm_pool *pool = wl_shm_create_pool(c->shm, fd, (int32_t)small);
	test_assert(ftruncate(fd, (off_t)big) == 0, "ftruncate");
	wl_shm_pool_resize(pool, (int32_t)big);
	client_expect_no_error(c);
	/* Fill the grown file, then use a buffer that lies beyond the old size. */
	for (size_t off = 4096; off < big; off += 4) {
		uint32_t pixel = PROOF_COLOUR;
		test_assert(pwrite(fd, &pixel, 4, (off_t)off) == 4, "pwrite");
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
	recorder_expect_exit(&rec, 20000, 0);
	client_disconnect(c);
	check_png_uniform(rec.output, SIZE_W, SIZE_H, PROOF_COLOUR);
	recorder_finish(&rec);
}

TEST(pool_size_zero) { run_bad_client(pool_size_zero); }
TEST(pool_size_negative) { run_bad_client(pool_size_negative); }
TEST(buffer_beyond_pool) { run_bad_client(beyond_pool); }
TEST(buffer_beyond_pool_rows) { run_bad_client(beyond_pool_rows); }
TEST(buffer_negative_offset) { run_bad_client(negative_offset); }
TEST(buffer_stride_too_small) { run_bad_client(small_stride); }
TEST(buffer_negative_stride) { run_bad_client(negative_stride); }
TEST(buffer_zero_width) { run_bad_client(zero_width); }
TEST(buffer_zero_height) { run_bad_client(zero_height); }
TEST(buffer_negative_width) { run_bad_client(negative_width); }
TEST(buffer_negative_height) { run_bad_client(negative_height); }
TEST(buffer_offset_overflow) { run_bad_client(overflow_offset); }
TEST(buffer_stride_overflow) { run_bad_client(overflow_stride); }
TEST(buffer_height_overflow) { run_bad_client(overflow_height); }
TEST(buffer_100000x100000) { run_bad_client(huge_buffer); }
TEST(format_rgb565) { run_bad_client(format_rgb565); }
TEST(format_unknown) { run_bad_client(format_unknown); }
TEST(resize_shrink) { run_bad_client(resize_shrink); }
TEST(resize_negative) { run_bad_client(resize_negative); }
TEST(resize_grow_works) { resize_grow_positive(); }
