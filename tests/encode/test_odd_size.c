/* Odd sizes record without distortion: the last odd column/row is cropped. */
#include "synth.h"

static void record_odd(int width, int height, const char *name)
{
	struct recorder_config config = synth_config(synth_path(name));
	/* At the frames' own rate, so the end one interval after the last frame
	 * is no still picture to repeat (recorder_finish). */
	config.fps = 25;
	int64_t pts[6];
	for (int i = 0; i < 6; i++)
		pts[i] = (int64_t)i * 40 * NS_PER_MS;
	CHECK(synth_record(&config, width, height, 6, pts, 240 * NS_PER_MS, NULL) == 0);
	struct decoded_video video;
	CHECK(media_decode_video(config.path, &video) == 0);
	CHECK(video.frame_count == 6);
	CHECK(video.width == (width & ~1) && video.height == (height & ~1));
	/* Compared pixel for pixel with the uncropped part of the source: any
	 * scaling would blur the box edges and the gradients' phase. */
	double psnr = synth_min_psnr(&video, width, height);
	printf("%dx%d -> %dx%d, lowest PSNR %.2f dB\n", width, height, video.width, video.height, psnr);
	CHECK(psnr >= 35.0);
	media_decoded_video_free(&video);
}

int main(void)
{
	record_odd(641, 479, "odd1.mkv");
	record_odd(1366, 767, "odd2.mp4");
	return 0;
}
