#include "audio_clock.h"

#include <stdlib.h>
#include <string.h>

void audio_clock_init(struct audio_clock *clock, int rate)
{
	memset(clock, 0, sizeof(*clock));
	clock->rate = rate;
}

static int compare_ns(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static int64_t median(const int64_t *values, int count)
{
	int64_t sorted[AUDIO_CLOCK_WINDOW > AUDIO_CLOCK_START_READINGS ? AUDIO_CLOCK_WINDOW
								       : AUDIO_CLOCK_START_READINGS];
	memcpy(sorted, values, (size_t)count * sizeof(*values));
	qsort(sorted, (size_t)count, sizeof(*sorted), compare_ns);
	return count % 2 ? sorted[count / 2] : (sorted[count / 2 - 1] + sorted[count / 2]) / 2;
}

static int64_t counted_ns(const struct audio_clock *clock)
{
	return clock->anchor_ns + (int64_t)(clock->frames * 1000000000ull / (uint64_t)clock->rate);
}

/* Moves the anchor by `ns`; the kept offsets are against the new anchor. */
static void move_anchor(struct audio_clock *clock, int64_t ns)
{
	clock->anchor_ns += ns;
	for (int i = 0; i < clock->window_count; i++)
		clock->window[i] -= ns;
}

static int64_t frames_ns(const struct audio_clock *clock, size_t frames)
{
	return (int64_t)(frames * 1000000000ull / (uint64_t)clock->rate);
}

/* A gap the readings showed and then took back (see audio_clock.h). */
static void drop_pending_gap(struct audio_clock *clock)
{
	if (clock->gap_pending)
		clock->stats.unconfirmed++;
	clock->gap_pending = false;
}

static void follow(struct audio_clock *clock, int64_t reading_ns, int64_t now_ns,
		   int64_t arrival_ns, size_t frames)
{
	int64_t counted = counted_ns(clock);
	int64_t offset = reading_ns - counted;
	/* How much later than its count says the chunk's first sample arrived:
	 * the latency when the count is right; a gap of missing samples adds
	 * itself to it, a count running ahead makes it negative. */
	int64_t late = arrival_ns - counted;
	bool beyond_gap = offset > AUDIO_CLOCK_GAP_NS || offset < -AUDIO_CLOCK_GAP_NS;
	/* A pending gap lasts while its readings stay past half the threshold
	 * on its side; the first one nearer takes it back. */
	bool holds_gap = clock->gap_pending && (clock->gap_ahead ? offset > AUDIO_CLOCK_GAP_NS / 2
								  : offset < -AUDIO_CLOCK_GAP_NS / 2);
	if (beyond_gap || holds_gap) {
		bool arrival_agrees = offset > 0 ? late >= offset / 2 : late <= offset / 2;
		if (!arrival_agrees) {
			clock->stats.disbelieved++;
			drop_pending_gap(clock);
			return;
		}
		if (!holds_gap) {
			drop_pending_gap(clock);
			clock->gap_pending = true;
			clock->gap_since_ns = now_ns;
			clock->gap_readings = 0;
			clock->gap_ahead = offset > 0;
		}
		clock->gap_readings++;
		if (now_ns - clock->gap_since_ns < AUDIO_CLOCK_GAP_CONFIRM_NS ||
		    clock->gap_readings < AUDIO_CLOCK_GAP_CONFIRM_READINGS)
			return;
		clock->gap_pending = false;
		move_anchor(clock, offset);
		clock->window_count = clock->window_next = 0;
		clock->beyond = clock->slewing = false;
		clock->stats.gaps++;
		clock->stats.last_offset_ns = 0;
		return;
	}
	drop_pending_gap(clock);
	clock->window[clock->window_next] = offset;
	clock->window_next = (clock->window_next + 1) % AUDIO_CLOCK_WINDOW;
	if (clock->window_count < AUDIO_CLOCK_WINDOW)
		clock->window_count++;
	if (clock->window_count < AUDIO_CLOCK_WINDOW / 2)
		return;
	int64_t typical = median(clock->window, clock->window_count);
	clock->stats.last_offset_ns = typical;
	int64_t size = typical < 0 ? -typical : typical;
	if (size > AUDIO_CLOCK_SLEW_START_NS) {
		if (!clock->beyond)
			clock->beyond_since_ns = now_ns;
		clock->beyond = true;
		if (now_ns - clock->beyond_since_ns >= AUDIO_CLOCK_SLEW_AFTER_NS)
			clock->slewing = true;
	} else {
		clock->beyond = false;
	}
	if (clock->slewing && size <= AUDIO_CLOCK_SLEW_STOP_NS)
		clock->slewing = false;
	if (!clock->slewing)
		return;
	/* At most AUDIO_CLOCK_SLEW_PPM of the chunk: a rate, not a jump. */
	int64_t limit = frames_ns(clock, frames) * AUDIO_CLOCK_SLEW_PPM / 1000000;
	int64_t step = typical > limit ? limit : typical < -limit ? -limit : typical;
	move_anchor(clock, step);
	clock->stats.slews++;
	clock->stats.slewed_ns += step;
	clock->stats.last_offset_ns = typical - step;
}

int64_t audio_clock_stamp(struct audio_clock *clock, bool have_reading, int64_t reading_ns,
			  int64_t now_ns, size_t frames)
{
	/* The latest its first frame can have been captured: a reading after
	 * that is not believed, nor a first one too long before it. */
	int64_t arrival = now_ns - frames_ns(clock, frames);
	if (have_reading && reading_ns > arrival + AUDIO_CLOCK_FUTURE_TOLERANCE_NS) {
		clock->stats.disbelieved++;
		have_reading = false;
	}
	if (clock->start_chunks < AUDIO_CLOCK_START_READINGS) {
		clock->start_chunks++;
		/* Until the anchor is set, each chunk is stamped from the median
		 * of the readings so far (the first from its own reading, or
		 * from its arrival when the server said nothing believable). */
		if (have_reading && reading_ns < arrival - AUDIO_CLOCK_START_MAX_LATENCY_NS) {
			clock->stats.disbelieved++;
			have_reading = false;
		}
		if (have_reading || clock->start_count == 0) {
			int64_t reading = have_reading ? reading_ns : arrival;
			clock->start_readings[clock->start_count++] =
				reading - frames_ns(clock, clock->frames);
			clock->anchor_ns = median(clock->start_readings, clock->start_count);
		}
	} else if (have_reading) {
		follow(clock, reading_ns, now_ns, arrival, frames);
	}
	int64_t pts = counted_ns(clock);
	clock->frames += frames;
	return pts;
}
