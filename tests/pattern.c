#include "pattern.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* Solid blocks: fixed colours at fixed fractions of the picture, so a test
 * can look for them at any size. */
static const uint32_t block_colours[] = { 0xff0000, 0x00ff00, 0x0000ff, 0xffffff };
#define BLOCK_COUNT (int)(sizeof(block_colours) / sizeof(block_colours[0]))
/* Magenta never occurs in the lower half of the gradient, where the box moves. */
#define BOX_COLOUR 0xff00ff

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

/* Edges of the solid shapes fall on even rows and columns, so that no 2x2
 * chroma block of a 4:2:0 encoding straddles one. */
static int even(int value)
{
	return value & ~1;
}

/* Block i covers columns [x0, x0 + w) of the band [h/16, h/16 + h/8). */
static void block_rect(int index, int width, int height, int *x0, int *y0, int *w, int *h)
{
	*w = max_int(even(width / 10), 2);
	*h = max_int(even(height / 8), 2);
	*x0 = even(width / 16 + index * (width / 5));
	*y0 = even(height / 16);
}

void pattern_box(int frame_index, int width, int height,
		 int *box_x, int *box_y, int *box_width, int *box_height)
{
	*box_width = max_int(even(width / 6), 2);
	*box_height = max_int(even(height / 6), 2);
	/* Travels the lower part of the picture, away from the blocks; the
	 * steps are coprime with typical spans so positions rarely repeat. */
	int span_x = max_int(width - *box_width, 1);
	int span_y = max_int(height / 2 - *box_height, 1);
	unsigned index = frame_index < 0 ? 0u : (unsigned)frame_index;
	*box_x = even((int)((index * 14u) % (unsigned)span_x));
	*box_y = even(height / 2 + (int)((index * 6u) % (unsigned)span_y));
}

/* Green moves on by this much per frame, folded back at 0 and 255 (a
 * triangle wave, so continuous: no edge appears where it folds). Odd, so
 * that no pixel has the same green in two consecutive frames, not even
 * where the fold turns; large, so that a stale pixel is far off after one
 * frame; coprime with the wave's period (510): 510 frames before a repeat. */
#define GREEN_STEP 37

static uint32_t fold(unsigned value)
{
	value %= 510u;
	return value <= 255u ? value : 510u - value;
}

static uint32_t gradient(int background_index, int x, int y, int width, int height)
{
	uint32_t red = (uint32_t)(x * 255 / max_int(width - 1, 1));
	unsigned index = background_index < 0 ? 0u : (unsigned)background_index;
	uint32_t green = fold((unsigned)(y * 255 / max_int(height - 1, 1)) +
			      index % 510u * GREEN_STEP);
	uint32_t blue = (uint32_t)(((x + y) * 255) / max_int(width + height - 2, 1));
	blue = 255 - blue;
	return red << 16 | green << 8 | blue;
}

/* Shapes fade in over EDGE_RAMP pixels: a player's chroma upsampling blurs a
 * hard edge between saturated colours by a pixel or two, which alone would
 * cap the PSNR near 31 dB whatever the encoder does. */
#define EDGE_RAMP 4

/* 0 outside the rectangle, EDGE_RAMP in its core, in between near its edge. */
static int rect_weight(int x, int y, int x0, int y0, int w, int h)
{
	if (x < x0 || x >= x0 + w || y < y0 || y >= y0 + h)
		return 0;
	int inside = x - x0;
	int dist[] = { x0 + w - 1 - x, y - y0, y0 + h - 1 - y };
	for (int i = 0; i < 3; i++) {
		if (dist[i] < inside)
			inside = dist[i];
	}
	return inside + 1 < EDGE_RAMP ? inside + 1 : EDGE_RAMP;
}

static uint32_t blend(uint32_t shape, uint32_t under, int weight)
{
	uint32_t out = 0;
	for (int shift = 0; shift <= 16; shift += 8) {
		uint32_t a = (shape >> shift) & 0xff, b = (under >> shift) & 0xff;
		uint32_t mixed = (a * (uint32_t)weight + b * (uint32_t)(EDGE_RAMP - weight) +
				  EDGE_RAMP / 2) / EDGE_RAMP;
		out |= mixed << shift;
	}
	return out;
}

uint32_t pattern_pixel(int frame_index, int x, int y, int width, int height)
{
	return pattern_pixel_with_background(frame_index, frame_index, x, y, width, height);
}

uint32_t pattern_pixel_with_background(int frame_index, int background_index, int x, int y,
				       int width, int height)
{
	uint32_t colour = gradient(background_index, x, y, width, height);
	for (int i = 0; i < BLOCK_COUNT; i++) {
		int x0, y0, w, h;
		block_rect(i, width, height, &x0, &y0, &w, &h);
		int weight = rect_weight(x, y, x0, y0, w, h);
		if (weight)
			colour = blend(block_colours[i], colour, weight);
	}
	int bx, by, bw, bh;
	pattern_box(frame_index, width, height, &bx, &by, &bw, &bh);
	int weight = rect_weight(x, y, bx, by, bw, bh);
	if (weight)
		colour = blend(BOX_COLOUR, colour, weight);
	return colour;
}

void pattern_fill(void *data, int stride, int frame_index, int width, int height,
		  uint8_t alpha)
{
	pattern_fill_with_background(data, stride, frame_index, frame_index, width, height, alpha);
}

void pattern_fill_with_background(void *data, int stride, int frame_index, int background_index,
				  int width, int height, uint8_t alpha)
{
	uint32_t alpha_bits = (uint32_t)alpha << 24;
	for (int y = 0; y < height; y++) {
		uint32_t *row = (uint32_t *)((uint8_t *)data + (size_t)y * (size_t)stride);
		for (int x = 0; x < width; x++)
			row[x] = pattern_pixel_with_background(frame_index, background_index, x, y,
							       width, height) | alpha_bits;
	}
}

/* drm_fourcc.h's codes, spelled out: the pattern library needs no libdrm. */
#define FOURCC(a, b, c, d) \
	((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)

static const struct {
	const char *name;
	uint32_t fourcc;
	bool bgr;      /* red in the low bits */
	bool ten_bit;  /* 2:10:10:10, else 8:8:8:8 */
	bool alpha;
} formats[] = {
	{ "xrgb", FOURCC('X', 'R', '2', '4'), false, false, false },
	{ "argb", FOURCC('A', 'R', '2', '4'), false, false, true },
	{ "xbgr", FOURCC('X', 'B', '2', '4'), true, false, false },
	{ "abgr", FOURCC('A', 'B', '2', '4'), true, false, true },
	{ "xrgb2101010", FOURCC('X', 'R', '3', '0'), false, true, false },
	{ "argb2101010", FOURCC('A', 'R', '3', '0'), false, true, true },
	{ "xbgr2101010", FOURCC('X', 'B', '3', '0'), true, true, false },
	{ "abgr2101010", FOURCC('A', 'B', '3', '0'), true, true, true },
};
#define FORMAT_COUNT (int)(sizeof(formats) / sizeof(formats[0]))

uint32_t pattern_format_from_name(const char *name)
{
	for (int i = 0; i < FORMAT_COUNT; i++)
		if (strcmp(formats[i].name, name) == 0)
			return formats[i].fourcc;
	return 0;
}

uint32_t pattern_format_shm_code(uint32_t fourcc)
{
	if (fourcc == FOURCC('A', 'R', '2', '4'))
		return 0; /* WL_SHM_FORMAT_ARGB8888 */
	if (fourcc == FOURCC('X', 'R', '2', '4'))
		return 1; /* WL_SHM_FORMAT_XRGB8888 */
	return fourcc;
}

static uint32_t pack(uint32_t rgb, bool bgr, bool ten_bit, bool alpha)
{
	uint32_t r = rgb >> 16 & 0xff, g = rgb >> 8 & 0xff, b = rgb & 0xff;
	if (bgr) {
		uint32_t swap = r;
		r = b;
		b = swap;
	}
	if (!ten_bit)
		return (alpha ? 0xffu << 24 : 0) | r << 16 | g << 8 | b;
	r = r << 2 | r >> 6;
	g = g << 2 | g >> 6;
	b = b << 2 | b >> 6;
	return (alpha ? 3u << 30 : 0) | r << 20 | g << 10 | b;
}

void pattern_fill_format(void *data, int stride, int frame_index, int width, int height,
			 uint32_t fourcc)
{
	int f = 0; /* xrgb for a code not listed */
	for (int i = 0; i < FORMAT_COUNT; i++)
		if (formats[i].fourcc == fourcc)
			f = i;
	for (int y = 0; y < height; y++) {
		uint32_t *row = (uint32_t *)((uint8_t *)data + (size_t)y * (size_t)stride);
		for (int x = 0; x < width; x++)
			row[x] = pack(pattern_pixel(frame_index, x, y, width, height),
				      formats[f].bgr, formats[f].ten_bit, formats[f].alpha);
	}
}
