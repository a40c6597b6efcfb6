/* Records 90 synthetic 320x240 frames at irregular times into each
 * container (mkv, mp4, mov: one case each) and checks every decoded frame:
 * count, timestamps, picture quality, colour tags and the total duration. */
#include <math.h>
#include <string.h>
#include <sys/stat.h>

#include "synth.h"

#define W 320
#define H 240
#define COUNT 90
#define MIN_PSNR 35.0

static void copy_prefix(const char *from, const char *to, double fraction)
{
	FILE *in = fopen(from, "rb");
	test_assert(in);
	test_assert(fseek(in, 0, SEEK_END) == 0);
	long size = ftell(in);
	rewind(in);
	long keep = (long)((double)size * fraction);
	char *data = malloc((size_t)keep);
	test_assert(data && fread(data, 1, (size_t)keep, in) == (size_t)keep);
	fclose(in);
	FILE *out = fopen(to, "wb");
	test_assert(out && fwrite(data, 1, (size_t)keep, out) == (size_t)keep && fclose(out) == 0);
	free(data);
}

struct container {
	const char *name;      /* the file's extension */
	const char *format;    /* in the name of the format the file decodes as */
	bool fragmented;       /* a prefix of the file plays */
};

static const struct container containers[] = {
	{ .name = "mkv", .format = "matroska", .fragmented = false },
	{ .name = "mp4", .format = "mp4", .fragmented = true },
	{ .name = "mov", .format = "mp4", .fragmented = true },
};

TEST_P(round_trip, containers, const struct container *c)
{
	const char *ext = c->name;
	char name[64];
	snprintf(name, sizeof(name), "out.%s", ext);
	const char *path = synth_path(name);

	/* ~30 fps with jitter, and a long last frame (400 ms): repeated one
	 * 1/60 s period before the end (recorder_finish). */
	const int64_t base = INT64_C(5000000000000);
	int64_t pts[COUNT];
	for (int i = 0; i < COUNT; i++)
		pts[i] = base + (int64_t)i * 33333333 + (i % 3) * 4 * NS_PER_MS;
	int64_t end = pts[COUNT - 1] + 400 * NS_PER_MS;

	struct recorder_config config = synth_config(path);
	struct recorder_stats stats;
	test_assert(synth_record(&config, W, H, COUNT, pts, end, &stats) == 0);
	test_assert(strcmp(stats.encoder, "libx264") == 0);

	struct decoded_video video;
	test_assert(media_decode_video(path, &video) == 0);
	printf("%s: %s %s %s %s/%s %dx%d, %d frames, duration %lld us\n", path, video.container,
	       video.codec, video.pix_fmt, video.color_range, video.colorspace, video.width,
	       video.height, video.frame_count, (long long)video.duration_us);
	test_assert(video.frame_count == COUNT + 1);
	test_assert(strcmp(video.codec, "h264") == 0);
	test_assert(strcmp(video.pix_fmt, "yuv420p") == 0);
	test_assert(strcmp(video.color_range, "tv") == 0);
	test_assert(strcmp(video.colorspace, "smpte170m") == 0);
	test_assert(video.width == W && video.height == H);
	test_assert(strstr(video.container, c->format), "container %s", video.container);
	for (int i = 0; i < COUNT; i++) {
		int64_t want_us = (pts[i] - pts[0]) / 1000;
		test_assert(llabs(video.frames[i].pts_us - want_us) <= 1000,
			    "frame %d: pts %lld us, submitted %lld us", i,
			    (long long)video.frames[i].pts_us, (long long)want_us);
	}
	int64_t repeat_us = (end - pts[0]) / 1000 - 1000000 / 60;
	printf("repeat at %lld us, expected %lld us\n", (long long)video.frames[COUNT].pts_us,
	       (long long)repeat_us);
	test_assert(llabs(video.frames[COUNT].pts_us - repeat_us) <= 1000);
	struct rgb_image last;
	synth_expected(COUNT - 1, W, H, W, H, &last);
	test_assert(media_psnr(&video.frames[COUNT].image, &last) >= MIN_PSNR);
	media_rgb_image_free(&last);
	/* The rest of the checks are about the submitted frames. */
	media_rgb_image_free(&video.frames[COUNT].image);
	video.frame_count = COUNT;
	/* The video lasts until `end`: the container says so. */
	int64_t want_duration = (end - pts[0]) / 1000;
	printf("duration %lld us, expected %lld us\n", (long long)video.duration_us, (long long)want_duration);
	test_assert(llabs(video.duration_us - want_duration) <= 2000);

	double psnr = synth_min_psnr(&video, W, H);
	printf("lowest PSNR %.2f dB (threshold %.1f)\n", psnr, MIN_PSNR);
	test_assert(psnr >= MIN_PSNR);
	/* Frames are in order: frame 10 matches content 10 better than 11. */
	struct rgb_image other;
	synth_expected(11, W, H, W, H, &other);
	test_assert(media_psnr(&video.frames[10].image, &other) < psnr);
	media_rgb_image_free(&other);
	media_decoded_video_free(&video);

	if (c->fragmented) {
		/* Fragmented: a file cut at 70% (as by a crash) still plays. */
		char cut_name[64];
		snprintf(cut_name, sizeof(cut_name), "cut.%s", ext);
		const char *cut = synth_path(cut_name);
		copy_prefix(path, cut, 0.7);
		test_assert(media_decode_video(cut, &video) == 0);
		printf("truncated at 70%%: %d frames decode\n", video.frame_count);
		test_assert(video.frame_count >= 20);
		test_assert(synth_min_psnr(&video, W, H) >= MIN_PSNR);
		media_decoded_video_free(&video);
	}
}
