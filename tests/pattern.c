#include "pattern.h"

#include <stddef.h>

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

/* Block i covers columns [x0, x0 + w) of the band [h/16, h/16 + h/8). */
static void block_rect(int index, int width, int height, int *x0, int *y0, int *w, int *h)
{
	*w = max_int(width / 10, 1);
	*h = max_int(height / 8, 1);
	*x0 = width / 16 + index * (width / 5);
	*y0 = height / 16;
}

void pattern_box(int frame_index, int width, int height,
		 int *box_x, int *box_y, int *box_width, int *box_height)
{
	*box_width = max_int(width / 6, 1);
	*box_height = max_int(height / 6, 1);
	/* Travels the lower part of the picture, away from the blocks; the
	 * steps are coprime with typical spans so positions rarely repeat. */
	int span_x = max_int(width - *box_width, 1);
	int span_y = max_int(height / 2 - *box_height, 1);
	unsigned index = frame_index < 0 ? 0u : (unsigned)frame_index;
	*box_x = (int)((index * 7u) % (unsigned)span_x);
	*box_y = height / 2 + (int)((index * 3u) % (unsigned)span_y);
}

static uint32_t gradient(int x, int y, int width, int height)
{
	uint32_t red = (uint32_t)(x * 255 / max_int(width - 1, 1));
	uint32_t green = (uint32_t)(y * 255 / max_int(height - 1, 1));
	uint32_t blue = (uint32_t)(((x + y) * 255) / max_int(width + height - 2, 1));
	blue = 255 - blue;
	return red << 16 | green << 8 | blue;
}

uint32_t pattern_pixel(int frame_index, int x, int y, int width, int height)
{
	int bx, by, bw, bh;
	pattern_box(frame_index, width, height, &bx, &by, &bw, &bh);
	if (x >= bx && x < bx + bw && y >= by && y < by + bh)
		return BOX_COLOUR;

	for (int i = 0; i < BLOCK_COUNT; i++) {
		int x0, y0, w, h;
		block_rect(i, width, height, &x0, &y0, &w, &h);
		if (x >= x0 && x < x0 + w && y >= y0 && y < y0 + h)
			return block_colours[i];
	}
	return gradient(x, y, width, height);
}

void pattern_fill(void *data, int stride, int frame_index, int width, int height,
		  uint8_t alpha)
{
	uint32_t alpha_bits = (uint32_t)alpha << 24;
	for (int y = 0; y < height; y++) {
		uint32_t *row = (uint32_t *)((uint8_t *)data + (size_t)y * (size_t)stride);
		for (int x = 0; x < width; x++)
			row[x] = pattern_pixel(frame_index, x, y, width, height) | alpha_bits;
	}
}
