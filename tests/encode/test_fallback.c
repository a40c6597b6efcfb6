/* Codec auto: an unusable VA-API device falls back to libx264 and records. */
#include <string.h>

#include "synth.h"

static void record_with_device(const char *device, const char *name)
{
	struct recorder_config config = synth_config(synth_path(name));
	config.codec = NULL;
	config.device = device;
	int64_t pts[4] = {0, 16 * NS_PER_MS, 33 * NS_PER_MS, 50 * NS_PER_MS};
	struct recorder_stats stats;
	CHECK(synth_record(&config, 160, 120, 4, pts, 66 * NS_PER_MS, &stats) == 0);
	printf("device %s -> %s\n", device ? device : "(auto)", stats.encoder);
	CHECK(strcmp(stats.encoder, "libx264") == 0);
	struct decoded_video video;
	CHECK(media_decode_video(config.path, &video) == 0);
	CHECK(video.frame_count == 4);
	CHECK(synth_min_psnr(&video, 160, 120) > 30);
	media_decoded_video_free(&video);
}

int main(void)
{
	record_with_device("/dev/null", "null.mkv");
	record_with_device("/nonexistent/renderD128", "missing.mkv");
	record_with_device(NULL, "auto.mkv"); /* no /dev/dri on this machine */
	return 0;
}
