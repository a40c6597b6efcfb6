#ifndef WL_RECORD_AUDIO_CAPTURE_H
#define WL_RECORD_AUDIO_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>

#include "audio_chunk.h"

/* Audio capture with libpulse (PulseAudio, or PipeWire's pipewire-pulse)
 * on its own thread (pa_threaded_mainloop): nothing here runs on, or makes
 * wait, the caller's thread once started.
 *
 * Timestamps: the first chunk is stamped with the time it was read minus the
 * stream's latency as the server reports it (pa_stream_get_latency: the age
 * of the first unread sample); the following chunks are stamped by counting
 * samples from there, and the count is re-anchored to the measured time when
 * the two differ by more than AUDIO_CAPTURE_MAX_DRIFT_NS (a server that
 * delivered nothing for a while, or a clock that drifts; the difference is
 * smoothed over about 160 ms first, so that jitter moves nothing): the consumer sees
 * the jump in pts and fills the gap with silence, or drops the overlap. */
#define AUDIO_CAPTURE_MAX_DRIFT_NS 20000000

struct audio_capture;

struct audio_capture_stats {
	uint64_t chunks;     /* handed to the consumer */
	uint64_t frames;     /* sample frames in them */
	uint64_t reanchors;  /* times the sample count was re-anchored */
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

void audio_capture_get_stats(struct audio_capture *capture, struct audio_capture_stats *stats);

/* Stops the thread: no chunk is delivered after it returns. NULL is fine. */
void audio_capture_stop(struct audio_capture *capture);

#endif
