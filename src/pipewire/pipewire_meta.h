/* What a PipeWire producer says about a buffer (its metadata, its chunk)
 * and about itself (its picture size, its node name), read once into our
 * own memory and bounds-checked. The producer writes that memory while we
 * read it and may lie in any field: nothing here reads outside a meta's
 * size or overflows, whatever the bytes; pure functions, so that a unit
 * test and a fuzzer can feed them made-up buffers. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <spa/buffer/buffer.h>

#include "frame.h"

/* The largest picture side taken from a producer (the EnumFormat's
 * maximum): larger would be a huge allocation for each picture. */
#define WL_RECORD_PIPEWIRE_MAX_SIDE 16384
/* Coordinates from metadata are clamped to +-this: far outside any picture,
 * and small enough that adding a picture's size never overflows an int. */
#define WL_RECORD_PIPEWIRE_COORD_LIMIT (1 << 24)
/* The largest cursor bitmap side drawn. */
#define WL_RECORD_PIPEWIRE_CURSOR_MAX 256

enum wl_record_pipewire_bitmap {
	WL_RECORD_PIPEWIRE_BITMAP_SAME,    /* no bitmap in this buffer: as it was */
	WL_RECORD_PIPEWIRE_BITMAP_HIDDEN,  /* a bitmap without pixels: invisible */
	WL_RECORD_PIPEWIRE_BITMAP_NEW,     /* new pixels, described below */
	WL_RECORD_PIPEWIRE_BITMAP_INVALID, /* a bitmap that does not fit: ignored */
};

struct wl_record_pipewire_cursor {
	bool present; /* a Cursor meta with a cursor id (0: nothing new) */
	int x, y;     /* the bitmap's top-left corner (position - hotspot), clamped */
	enum wl_record_pipewire_bitmap bitmap;
	/* BITMAP_NEW: a 4-byte-per-pixel picture within the meta. */
	uint32_t format; /* an SPA_VIDEO_FORMAT_ of 4 bytes per pixel */
	int width, height, stride;
	const void *pixels;
};

struct wl_record_pipewire_meta {
	bool has_header;
	int64_t pts;
	bool has_damage; /* a VideoDamage meta: `damage` is all that changed */
	struct frame_damage damage; /* the union of its regions, clamped */
	bool has_crop;
	struct frame_damage crop; /* clamped, not yet cut to the picture */
	struct wl_record_pipewire_cursor cursor;
};

/* The metadata of `buffer`: header, damage, crop and cursor, each checked
 * against its meta's size. */
void wl_record_pipewire_meta_read(const struct spa_buffer *buffer,
				  struct wl_record_pipewire_meta *out);

/* Where the picture of `data` lies, read once from its chunk: its offset
 * and stride, checked to hold width x height pixels of 4 bytes within
 * `extent` bytes (the data's mapped size). False: it does not. */
bool wl_record_pipewire_chunk_layout(const struct spa_data *data, size_t extent, int width,
				     int height, size_t *offset, int *stride);

/* Whether a negotiated picture size is one we take; when not, why (one
 * line for the user). */
bool wl_record_pipewire_size_ok(uint32_t width, uint32_t height, char *why, size_t why_size);

/* A producer's node name made fit for a terminal: control characters
 * (escape sequences, line breaks) become '?'. In place. */
void wl_record_pipewire_clean_name(char *name);
