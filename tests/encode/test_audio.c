/* The audio track (recorder_submit_audio): chunks are placed by their pts on
 * the video's clock. A gap is filled with silence, an overlap dropped, and
 * the track is padded to the video's end, so the audio is continuous and
 * exactly as long as the video; the stream is Opus in Matroska, AAC in MP4.
 *   test-encode-audio mkv|mp4 */
#include <math.h>
#include <string.h>

#include <libavformat/avformat.h>

#include "clock.h"
#include "synth.h"

#define RATE AUDIO_CHUNK_RATE
#define CHUNK_MS 10
#define CHUNK_FRAMES (RATE * CHUNK_MS / 1000)

static void submit_tone(struct recorder *recorder, int64_t from_ns, int chunks)
{
	static float samples[CHUNK_FRAMES * AUDIO_CHUNK_CHANNELS];
	for (int k = 0; k < chunks; k++) {
		for (int i = 0; i < CHUNK_FRAMES; i++) {
			float v = 0.3f * sinf(2.0f * (float)M_PI * 440.0f * (float)(k * CHUNK_FRAMES + i) /
					      RATE);
			samples[2 * i] = samples[2 * i + 1] = v;
		}
		struct audio_chunk chunk = { .samples = samples, .frames = CHUNK_FRAMES,
					     .pts_ns = from_ns + k * CHUNK_MS * NS_PER_MS };
		recorder_submit_audio(recorder, 0, &chunk);
	}
}

static int64_t frames_of_ms(int64_t ms)
{
	return ms * RATE / 1000;
}

int main(int argc, char **argv)
{
	const char *container = argc > 1 ? argv[1] : "mkv";
	char name[32];
	snprintf(name, sizeof(name), "audio.%s", container);
	struct recorder_config config = synth_config(synth_path(name));
	config.fps = 10;
	config.audio_sources = 1;
	/* In the future: no gap is overdue while the test runs (a gap older
	 * than half a second by the real clock is filled as it happens). */
	const int64_t base = clock_now_ns() + 60 * INT64_C(1000000000);
	struct recorder *recorder = recorder_create(&config, NULL);
	CHECK(recorder);

	/* 0-500 ms tone; nothing 500-1000 ms; 1000-1500 ms tone; then a chunk
	 * run starting 50 ms early (1450 ms) to 1950 ms; the end at 2000 ms. */
	submit_tone(recorder, base, 50);
	submit_tone(recorder, base + 1000 * NS_PER_MS, 50);
	submit_tone(recorder, base + 1450 * NS_PER_MS, 50);
	for (int i = 0; i < 20; i++)
		synth_submit(recorder, i, 160, 120, base + i * 100 * NS_PER_MS);
	struct recorder_stats stats;
	CHECK(recorder_finish(recorder, base + 2000 * NS_PER_MS, &stats) == 0);
	printf("%s: %s, %llu chunks, %llu frames encoded, %llu silence, %llu dropped\n", name,
	       stats.audio_encoder, (unsigned long long)stats.audio_chunks,
	       (unsigned long long)stats.audio_frames,
	       (unsigned long long)stats.audio_silence_frames,
	       (unsigned long long)stats.audio_dropped_frames);
	CHECK(stats.audio_chunks == 150);
	CHECK(strcmp(stats.audio_encoder, strcmp(container, "mp4") == 0 ? "aac" : "libopus") == 0);
	/* As long as the video: 2 s, to the sample (rounding aside). */
	CHECK(llabs((long long)stats.audio_frames - frames_of_ms(2000)) <= 2);
	/* The 500 ms gap and the last 50 ms are silence; 50 ms overlap dropped. */
	CHECK(llabs((long long)stats.audio_silence_frames - frames_of_ms(550)) <= 4);
	CHECK(llabs((long long)stats.audio_dropped_frames - frames_of_ms(50)) <= 4);

	/* The file has the audio stream, of the container's codec, 48 kHz stereo. */
	AVFormatContext *format = NULL;
	CHECK(avformat_open_input(&format, config.path, NULL, NULL) == 0);
	CHECK(avformat_find_stream_info(format, NULL) >= 0);
	int audio = av_find_best_stream(format, AVMEDIA_TYPE_AUDIO, -1, -1, NULL, 0);
	CHECK(audio >= 0);
	const AVCodecParameters *par = format->streams[audio]->codecpar;
	CHECK(par->codec_id == (strcmp(container, "mp4") == 0 ? AV_CODEC_ID_AAC : AV_CODEC_ID_OPUS));
	CHECK(par->sample_rate == RATE && par->ch_layout.nb_channels == 2);
	CHECK(av_find_best_stream(format, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0) >= 0);
	avformat_close_input(&format);
	return 0;
}
