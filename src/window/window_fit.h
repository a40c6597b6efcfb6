#ifndef WL_RECORD_WINDOW_FIT_H
#define WL_RECORD_WINDOW_FIT_H

/* Where a picture of picture_width x picture_height lies in a window of
 * window_width x window_height (surface-local units): as large as fits, its
 * aspect kept, centred; the rest are the letterbox bars. Every size is at
 * least 1. */
struct window_fit {
	int x, y, width, height;
};

struct window_fit window_fit_picture(int window_width, int window_height, int picture_width,
				     int picture_height);

#endif
