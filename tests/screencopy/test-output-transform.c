/* output_transform.h: for each of the 8 wl_output transforms, the pixman
 * matrix that turns a copy upright and the box mapping that moves its
 * damage agree pixel by pixel, and a quarter turn swaps the size. The
 * direction itself is checked against real sway (sway.sh, 4d) and the fake
 * compositor's own mapping (fake-ext.sh). */
#include <stdint.h>
#include <stdlib.h>

#include <pixman.h>
#include <wayland-client-protocol.h>

#include "output_transform.h"
#include "test-runner.h"

enum { WIDTH = 7, HEIGHT = 4 };

TEST(upright_size_swaps_for_quarter_turns)
{
	for (uint32_t transform = 0; transform < 8; transform++) {
		int w, h;
		upright_size(transform, WIDTH, HEIGHT, &w, &h);
		bool quarter = transform & 1;
		test_assert(w == (quarter ? HEIGHT : WIDTH) && h == (quarter ? WIDTH : HEIGHT),
			    "transform %u: %dx%d", transform, w, h);
	}
}

TEST(each_pixel_lands_where_its_box_says)
{
	uint32_t buffer[WIDTH * HEIGHT];
	for (int i = 0; i < WIDTH * HEIGHT; i++)
		buffer[i] = 0xff000000u | (uint32_t)(i + 1);
	for (uint32_t transform = 0; transform < 8; transform++) {
		int w, h;
		upright_size(transform, WIDTH, HEIGHT, &w, &h);
		uint32_t upright[WIDTH * HEIGHT] = { 0 };
		pixman_image_t *from = pixman_image_create_bits(PIXMAN_x8r8g8b8, WIDTH, HEIGHT,
								buffer, WIDTH * 4);
		pixman_image_t *to = pixman_image_create_bits(PIXMAN_x8r8g8b8, w, h, upright, w * 4);
		test_assert(from && to);
		pixman_transform_t matrix;
		upright_pixman_transform(transform, WIDTH, HEIGHT, &matrix);
		pixman_image_set_transform(from, &matrix);
		pixman_image_set_filter(from, PIXMAN_FILTER_NEAREST, NULL, 0);
		pixman_image_composite32(PIXMAN_OP_SRC, from, NULL, to, 0, 0, 0, 0, 0, 0, w, h);
		pixman_image_unref(from);
		pixman_image_unref(to);
		for (int y = 0; y < HEIGHT; y++) {
			for (int x = 0; x < WIDTH; x++) {
				struct frame_damage box =
					upright_box(transform, WIDTH, HEIGHT,
						    (struct frame_damage){ x, y, x + 1, y + 1 });
				test_assert(box.x2 - box.x1 == 1 && box.y2 - box.y1 == 1 &&
						    box.x1 >= 0 && box.x2 <= w && box.y1 >= 0 &&
						    box.y2 <= h,
					    "transform %u: pixel %d,%d -> box %d,%d %d,%d", transform,
					    x, y, box.x1, box.y1, box.x2, box.y2);
				uint32_t want = buffer[y * WIDTH + x];
				uint32_t got = upright[box.y1 * w + box.x1];
				test_assert((got & 0xffffff) == (want & 0xffffff),
					    "transform %u: pixel %d,%d shows %06x at %d,%d, not %06x",
					    transform, x, y, got & 0xffffff, box.x1, box.y1,
					    want & 0xffffff);
			}
		}
	}
}
