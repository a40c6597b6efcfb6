#include "pipewire_meta.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <spa/buffer/meta.h>
#include <spa/param/video/raw.h>

static int64_t clamp_coord(int64_t v)
{
	if (v < -WL_RECORD_PIPEWIRE_COORD_LIMIT)
		return -WL_RECORD_PIPEWIRE_COORD_LIMIT;
	if (v > WL_RECORD_PIPEWIRE_COORD_LIMIT)
		return WL_RECORD_PIPEWIRE_COORD_LIMIT;
	return v;
}

/* A region as a rectangle: added in 64 bits (x + a width near 2^32 would
 * overflow an int), then clamped. */
static struct frame_damage rect_of(const struct spa_region *region)
{
	int64_t x = region->position.x, y = region->position.y;
	return (struct frame_damage){
		(int)clamp_coord(x), (int)clamp_coord(y),
		(int)clamp_coord(x + region->size.width), (int)clamp_coord(y + region->size.height),
	};
}

/* The first meta of `type` with at least `size` bytes, or NULL. */
static const struct spa_meta *find_meta(const struct spa_buffer *buffer, uint32_t type,
					size_t size)
{
	if (!buffer->metas)
		return NULL;
	for (uint32_t i = 0; i < buffer->n_metas; i++) {
		const struct spa_meta *meta = &buffer->metas[i];
		if (meta->type == type)
			return meta->data && meta->size >= size ? meta : NULL;
	}
	return NULL;
}

static void read_damage(const struct spa_buffer *buffer, struct wl_record_pipewire_meta *out)
{
	const struct spa_meta *meta = find_meta(buffer, SPA_META_VideoDamage, 0);
	if (!meta || !meta->data)
		return;
	out->has_damage = true;
	size_t count = meta->size / sizeof(struct spa_meta_region);
	for (size_t i = 0; i < count; i++) {
		struct spa_meta_region region;
		memcpy(&region, (const uint8_t *)meta->data + i * sizeof(region), sizeof(region));
		/* The list ends at the first empty region. */
		if (!spa_meta_region_is_valid(&region))
			break;
		struct frame_damage rect = rect_of(&region.region);
		frame_damage_union(&out->damage, &rect);
	}
}

static bool four_bytes_per_pixel(uint32_t format)
{
	return format == SPA_VIDEO_FORMAT_BGRx || format == SPA_VIDEO_FORMAT_BGRA ||
	       format == SPA_VIDEO_FORMAT_RGBx || format == SPA_VIDEO_FORMAT_RGBA;
}

/* The bitmap at `bitmap_offset` in a Cursor meta of `meta_size` bytes at
 * `base`. Its header is copied once and every bound computed in 64 bits:
 * bitmap_offset + offset in 32 bits wraps (28 + 0xFFFFFFF0 is 12). */
static void read_bitmap(const uint8_t *base, uint64_t meta_size, uint64_t bitmap_offset,
			struct wl_record_pipewire_cursor *cursor)
{
	if (bitmap_offset == 0)
		return; /* no bitmap: as it was */
	cursor->bitmap = WL_RECORD_PIPEWIRE_BITMAP_INVALID;
	if (bitmap_offset < sizeof(struct spa_meta_cursor) ||
	    bitmap_offset + sizeof(struct spa_meta_bitmap) > meta_size)
		return;
	struct spa_meta_bitmap bitmap;
	memcpy(&bitmap, base + bitmap_offset, sizeof(bitmap));
	if (!spa_meta_bitmap_is_valid(&bitmap)) {
		cursor->bitmap = WL_RECORD_PIPEWIRE_BITMAP_SAME; /* format 0: as it was */
		return;
	}
	if (bitmap.offset == 0) {
		cursor->bitmap = WL_RECORD_PIPEWIRE_BITMAP_HIDDEN;
		return;
	}
	uint64_t w = bitmap.size.width, h = bitmap.size.height;
	if (!four_bytes_per_pixel(bitmap.format) || w == 0 || h == 0 ||
	    w > WL_RECORD_PIPEWIRE_CURSOR_MAX || h > WL_RECORD_PIPEWIRE_CURSOR_MAX ||
	    bitmap.stride < 0 || (uint64_t)bitmap.stride < w * 4 || bitmap.stride % 4)
		return;
	/* The pixels after the bitmap's header, aligned for 32-bit reads, the
	 * last row's last pixel within the meta. */
	uint64_t start = bitmap_offset + bitmap.offset;
	uint64_t end = start + (uint64_t)bitmap.stride * (h - 1) + w * 4;
	if (bitmap.offset < sizeof(bitmap) || start % 4 || end > meta_size)
		return;
	cursor->bitmap = WL_RECORD_PIPEWIRE_BITMAP_NEW;
	cursor->format = bitmap.format;
	cursor->width = (int)w;
	cursor->height = (int)h;
	cursor->stride = bitmap.stride;
	cursor->pixels = base + start;
}

static void read_cursor(const struct spa_buffer *buffer, struct wl_record_pipewire_cursor *out)
{
	const struct spa_meta *meta = find_meta(buffer, SPA_META_Cursor,
						sizeof(struct spa_meta_cursor));
	if (!meta)
		return;
	struct spa_meta_cursor cursor;
	memcpy(&cursor, meta->data, sizeof(cursor));
	/* id 0: nothing new about the cursor in this buffer. */
	if (!spa_meta_cursor_is_valid(&cursor))
		return;
	out->present = true;
	out->x = (int)clamp_coord((int64_t)cursor.position.x - cursor.hotspot.x);
	out->y = (int)clamp_coord((int64_t)cursor.position.y - cursor.hotspot.y);
	read_bitmap(meta->data, meta->size, cursor.bitmap_offset, out);
}

void wl_record_pipewire_meta_read(const struct spa_buffer *buffer,
				  struct wl_record_pipewire_meta *out)
{
	*out = (struct wl_record_pipewire_meta){ 0 };
	const struct spa_meta *meta = find_meta(buffer, SPA_META_Header,
						sizeof(struct spa_meta_header));
	if (meta) {
		struct spa_meta_header header;
		memcpy(&header, meta->data, sizeof(header));
		out->has_header = true;
		out->pts = header.pts;
	}
	read_damage(buffer, out);
	meta = find_meta(buffer, SPA_META_VideoCrop, sizeof(struct spa_meta_region));
	if (meta) {
		struct spa_meta_region crop;
		memcpy(&crop, meta->data, sizeof(crop));
		if (spa_meta_region_is_valid(&crop)) {
			out->has_crop = true;
			out->crop = rect_of(&crop.region);
		}
	}
	read_cursor(buffer, &out->cursor);
}

bool wl_record_pipewire_chunk_layout(const struct spa_data *data, size_t extent, int width,
				     int height, size_t *offset, int *stride)
{
	if (!data->chunk || width <= 0 || height <= 0)
		return false;
	/* The producer may rewrite its chunk meanwhile: read once. */
	struct spa_chunk chunk;
	memcpy(&chunk, data->chunk, sizeof(chunk));
	uint64_t row = (uint64_t)width * 4;
	int64_t s = chunk.stride ? chunk.stride : (int64_t)row;
	if (s < 0 || (uint64_t)s < row || s % 4 || s > INT32_MAX)
		return false;
	uint64_t end = (uint64_t)chunk.offset + (uint64_t)s * (uint64_t)(height - 1) + row;
	if (end > extent)
		return false;
	*offset = chunk.offset;
	*stride = (int)s;
	return true;
}

bool wl_record_pipewire_size_ok(uint32_t width, uint32_t height, char *why, size_t why_size)
{
	if (width && height && width <= WL_RECORD_PIPEWIRE_MAX_SIDE &&
	    height <= WL_RECORD_PIPEWIRE_MAX_SIDE)
		return true;
	snprintf(why, why_size, "the producer's picture is %" PRIu32 "x%" PRIu32 ": wl-record "
		 "takes 1x1 to %dx%d", width, height, WL_RECORD_PIPEWIRE_MAX_SIDE,
		 WL_RECORD_PIPEWIRE_MAX_SIDE);
	return false;
}

void wl_record_pipewire_clean_name(char *name)
{
	for (unsigned char *c = (unsigned char *)name; *c; c++) {
		/* C1 controls in UTF-8 (U+0080-U+009F: 0xC2 0x80-0x9F) too:
		 * some terminals take U+009B for an escape sequence. */
		if (c[0] == 0xc2 && c[1] >= 0x80 && c[1] <= 0x9f) {
			c[0] = c[1] = '?';
			c++;
		} else if (*c < 0x20 || *c == 0x7f) {
			*c = '?';
		}
	}
}
