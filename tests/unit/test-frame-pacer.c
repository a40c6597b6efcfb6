/* The pacer between a frame source and the encoder (src/common/frame_pacer.h),
 * on the common library alone: one frame per --fps period judged by commit
 * time, a too-soon frame kept (locked) and replaced by a newer one (and
 * counted: the only frames that are offered and not recorded), and every
 * lock it took given back. */
#include <stdio.h>
#include <stdlib.h>

#include "clock.h"
#include "frame_pacer.h"
#include "test-runner.h"

#define PERIOD_NS 50000000 /* 20 fps: wide periods, robust on a busy machine */

static struct wl_record_buffer picture; /* every test frame's */
static int consumed;
static struct frame last; /* what the consumer got last */

static void picture_destroy(struct wl_record_buffer *buffer) {}
static const struct wl_record_buffer_impl impl = { .destroy = picture_destroy };

static struct wl_record_buffer *test_picture(void)
{
	if (!picture.impl)
		wl_record_buffer_init(&picture, &impl, 64, 64, 0);
	return &picture;
}

/* The locks the pacer holds on the test picture. */
static int locks(void)
{
	return atomic_load(&test_picture()->locks);
}

static bool consume(void *data, const struct frame *frame)
{
	consumed++;
	last = *frame;
	return true;
}

static struct frame frame_at(int64_t pts_ns, int x)
{
	return (struct frame){ .width = 64, .height = 64, .stride = 256, .pts_ns = pts_ns,
			       .damage_known = true, .damage = { x, 0, x + 1, 1 },
			       .buffer = test_picture() };
}

static void run_until(struct wl_event_loop *loop, int64_t until_ns)
{
	while (clock_now_ns() < until_ns)
		wl_event_loop_dispatch(loop, 1);
}

/* One frame per period judged by commit time; a too-soon frame kept by
 * reference, replaced by a newer one or handed on when its period ends. */
TEST(commit_time_slots)
{
	struct wl_event_loop *loop = wl_event_loop_create();
	test_assert(loop);
	/* Start just after a period boundary, so the steps below stay in it. */
	struct frame_grid grid = { .origin_ns = clock_now_ns() + 1000000, .period_ns = PERIOD_NS };
	struct frame_pacer pacer;
	test_assert(frame_pacer_init(&pacer, loop, &grid, consume, NULL));
	run_until(loop, grid.origin_ns);
	int64_t slot0 = frame_grid_slot_start(&grid, 0);

	/* A free period: on at once, nothing kept. */
	struct frame a = frame_at(slot0 + 1000, 10);
	frame_pacer_offer(&pacer, &a);
	test_assert(consumed == 1 && last.damage.x1 == 10 && locks() == 0);

	/* Too soon (same period): kept by reference, not handed on. */
	struct frame b = frame_at(slot0 + 2000, 20);
	frame_pacer_offer(&pacer, &b);
	test_assert(consumed == 1 && locks() == 1);

	/* A commit in the next period goes on at once (the old pacer held it
	 * back a whole period once a frame had been late), carrying the damage
	 * of the replaced one; the kept reference is dropped. */
	run_until(loop, frame_grid_slot_start(&grid, 1) + 1000000);
	test_assert(consumed == 1); /* b's period (1) is not over: it still may be replaced */
	struct frame c = frame_at(clock_now_ns(), 30);
	frame_pacer_offer(&pacer, &c);
	test_assert(consumed == 2 && last.pts_ns == c.pts_ns);
	test_assert(last.damage.x1 == 20 && last.damage.x2 == 31);
	test_assert(locks() == 0);
	test_assert(pacer.replaced == 1); /* b */

	/* Too soon again, and nothing newer: it goes on when the period it
	 * stands for (2) ends, and its reference is given back. */
	struct frame d = frame_at(clock_now_ns(), 40);
	frame_pacer_offer(&pacer, &d);
	test_assert(consumed == 2 && locks() == 1);
	run_until(loop, frame_grid_slot_start(&grid, 3) + 5000000);
	test_assert(consumed == 3 && last.pts_ns == d.pts_ns && locks() == 0);
	test_assert(pacer.replaced == 1); /* d went on: not replaced */

	/* A pending frame is dropped, unreferenced, when the pacer finishes. */
	struct frame e = frame_at(clock_now_ns(), 50);
	struct frame f = frame_at(clock_now_ns(), 60);
	frame_pacer_offer(&pacer, &e);
	frame_pacer_offer(&pacer, &f);
	test_assert(locks() == 1);
	test_assert(pacer.replaced == 1); /* e went on (a new period), f waits */
	frame_pacer_finish(&pacer);
	test_assert(locks() == 0);
	wl_event_loop_destroy(loop);
}

TEST(repeat)
{
	struct wl_event_loop *loop = wl_event_loop_create();
	test_assert(loop);
	struct frame_pacer pacer;

	/* Repeat (--frames): one still picture becomes one frame per period,
	 * each at its period's start with nothing damaged, until a new one
	 * comes; the last picture is kept by reference and given back. */
	struct frame_grid repeat_grid = { .origin_ns = clock_now_ns() + 1000000,
					  .period_ns = PERIOD_NS };
	test_assert(frame_pacer_init(&pacer, loop, &repeat_grid, consume, NULL));
	frame_pacer_set_repeat(&pacer, true);
	run_until(loop, repeat_grid.origin_ns);
	consumed = 0;
	struct frame still = frame_at(clock_now_ns(), 70);
	frame_pacer_offer(&pacer, &still);
	test_assert(consumed == 1 && locks() == 1);
	/* Periods 1 and 2 have ended by the middle of period 3. */
	run_until(loop, frame_grid_slot_start(&repeat_grid, 3) + PERIOD_NS / 2);
	test_assert(consumed == 3);
	test_assert(last.pts_ns == frame_grid_slot_start(&repeat_grid, 2));
	test_assert(last.damage_known && last.damage.x2 <= last.damage.x1);
	test_assert(locks() == 1);
	/* A new picture in period 3 goes on at once, with its own damage. */
	struct frame moved = frame_at(clock_now_ns(), 80);
	frame_pacer_offer(&pacer, &moved);
	test_assert(consumed == 4 && last.pts_ns == moved.pts_ns && last.damage.x1 == 80);
	test_assert(locks() == 1);
	test_assert(pacer.replaced == 0); /* repeats replace nothing */
	frame_pacer_finish(&pacer);
	test_assert(locks() == 0);
	wl_event_loop_destroy(loop);
}
