#ifndef WL_RECORD_SCREENSHOT_H
#define WL_RECORD_SCREENSHOT_H

struct app;

/* Screenshot mode: the first picture worth keeping is written as a PNG, then
 * the app stops. */
struct screenshot *screenshot_create(struct app *app);
void screenshot_destroy(struct screenshot *screenshot);

#endif
