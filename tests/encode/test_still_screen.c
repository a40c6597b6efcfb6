/* A still screen's picture reaches the file while the recording runs: the
 * muxer holds each packet until the next one gives its duration, and a
 * still screen sends no next one. One frame is submitted, and the file is
 * decoded (as any reader would, while it is being written) until it shows
 * that frame: it must, before the recording is stopped. A later frame
 * then keeps its own time (the MP4 fragment after the early write is
 * marked discontinuous), and the stop's repeat ends the file at the stop.
 * With sound too: the audio interleaved with the video is written with the
 * picture and the track stays whole. */
#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "clock.h"
#include "synth.h"

#define W 160
#define H 120
/* How long the test waits for the picture: a bound for a loaded machine,
 * not a measurement (the recorder writes it 250 ms after it came). */
#define WAIT_MS 20000

struct container {
	const char *name;      /* the case */
	const char *extension;
	bool sound;            /* 3 s of a tone beside the picture */
};

static const struct container containers[] = {
	{ .name = "mkv", .extension = "mkv" },
	{ .name = "mp4", .extension = "mp4" },
	{ .name = "mkv-with-sound", .extension = "mkv", .sound = true },
	{ .name = "mp4-with-sound", .extension = "mp4", .sound = true },
};

#define CHUNK_FRAMES (AUDIO_CHUNK_RATE / 100)

/* 10 ms chunks of a 440 Hz tone from `from_ns` for `ms`. */
static void submit_tone(struct recorder *recorder, int64_t from_ns, int ms)
{
	static float samples[CHUNK_FRAMES * AUDIO_CHUNK_CHANNELS];
	for (int k = 0; k < ms / 10; k++) {
		for (int i = 0; i < CHUNK_FRAMES; i++)
			samples[2 * i] = samples[2 * i + 1] =
				0.3f * sinf(2.0f * (float)M_PI * 440.0f *
					    (float)(k * CHUNK_FRAMES + i) / AUDIO_CHUNK_RATE);
		struct audio_chunk chunk = { .samples = samples, .frames = CHUNK_FRAMES,
					     .pts_ns = from_ns + k * 10 * NS_PER_MS };
		recorder_submit_audio(recorder, 0, &chunk);
	}
}

/* The frames the file being written holds now (0 while it has none or
 * cannot be read yet). */
static int frames_in_file(const char *path)
{
	struct decoded_video video;
	if (media_decode_video(path, &video) < 0)
		return 0;
	int count = video.frame_count;
	media_decoded_video_free(&video);
	return count;
}

TEST_P(picture_in_file, containers, const struct container *c)
{
	char name[64];
	snprintf(name, sizeof(name), "still-%s.%s", c->name, c->extension);
	struct recorder_config config = synth_config(synth_path(name));
	config.audio_sources = c->sound ? 1 : 0;
	struct recorder *recorder = recorder_create(&config, NULL);
	test_assert(recorder);

	/* In the future: no gap in the sound is overdue while the test runs. */
	const int64_t base = clock_now_ns() + 60 * INT64_C(1000000000);
	if (c->sound)
		submit_tone(recorder, base, 3000);
	synth_submit(recorder, 0, W, H, base);
	int frames = 0;
	for (int waited = 0; waited < WAIT_MS && frames == 0; waited += 20) {
		nanosleep(&(struct timespec){0, 20 * NS_PER_MS}, NULL);
		frames = frames_in_file(config.path);
	}
	printf("%s: %d frame(s) in the file while recording\n", name, frames);
	test_assert(frames == 1);
	test_assert(!recorder_failed(recorder));

	/* The screen changes 2 s after the still picture, and the recording
	 * stops 1 s later. */
	synth_submit(recorder, 1, W, H, base + 2000 * NS_PER_MS);
	struct recorder_stats stats;
	test_assert(recorder_finish(recorder, base + 3000 * NS_PER_MS, &stats) == 0);
	test_assert(stats.latency_frames == 2);

	struct decoded_video video;
	test_assert(media_decode_video(config.path, &video) == 0);
	for (int i = 0; i < video.frame_count; i++)
		printf("  frame %d at %lld us\n", i, (long long)video.frames[i].pts_us);
	printf("  duration %lld us\n", (long long)video.duration_us);
	/* Both pictures at their own times, then the stop's repeat one 1/60 s
	 * period before the stop. With sound, the containers move the video a
	 * little, as they do without an early write (measured): Matroska all
	 * of it by 7 ms (Opus's pre-skip), MP4 all but the first picture by
	 * 21.3 ms (AAC's priming, added to the first picture's duration). */
	int64_t shift = c->sound ? 22000 : 1000;
	test_assert(video.frame_count == 3);
	int64_t first = video.frames[0].pts_us;
	test_assert(llabs(first) <= shift);
	test_assert(llabs(video.frames[1].pts_us - first - 2000000) <= shift);
	test_assert(llabs(video.frames[2].pts_us - video.frames[1].pts_us - 983333) <= 1000);
	test_assert(llabs(video.duration_us - first - 3000000) <= shift + 1000);
	for (int i = 0; i < video.frame_count; i++) {
		struct rgb_image expected;
		synth_expected(i == 0 ? 0 : 1, W, H, W, H, &expected);
		test_assert(media_psnr(&video.frames[i].image, &expected) >= 30.0);
		media_rgb_image_free(&expected);
	}
	media_decoded_video_free(&video);
	if (!c->sound)
		return;
	/* The whole tone, once: 3 s, less nothing, doubled nowhere (AAC's
	 * decoder adds its 1024 frames of priming and the last frame's rest). */
	struct decoded_audio audio;
	test_assert(media_decode_audio(config.path, &audio) == 0);
	printf("  audio: %s, %lld frames\n", audio.codec, (long long)audio.frames);
	test_assert(audio.frames >= 3 * AUDIO_CHUNK_RATE && audio.frames <= 3 * AUDIO_CHUNK_RATE + 2048);
	test_assert(stats.audio_silence_frames == 0 && stats.audio_dropped_frames == 0);
	media_decoded_audio_free(&audio);
}
