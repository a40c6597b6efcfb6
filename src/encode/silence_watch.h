#ifndef WL_RECORD_SILENCE_WATCH_H
#define WL_RECORD_SILENCE_WATCH_H

#include <stddef.h>
#include <stdint.h>

/* Finds short runs of digital silence (every sample exactly 0) between
 * sounds in a stream of interleaved float frames: what a server writes for
 * one stream when it fills a quantum it lost (an hour's soak found two
 * ~5 ms holes in a file that the server's own sound did not have, and
 * wl-record had counted nothing: issue 30). Said with their place, such a
 * hole can be told from one of wl-record's own. A run shorter than
 * SILENCE_WATCH_MIN_FRAMES is a tone crossing zero; one longer than
 * SILENCE_WATCH_MAX_FRAMES is a pause in the sound, not a hole. Pure
 * arithmetic on the samples given. */
#define SILENCE_WATCH_MIN_FRAMES 96   /* 2 ms at 48 kHz */
#define SILENCE_WATCH_MAX_FRAMES 4800 /* 100 ms */

struct silence_watch {
	int channels;
	int64_t run_start;  /* of the current run of silent frames */
	int64_t run_frames; /* 0: the last frame fed had sound */
	int sound_before;   /* a frame with sound came before the run */
};

/* A run of `frames` silent frames from frame index `start`, with sound on
 * both sides. */
typedef void (*silence_hole_fn)(void *data, int64_t start, int64_t frames);

void silence_watch_init(struct silence_watch *watch, int channels);

/* Feeds the next `frames` frames, the first at frame index `at` (where the
 * caller places them: the holes' places are said in it). They follow the
 * last frames fed unless silence_watch_break() came between. Calls `fn`
 * for each hole that ends in them. */
void silence_watch_feed(struct silence_watch *watch, int64_t at, const float *samples,
			size_t frames, silence_hole_fn fn, void *data);

/* What is between the last frames fed and the next is not known (a hole the
 * server reported, counted elsewhere): no run goes across it. */
void silence_watch_break(struct silence_watch *watch);

#endif
