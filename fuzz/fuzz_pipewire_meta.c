/* libFuzzer target: what a PipeWire producer says, read by
 * src/pipewire/pipewire_meta.c, from a synthetic spa_buffer made of the
 * input bytes.
 *
 * Input:
 *   byte 0          number of metas, modulo 6
 *   each meta       1 byte type (modulo 6: Header, VideoCrop, VideoDamage,
 *                   Cursor, Bitmap, or an unknown type), 2 bytes
 *                   little-endian size, then that many bytes of its data
 *                   (fewer when the input ends)
 *   24 bytes        the picture's data: chunk offset, size, stride, flags
 *                   (4 bytes each, as struct spa_chunk), maxsize modulo
 *                   1 MiB, width and height (2 bytes each)
 *   the rest        a node name
 *
 * Each meta's data and the picture's data are allocations of exactly
 * their size, so ASan sees any read past one; every byte the functions
 * say may be read (the cursor bitmap's rows, the picture's rows) is read. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <spa/buffer/buffer.h>
#include <spa/buffer/meta.h>

#include "fuzz_common.h"
#include "pipewire_meta.h"

#define MAX_METAS 5

static const uint32_t meta_types[] = {
	SPA_META_Header, SPA_META_VideoCrop, SPA_META_VideoDamage,
	SPA_META_Cursor, SPA_META_Bitmap, 0xfff,
};

struct reader {
	const uint8_t *data;
	size_t size;
};

static size_t take(struct reader *r, void *out, size_t want)
{
	size_t n = want < r->size ? want : r->size;
	if (out) {
		memset(out, 0, want);
		memcpy(out, r->data, n);
	}
	r->data += n;
	r->size -= n;
	return n;
}

static volatile uint64_t sink;

static void read_rows(const uint8_t *base, int width, int height, int stride)
{
	for (int y = 0; y < height; y++) {
		const uint8_t *row = base + (size_t)y * (size_t)stride;
		sink += row[0];
		sink += row[(size_t)width * 4 - 1];
	}
}

static void check_rect(const struct frame_damage *d)
{
	/* Clamped: sums of a picture's size never overflow. */
	if (d->x1 < -WL_RECORD_PIPEWIRE_COORD_LIMIT || d->x2 > WL_RECORD_PIPEWIRE_COORD_LIMIT ||
	    d->y1 < -WL_RECORD_PIPEWIRE_COORD_LIMIT || d->y2 > WL_RECORD_PIPEWIRE_COORD_LIMIT)
		abort();
}

static void fuzz_meta(struct reader *r)
{
	uint8_t n = 0;
	take(r, &n, 1);
	struct spa_meta metas[MAX_METAS];
	uint32_t n_metas = n % (MAX_METAS + 1);
	for (uint32_t i = 0; i < n_metas; i++) {
		uint8_t type = 0, size_le[2];
		take(r, &type, 1);
		take(r, size_le, 2);
		uint32_t size = (uint32_t)size_le[0] | (uint32_t)size_le[1] << 8;
		/* Exactly `size` bytes (at least one, so data is never NULL). */
		uint8_t *data = malloc(size ? size : 1);
		if (!data)
			abort();
		take(r, data, size);
		metas[i] = (struct spa_meta){ .type = meta_types[type % 6], .size = size,
					      .data = data };
	}
	struct spa_buffer buffer = { .n_metas = n_metas, .metas = metas };
	struct wl_record_pipewire_meta meta;
	wl_record_pipewire_meta_read(&buffer, &meta);
	check_rect(&meta.damage);
	check_rect(&meta.crop);
	const struct wl_record_pipewire_cursor *c = &meta.cursor;
	if (c->present && c->bitmap == WL_RECORD_PIPEWIRE_BITMAP_NEW) {
		if (c->width <= 0 || c->height <= 0 || c->stride < c->width * 4 ||
		    c->width > WL_RECORD_PIPEWIRE_CURSOR_MAX ||
		    c->height > WL_RECORD_PIPEWIRE_CURSOR_MAX)
			abort();
		read_rows(c->pixels, c->width, c->height, c->stride);
	}
	sink += (uint64_t)meta.pts + (uint64_t)(c->x + c->y);
	for (uint32_t i = 0; i < n_metas; i++)
		free(metas[i].data);
}

static void fuzz_chunk(struct reader *r)
{
	struct spa_chunk chunk;
	take(r, &chunk, sizeof(chunk));
	uint8_t rest[8];
	take(r, rest, sizeof(rest));
	uint32_t maxsize = ((uint32_t)rest[0] | (uint32_t)rest[1] << 8 | (uint32_t)rest[2] << 16 |
			    (uint32_t)rest[3] << 24) % (1u << 20);
	int width = rest[4] | rest[5] << 8, height = rest[6] | rest[7] << 8;
	uint8_t *pixels = malloc(maxsize ? maxsize : 1);
	if (!pixels)
		abort();
	memset(pixels, 0, maxsize ? maxsize : 1);
	struct spa_data d = { .maxsize = maxsize, .data = pixels, .chunk = &chunk };
	size_t offset;
	int stride;
	if (wl_record_pipewire_chunk_layout(&d, maxsize, width, height, &offset, &stride))
		read_rows(pixels + offset, width, height, stride);
	char why[160];
	if (wl_record_pipewire_size_ok((uint32_t)width * 7, (uint32_t)height * 7, why, sizeof(why)))
		sink++;
	free(pixels);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_quiet_logs();
	struct reader r = { data, size };
	fuzz_meta(&r);
	fuzz_chunk(&r);
	char *name = malloc(r.size + 1);
	if (!name)
		abort();
	memcpy(name, r.data, r.size);
	name[r.size] = 0;
	wl_record_pipewire_clean_name(name);
	for (size_t i = 0; name[i]; i++)
		if ((unsigned char)name[i] < 0x20 || name[i] == 0x7f)
			abort();
	free(name);
	return 0;
}
