/* Codec auto: an unusable VA-API device falls back to libx264 and records. */
#include <string.h>

#include "synth.h"

struct device {
	const char *name;
	const char *path; /* NULL: auto-detected */
	const char *file;
};

static const struct device devices[] = {
	{ .name = "dev-null", .path = "/dev/null", .file = "null.mkv" },
	{ .name = "missing", .path = "/nonexistent/renderD128", .file = "missing.mkv" },
	{ .name = "auto", .path = NULL, .file = "auto.mkv" }, /* no /dev/dri on this machine */
};

TEST_P(falls_back_to_libx264, devices, const struct device *d)
{
	const char *device = d->path;
	struct recorder_config config = synth_config(synth_path(d->file));
	config.codec = NULL;
	config.device = device;
	int64_t pts[4] = {0, 16 * NS_PER_MS, 33 * NS_PER_MS, 50 * NS_PER_MS};
	struct recorder_stats stats;
	test_assert(synth_record(&config, 160, 120, 4, pts, 66 * NS_PER_MS, &stats) == 0);
	printf("device %s -> %s\n", device ? device : "(auto)", stats.encoder);
	test_assert(strcmp(stats.encoder, "libx264") == 0);
	struct decoded_video video;
	test_assert(media_decode_video(config.path, &video) == 0);
	test_assert(video.frame_count == 4);
	test_assert(synth_min_psnr(&video, 160, 120) > 30);
	media_decoded_video_free(&video);
}
