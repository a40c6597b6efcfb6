/* pipewire_meta.c against hostile producers: synthetic spa_buffers whose
 * metas are exactly as large as they say (separate allocations, so that the
 * ASan build sees any read past one), with the lies a producer can tell:
 * a bitmap offset that wraps in 32 bits, a bitmap larger than its meta,
 * regions whose ends overflow an int, a chunk that points past its data,
 * a picture size that would be a huge allocation, a node name with escape
 * sequences. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <spa/buffer/meta.h>
#include <spa/param/video/raw.h>

#include "pipewire_meta.h"
#include "test-runner.h"

struct fake_buffer {
	struct spa_buffer buffer;
	struct spa_meta metas[4];
};

static void add_meta(struct fake_buffer *b, uint32_t type, void *data, uint32_t size)
{
	b->metas[b->buffer.n_metas++] = (struct spa_meta){ .type = type, .size = size, .data = data };
	b->buffer.metas = b->metas;
}

/* A Cursor meta of `size` bytes: the cursor, then a bitmap at
 * `bitmap_offset` whose pixels are `offset` bytes after it. */
static uint8_t *cursor_meta(uint32_t size, uint32_t bitmap_offset, uint32_t offset, uint32_t w,
			    uint32_t h, int32_t stride)
{
	uint8_t *data = calloc(1, size);
	test_assert(data);
	struct spa_meta_cursor cursor = { .id = 1, .position = { 100, 50 }, .hotspot = { 4, 2 },
					  .bitmap_offset = bitmap_offset };
	memcpy(data, &cursor, sizeof(cursor));
	struct spa_meta_bitmap bitmap = { .format = SPA_VIDEO_FORMAT_BGRA, .size = { w, h },
					  .stride = stride, .offset = offset };
	if (bitmap_offset + sizeof(bitmap) <= size)
		memcpy(data + bitmap_offset, &bitmap, sizeof(bitmap));
	return data;
}

static struct wl_record_pipewire_cursor read_cursor(uint8_t *data, uint32_t size)
{
	struct fake_buffer b = { 0 };
	add_meta(&b, SPA_META_Cursor, data, size);
	struct wl_record_pipewire_meta meta;
	wl_record_pipewire_meta_read(&b.buffer, &meta);
	return meta.cursor;
}

TEST(cursor_bitmap_fits)
{
	uint32_t size = 28 + 20 + 16 * 16 * 4;
	uint8_t *data = cursor_meta(size, 28, 20, 16, 16, 64);
	struct wl_record_pipewire_cursor c = read_cursor(data, size);
	test_assert(c.present && c.x == 96 && c.y == 48, "at %d,%d", c.x, c.y);
	test_assert(c.bitmap == WL_RECORD_PIPEWIRE_BITMAP_NEW && c.width == 16 && c.height == 16 &&
		    c.stride == 64 && c.pixels == data + 48);
	free(data);
}

/* 28 + 0xFFFFFFF0 is 12 in 32 bits: the old check passed and the pixels
 * were read 4 GiB past the meta. */
TEST(cursor_bitmap_offset_wraps)
{
	uint32_t size = 28 + 20 + 16 * 16 * 4;
	uint8_t *data = cursor_meta(size, 28, 0xFFFFFFF0u, 16, 16, 64);
	struct wl_record_pipewire_cursor c = read_cursor(data, size);
	test_assert(c.present && c.bitmap == WL_RECORD_PIPEWIRE_BITMAP_INVALID,
		    "bitmap %d", c.bitmap);
	free(data);
}

TEST(cursor_bitmap_larger_than_its_meta)
{
	uint32_t size = 28 + 20 + 16 * 16 * 4;
	/* 16 rows of 64 bytes, one row too many for the meta. */
	uint8_t *data = cursor_meta(size, 28, 20, 16, 17, 64);
	struct wl_record_pipewire_cursor c = read_cursor(data, size);
	test_assert(c.bitmap == WL_RECORD_PIPEWIRE_BITMAP_INVALID, "bitmap %d", c.bitmap);
	free(data);
	/* A stride so large that stride * height wraps in 32 bits. */
	data = cursor_meta(size, 28, 20, 16, 16, 0x10000000);
	c = read_cursor(data, size);
	test_assert(c.bitmap == WL_RECORD_PIPEWIRE_BITMAP_INVALID, "bitmap %d", c.bitmap);
	free(data);
	/* The bitmap header itself past the meta's end. */
	data = cursor_meta(size, size - 8, 20, 1, 1, 4);
	c = read_cursor(data, size);
	test_assert(c.bitmap == WL_RECORD_PIPEWIRE_BITMAP_INVALID, "bitmap %d", c.bitmap);
	free(data);
	/* bitmap_offset wrapping the same way. */
	data = cursor_meta(size, 0xFFFFFFF8u, 20, 1, 1, 4);
	c = read_cursor(data, size);
	test_assert(c.bitmap == WL_RECORD_PIPEWIRE_BITMAP_INVALID, "bitmap %d", c.bitmap);
	free(data);
}

TEST(cursor_position_extremes_clamped)
{
	uint32_t size = 28;
	uint8_t *data = calloc(1, size);
	test_assert(data);
	struct spa_meta_cursor cursor = { .id = 1, .position = { INT32_MIN, INT32_MAX },
					  .hotspot = { INT32_MAX, INT32_MIN } };
	memcpy(data, &cursor, sizeof(cursor));
	struct wl_record_pipewire_cursor c = read_cursor(data, size);
	test_assert(c.present && c.bitmap == WL_RECORD_PIPEWIRE_BITMAP_SAME);
	test_assert(c.x == -WL_RECORD_PIPEWIRE_COORD_LIMIT && c.y == WL_RECORD_PIPEWIRE_COORD_LIMIT,
		    "at %d,%d", c.x, c.y);
	free(data);
}

TEST(damage_regions_overflowing)
{
	/* x + width and y + height overflow an int; the second lies wholly
	 * beyond the clamp (empty); the list ends at the empty fourth. */
	struct spa_meta_region regions[5] = {
		{ .region = { .position = { -10, 10 }, .size = { UINT32_MAX, 20 } } },
		{ .region = { .position = { INT32_MIN, 5 }, .size = { 1, 1 } } },
		{ .region = { .position = { 0, INT32_MIN }, .size = { 5, UINT32_MAX } } },
		{ .region = { .size = { 0, 0 } } },
		{ .region = { .position = { -100, -100 }, .size = { 1, 1 } } },
	};
	uint32_t size = sizeof(regions);
	void *data = malloc(size);
	test_assert(data);
	memcpy(data, regions, size);
	struct fake_buffer b = { 0 };
	add_meta(&b, SPA_META_VideoDamage, data, size);
	struct wl_record_pipewire_meta meta;
	wl_record_pipewire_meta_read(&b.buffer, &meta);
	const struct frame_damage *d = &meta.damage;
	test_assert(meta.has_damage);
	test_assert(d->x1 == -10 && d->y1 == -WL_RECORD_PIPEWIRE_COORD_LIMIT &&
		    d->x2 == WL_RECORD_PIPEWIRE_COORD_LIMIT &&
		    d->y2 == WL_RECORD_PIPEWIRE_COORD_LIMIT,
		    "%d,%d %d,%d", d->x1, d->y1, d->x2, d->y2);
	free(data);
	/* A meta shorter than one region: known, empty. */
	data = malloc(7);
	test_assert(data);
	memset(data, 0xff, 7);
	b = (struct fake_buffer){ 0 };
	add_meta(&b, SPA_META_VideoDamage, data, 7);
	wl_record_pipewire_meta_read(&b.buffer, &meta);
	test_assert(meta.has_damage && meta.damage.x2 <= meta.damage.x1);
	free(data);
}

TEST(crop_overflowing_clamped)
{
	struct spa_meta_region crop = {
		.region = { .position = { INT32_MAX, 0 }, .size = { UINT32_MAX, UINT32_MAX } } };
	void *data = malloc(sizeof(crop));
	test_assert(data);
	memcpy(data, &crop, sizeof(crop));
	struct fake_buffer b = { 0 };
	add_meta(&b, SPA_META_VideoCrop, data, sizeof(crop));
	/* A Header meta too short to be one: not read. */
	void *header = malloc(4);
	test_assert(header);
	add_meta(&b, SPA_META_Header, header, 4);
	struct wl_record_pipewire_meta meta;
	wl_record_pipewire_meta_read(&b.buffer, &meta);
	test_assert(meta.has_crop && !meta.has_header);
	test_assert(meta.crop.x1 == WL_RECORD_PIPEWIRE_COORD_LIMIT &&
		    meta.crop.x2 == WL_RECORD_PIPEWIRE_COORD_LIMIT &&
		    meta.crop.y2 == WL_RECORD_PIPEWIRE_COORD_LIMIT);
	free(data);
	free(header);
}

TEST(chunk_past_its_data)
{
	struct spa_chunk chunk = { .offset = 0, .size = 64 * 4 * 4, .stride = 64 * 4 };
	struct spa_data d = { .maxsize = 64 * 4 * 4, .chunk = &chunk };
	size_t offset;
	int stride;
	test_assert(wl_record_pipewire_chunk_layout(&d, d.maxsize, 64, 4, &offset, &stride));
	test_assert(offset == 0 && stride == 256);
	chunk.offset = 4;
	test_assert(!wl_record_pipewire_chunk_layout(&d, d.maxsize, 64, 4, &offset, &stride));
	chunk = (struct spa_chunk){ .offset = UINT32_MAX - 8, .stride = 256 };
	test_assert(!wl_record_pipewire_chunk_layout(&d, d.maxsize, 64, 4, &offset, &stride));
	chunk = (struct spa_chunk){ .stride = -256 };
	test_assert(!wl_record_pipewire_chunk_layout(&d, d.maxsize, 64, 4, &offset, &stride));
	chunk = (struct spa_chunk){ .stride = INT32_MAX - 3 };
	test_assert(!wl_record_pipewire_chunk_layout(&d, d.maxsize, 64, 4, &offset, &stride));
	chunk = (struct spa_chunk){ .stride = 0 }; /* 0: rows of width * 4 */
	test_assert(wl_record_pipewire_chunk_layout(&d, d.maxsize, 64, 4, &offset, &stride));
	test_assert(stride == 256);
}

TEST(size_bounded)
{
	char why[160];
	test_assert(wl_record_pipewire_size_ok(1920, 1080, why, sizeof(why)));
	test_assert(wl_record_pipewire_size_ok(16384, 16384, why, sizeof(why)));
	test_assert(!wl_record_pipewire_size_ok(100000, 100000, why, sizeof(why)));
	test_assert(strstr(why, "100000x100000"), "%s", why);
	test_assert(!wl_record_pipewire_size_ok(0, 1080, why, sizeof(why)));
}

TEST(node_name_cleaned)
{
	char name[] = "evil\x1b]0;title\x07\n\xc2\x9b" "2J\x7f caf\xc3\xa9";
	wl_record_pipewire_clean_name(name);
	test_assert(strcmp(name, "evil?]0;title??" "??2J? caf\xc3\xa9") == 0, "%s", name);
}
