/* The pacer in front of the encoder (src/common/frame_pacer.h) with a source
 * at the --fps rate whose commits sit just before the grid's period
 * boundaries, as sway's 60 Hz output does against the 60 fps grid: a commit
 * whose period has had its frame but that came in the period's last eighth
 * stands for the next period and goes on at once, and so does the next one
 * (committed in the period its predecessor stood for). Before, each was held
 * a whole period, one after another. The cap still holds: a commit early in
 * a period that has had its frame waits. Commit times are made up and no
 * timer is run: the checks are on what was handed on by each offer. */
#include "frame_pacer.h"
#include "synth.h"

#define PERIOD_NS (50 * NS_PER_MS)

static int consumed;
static int64_t last_pts;

static bool consume(void *data, const struct frame *frame)
{
	consumed++;
	last_pts = frame->pts_ns;
	return true;
}

static void offer_at(struct frame_pacer *pacer, int64_t pts_ns)
{
	struct frame frame = { .width = 64, .height = 64, .stride = 256, .pts_ns = pts_ns };
	frame_pacer_offer(pacer, &frame);
}

TEST(commits_before_boundaries)
{
	struct wl_event_loop *loop = wl_event_loop_create();
	test_assert(loop);
	const struct frame_grid grid = { .origin_ns = INT64_C(1000000000), .period_ns = PERIOD_NS };
	struct frame_pacer pacer;
	test_assert(frame_pacer_init(&pacer, loop, &grid, consume, NULL));
	int64_t slot1 = frame_grid_slot_start(&grid, 1), slot2 = frame_grid_slot_start(&grid, 2);

	/* Period 0's frame. */
	offer_at(&pacer, grid.origin_ns + NS_PER_MS);
	test_assert(consumed == 1);
	/* Committed in period 0 too, 2 ms before period 1: on at once, for
	 * period 1. */
	offer_at(&pacer, slot1 - 2 * NS_PER_MS);
	test_assert(consumed == 2 && last_pts == slot1 - 2 * NS_PER_MS);
	test_assert(!pacer.pending);
	/* Committed in period 1, which that frame stands for, 2 ms before
	 * period 2: on at once too. */
	offer_at(&pacer, slot2 - 2 * NS_PER_MS);
	test_assert(consumed == 3 && last_pts == slot2 - 2 * NS_PER_MS);
	test_assert(!pacer.pending);
	/* Early in period 2, which has had its frame: kept for period 3. */
	offer_at(&pacer, slot2 + 10 * NS_PER_MS);
	test_assert(consumed == 3 && pacer.pending);
	test_assert(pacer.replaced == 0);
	frame_pacer_finish(&pacer);
	wl_event_loop_destroy(loop);
}
