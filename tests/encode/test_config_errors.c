/* Bad configurations fail in recorder_create() with no file left behind;
 * good codec params are accepted. */
#include <string.h>
#include <unistd.h>

#include "synth.h"

static void expect_refused_as(struct recorder_config config, const char *why,
			      enum recorder_error expected)
{
	fprintf(stderr, "expect refusal (%s):\n", why);
	enum recorder_error error = RECORDER_ERROR_NONE;
	struct recorder *recorder = recorder_create(&config, &error);
	if (recorder) {
		recorder_finish(recorder, 0, NULL);
		test_assert(!recorder, "accepted: %s", why);
	}
	test_assert(error == expected); /* decides exit status 2 (settings) or 1 (machine) */
	if (config.path && strcmp(config.path, "-") != 0)
		test_assert(access(config.path, F_OK) != 0); /* no stray output file */
}

static void expect_refused(struct recorder_config config, const char *why)
{
	expect_refused_as(config, why, RECORDER_ERROR_CONFIG);
}

TEST(refused)
{
	struct recorder_config config = synth_config(synth_path("a.webm"));
	expect_refused(config, "webm with libx264");

	config = synth_config(synth_path("a.avi"));
	expect_refused(config, "unknown extension");
	config = synth_config(synth_path("noextension"));
	expect_refused(config, "no extension");
	config = synth_config("/nonexistent-dir/a.mkv");
	expect_refused_as(config, "unwritable path", RECORDER_ERROR_RUNTIME);

	config = synth_config(synth_path("a.mkv"));
	config.codec = "nosuchcodec";
	expect_refused(config, "unknown codec");
	config.codec = "h264_vaapi";
	config.device = "/nonexistent/renderD128";
	expect_refused(config, "explicit VA-API without a device");
	config.device = NULL;
	expect_refused(config, "explicit VA-API, auto-detected device absent");

	const char *unknown_key[] = {"nosuchkey=1", NULL};
	config = synth_config(synth_path("b.mkv"));
	config.codec_params = unknown_key;
	expect_refused(config, "-p nosuchkey=1");
	config.codec = NULL; /* auto: a bad option is still an error, not a fallback */
	expect_refused(config, "-p nosuchkey=1 with codec auto");
	const char *no_value[] = {"preset", NULL};
	config.codec_params = no_value;
	expect_refused(config, "-p without =");
	const char *bad_value[] = {"crf=banana", NULL};
	config.codec_params = bad_value;
	expect_refused(config, "-p crf=banana");
	const char *bad_preset[] = {"preset=nosuchpreset", NULL};
	config.codec_params = bad_preset;
	expect_refused(config, "-p preset=nosuchpreset (caught by the probe open)");
}

/* Accepted params are applied and the file records. */
TEST(good_params_record)
{
	const char *good[] = {"preset=veryfast", "g=30", NULL};
	struct recorder_config config = synth_config(synth_path("c.mkv"));
	config.codec_params = good;
	int64_t pts[5];
	for (int i = 0; i < 5; i++)
		pts[i] = (int64_t)i * 20 * NS_PER_MS;
	test_assert(synth_record(&config, 160, 120, 5, pts, 100 * NS_PER_MS, NULL) == 0);
	struct decoded_video video;
	test_assert(media_decode_video(config.path, &video) == 0);
	test_assert(video.frame_count == 5);
	media_decoded_video_free(&video);
}

/* A recording that ends before any frame leaves no empty file. */
TEST(no_frame_no_file)
{
	struct recorder_config config = synth_config(synth_path("empty.mkv"));
	struct recorder *recorder = recorder_create(&config, NULL);
	test_assert(recorder);
	test_assert(access(config.path, F_OK) == 0); /* opened early */
	struct frame *picture = synth_frame(0, 64, 48, 0, 0);
	test_assert(!recorder_request_still(recorder, synth_path("never.png"), picture));
	synth_frame_free(picture);
	test_assert(recorder_finish(recorder, 0, NULL) < 0);
	test_assert(access(config.path, F_OK) != 0);
	test_assert(recorder_finish(NULL, 0, NULL) == 0);
}
