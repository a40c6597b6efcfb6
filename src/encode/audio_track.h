#ifndef WL_RECORD_AUDIO_TRACK_H
#define WL_RECORD_AUDIO_TRACK_H

#include <stdbool.h>
#include <stdint.h>

#include "audio_chunk.h"
#include "muxer.h"

/* The audio stream of a recording: Opus (libopus) in Matroska/WebM, AAC
 * (FFmpeg's aac) in MP4/MOV, 48 kHz stereo.
 *
 * audio_track_submit() is called on the capture's thread; it places the
 * chunk on the recording's sample clock by its pts (absolute CLOCK_MONOTONIC
 * sample index): a chunk later than the end of what came before leaves a
 * gap that is filled with silence, an earlier one has its overlap dropped
 * (within AUDIO_TRACK_TOLERANCE of each other, samples are just appended:
 * the capture counts them). It only copies under a mutex: the encoding is
 * done by audio_track_encode() on the recorder's encoder thread, which owns
 * the muxer. The track's time zero is the first video frame's time. A gap
 * older than half a second is filled with silence as the encoding goes on
 * (a silent or vanished source), not only when the next chunk comes. */
#define AUDIO_TRACK_TOLERANCE_NS 2000000

struct audio_track;

struct audio_track_stats {
	uint64_t chunks;          /* submitted */
	uint64_t frames_encoded;  /* sample frames given to the encoder */
	uint64_t silence_frames;  /* of those, silence filling gaps (start, middle, end) */
	uint64_t dropped_frames;  /* overlapping, or too many waiting (not: before the first frame) */
};

/* Opens the encoder for the container of `path`; logs and returns NULL. */
struct audio_track *audio_track_create(const char *path, bool global_header);
const AVCodecContext *audio_track_context(const struct audio_track *track);
const char *audio_track_codec_name(const struct audio_track *track);

void audio_track_submit(struct audio_track *track, const struct audio_chunk *chunk);

/* Encoder thread. Encodes what has arrived, placed from `origin_ns` (the
 * first video frame's time), and writes the packets to `muxer`. With
 * `end_ns`, the end: pads with silence (or cuts) to it and drains the
 * encoder. Returns 0 or a negative AVERROR (logged). */
int audio_track_encode(struct audio_track *track, struct muxer *muxer, int64_t origin_ns);
int audio_track_finish(struct audio_track *track, struct muxer *muxer, int64_t origin_ns,
		       int64_t end_ns);

void audio_track_get_stats(struct audio_track *track, struct audio_track_stats *stats);
void audio_track_destroy(struct audio_track *track);

#endif
