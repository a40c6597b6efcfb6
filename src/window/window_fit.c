#include "window_fit.h"

#include <stdint.h>

static int at_least_one(int v)
{
	return v < 1 ? 1 : v;
}

/* a * b / c rounded to the nearest, in 64 bits (16384^2 fits easily). */
static int scale_rounded(int a, int b, int c)
{
	return (int)(((int64_t)a * b + c / 2) / c);
}

struct window_fit window_fit_picture(int window_width, int window_height, int picture_width,
				     int picture_height)
{
	window_width = at_least_one(window_width);
	window_height = at_least_one(window_height);
	picture_width = at_least_one(picture_width);
	picture_height = at_least_one(picture_height);
	struct window_fit fit;
	/* The side that limits: compared as cross products, no rounding. */
	if ((int64_t)window_width * picture_height <= (int64_t)window_height * picture_width) {
		fit.width = window_width;
		fit.height = scale_rounded(window_width, picture_height, picture_width);
	} else {
		fit.height = window_height;
		fit.width = scale_rounded(window_height, picture_width, picture_height);
	}
	fit.width = at_least_one(fit.width > window_width ? window_width : fit.width);
	fit.height = at_least_one(fit.height > window_height ? window_height : fit.height);
	fit.x = (window_width - fit.width) / 2;
	fit.y = (window_height - fit.height) / 2;
	return fit;
}

bool window_fit_to_picture(const struct window_fit *fit, int picture_width, int picture_height,
			   double window_x, double window_y, double *picture_x, double *picture_y)
{
	double x = (window_x - fit->x) * picture_width / fit->width;
	double y = (window_y - fit->y) * picture_height / fit->height;
	*picture_x = x;
	*picture_y = y;
	return x >= 0 && y >= 0 && x < picture_width && y < picture_height;
}
