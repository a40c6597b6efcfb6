#ifndef WL_RECORD_AUDIO_CAPTURE_H
#define WL_RECORD_AUDIO_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "audio_chunk.h"

/* Audio capture with libpulse (PulseAudio, or PipeWire's pipewire-pulse)
 * on its own thread (pa_threaded_mainloop): nothing here runs on, or makes
 * wait, the caller's thread once started.
 *
 * Timestamps (audio_clock.h): each chunk's reading is the time it was read
 * minus the stream's latency as the server reports it (pa_stream_get_latency:
 * the age of the first unread sample); chunks are stamped by counting samples
 * from an anchor set from the first readings, which follows the readings
 * at a bounded rate (0.25 %, after the offset lasted 250 ms), which the
 * consumer follows by resampling, and jumps on a gap of more than 40 ms:
 * the consumer sees the jump in pts and fills it with silence, or drops the
 * overlap. */

struct audio_capture;

struct audio_capture_stats {
	uint64_t chunks;     /* handed to the consumer */
	uint64_t frames;     /* sample frames in them */
	uint64_t reanchors;  /* jumps of the sample count to the server's timing: gaps */
	int64_t slewed_ns;   /* the sum of the slew steps (signed): the drift corrected */
	int64_t offset_ns;   /* the server's timing minus the count, now (a median) */
};

/* Connects to the audio server and starts recording `source` (a source
 * name; NULL: the default sink's monitor, "@DEFAULT_MONITOR@"). Waits for
 * the server's answer (at start only). Logs one clear line and returns NULL
 * when there is no server or the source does not exist. */
struct audio_capture *audio_capture_start(const char *source, audio_chunk_fn fn, void *data);

/* The source's name as the server knows it. */
const char *audio_capture_source(const struct audio_capture *capture);

/* True once the server or the source went away (warned once). */
bool audio_capture_lost(struct audio_capture *capture);

/* Below this peak a source counts as silent (-60 dBFS: hiss, not sound). */
#define AUDIO_CAPTURE_SILENT_DB (-60.0)
/* A source that delivered nothing for this long is missing, not silent. */
#define AUDIO_CAPTURE_MISSING_NS 1500000000

enum audio_capture_state {
	AUDIO_CAPTURE_WAITING, /* nothing delivered yet */
	AUDIO_CAPTURE_SOUND,   /* sound in the last window */
	AUDIO_CAPTURE_SILENT,  /* chunks come, all below AUDIO_CAPTURE_SILENT_DB */
	AUDIO_CAPTURE_MISSING, /* no chunk for AUDIO_CAPTURE_MISSING_NS (a suspended source) */
	AUDIO_CAPTURE_LOST,    /* the server or the source went away */
};

struct audio_capture_level {
	enum audio_capture_state state;
	double peak_db; /* dBFS, over the last window of about half a second */
};

/* For the status line; any thread. `now_ns` is CLOCK_MONOTONIC. */
void audio_capture_get_level(struct audio_capture *capture, int64_t now_ns,
			     struct audio_capture_level *level);
/* "-12 dB", "silent", "missing", "lost", "waiting" */
void audio_capture_describe_level(const struct audio_capture_level *level, char *out, size_t size);

void audio_capture_get_stats(struct audio_capture *capture, struct audio_capture_stats *stats);

/* Waits until the chunks handed out reach `until_ns` (CLOCK_MONOTONIC): a
 * sample arrives some tens of ms after the time it was captured, so a
 * recording that ends now has its last sound still on the way (without the
 * wait, 40 ms of silence ended every file). The wait ends once no chunk came
 * for `timeout_ns` (a server that stopped; one that is only late, on a
 * loaded machine, is waited for), and at most 8 times `timeout_ns` after it
 * began. Returns at once for a source that was lost or never delivered;
 * false when the sound did not come (said at debug level). */
bool audio_capture_wait_until(struct audio_capture *capture, int64_t until_ns, int64_t timeout_ns);

/* Stops the thread: no chunk is delivered after it returns. NULL is fine. */
void audio_capture_stop(struct audio_capture *capture);

#endif
