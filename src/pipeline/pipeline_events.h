#ifndef WL_RECORD_PIPELINE_EVENTS_H
#define WL_RECORD_PIPELINE_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

struct recorder_stats;

/* How the sinks (recording.h, screenshot.h) report to the program that runs
 * them: the program owns the end of the run, its exit status, the pid
 * file and the summary (--stats-fd); the sinks only say what happened. */
struct pipeline_events {
	void *data;
	/* Ends the run; the first stop asked decides whether it failed and
	 * why (`reason`, for -v and the summary, may be NULL). */
	void (*stop)(void *data, bool failed, const char *reason);
	/* Whether a stop was asked, by a sink or by anything else. */
	bool (*stopping)(void *data);
	/* Whether start-up succeeded (the main loop was entered). */
	bool (*running)(void *data);
	/* The recording's first frame: the file's time zero. */
	void (*first_frame)(void *data, int64_t pts_ns);
	/* The recorder's final figures and how long the recording lasted. */
	void (*recorded)(void *data, const struct recorder_stats *stats, double duration_s);
	/* A still of the recording is being written to `path` (--snap). */
	void (*snapped)(void *data, const char *path);
	/* The screenshot was written, in `write_ms`. */
	void (*still_written)(void *data, double write_ms);
};

#endif
