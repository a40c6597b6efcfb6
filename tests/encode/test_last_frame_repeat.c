/* VFR end of a still source: a last frame long before the stop is repeated
 * once, one frame period before it, so the video lasts as long as the
 * recording; a last frame close to the stop is not repeated. The repeat
 * is not counted in the commit-to-packet latency. */
#include <stdlib.h>

#include "synth.h"

struct end {
	const char *name;
	const char *file;
	int64_t end_ms;
	int expected_frames;
	int64_t last_pts_ms;
};

static const struct end ends[] = {
	/* Stopped 3 s after a still picture: repeated at 2.9 s. */
	{ .name = "far", .file = "repeat-far.mkv", .end_ms = 3000, .expected_frames = 3,
	  .last_pts_ms = 2900 },
	/* Stopped 2 periods after it: not worth a frame, it lasts to the end. */
	{ .name = "near", .file = "repeat-near.mkv", .end_ms = 300, .expected_frames = 2,
	  .last_pts_ms = 100 },
};

/* 10 fps: a 100 ms frame period. */
TEST_P(stop_after_still, ends, const struct end *e)
{
	const char *name = e->file;
	int64_t end_ms = e->end_ms, last_pts_ms = e->last_pts_ms;
	int expected_frames = e->expected_frames;
	struct recorder_config config = synth_config(synth_path(name));
	config.fps = 10;
	const int64_t base = INT64_C(555000000000);
	int64_t pts[2] = {base, base + 100 * NS_PER_MS};
	struct recorder_stats stats;
	test_assert(synth_record(&config, 160, 120, 2, pts, base + end_ms * NS_PER_MS, &stats) == 0);

	struct decoded_video video;
	test_assert(media_decode_video(config.path, &video) == 0);
	printf("%s: %d frames, last at %lld us, duration %lld us\n", name, video.frame_count,
	       (long long)video.frames[video.frame_count - 1].pts_us,
	       (long long)video.duration_us);
	test_assert(video.frame_count == expected_frames);
	/* Commit to packet is timed for the two commits only: the repeat
	 * stands for none (its time is made up, and it is encoded after the
	 * stop, which is no latency of the frame path's). */
	test_assert(stats.latency_frames == 2);
	test_assert(llabs(video.frames[video.frame_count - 1].pts_us - last_pts_ms * 1000) <= 1000);
	test_assert(llabs(video.duration_us - end_ms * 1000) <= 2000);
	/* The repeat is the last picture, not anything else. */
	struct rgb_image expected;
	synth_expected(1, 160, 120, 160, 120, &expected);
	test_assert(media_psnr(&video.frames[video.frame_count - 1].image, &expected) >= 30.0);
	media_rgb_image_free(&expected);
	media_decoded_video_free(&video);
}
