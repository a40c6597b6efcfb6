#ifndef WL_RECORD_AUDIO_TRACK_H
#define WL_RECORD_AUDIO_TRACK_H

#include <stdbool.h>
#include <stdint.h>

#include "audio_chunk.h"
#include "muxer.h"

/* One audio stream of a recording, 48 kHz stereo, fed by one source or by
 * several mixed into it (--audio-mix). The encoder is the one the muxer's
 * container table names (muxer_audio_encoder()).
 *
 * audio_track_submit() is called on a capture's thread; it places the
 * chunk on that source's own sample clock by its pts (absolute
 * CLOCK_MONOTONIC sample index): a chunk more than AUDIO_TRACK_GAP_NS
 * later than the end of what came before leaves a gap that is filled with
 * silence, one as much earlier has its overlap dropped; within it, the
 * samples are appended and the offset is followed by resampling (a stretch
 * of at most 0.5 % over a second, libswresample's compensation), so that a
 * source whose stamps slowly follow the server's clock has no hole: a cut
 * is only for a real gap (the capture's clock jumps for one of 40 ms or
 * more; it follows otherwise at 0.25 %, audio_clock.h). It only copies under the
 * source's mutex: the encoding is done by audio_track_encode() on the
 * recorder's encoder thread, which owns the muxer. The track's time zero is
 * the first video frame's time. A gap older than half a second is filled
 * with silence as the encoding goes on (a silent or vanished source), not
 * only when the next chunk comes.
 *
 * Mixing: each source is placed on the same absolute timeline from the
 * same time zero, so the n-th sample of every source is the same instant;
 * the track encodes as far as every source has samples. A source that
 * stops delivering is silence from half a second ago on (the same bound),
 * so the mix waits at most that long for the slowest and never stalls. */
/* Less than the 10 ms chunk the capture asks for: a lost chunk is a gap
 * (filled with silence, counted); more than the 2.5 ms lag of the stretch
 * behind a clock that slews at 0.25 %. */
#define AUDIO_TRACK_GAP_NS 8000000
#define AUDIO_TRACK_MAX_SOURCES 8

struct audio_track;

struct audio_track_stats {
	uint64_t chunks;          /* submitted by this source */
	uint64_t frames_encoded;  /* sample frames the track gave to the encoder */
	uint64_t silence_frames;  /* of those, this source's silence filling gaps */
	uint64_t dropped_frames;  /* this source's overlapping, or too many waiting
				   * (not: before the first frame) */
};

/* Opens `encoder` (an FFmpeg encoder name) for `sources` sources (1: no
 * mixing) at `bitrate` bits per second (0: the default, 128k for Opus,
 * 160k for AAC; lossless codecs have none). Logs and returns NULL. */
struct audio_track *audio_track_create(const char *encoder, int64_t bitrate, bool global_header,
				       int sources);
/* Adds the track's stream to `muxer` (before muxer_start()); false when
 * the muxer holds no more. */
bool audio_track_attach(struct audio_track *track, struct muxer *muxer);
const char *audio_track_codec_name(const struct audio_track *track);

/* `source`: 0 to sources - 1. */
void audio_track_submit(struct audio_track *track, int source, const struct audio_chunk *chunk);

/* Encoder thread. Encodes what has arrived, placed from `origin_ns` (the
 * first video frame's time), up to `until_ns` (INT64_MAX: no limit; what is
 * after it waits, to be cut by audio_track_finish()), and writes the
 * packets to `muxer`. With `end_ns`, the end: pads with silence (or cuts)
 * to it and drains the encoder. Returns 0 or a negative AVERROR (logged). */
int audio_track_encode(struct audio_track *track, struct muxer *muxer, int64_t origin_ns,
		       int64_t until_ns);
int audio_track_finish(struct audio_track *track, struct muxer *muxer, int64_t origin_ns,
		       int64_t end_ns);

void audio_track_get_stats(struct audio_track *track, int source, struct audio_track_stats *stats);
void audio_track_destroy(struct audio_track *track);

#endif
