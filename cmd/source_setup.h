#ifndef WL_RECORD_SOURCE_SETUP_H
#define WL_RECORD_SOURCE_SETUP_H

#include <stdbool.h>

struct app;

/* Chooses where frames come from (source_choice.h) and says so. When it is
 * the desktop on WAYLAND_DISPLAY, sets app->screencopy (connected, not yet
 * copying) and app->source; for --capture pipewire=NODE, app->pipewire (the
 * node found, not yet linked) and app->source; otherwise the hosted screen
 * will be the source. False too when PipeWire or the node is not there.
 * False when --capture screencopy cannot be done, or -o/-g name no part of
 * the desktop (logged; app->status EXIT_USAGE for a region no output
 * holds). */
bool source_setup(struct app *app);

/* Starts copying the desktop, or reading the PipeWire node; its end (the
 * compositor failed, went away or removed the output; the stream failed,
 * the node or PipeWire went away) stops the app with a failure. */
bool source_start(struct app *app);

/* --list-outputs: the outputs of the desktop on WAYLAND_DISPLAY, one a
 * line, on stdout. An exit status. */
int source_list_outputs(void);

/* --forget-portal: drops the remembered portal choice. An exit status. */
int source_forget_portal(void);

void source_teardown(struct app *app);

#endif
