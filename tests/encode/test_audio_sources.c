/* Two sound sources (recorder_submit_audio's source 0 and 1), placed on the
 * same timeline: source 0 plays 0-1000 ms, source 1 from 500 ms to the end
 * (2000 ms), each chunk stamped by the recording's clock.
 *   two-sources/tracks: two Opus tracks in Matroska, in source order,
 *           titled with the sources' names; each source's silence counted
 *           on its own.
 *   two-sources/mix: one FLAC track (lossless, so the samples can be
 *           compared) that is the sum of both, sample-aligned, clipped at
 *           full scale.
 *   mix-stalled: --audio-mix where source 1 never delivers anything, in
 *           real time: the mixed track is encoded while the recording runs
 *           (source 1 is silence after half a second), not held back
 *           until the end.
 *   end:    audio that came beyond the end the caller announced
 *           (recorder_end_audio_at, before it waits for its last frames)
 *           is not encoded, so the track is cut where the video ends. */
#include <math.h>
#include <string.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>

#include "clock.h"
#include "synth.h"

#define RATE AUDIO_CHUNK_RATE
#define CHUNK_MS 10
#define CHUNK_FRAMES (RATE * CHUNK_MS / 1000)
/* Loud enough that the sum clips where both peak (0.6 + 0.6 > 1). */
#define LEVEL 0.6f

static float tone(float hz, int64_t i)
{
	return LEVEL * sinf(2.0f * (float)M_PI * hz * (float)(i % RATE) / RATE);
}

/* Chunks of `hz` on source `source` from `from_ms` to `to_ms` after `base`;
 * sample i of the source is tone(hz, i - from). */
static void submit_tone(struct recorder *recorder, int source, float hz, int64_t base,
			int from_ms, int to_ms)
{
	static float samples[CHUNK_FRAMES * AUDIO_CHUNK_CHANNELS];
	for (int ms = from_ms, k = 0; ms < to_ms; ms += CHUNK_MS, k++) {
		for (int i = 0; i < CHUNK_FRAMES; i++)
			samples[2 * i] = samples[2 * i + 1] = tone(hz, (int64_t)k * CHUNK_FRAMES + i);
		struct audio_chunk chunk = { .samples = samples, .frames = CHUNK_FRAMES,
					     .pts_ns = base + ms * NS_PER_MS };
		recorder_submit_audio(recorder, source, &chunk);
	}
}

static int64_t frames_of_ms(int64_t ms)
{
	return ms * RATE / 1000;
}

/* The mix as the recorder makes it, as 16-bit FLAC stores it. */
static int expected_sample(int64_t i)
{
	float sum = 0;
	if (i < frames_of_ms(1000))
		sum += tone(440, i);
	if (i >= frames_of_ms(500))
		sum += tone(880, i - frames_of_ms(500));
	sum = sum > 1.0f ? 1.0f : sum < -1.0f ? -1.0f : sum;
	return (int)lrintf(sum * 32767.0f);
}

/* Decodes the one audio stream (16-bit FLAC) and compares every sample. */
static void check_mix(AVFormatContext *format, int stream)
{
	const AVCodecParameters *par = format->streams[stream]->codecpar;
	const AVCodec *codec = avcodec_find_decoder(par->codec_id);
	test_assert(codec);
	AVCodecContext *decoder = avcodec_alloc_context3(codec);
	test_assert(decoder && avcodec_parameters_to_context(decoder, par) >= 0);
	test_assert(avcodec_open2(decoder, codec, NULL) == 0);
	AVPacket *packet = av_packet_alloc();
	AVFrame *frame = av_frame_alloc();
	int64_t index = 0, worst = 0, clipped = 0;
	bool draining = false;
	while (!draining) {
		int ret = av_read_frame(format, packet);
		if (ret < 0) {
			draining = true;
			test_assert(avcodec_send_packet(decoder, NULL) >= 0);
		} else if (packet->stream_index == stream) {
			test_assert(avcodec_send_packet(decoder, packet) >= 0);
		}
		av_packet_unref(packet);
		while (avcodec_receive_frame(decoder, frame) >= 0) {
			test_assert(frame->format == AV_SAMPLE_FMT_S16);
			const int16_t *data = (const int16_t *)frame->data[0];
			for (int i = 0; i < frame->nb_samples; i++, index++) {
				int want = expected_sample(index);
				for (int c = 0; c < 2; c++) {
					int64_t error = llabs((long long)(data[2 * i + c] - want));
					if (error > worst)
						worst = error;
				}
				clipped += want == 32767 || want == -32767;
			}
		}
	}
	printf("mix: %lld samples decoded, largest difference %lld, %lld clipped\n",
	       (long long)index, (long long)worst, (long long)clipped);
	test_assert(llabs((long long)(index - frames_of_ms(2000))) <= 2);
	test_assert(worst <= 2);
	test_assert(clipped > 0);
	av_frame_free(&frame);
	av_packet_free(&packet);
	avcodec_free_context(&decoder);
}

/* Source 0 plays for 1.5 s in real time, source 1 never; the mix must
 * not wait for it beyond the half second after which a gap is silence. */
TEST(mix_stalled)
{
	struct recorder_config config = synth_config(synth_path("stalled.mkv"));
	config.fps = 10;
	config.audio_sources = 2;
	config.audio_mix = true;
	struct recorder *recorder = recorder_create(&config, NULL);
	test_assert(recorder);
	const int64_t base = clock_now_ns();
	static float samples[CHUNK_FRAMES * AUDIO_CHUNK_CHANNELS];
	int frames = 0;
	for (int k = 0; k < 150; k++) {
		for (int i = 0; i < CHUNK_FRAMES; i++)
			samples[2 * i] = samples[2 * i + 1] = tone(440, (int64_t)k * CHUNK_FRAMES + i);
		int64_t pts = base + k * CHUNK_MS * NS_PER_MS;
		while (clock_now_ns() < pts)
			nanosleep(&(struct timespec){0, 1000000}, NULL);
		struct audio_chunk chunk = { .samples = samples, .frames = CHUNK_FRAMES,
					     .pts_ns = pts };
		recorder_submit_audio(recorder, 0, &chunk);
		if (k % 10 == 0) { /* a frame every 100 ms: the encoder's pulse */
			struct frame *frame = synth_frame(frames++, 160, 120, 0, pts);
			recorder_submit(recorder, frame); /* a full queue drops it: fine */
			synth_frame_free(frame);
		}
	}
	struct recorder_stats running;
	recorder_get_stats(recorder, &running);
	printf("stalled: after 1.5 s, %llu frames of the mix encoded\n",
	       (unsigned long long)running.audio_frames);
	/* 1.5 s minus the 0.5 s wait minus an encoder frame: about 1 s. A
	 * mix waiting for the silent source would have encoded nothing. */
	test_assert(running.audio_frames >= (uint64_t)frames_of_ms(300));
	struct recorder_stats stats;
	test_assert(recorder_finish(recorder, base + 1500 * NS_PER_MS, &stats) == 0);
	test_assert(llabs((long long)stats.audio_frames - frames_of_ms(1500)) <= 2);
	/* Source 1 is all silence; source 0 none to speak of. */
	test_assert(llabs((long long)stats.audio_source_silence_frames[1] -
		    frames_of_ms(1500)) <= 4);
	test_assert(stats.audio_source_silence_frames[0] < (uint64_t)frames_of_ms(50));
}

/* 2 s of audio has come, the video ends at 1 s: 1 s of audio. */
TEST(end)
{
	struct recorder_config config = synth_config(synth_path("end.mkv"));
	config.fps = 10;
	config.audio_sources = 1;
	const int64_t base = clock_now_ns() + 60 * INT64_C(1000000000);
	struct recorder *recorder = recorder_create(&config, NULL);
	test_assert(recorder);
	recorder_end_audio_at(recorder, base + 1000 * NS_PER_MS);
	submit_tone(recorder, 0, 440, base, 0, 2000);
	for (int i = 0; i < 10; i++)
		synth_submit(recorder, i, 160, 120, base + i * 100 * NS_PER_MS);
	struct recorder_stats stats;
	test_assert(recorder_finish(recorder, base + 1000 * NS_PER_MS, &stats) == 0);
	printf("end: %llu frames of audio encoded\n", (unsigned long long)stats.audio_frames);
	test_assert(llabs((long long)stats.audio_frames - frames_of_ms(1000)) <= 2);
}

/* The two sources' layouts in the file: a track each, or one mixed. */
struct layout {
	const char *name;
	bool mix;
};

static const struct layout layouts[] = {
	{ .name = "tracks", .mix = false },
	{ .name = "mix", .mix = true },
};

TEST_P(two_sources, layouts, const struct layout *layout)
{
	bool mix = layout->mix;
	struct recorder_config config = synth_config(synth_path(mix ? "mix.mkv" : "tracks.mkv"));
	config.fps = 10;
	config.audio_sources = 2;
	config.audio_mix = mix;
	config.audio_codec = mix ? "flac" : NULL;
	test_assert(recorder_check(&config) == RECORDER_ERROR_NONE);
	/* In the future: no gap is overdue while the test runs. */
	const int64_t base = clock_now_ns() + 60 * INT64_C(1000000000);
	struct recorder *recorder = recorder_create(&config, NULL);
	test_assert(recorder);
	recorder_set_audio_title(recorder, 0, "desktop.monitor");
	recorder_set_audio_title(recorder, 1, "mic");

	submit_tone(recorder, 1, 880, base, 500, 2000);
	submit_tone(recorder, 0, 440, base, 0, 1000);
	for (int i = 0; i < 20; i++)
		synth_submit(recorder, i, 160, 120, base + i * 100 * NS_PER_MS);
	struct recorder_stats stats;
	test_assert(recorder_finish(recorder, base + 2000 * NS_PER_MS, &stats) == 0);
	printf("%s: %s, %d tracks, %d sources, %llu chunks, %llu frames, silence %llu (%llu, %llu)\n",
	       config.path, stats.audio_encoder, stats.audio_tracks, stats.audio_sources,
	       (unsigned long long)stats.audio_chunks, (unsigned long long)stats.audio_frames,
	       (unsigned long long)stats.audio_silence_frames,
	       (unsigned long long)stats.audio_source_silence_frames[0],
	       (unsigned long long)stats.audio_source_silence_frames[1]);
	test_assert(stats.audio_tracks == (mix ? 1 : 2) && stats.audio_sources == 2);
	test_assert(strcmp(stats.audio_encoder, mix ? "flac" : "libopus") == 0);
	test_assert(stats.audio_chunks == 250);
	test_assert(llabs((long long)stats.audio_frames - frames_of_ms(2000)) <= 2);
	/* Source 0: silent after 1000 ms; source 1: before 500 ms. */
	test_assert(llabs((long long)stats.audio_source_silence_frames[0] -
		    frames_of_ms(1000)) <= 4);
	test_assert(llabs((long long)stats.audio_source_silence_frames[1] -
		    frames_of_ms(500)) <= 4);
	test_assert(stats.audio_silence_frames == stats.audio_source_silence_frames[0]);
	test_assert(stats.audio_dropped_frames == 0);

	AVFormatContext *format = NULL;
	test_assert(avformat_open_input(&format, config.path, NULL, NULL) == 0);
	test_assert(avformat_find_stream_info(format, NULL) >= 0);
	int audio[2], count = 0;
	for (unsigned i = 0; i < format->nb_streams; i++)
		if (format->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_AUDIO && count < 2)
			audio[count++] = (int)i;
	test_assert(count == (mix ? 1 : 2));
	const char *titles[2] = { mix ? "desktop.monitor + mic" : "desktop.monitor", "mic" };
	for (int t = 0; t < count; t++) {
		const AVDictionaryEntry *title =
			av_dict_get(format->streams[audio[t]]->metadata, "title", NULL, 0);
		printf("audio track %d: %s, \"%s\"\n", t,
		       avcodec_get_name(format->streams[audio[t]]->codecpar->codec_id),
		       title ? title->value : "");
		test_assert(title && strcmp(title->value, titles[t]) == 0);
		test_assert(format->streams[audio[t]]->codecpar->codec_id ==
		      (mix ? AV_CODEC_ID_FLAC : AV_CODEC_ID_OPUS));
	}
	if (mix)
		check_mix(format, audio[0]);
	avformat_close_input(&format);
}
