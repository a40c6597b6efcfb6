#include "silence_watch.h"

#include <stdbool.h>

void silence_watch_init(struct silence_watch *watch, int channels)
{
	*watch = (struct silence_watch){ .channels = channels };
}

void silence_watch_break(struct silence_watch *watch)
{
	watch->run_frames = 0;
	watch->sound_before = 0;
}

void silence_watch_feed(struct silence_watch *watch, int64_t at, const float *samples,
			size_t frames, silence_hole_fn fn, void *data)
{
	for (size_t i = 0; i < frames; i++) {
		const float *frame = samples + i * (size_t)watch->channels;
		bool silent = true;
		for (int c = 0; c < watch->channels && silent; c++)
			silent = frame[c] == 0.0f;
		int64_t index = at + (int64_t)i;
		if (silent) {
			if (watch->run_frames++ == 0)
				watch->run_start = index;
			continue;
		}
		if (watch->sound_before && watch->run_frames >= SILENCE_WATCH_MIN_FRAMES &&
		    watch->run_frames <= SILENCE_WATCH_MAX_FRAMES)
			fn(data, watch->run_start, watch->run_frames);
		watch->run_frames = 0;
		watch->sound_before = 1;
	}
}
