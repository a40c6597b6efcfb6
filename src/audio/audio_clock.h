#ifndef WL_RECORD_AUDIO_CLOCK_H
#define WL_RECORD_AUDIO_CLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The time of each audio chunk on CLOCK_MONOTONIC, from the sample count
 * re-anchored to the server's timing with a bounded correction.
 *
 * Each chunk comes with a reading: when the server says its first sample was
 * captured (the time it was read minus the latency the server reports). One
 * reading jitters by milliseconds (a late callback, the interpolation between
 * the server's timing updates); the sample count does not jitter but drifts
 * (the sound card's clock is not the system's: 100 ppm is 360 ms an hour).
 * So chunks are stamped by counting samples from an anchor, and the anchor
 * follows the readings slowly:
 *  - anchor: the median of the readings of the first
 *    AUDIO_CLOCK_START_READINGS chunks (each less the samples counted before
 *    it), or the first chunk's arrival when none of them was believed. The
 *    start ends with those chunks, whatever was believed: real PulseAudio's
 *    monitor reports most readings after their chunk arrived, and a start
 *    that waited for 8 believed ones lasted seconds, each new one moving
 *    the median, and the stamps with it, by milliseconds at once;
 *  - then the offset (reading minus count) of the last
 *    AUDIO_CLOCK_WINDOW readings is kept; when their median stays beyond
 *    AUDIO_CLOCK_SLEW_START_NS for AUDIO_CLOCK_SLEW_AFTER_NS, the anchor
 *    moves toward it, at each chunk by at most AUDIO_CLOCK_SLEW_PPM of the
 *    chunk's length (25 us for 10 ms), until the median is within
 *    AUDIO_CLOCK_SLEW_STOP_NS. The consumer (audio_track) follows the
 *    stamps by resampling, stretching or squeezing the sound by as much:
 *    0.25 % is 4 cents of pitch, inaudible, and 25 times a card's 100 ppm
 *    drift. A step is never a cut: the steps of 2 ms that were filled with
 *    silence or dropped, started by a 3 ms offset within the jitter of
 *    PulseAudio's latency reports, made holes in a steady tone (issue 30);
 *  - readings more than AUDIO_CLOCK_GAP_NS away for AUDIO_CLOCK_GAP_CONFIRM_NS
 *    of wall time (at least AUDIO_CLOCK_GAP_CONFIRM_READINGS of them, none
 *    back within AUDIO_CLOCK_GAP_NS / 2, each agreeing with its chunk's
 *    arrival) are a gap (a suspended source, a server that delivered
 *    nothing for a while): the anchor jumps to the last of them, and the
 *    consumer fills the gap with silence. The chunks read meanwhile keep
 *    the count: the silence comes that much later than the gap, but a
 *    jump that does not last is no hole. On a loaded machine one late
 *    read of ours gave a reading and an arrival both 40 to 90 ms late,
 *    for a burst of chunks read at once, then both on time again: taken
 *    at once as a gap, that put silence into a steady tone and dropped as
 *    much again when the readings came back (issue 30);
 *  - a reading is checked against when its chunk arrived (a sample is never
 *    read before it was captured, and arrives steadily): a reading after
 *    the chunk's arrival, a first reading more than
 *    AUDIO_CLOCK_START_MAX_LATENCY_NS before it, or a gap the arrival times
 *    do not show, is not believed. PulseAudio was seen reporting a monitor's
 *    latency as 589 ms, then frozen (falling one for one with the wall
 *    clock) for half a second while chunks arrived on time: taken as gaps,
 *    that turned a second of sound into silence.
 * Pure arithmetic on the times given: no clock is read here. */
#define AUDIO_CLOCK_START_READINGS 8
#define AUDIO_CLOCK_WINDOW 16
#define AUDIO_CLOCK_SLEW_START_NS 3000000
#define AUDIO_CLOCK_SLEW_STOP_NS 500000
#define AUDIO_CLOCK_SLEW_AFTER_NS 250000000
#define AUDIO_CLOCK_SLEW_PPM 2500
#define AUDIO_CLOCK_GAP_NS 40000000
#define AUDIO_CLOCK_GAP_CONFIRM_NS 150000000LL
#define AUDIO_CLOCK_GAP_CONFIRM_READINGS 4
#define AUDIO_CLOCK_FUTURE_TOLERANCE_NS 5000000
#define AUDIO_CLOCK_START_MAX_LATENCY_NS 250000000

struct audio_clock_stats {
	uint64_t gaps;       /* jumps of the anchor to a reading */
	uint64_t slews;      /* chunks whose time was moved by a slew step (soft) */
	int64_t slewed_ns;   /* the sum of the slew steps (signed) */
	int64_t last_offset_ns; /* median offset after the last chunk */
	uint64_t disbelieved;   /* readings the arrival times contradicted */
	uint64_t unconfirmed;   /* gaps the readings showed, then took back */
};

struct audio_clock {
	int rate;
	uint64_t frames;          /* counted since the anchor */
	int64_t anchor_ns;        /* time of the sample `frames` counts from */
	int start_chunks;         /* chunks stamped in the start */
	int start_count;          /* readings believed among them */
	int64_t start_readings[AUDIO_CLOCK_START_READINGS];
	int window_count, window_next;
	int64_t window[AUDIO_CLOCK_WINDOW]; /* offsets, reading minus count */
	bool beyond;              /* the median is past AUDIO_CLOCK_SLEW_START_NS */
	int64_t beyond_since_ns;
	bool slewing;
	/* A gap the readings show, not yet confirmed: since when (wall time),
	 * by how many readings, on which side (the readings ahead of the count). */
	bool gap_pending;
	int64_t gap_since_ns;
	int gap_readings;
	bool gap_ahead;
	struct audio_clock_stats stats;
};

void audio_clock_init(struct audio_clock *clock, int rate);

/* The time of a chunk of `frames` frames, the next of the stream. `reading_ns`:
 * when the server says its first frame was captured; `have_reading` false
 * when it said nothing (the count alone then). `now_ns`: when it was read
 * (times how long the offset has lasted). */
int64_t audio_clock_stamp(struct audio_clock *clock, bool have_reading, int64_t reading_ns,
			  int64_t now_ns, size_t frames);

#endif
