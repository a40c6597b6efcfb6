/* Solid colours survive the BGRX -> limited-range BT.709 -> RGB round trip:
 * a wrong matrix (BT.601) or range (full vs tv) moves them by 10-20 levels. */
#include <stdlib.h>
#include <string.h>

#include "synth.h"

static const uint8_t colors[][3] = {
	{255, 0, 0}, {0, 255, 0}, {0, 0, 255}, {255, 255, 255},
	{0, 0, 0}, {128, 128, 128}, {200, 150, 40}, {30, 90, 220},
};
#define COUNT ((int)(sizeof(colors) / sizeof(colors[0])))

TEST(solid_colors)
{
	struct recorder_config config = synth_config(synth_path("colors.mkv"));
	/* At the frames' own rate, so the end one interval after the last frame
	 * is no still picture to repeat (recorder_finish). */
	config.fps = 10;
	struct recorder *recorder = recorder_create(&config, NULL);
	test_assert(recorder);
	for (int i = 0; i < COUNT; i++) {
		struct frame *frame = synth_frame(0, 64, 64, 0, (int64_t)i * 100 * NS_PER_MS);
		for (int p = 0; p < 64 * 64; p++) {
			frame->data[p * 4 + 0] = colors[i][2];
			frame->data[p * 4 + 1] = colors[i][1];
			frame->data[p * 4 + 2] = colors[i][0];
		}
		test_assert(recorder_submit(recorder, frame));
		synth_frame_free(frame);
		struct recorder_stats stats;
		/* Let the thread take it: the queue holds 4 and we send 8. */
		do
			recorder_get_stats(recorder, &stats);
		while (stats.frames_encoded < (uint64_t)i + 1);
	}
	test_assert(recorder_finish(recorder, COUNT * 100 * NS_PER_MS, NULL) == 0);

	struct decoded_video video;
	test_assert(media_decode_video(config.path, &video) == 0);
	test_assert(video.frame_count == COUNT);
	for (int i = 0; i < COUNT; i++) {
		const uint8_t *center = video.frames[i].image.rgb + (32 * 64 + 32) * 3;
		printf("in %3d %3d %3d -> out %3d %3d %3d\n", colors[i][0], colors[i][1], colors[i][2],
		       center[0], center[1], center[2]);
		for (int c = 0; c < 3; c++)
			test_assert(abs((int)center[c] - (int)colors[i][c]) <= 4);
	}
	media_decoded_video_free(&video);
}
