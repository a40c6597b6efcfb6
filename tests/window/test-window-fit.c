/* The picture's place in the window (src/window/window_fit.c): the whole
 * recording, its aspect kept, centred, whatever the window's size. */
#include "test-runner.h"
#include "window_fit.h"

static void expect_fit(int ww, int wh, int pw, int ph, int x, int y, int w, int h)
{
	struct window_fit fit = window_fit_picture(ww, wh, pw, ph);
	test_assert(fit.x == x && fit.y == y && fit.width == w && fit.height == h,
		    "%dx%d in %dx%d: %d,%d %dx%d, expected %d,%d %dx%d", pw, ph, ww, wh, fit.x,
		    fit.y, fit.width, fit.height, x, y, w, h);
}

TEST(same_size_fills)
{
	expect_fit(1920, 1080, 1920, 1080, 0, 0, 1920, 1080);
}

TEST(same_aspect_scales_exactly)
{
	expect_fit(960, 540, 1920, 1080, 0, 0, 960, 540);
	expect_fit(3840, 2160, 1920, 1080, 0, 0, 3840, 2160);
}

TEST(wider_window_bars_left_and_right)
{
	expect_fit(600, 200, 320, 240, 166, 0, 267, 200);
	expect_fit(800, 570, 320, 240, 20, 0, 760, 570);
}

TEST(taller_window_bars_top_and_bottom)
{
	expect_fit(300, 500, 320, 240, 0, 137, 300, 225);
	expect_fit(1080, 1920, 1920, 1080, 0, 656, 1080, 608);
}

TEST(tiny_and_zero_sizes_stay_positive)
{
	expect_fit(1, 1, 1920, 1080, 0, 0, 1, 1);
	expect_fit(0, 0, 1920, 1080, 0, 0, 1, 1);
	expect_fit(1000, 1, 1920, 1080, 499, 0, 2, 1);
}
