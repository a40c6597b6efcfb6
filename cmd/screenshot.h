#ifndef WL_RECORD_SCREENSHOT_H
#define WL_RECORD_SCREENSHOT_H

struct app;

#include <stdbool.h>

/* Screenshot mode: the first picture that stays unchanged for a settle time
 * (screenshot.c) is written as a PNG, then the app stops. */
struct screenshot *screenshot_create(struct app *app);
/* The client or command went away: its last picture will not change any
 * more, so it is taken now. False when there was none, or --delay has not
 * passed yet (nothing written: the moment asked for never came). */
bool screenshot_take_now(struct screenshot *screenshot);
void screenshot_destroy(struct screenshot *screenshot);

#endif
