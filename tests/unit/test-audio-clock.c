/* unit-audio-clock: src/audio/audio_clock with made-up readings. A chunk of
 * 480 frames (10 ms) is captured at a true time; its reading is that time
 * plus noise; the stamp must stay within a bound of the true time:
 *  - steady: exact readings: stamps exact, nothing moved;
 *  - jitter: +-4 ms uniform noise and a 30 ms outlier every 5 s: stamps
 *    within 2 ms, no gap taken;
 *  - drift: the card's clock 100 ppm fast, then 100 ppm slow, for an hour
 *    each: stamps within 4.5 ms of the true time all along (the count alone
 *    would be 360 ms off), each step at most 0.25 % of the chunk (25 us);
 *  - gap: the source stops for 500 ms: counted as one gap once the
 *    readings held it for AUDIO_CLOCK_GAP_CONFIRM_NS, the stamp then its
 *    true time (within 1 ms), the chunks before stamped by the count;
 *  - late reader: every 2 s our read callback runs 80 ms late, reads the
 *    chunks queued meanwhile at once, and the server's readings for them
 *    are 80 ms late too (as seen on a loaded machine): no gap taken, no
 *    stamp moved, each such jump counted as taken back;
 *  - frozen: the readings stay at one value for 0.6 s while the chunks
 *    arrive on time: no gap taken, stamps within 3 ms;
 *  - unbelievable: after 2 true readings, each says its chunk was captured
 *    after it arrived (real PulseAudio's monitor of a null sink does, by
 *    about one chunk) but one in 150, 4 ms early: the anchor is
 *    set after the first chunks and moves only by slew steps (each new
 *    believed reading moved a median of the few believed so far by
 *    milliseconds at once, 8 ms in all within 1.4 s: a hole in the file). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "audio_clock.h"
#include "test-runner.h"

#define RATE 48000
#define CHUNK 480
#define SECOND 1000000000LL


/* Deterministic noise in [-1, 1). */
static double noise(uint64_t *state)
{
	*state = *state * 6364136223846793005ull + 1442695040888963407ull;
	return (double)(*state >> 11) / (double)(1ull << 52) - 1.0;
}

struct run {
	double ppm;          /* the card's clock: positive runs fast */
	double jitter_ns;    /* uniform, +- */
	int outlier_every;   /* chunks; 0: none */
	int64_t outlier_ns;
	int64_t seconds;
	int gap_at_chunk;    /* the source stops before this chunk; 0: never */
	int64_t gap_ns;
	int frozen_from, frozen_chunks; /* the readings stay at one value */
	int starve_every;    /* chunks; 0: never */
	int64_t starve_ns;   /* our reader that late, its readings as late */
	int future_from;     /* from this chunk (0: never) readings are late... */
	int64_t future_ns;   /* ...by this much, after their chunk's arrival */
	int believable_every; /* but one in this many is true less 4 ms */
};

struct result {
	int64_t worst_ns;    /* |stamp - truth| after the first second */
	int64_t worst_step_ns; /* |change of the stamp - chunk length| */
	int64_t after_gap_ns;  /* at the chunk the gap was taken */
	int64_t gap_taken_chunks; /* chunks after the gap before it was taken */
	struct audio_clock_stats stats;
};

static void simulate(const struct run *run, struct result *result)
{
	struct audio_clock clock;
	audio_clock_init(&clock, RATE);
	uint64_t state = 12345;
	int64_t start = 1000 * SECOND;
	double chunk_ns = (double)CHUNK * 1e9 / RATE / (1.0 + run->ppm * 1e-6);
	int64_t chunks = run->seconds * RATE / CHUNK;
	int64_t extra = 0, last = 0, starved_until = 0;
	*result = (struct result){ 0 };
	for (int64_t i = 0; i < chunks; i++) {
		if (run->gap_at_chunk && i == run->gap_at_chunk)
			extra += run->gap_ns;
		int64_t truth = start + (int64_t)((double)i * chunk_ns) + extra;
		int64_t reading = truth + (int64_t)(noise(&state) * run->jitter_ns);
		if (run->outlier_every && i % run->outlier_every == run->outlier_every - 1)
			reading += run->outlier_ns;
		/* The server's timing frozen (PulseAudio's monitor of a null sink
		 * was seen so: now minus latency constant while chunks arrive on
		 * time), then a jump back to the truth. */
		static int64_t frozen_reading;
		if (run->frozen_chunks && i == run->frozen_from)
			frozen_reading = reading;
		if (run->frozen_chunks && i > run->frozen_from &&
		    i < run->frozen_from + run->frozen_chunks)
			reading = frozen_reading;
		if (run->future_from && i >= run->future_from)
			reading = run->believable_every && i % run->believable_every == 0
					  ? reading - 4000000
					  : reading + run->future_ns;
		/* Read 15 ms after the capture (a 10 ms fragment, a late callback),
		 * or, starved, all at once when the reader runs again. */
		int64_t read_at = truth + 15000000;
		if (run->starve_every && i % run->starve_every == 0 && i > 0)
			starved_until = read_at + run->starve_ns;
		if (read_at < starved_until) {
			reading += starved_until - read_at;
			read_at = starved_until;
		}
		uint64_t gaps_before = clock.stats.gaps;
		int64_t stamp = audio_clock_stamp(&clock, true, reading, read_at, CHUNK);
		int64_t error = llabs(stamp - truth);
		bool gap_pending = run->gap_at_chunk && i >= run->gap_at_chunk && clock.stats.gaps == 0;
		if (truth - start > SECOND && error > result->worst_ns && !gap_pending)
			result->worst_ns = error;
		bool gap_taken = clock.stats.gaps != gaps_before;
		if (i > 0 && !gap_taken) {
			int64_t step = llabs(stamp - last - (int64_t)CHUNK * SECOND / RATE);
			if (i > AUDIO_CLOCK_START_READINGS && step > result->worst_step_ns)
				result->worst_step_ns = step;
		}
		if (gap_taken) {
			result->after_gap_ns = stamp - truth;
			result->gap_taken_chunks = i - run->gap_at_chunk;
		}
		last = stamp;
	}
	result->stats = clock.stats;
	printf("  worst %.2f ms, worst step %.2f ms, %" PRIu64 " gaps, %" PRIu64
	       " slews (%+.1f ms), after a gap %+.2f ms, %" PRIu64 " taken back\n",
	       (double)result->worst_ns / 1e6, (double)result->worst_step_ns / 1e6,
	       result->stats.gaps, result->stats.slews, (double)result->stats.slewed_ns / 1e6,
	       (double)result->after_gap_ns / 1e6, result->stats.unconfirmed);
}

TEST(steady)
{
	printf("steady\n");
	struct result r;
	simulate(&(struct run){ .seconds = 60 }, &r);
	test_assert(r.worst_ns <= 1000, "%" PRId64 " ns", r.worst_ns);
	test_assert(r.worst_step_ns <= 1000, "%" PRId64 " ns", r.worst_step_ns);
	test_assert(r.stats.gaps == 0 && r.stats.slews == 0, "moved");
}

TEST(jitter)
{
	printf("jitter\n");
	struct result r;
	simulate(&(struct run){ .seconds = 600, .jitter_ns = 4e6, .outlier_every = 500,
				.outlier_ns = 30000000 }, &r);
	test_assert(r.worst_ns <= 2000000, "%" PRId64 " ns", r.worst_ns);
	test_assert(r.stats.gaps == 0, "%" PRIu64 " gaps", r.stats.gaps);
}

TEST(drift)
{
	for (int sign = -1; sign <= 1; sign += 2) {
		printf("drift %+d ppm, an hour\n", sign * 100);
		struct result r;
		simulate(&(struct run){ .seconds = 3600, .ppm = sign * 100.0, .jitter_ns = 2e6 },
			 &r);
		test_assert(r.worst_ns <= 4500000, "%" PRId64 " ns", r.worst_ns);
		/* A rate, not a jump: 25 us for a chunk of 10 ms. */
		test_assert(r.worst_step_ns <=
				    CHUNK * SECOND / RATE * AUDIO_CLOCK_SLEW_PPM / 1000000 + 1000,
			    "%" PRId64 " ns", r.worst_step_ns);
		test_assert(r.stats.gaps == 0, "%" PRIu64 " gaps", r.stats.gaps);
		/* 360 ms corrected in the right direction. */
		test_assert(llabs(r.stats.slewed_ns + sign * 360000000LL) < 10000000, "slewed %" PRId64,
		      r.stats.slewed_ns);
	}
}

TEST(gap)
{
	printf("gap\n");
	struct result r;
	simulate(&(struct run){ .seconds = 20, .jitter_ns = 1e6, .gap_at_chunk = 500,
				.gap_ns = 500000000 }, &r);
	test_assert(r.stats.gaps == 1, "%" PRIu64 " gaps", r.stats.gaps);
	test_assert(llabs(r.after_gap_ns) <= 1000000, "%" PRId64 " ns", r.after_gap_ns);
	test_assert(r.worst_ns <= 2000000, "%" PRId64 " ns", r.worst_ns);
	/* Taken once confirmed: 150 ms of chunks, not many more. */
	int64_t confirm_chunks = AUDIO_CLOCK_GAP_CONFIRM_NS * RATE / CHUNK / SECOND;
	test_assert(r.gap_taken_chunks >= confirm_chunks && r.gap_taken_chunks <= confirm_chunks + 2,
		    "taken after %" PRId64 " chunks", r.gap_taken_chunks);
}

TEST(late_reader)
{
	printf("our reader 80 ms late every 2 s, the readings as late\n");
	struct result r;
	simulate(&(struct run){ .seconds = 60, .jitter_ns = 1e6, .starve_every = 200,
				.starve_ns = 80000000 }, &r);
	test_assert(r.stats.gaps == 0, "%" PRIu64 " gaps", r.stats.gaps);
	test_assert(r.worst_ns <= 2000000, "%" PRId64 " ns", r.worst_ns);
	test_assert(r.worst_step_ns <= 1000, "%" PRId64 " ns", r.worst_step_ns);
	/* The jumps were seen and taken back, not missed: 29 of them. */
	test_assert(r.stats.unconfirmed >= 25, "%" PRIu64 " taken back", r.stats.unconfirmed);
}

TEST(frozen)
{
	printf("frozen server timing for 0.6 s\n");
	struct result r;
	simulate(&(struct run){ .seconds = 20, .jitter_ns = 1e6, .frozen_from = 300,
				.frozen_chunks = 60 }, &r);
	test_assert(r.stats.gaps == 0, "%" PRIu64 " gaps", r.stats.gaps);
	test_assert(r.worst_ns <= 3000000, "%" PRId64 " ns", r.worst_ns);
	test_assert(r.stats.disbelieved > 0, "no reading disbelieved");
}

TEST(unbelievable)
{
	printf("readings after their chunk's arrival from the third, one in 150 believable\n");
	struct result r;
	simulate(&(struct run){ .seconds = 20, .jitter_ns = 3e5, .future_from = 2,
				.future_ns = 23000000, .believable_every = 150 }, &r);
	test_assert(r.stats.gaps == 0, "%" PRIu64 " gaps", r.stats.gaps);
	test_assert(r.stats.disbelieved > 1000, "%" PRIu64 " disbelieved", r.stats.disbelieved);
	/* A rate, not a jump, once the first chunks set the anchor. */
	test_assert(r.worst_step_ns <= CHUNK * SECOND / RATE * AUDIO_CLOCK_SLEW_PPM / 1000000 + 1000,
		    "a step of %" PRId64 " ns", r.worst_step_ns);
	test_assert(r.worst_ns <= 5000000, "%" PRId64 " ns", r.worst_ns);
}
