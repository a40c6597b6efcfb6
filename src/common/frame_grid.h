#ifndef WL_RECORD_FRAME_GRID_H
#define WL_RECORD_FRAME_GRID_H

#include <stdint.h>

/* The --fps grid: periods of `period_ns` starting at `origin_ns`
 * (CLOCK_MONOTONIC). The frame clock ticks on it (capture) and the pacer caps
 * frames to one per period of it (common), so both share this, not a clock. */
struct frame_grid {
	int64_t origin_ns;
	int64_t period_ns;
};

/* The index of the period that contains `time_ns` (-1 before the origin). */
static inline int64_t frame_grid_slot(const struct frame_grid *grid, int64_t time_ns)
{
	int64_t since = time_ns - grid->origin_ns;
	return since < 0 ? -1 : since / grid->period_ns;
}

static inline int64_t frame_grid_slot_start(const struct frame_grid *grid, int64_t slot)
{
	return grid->origin_ns + slot * grid->period_ns;
}

#endif
