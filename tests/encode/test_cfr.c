/* --cfr at 10 fps: frames land on exact multiples of 100 ms, a 1 s gap is
 * filled by repeating the previous frame, and the last frame lasts to the end. */
#include <math.h>

#include "synth.h"

TEST(slots_and_gap)
{
	struct recorder_config config = synth_config(synth_path("cfr.mkv"));
	config.cfr = true;
	config.fps = 10;
	/* 0, 100, 200 ms, then nothing until 1200 and 1300 ms; end at 1500 ms. */
	const int64_t base = INT64_C(777000000000);
	int64_t pts[5] = {base, base + 100 * NS_PER_MS, base + 203 * NS_PER_MS,
			  base + 1198 * NS_PER_MS, base + 1300 * NS_PER_MS};
	struct recorder_stats stats;
	test_assert(synth_record(&config, 160, 120, 5, pts, base + 1500 * NS_PER_MS, &stats) == 0);

	struct decoded_video video;
	test_assert(media_decode_video(config.path, &video) == 0);
	printf("%d frames, duration %lld us\n", video.frame_count, (long long)video.duration_us);
	test_assert(video.frame_count == 15);
	test_assert(llabs(video.duration_us - 1500000) <= 2000);
	/* Which synthetic frame each 100 ms slot must show. */
	const int content[15] = {0, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 4, 4};
	for (int slot = 0; slot < 15; slot++) {
		test_assert(llabs(video.frames[slot].pts_us - slot * 100000) <= 1000);
		struct rgb_image expected;
		synth_expected(content[slot], 160, 120, 160, 120, &expected);
		double psnr = media_psnr(&video.frames[slot].image, &expected);
		media_rgb_image_free(&expected);
		printf("slot %d: pts %lld us, content %d, PSNR %.2f\n", slot,
		       (long long)video.frames[slot].pts_us, content[slot], psnr);
		test_assert(psnr >= 30.0);
		/* ...and it is that frame, not a neighbour. */
		for (int other = 0; other < 5; other++) {
			if (other == content[slot])
				continue;
			synth_expected(other, 160, 120, 160, 120, &expected);
			test_assert(media_psnr(&video.frames[slot].image, &expected) < psnr);
			media_rgb_image_free(&expected);
		}
	}
	media_decoded_video_free(&video);
}
