#ifndef WL_RECORD_WINDOW_SETUP_H
#define WL_RECORD_WINDOW_SETUP_H

#include <stdbool.h>

struct app;

/* --window (src/window/desktop_window.h), in three steps around run():
 * connect to the desktop on WAYLAND_DISPLAY before anything starts (one
 * line and false when there is none or it cannot be reached); open the
 * window on the recorded screen once the recording runs, before COMMAND
 * starts; close it after the file is finished. Without --window each is
 * nothing and succeeds. Closing the window stops the recording as Ctrl+C
 * does; the desktop going away stops it with a failure. */
bool window_setup_connect(struct app *app);
bool window_setup_open(struct app *app);
void window_setup_teardown(struct app *app);

#endif
