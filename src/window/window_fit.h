#ifndef WL_RECORD_WINDOW_FIT_H
#define WL_RECORD_WINDOW_FIT_H

#include <stdbool.h>

/* Where a picture of picture_width x picture_height lies in a window of
 * window_width x window_height (surface-local units): as large as fits, its
 * aspect kept, centred; the rest are the letterbox bars. Every size is at
 * least 1. */
struct window_fit {
	int x, y, width, height;
};

struct window_fit window_fit_picture(int window_width, int window_height, int picture_width,
				     int picture_height);

/* The inverse, for input: the picture point under window point window_x,
 * window_y (surface-local units) of a picture of picture_width x
 * picture_height placed at `fit`. False when the point is on a bar (the
 * result is then outside the picture). */
bool window_fit_to_picture(const struct window_fit *fit, int picture_width, int picture_height,
			   double window_x, double window_y, double *picture_x, double *picture_y);

#endif
