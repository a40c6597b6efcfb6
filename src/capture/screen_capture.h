#ifndef WL_RECORD_SCREEN_CAPTURE_H
#define WL_RECORD_SCREEN_CAPTURE_H

#include "capture_source.h"

struct screen;

/* The nested compositor as the capture source (capture_source.h): its
 * screen's frames. Made when hosting is chosen, before the compositor
 * exists (a forced source that cannot be had is one line, with nothing
 * started); given the screen once the server is made. It starts nothing
 * and never ends by itself: the program connects the clients and watches
 * them. NULL when out of memory. */
struct capture_source *screen_capture_create(void);

/* `source` must be one of screen_capture_create()'s. */
void screen_capture_set_screen(struct capture_source *source, struct screen *screen);

#endif
