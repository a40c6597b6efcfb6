/* With queue_depth 1 a burst of submits never blocks: the newest frames are
 * refused and counted, and every accepted frame is in the file. */
#include <time.h>

#include "synth.h"

TEST(burst_never_blocks)
{
	struct recorder_config config = synth_config(synth_path("burst.mkv"));
	config.queue_depth = 1;
	struct recorder *recorder = recorder_create(&config, NULL);
	test_assert(recorder);
	const int burst = 60;
	struct frame *frames[60];
	for (int i = 0; i < burst; i++)
		frames[i] = synth_frame(i, 320, 240, 0, (int64_t)i * 5 * NS_PER_MS);
	struct timespec start, stop;
	clock_gettime(CLOCK_MONOTONIC, &start);
	int accepted = 0;
	for (int i = 0; i < burst; i++)
		accepted += recorder_submit(recorder, frames[i]);
	clock_gettime(CLOCK_MONOTONIC, &stop);
	double elapsed_ms = (double)(stop.tv_sec - start.tv_sec) * 1e3 + (double)(stop.tv_nsec - start.tv_nsec) / 1e6;
	struct recorder_stats stats;
	recorder_get_stats(recorder, &stats);
	printf("burst of %d in %.2f ms: %d accepted, %llu dropped\n", burst, elapsed_ms, accepted,
	       (unsigned long long)stats.frames_dropped);
	test_assert(stats.frames_submitted == (uint64_t)burst);
	test_assert(stats.frames_dropped > 0);
	test_assert(stats.frames_dropped + (uint64_t)accepted == (uint64_t)burst);
	/* Ended at once (at or before the last frame): the last picture is not
	 * repeated, so the file holds exactly the accepted frames. */
	test_assert(recorder_finish(recorder, 0, NULL) == 0);
	for (int i = 0; i < burst; i++)
		synth_frame_free(frames[i]);

	struct decoded_video video;
	test_assert(media_decode_video(config.path, &video) == 0);
	test_assert(video.frame_count == accepted);
	media_decoded_video_free(&video);
}
