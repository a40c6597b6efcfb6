/* Odd sizes record without distortion: the last odd column/row is cropped. */
#include "synth.h"

struct odd_size {
	const char *name;
	int width, height;
	const char *file;
};

static const struct odd_size sizes[] = {
	{ .name = "641x479", .width = 641, .height = 479, .file = "odd1.mkv" },
	{ .name = "1366x767", .width = 1366, .height = 767, .file = "odd2.mp4" },
};

TEST_P(cropped_to_even, sizes, const struct odd_size *size)
{
	int width = size->width, height = size->height;
	struct recorder_config config = synth_config(synth_path(size->file));
	/* At the frames' own rate, so the end one interval after the last frame
	 * is no still picture to repeat (recorder_finish). */
	config.fps = 25;
	int64_t pts[6];
	for (int i = 0; i < 6; i++)
		pts[i] = (int64_t)i * 40 * NS_PER_MS;
	test_assert(synth_record(&config, width, height, 6, pts, 240 * NS_PER_MS, NULL) == 0);
	struct decoded_video video;
	test_assert(media_decode_video(config.path, &video) == 0);
	test_assert(video.frame_count == 6);
	test_assert(video.width == (width & ~1) && video.height == (height & ~1));
	/* Compared pixel for pixel with the uncropped part of the source: any
	 * scaling would blur the box edges and the gradients' phase. */
	double psnr = synth_min_psnr(&video, width, height);
	printf("%dx%d -> %dx%d, lowest PSNR %.2f dB\n", width, height, video.width, video.height, psnr);
	test_assert(psnr >= 35.0);
	media_decoded_video_free(&video);
}
