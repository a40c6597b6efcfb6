#ifndef WL_RECORD_RECORDING_H
#define WL_RECORD_RECORDING_H

#include <stdbool.h>

struct app;

/* Recording mode: frames from the screen, paced to --fps, into the
 * recorder; stills on request; a status line on a terminal. */
/* NULL on failure; `bad_config` then tells whether the settings were at fault. */
struct recording *recording_create(struct app *app, bool *bad_config);

/* Writes a PNG still of the current frame beside the recording. */
void recording_snap(struct recording *recording);

/* Ends the recording: hands on the last picture, drains, writes the trailer.
 * Returns 0 when the file is complete. Frees the recording. */
int recording_finish(struct recording *recording);

#endif
