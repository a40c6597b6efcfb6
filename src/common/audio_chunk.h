#ifndef WL_RECORD_AUDIO_CHUNK_H
#define WL_RECORD_AUDIO_CHUNK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What crosses from the audio capture (src/audio) to the recorder
 * (src/encode), which know nothing of each other: cmd/ connects them.
 * Samples are 48 kHz stereo, 32-bit float, interleaved (L R L R...). */
#define AUDIO_CHUNK_RATE 48000
#define AUDIO_CHUNK_CHANNELS 2

struct audio_chunk {
	const float *samples; /* frames * AUDIO_CHUNK_CHANNELS values */
	size_t frames;
	/* CLOCK_MONOTONIC time of the first frame (clock.h): the recording's
	 * clock, the one video frames are stamped on. */
	int64_t pts_ns;
	/* The server lost these frames (a hole in its stream): `samples` is
	 * silence in their place, a gap the recorder counts as one. */
	bool lost;
};

/* Called on the capture's own thread, for each chunk as it is read; the
 * samples are valid during the call only. Must not block for long. */
typedef void (*audio_chunk_fn)(void *data, const struct audio_chunk *chunk);

#endif
