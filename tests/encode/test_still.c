/* A still request during a recording writes the picture it is given
 * exactly, off the caller's thread, even when the caller frees its own copy
 * at once. */
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "synth.h"

TEST(written_exactly)
{
	struct recorder_config config = synth_config(synth_path("rec.mkv"));
	struct recorder *recorder = recorder_create(&config, NULL);
	test_assert(recorder);
	const char *still = synth_path("still.png");
	struct frame *first = synth_frame(0, 320, 240, 0, 0);
	test_assert(!recorder_request_still(recorder, still, first)); /* no frame yet */
	synth_frame_free(first);
	for (int i = 0; i < 5; i++) {
		struct frame *frame = synth_frame(i, 320, 240, 0, (int64_t)i * 30 * NS_PER_MS);
		while (!recorder_submit(recorder, frame))
			nanosleep(&(struct timespec){0, 2000000}, NULL);
		synth_frame_free(frame);
	}
	/* A padded stride, freed before the still is written. */
	struct frame *shown = synth_frame(3, 320, 240, 320 * 4 + 64, 150 * NS_PER_MS);
	test_assert(recorder_request_still(recorder, still, shown));
	synth_frame_free(shown);
	/* Written by the encoder thread, at the latest when the recording ends. */
	for (int i = 0; i < 200 && access(still, F_OK) != 0; i++)
		nanosleep(&(struct timespec){0, 10000000}, NULL);
	test_assert(recorder_finish(recorder, 200 * NS_PER_MS, NULL) == 0);

	struct rgb_image image;
	test_assert(media_read_png(still, &image) == 0);
	int match = -1;
	for (int i = 0; i < 5 && match < 0; i++) {
		struct rgb_image expected;
		synth_expected(i, 320, 240, 320, 240, &expected);
		if (image.width == 320 && image.height == 240 &&
		    memcmp(image.rgb, expected.rgb, 320 * 240 * 3) == 0)
			match = i;
		media_rgb_image_free(&expected);
	}
	printf("still shows frame %d\n", match);
	test_assert(match == 3);
	media_rgb_image_free(&image);
}
