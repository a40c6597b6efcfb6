/* Frames of another size mid-recording are scaled to the stream's size. */
#include "synth.h"

/* Gradients only: the same picture at any size, up to sampling. */
static struct frame *gradient_frame(int width, int height, int64_t pts_ns)
{
	struct frame *frame = synth_frame(0, width, height, 0, pts_ns);
	for (int y = 0; y < height; y++)
		for (int x = 0; x < width; x++) {
			uint8_t *p = frame->data + (size_t)y * frame->stride + (size_t)x * 4;
			p[0] = 128;
			p[1] = (uint8_t)((y * 2 + 1) * 255 / (height * 2));
			p[2] = (uint8_t)((x * 2 + 1) * 255 / (width * 2));
		}
	return frame;
}

TEST(scaled_to_stream)
{
	struct recorder_config config = synth_config(synth_path("resize.mkv"));
	/* At the frames' own rate, so the end one interval after the last frame
	 * is no still picture to repeat (recorder_finish). */
	config.fps = 25;
	struct recorder *recorder = recorder_create(&config, NULL);
	test_assert(recorder);
	const int sizes[][2] = {{320, 240}, {320, 240}, {640, 480}, {641, 479}, {160, 120}, {320, 240}};
	for (int i = 0; i < 6; i++) {
		struct frame *frame = gradient_frame(sizes[i][0], sizes[i][1], (int64_t)i * 40 * NS_PER_MS);
		while (!recorder_submit(recorder, frame))
			;
		synth_frame_free(frame);
	}
	test_assert(recorder_finish(recorder, 240 * NS_PER_MS, NULL) == 0);
	struct decoded_video video;
	test_assert(media_decode_video(config.path, &video) == 0);
	test_assert(video.frame_count == 6);
	test_assert(video.width == 320 && video.height == 240);
	/* Content 0 at any size is the same picture up to scaling. */
	struct rgb_image expected = {320, 240, malloc(320 * 240 * 3)};
	test_assert(expected.rgb);
	for (int y = 0; y < 240; y++)
		for (int x = 0; x < 320; x++) {
			uint8_t *p = expected.rgb + (y * 320 + x) * 3;
			p[0] = (uint8_t)((x * 2 + 1) * 255 / 640);
			p[1] = (uint8_t)((y * 2 + 1) * 255 / 480);
			p[2] = 128;
		}
	for (int i = 0; i < 6; i++) {
		double psnr = media_psnr(&video.frames[i].image, &expected);
		printf("frame %d (%dx%d): PSNR %.2f\n", i, sizes[i][0], sizes[i][1], psnr);
		test_assert(psnr >= 35.0);
	}
	media_rgb_image_free(&expected);
	media_decoded_video_free(&video);
}
