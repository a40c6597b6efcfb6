/* unit-silence-watch: src/encode/silence_watch.c on made-up stereo sound.
 * A 440 Hz tone with a run of exact zeros cut into it must be found, at its
 * place and length, once; a tone alone (its zero crossings), a run shorter
 * than 2 ms, a pause longer than 100 ms, silence before any sound and a
 * run broken by a hole the server reported or a gap must not. The run may span the chunks it is fed in. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "silence_watch.h"
#include "test-runner.h"

#define RATE 48000
#define CHANNELS 2

struct hole {
	int64_t start, frames;
};
static struct hole holes[8];
static int hole_count;

static void on_hole(void *data, int64_t start, int64_t frames)
{
	(void)data;
	if (hole_count < 8)
		holes[hole_count] = (struct hole){ start, frames };
	hole_count++;
}

/* `frames` of a 440 Hz tone, with frames [cut_from, cut_from + cut) zeroed. */
static float *tone(size_t frames, int64_t cut_from, int64_t cut)
{
	float *s = malloc(frames * CHANNELS * sizeof(*s));
	for (size_t i = 0; i < frames; i++) {
		float v = 0.5f * (float)sin(2 * M_PI * 440.0 * (double)i / RATE);
		if ((int64_t)i >= cut_from && (int64_t)i < cut_from + cut)
			v = 0.0f;
		s[i * CHANNELS] = s[i * CHANNELS + 1] = v;
	}
	return s;
}

/* Feeds `s` in chunks of `chunk` frames from position `at`. */
static void feed(struct silence_watch *w, int64_t at, const float *s, size_t frames, size_t chunk)
{
	for (size_t done = 0; done < frames; done += chunk) {
		size_t n = frames - done < chunk ? frames - done : chunk;
		silence_watch_feed(w, at + (int64_t)done, s + done * CHANNELS, n, on_hole, NULL);
	}
}

static void reset(struct silence_watch *w)
{
	silence_watch_init(w, CHANNELS);
	hole_count = 0;
}

TEST(found)
{
	struct silence_watch w;
	reset(&w);
	/* 5 ms at 1.2345 s, fed in chunks of 480 frames that split it. */
	float *s = tone(RATE * 2, 59256, 240);
	feed(&w, 0, s, RATE * 2, 480);
	test_assert(hole_count == 1, "%d holes", hole_count);
	test_assert(holes[0].start == 59256 && holes[0].frames == 240,
		    "at %" PRId64 ", %" PRId64 " frames", holes[0].start, holes[0].frames);
	free(s);
}

TEST(placed)
{
	/* The position fed is the hole's: a stream fed from frame 1000000. */
	struct silence_watch w;
	reset(&w);
	float *s = tone(RATE, 4800, 480);
	feed(&w, 1000000, s, RATE, 360);
	test_assert(hole_count == 1 && holes[0].start == 1004800 && holes[0].frames == 480,
		    "%d holes, the first at %" PRId64, hole_count, holes[0].start);
	free(s);
}

TEST(not_holes)
{
	struct silence_watch w;
	const struct {
		const char *what;
		int64_t cut_from, cut;
	} cases[] = {
		{ "a tone alone", 0, 0 },
		{ "1.9 ms of zeros", 24000, 91 },
		{ "a pause of 150 ms", 24000, 7200 },
		{ "silence before the sound", 0, 4800 },
		{ "silence at the end", RATE - 480, 480 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		reset(&w);
		float *s = tone(RATE, cases[i].cut_from, cases[i].cut);
		feed(&w, 0, s, RATE, 480);
		printf("%s: %d holes\n", cases[i].what, hole_count);
		test_assert(hole_count == 0, "%s: %d holes", cases[i].what, hole_count);
		free(s);
	}
}

TEST(broken)
{
	/* A run that a reported hole or a gap splits is not one. */
	struct silence_watch w;
	reset(&w);
	float *s = tone(RATE, 24000 - 200, 400);
	feed(&w, 0, s, 24000, 480);
	silence_watch_break(&w);
	feed(&w, 24000, s + 24000 * CHANNELS, RATE - 24000, 480);
	test_assert(hole_count == 0, "across a break: %d holes", hole_count);
	/* Without the break, the same run is one. */
	reset(&w);
	feed(&w, 0, s, RATE, 480);
	test_assert(hole_count == 1, "without the break: %d holes", hole_count);
	free(s);
}
