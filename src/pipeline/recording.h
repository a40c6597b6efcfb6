#ifndef WL_RECORD_RECORDING_H
#define WL_RECORD_RECORDING_H

#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>

#include "frame_grid.h"
#include "frame_source.h"
#include "pipeline_events.h"
#include "recorder.h"

struct app_sink;

/* What a recording is made of: the program turns its options into this. */
struct recording_config {
	/* The recorder's settings (.path "-": standard output); its
	 * .audio_sources is counted from the sound sources below. */
	struct recorder_config recorder;
	/* --app-audio's sink: its monitor is the first track; NULL without. */
	struct app_sink *app_sink;
	/* --audio's sources, a track each in order; NULL: the default
	 * sink's monitor. */
	const char *const *audio_sources;
	int audio_source_count;
	struct wl_event_loop *loop;
	/* The --fps grid the pacer keeps to and --frames counts in. */
	const struct frame_grid *grid;
	struct frame_source *source;
	/* Frames come from the hosted compositor: an empty recording then
	 * says that nothing presented to it. */
	bool hosting;
	int64_t max_frames; /* --frames; 0: until stopped */
	double duration_s;  /* --duration; 0: until stopped */
	bool status_line;   /* redraw a status line on stderr */
	/* Where --snap's stills go when the recording's name is not the
	 * user's (default or standard output): fills `out` with a folder,
	 * named wl-record-DATE.png there. NULL: beside the recording, named
	 * after it. Asked at each still. */
	void (*still_folder)(char *out, size_t size);
	struct pipeline_events events;
};

/* Recording mode: frames from the source, paced to --fps, into the
 * recorder; stills on request; a status line on a terminal. */
/* NULL on failure; `bad_config` then tells whether the settings were at fault. */
struct recording *recording_create(const struct recording_config *config, bool *bad_config);

/* Writes a PNG still of the current frame beside the recording. */
void recording_snap(struct recording *recording);

/* Ends the recording: hands on the last picture, drains, writes the trailer.
 * Returns 0 when the file is complete. Frees the recording. */
int recording_finish(struct recording *recording);

#endif
