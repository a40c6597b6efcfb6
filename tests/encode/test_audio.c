/* The audio track (recorder_submit_audio): chunks are placed by their pts on
 * the video's clock. A gap is filled with silence, an overlap dropped, and
 * the track is padded to the video's end, so the audio is continuous and
 * exactly as long as the video; the stream is Opus in Matroska, AAC in MP4.
 * The counters are checked, and so is the file, decoded (tests/common/
 * media.c): its length, the tone without hole or click, the silence.
 *   placement/mkv, placement/mp4: that placement, one case per container.
 *   drift: stamps that drift from the count, followed by resampling:
 *          no gap, no drop, no click. */
#include <math.h>
#include <string.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>

#include "clock.h"
#include "media.h"
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

/* The decoded file, not the recorder's counters: mono (the channels'
 * mean) RMS of frames [from, from + count). */
static double rms(const struct decoded_audio *audio, int64_t from, int64_t count)
{
	double sum = 0;
	for (int64_t i = from; i < from + count; i++) {
		double v = (audio->samples[2 * i] + audio->samples[2 * i + 1]) / 2.0;
		sum += v * v;
	}
	return sqrt(sum / (double)count);
}

/* What a two-tap predictor of the 440 Hz tone (x[n] = 2 cos(w) x[n-1] -
 * x[n-2]) leaves of frames [from, from + count): a click or a jump in
 * phase leaves much, the tone and the codec's noise little. */
static double residual_rms(const struct decoded_audio *audio, int64_t from, int64_t count)
{
	double c = 2 * cos(2 * M_PI * 440.0 / RATE), sum = 0;
	for (int64_t i = from; i < from + count; i++) {
		double x[3];
		for (int k = 0; k < 3; k++)
			x[k] = (audio->samples[2 * (i - k)] + audio->samples[2 * (i - k) + 1]) / 2.0;
		double e = x[0] - c * x[1] + x[2];
		sum += e * e;
	}
	return sqrt(sum / (double)count);
}

/* From `from_ms` to `to_ms`, less `edge` frames at either end (the codec's
 * frame that mixes the tone with the silence beside it): with `tone`, no
 * 10 ms window (sliding by 1 ms) below half the tone's RMS and no click
 * (the predictor leaves at most 1 % of it over 2.5 ms); without, silent.
 * `shift`: the codec's priming before the first frame's sound. */
static bool check_span(const struct decoded_audio *audio, int from_ms, int to_ms, bool tone,
		       int64_t shift, int64_t edge)
{
	const double tone_rms = 0.3 / sqrt(2.0);
	int64_t from = shift + frames_of_ms(from_ms) + edge, to = shift + frames_of_ms(to_ms) - edge;
	if (to > audio->frames)
		to = audio->frames;
	double quietest = INFINITY, loudest = 0, worst_residual = 0;
	for (int64_t i = from < 2 ? 2 : from; i + frames_of_ms(10) <= to; i += frames_of_ms(1)) {
		double level = rms(audio, i, frames_of_ms(10));
		quietest = level < quietest ? level : quietest;
		loudest = level > loudest ? level : loudest;
		if (tone && i + RATE / 400 <= to) {
			double residual = residual_rms(audio, i, RATE / 400);
			worst_residual = residual > worst_residual ? residual : worst_residual;
		}
	}
	printf("  %d-%d ms (%s): 10 ms windows %.3f to %.3f of the tone's RMS, residual %.4f\n",
	       from_ms, to_ms, tone ? "tone" : "silence", quietest / tone_rms, loudest / tone_rms,
	       worst_residual / tone_rms);
	if (tone)
		return quietest >= 0.5 * tone_rms && worst_residual <= 0.01 * tone_rms;
	return loudest <= 0.01 * tone_rms;
}

/* The capture's clock follows the server's at up to 0.25 % (audio_clock.h):
 * 2 s of a continuous tone whose stamps run ahead of its count by 25 us a
 * chunk from 0.5 s to 1.5 s (2.5 ms in all). The track follows by
 * resampling, the resampler made in the middle of the sound: no gap
 * counted, nothing dropped, no hole or click in the decoded file (FLAC:
 * lossless, only the stretch is there). */
TEST(drift)
{
	struct recorder_config config = synth_config(synth_path("audio-drift.mkv"));
	config.fps = 10;
	config.audio_sources = 1;
	config.audio_codec = "flac";
	const int64_t base = clock_now_ns() + 60 * INT64_C(1000000000);
	struct recorder *recorder = recorder_create(&config, NULL);
	test_assert(recorder);
	static float samples[CHUNK_FRAMES * AUDIO_CHUNK_CHANNELS];
	int64_t ahead_ns = 0;
	for (int k = 0; k < 200; k++) {
		for (int i = 0; i < CHUNK_FRAMES; i++) {
			float v = 0.3f * sinf(2.0f * (float)M_PI * 440.0f *
					      (float)((k * CHUNK_FRAMES + i) % RATE) / RATE);
			samples[2 * i] = samples[2 * i + 1] = v;
		}
		if (k >= 50 && k < 150)
			ahead_ns += CHUNK_MS * NS_PER_MS / 400;
		struct audio_chunk chunk = { .samples = samples, .frames = CHUNK_FRAMES,
					     .pts_ns = base + k * CHUNK_MS * NS_PER_MS + ahead_ns };
		recorder_submit_audio(recorder, 0, &chunk);
	}
	for (int i = 0; i < 20; i++)
		synth_submit(recorder, i, 160, 120, base + i * 100 * NS_PER_MS);
	struct recorder_stats stats;
	test_assert(recorder_finish(recorder, base + 2000 * NS_PER_MS, &stats) == 0);
	printf("drift: %llu frames, %llu silence, %llu dropped\n",
	       (unsigned long long)stats.audio_frames,
	       (unsigned long long)stats.audio_silence_frames,
	       (unsigned long long)stats.audio_dropped_frames);
	test_assert(stats.audio_silence_frames == 0 && stats.audio_dropped_frames == 0);
	struct decoded_audio decoded;
	test_assert(media_decode_audio(config.path, &decoded) == 0);
	printf("decoded: %s, %lld frames\n", decoded.codec, (long long)decoded.frames);
	test_assert(llabs((long long)(decoded.frames - frames_of_ms(2000))) <= 2);
	test_assert(check_span(&decoded, 0, 2000, true, 0, frames_of_ms(1)));
	media_decoded_audio_free(&decoded);
}

/* The track's codec follows the container: Opus in Matroska, AAC in MP4. */
struct container {
	const char *name;              /* the file's extension */
	const char *encoder;           /* the encoder the recorder reports */
	enum AVCodecID codec;          /* the audio stream's codec in the file */
	int64_t frame, priming;        /* the codec's frame and priming, in frames */
};

static const struct container containers[] = {
	{ .name = "mkv", .encoder = "libopus", .codec = AV_CODEC_ID_OPUS,
	  .frame = 960, .priming = 0 },
	{ .name = "mp4", .encoder = "aac", .codec = AV_CODEC_ID_AAC,
	  .frame = 1024, .priming = 1024 },
};

TEST_P(placement, containers, const struct container *c)
{
	char name[32];
	snprintf(name, sizeof(name), "audio.%s", c->name);
	struct recorder_config config = synth_config(synth_path(name));
	config.fps = 10;
	config.audio_sources = 1;
	/* In the future: no gap is overdue while the test runs (a gap older
	 * than half a second by the real clock is filled as it happens). */
	const int64_t base = clock_now_ns() + 60 * INT64_C(1000000000);
	struct recorder *recorder = recorder_create(&config, NULL);
	test_assert(recorder);

	/* 0-500 ms tone; nothing 500-1000 ms; 1000-1500 ms tone; then a chunk
	 * run starting 50 ms early (1450 ms) to 1950 ms; the end at 2000 ms. */
	submit_tone(recorder, base, 50);
	submit_tone(recorder, base + 1000 * NS_PER_MS, 50);
	submit_tone(recorder, base + 1450 * NS_PER_MS, 50);
	for (int i = 0; i < 20; i++)
		synth_submit(recorder, i, 160, 120, base + i * 100 * NS_PER_MS);
	struct recorder_stats stats;
	test_assert(recorder_finish(recorder, base + 2000 * NS_PER_MS, &stats) == 0);
	printf("%s: %s, %llu chunks, %llu frames encoded, %llu silence, %llu dropped\n", name,
	       stats.audio_encoder, (unsigned long long)stats.audio_chunks,
	       (unsigned long long)stats.audio_frames,
	       (unsigned long long)stats.audio_silence_frames,
	       (unsigned long long)stats.audio_dropped_frames);
	test_assert(stats.audio_chunks == 150);
	test_assert(strcmp(stats.audio_encoder, c->encoder) == 0, "encoder %s",
		    stats.audio_encoder);
	/* As long as the video: 2 s, to the sample (rounding aside). */
	test_assert(llabs((long long)stats.audio_frames - frames_of_ms(2000)) <= 2);
	/* The 500 ms gap and the last 50 ms are silence; 50 ms overlap dropped. */
	test_assert(llabs((long long)stats.audio_silence_frames - frames_of_ms(550)) <= 4);
	test_assert(llabs((long long)stats.audio_dropped_frames - frames_of_ms(50)) <= 4);

	/* The file has the audio stream, of the container's codec, 48 kHz stereo. */
	AVFormatContext *format = NULL;
	test_assert(avformat_open_input(&format, config.path, NULL, NULL) == 0);
	test_assert(avformat_find_stream_info(format, NULL) >= 0);
	int audio = av_find_best_stream(format, AVMEDIA_TYPE_AUDIO, -1, -1, NULL, 0);
	test_assert(audio >= 0);
	const AVCodecParameters *par = format->streams[audio]->codecpar;
	test_assert(par->codec_id == c->codec, "codec %s", avcodec_get_name(par->codec_id));
	test_assert(par->sample_rate == RATE && par->ch_layout.nb_channels == 2);
	test_assert(av_find_best_stream(format, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0) >= 0);
	avformat_close_input(&format);

	/* What the file holds, decoded: as long as the video (2 s) within one
	 * codec frame (Opus 960, AAC 1024 frames) after the encoder's priming
	 * (AAC's 1024 frames come out of libavcodec's decoder here: the MP4
	 * has no edit list to skip them; Opus's pre-skip is skipped; measured:
	 * Opus 96000 frames, AAC 97280 = 96000 + 1024 + 256 of the last
	 * frame), and the tone where it was played, continuous, silence where
	 * nothing was. */
	struct decoded_audio decoded;
	test_assert(media_decode_audio(config.path, &decoded) == 0);
	test_assert(decoded.sample_rate == RATE && decoded.channels == 2);
	int64_t frame = c->frame, priming = c->priming;
	printf("decoded: %s, %lld frames (%.4f s)\n", decoded.codec, (long long)decoded.frames,
	       (double)decoded.frames / RATE);
	test_assert(llabs((long long)(decoded.frames - priming - frames_of_ms(2000))) <= frame);
	/* The codec's frame that mixes the tone with the silence beside it. */
	int64_t edge = frame + frames_of_ms(5);
	test_assert(check_span(&decoded, 0, 500, true, priming, edge));
	test_assert(check_span(&decoded, 500, 1000, false, priming, edge));
	/* Over the overlap dropped at 1500 ms: the tone goes on. */
	test_assert(check_span(&decoded, 1000, 1950, true, priming, edge));
	media_decoded_audio_free(&decoded);
}
