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

static void expect_point(int ww, int wh, int pw, int ph, double wx, double wy, bool inside,
			 double px, double py)
{
	struct window_fit fit = window_fit_picture(ww, wh, pw, ph);
	double x, y;
	bool in = window_fit_to_picture(&fit, pw, ph, wx, wy, &x, &y);
	test_assert(in == inside && (!inside || (x > px - 0.01 && x < px + 0.01 &&
						 y > py - 0.01 && y < py + 0.01)),
		    "window %g,%g of %dx%d -> %g,%g (%s) in %dx%d, expected %g,%g (%s)", wx, wy, ww,
		    wh, x, y, in ? "in" : "out", pw, ph, px, py, inside ? "in" : "out");
}

TEST(window_points_map_back_to_the_picture)
{
	expect_point(1920, 1080, 1920, 1080, 100, 200, true, 100, 200);
	expect_point(960, 540, 1920, 1080, 100, 200, true, 200, 400);
	/* 320x240 at 166,0 as 267x200 in 600x200. */
	expect_point(600, 200, 320, 240, 166, 0, true, 0, 0);
	expect_point(600, 200, 320, 240, 166 + 267 / 2.0, 100, true, 160, 120);
	expect_point(600, 200, 320, 240, 100, 100, false, 0, 0);
	expect_point(600, 200, 320, 240, 433, 100, false, 0, 0);
	/* 320x240 at 0,137 as 300x225 in 300x500. */
	expect_point(300, 500, 320, 240, 150, 137 + 112.5, true, 160, 120);
	expect_point(300, 500, 320, 240, 150, 100, false, 0, 0);
}
