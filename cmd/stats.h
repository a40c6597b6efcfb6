#ifndef WL_RECORD_STATS_H
#define WL_RECORD_STATS_H

/* --stats-fd N: one line of JSON on file descriptor N when wl-record is
 * done, for scripts (scripts/bench, scripts/check-hw), so that they never
 * read the human log on stderr. The keys are listed in wl-record(1).
 * A file descriptor and not stdout: stdout may carry the video (FILE '-')
 * and carries the finished file's path, one line, which hotkey wrappers
 * take as it is. */

#include <stdint.h>

#include "app.h"
#include "recorder.h"

/* The reason the run stops: the first one given (app_stop). */
void stats_note_stop(const char *reason);

/* How long writing the still took (encoding and the file), in ms. */
void stats_note_still(double write_ms);

/* The CLOCK_MONOTONIC time of the first frame the recorder took: the
 * file's time zero. Only the first call counts. */
void stats_note_first_frame(int64_t pts_ns);

/* The recorder's final figures and how long the recording lasted. */
void stats_note_recording(const struct recorder_stats *stats, double duration_s);

/* Writes the summary of `app`, whose status is final, when --stats-fd was
 * given; once. */
void stats_write(const struct app *app);

#endif
