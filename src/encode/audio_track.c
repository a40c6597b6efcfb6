#define LOG_MODULE "encode"
#include "audio_track.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <libavcodec/avcodec.h>
#include <libavutil/channel_layout.h>
#include <libavutil/mathematics.h>
#include <libavutil/opt.h>
#include <libswresample/swresample.h>

#include "clock.h"
#include "silence_watch.h"
#include "log.h"

#define CHANNELS AUDIO_CHUNK_CHANNELS
#define RATE AUDIO_CHUNK_RATE
/* Audio waiting for the encoder thread (which takes it at every frame and
 * at every chunk's kick): more than this means the encoder has not started
 * (no video frame yet); the oldest is dropped. */
#define PENDING_MAX_FRAMES (RATE * 10)
/* Audio this much older than now that has not come is taken as a gap and
 * filled with silence at once, so the file goes on being written (and the
 * muxer need not hold the video back) while a source is silent or gone.
 * Chunks come about 10-30 ms after their time; what comes later than this
 * is dropped as overlap. */
#define LIVE_GAP_NS 500000000
/* How fast a lane follows its chunks' stamps when they drift from its
 * sample count (the capture's clock follows the server's at 0.25 %,
 * audio_clock.h): the offset, up to this many frames, is spread over one
 * second (FFmpeg's aresample=async works so). 0.5 % is 9 cents of pitch at
 * most, and only while the offset lasts: never a cut in the sound. */
#define MAX_STRETCH_FRAMES (RATE / 200)

/* Gaps and overlaps in a lane's pending samples, counted when they are
 * placed (what is before the first frame is not the file's). */
#define MARKS_MAX 16

struct mark {
	int64_t at, frames;
	bool lost; /* the server's hole, not a late or early chunk */
};

/* Said at debug level, per lane: the first few gaps and drops, and as
 * many runs of digital silence (silence_watch.h). */
#define GAPS_SAID_MAX 8

struct samples {
	float *data;   /* interleaved */
	size_t frames, capacity;
};

/* One source placed on the timeline. */
struct lane {
	pthread_mutex_t mutex; /* the capture's side */
	struct samples pending;
	bool any;
	int64_t pending_end;   /* absolute sample index of the end of what came */
	/* Where silence filled a gap in `pending` (frames > 0: absolute index
	 * of its start) or an overlap was dropped (frames < 0: the index of
	 * the dropped samples' start): counted when taken. */
	struct mark marks[MARKS_MAX];
	int mark_count;
	struct audio_track_stats stats; /* under the mutex; frames_encoded unused */
	int index;             /* the source's, for the log */
	int gaps_said, zeros_said; /* each up to GAPS_SAID_MAX */
	struct silence_watch watch; /* digital silence inside the sound */
	/* The resampler that stretches the lane's sound to its stamps, made at
	 * the first offset (a lane whose stamps follow its count exactly is
	 * never resampled: its samples reach the encoder as they came). */
	SwrContext *swr;
	bool swr_failed;

	/* Encoder thread. */
	struct samples work;
	size_t work_start;     /* frames of `work` already encoded */
	bool started;          /* (under the mutex too: the capture reads it) */
	int64_t origin_abs;    /* the first frame's index, once started */
	int64_t next_abs;      /* absolute sample index of the end of `work` */
};

struct audio_track {
	AVCodecContext *context;
	AVFrame *frame;
	AVPacket *packet;
	struct muxer *muxer;   /* attached to */
	int stream;            /* its audio stream there */
	atomic_uint_fast64_t frames_encoded;

	int lane_count;
	struct lane lanes[AUDIO_TRACK_MAX_SOURCES];

	/* Encoder thread. */
	struct samples mixed;  /* the lanes' sum, one encoder frame */
	int64_t encoded;       /* frames given to the encoder: the next pts */
};

static int64_t abs_index(int64_t ns)
{
	return av_rescale(ns, RATE, 1000000000);
}

static bool reserve(struct samples *samples, size_t frames)
{
	if (samples->frames + frames <= samples->capacity)
		return true;
	size_t capacity = samples->capacity ? samples->capacity : RATE / 10;
	while (capacity < samples->frames + frames)
		capacity *= 2;
	float *data = realloc(samples->data, capacity * CHANNELS * sizeof(float));
	if (!data)
		return false;
	samples->data = data;
	samples->capacity = capacity;
	return true;
}

/* `data` NULL: silence. */
static bool append(struct samples *samples, const float *data, size_t frames)
{
	if (!frames)
		return true;
	if (!reserve(samples, frames))
		return false;
	float *to = samples->data + samples->frames * CHANNELS;
	if (data)
		memcpy(to, data, frames * CHANNELS * sizeof(float));
	else
		memset(to, 0, frames * CHANNELS * sizeof(float));
	samples->frames += frames;
	return true;
}

static void drop_front(struct samples *samples, size_t frames)
{
	if (frames > samples->frames)
		frames = samples->frames;
	if (!frames)
		return; /* maybe nothing allocated yet */
	memmove(samples->data, samples->data + frames * CHANNELS,
		(samples->frames - frames) * CHANNELS * sizeof(float));
	samples->frames -= frames;
}

static void lane_free(struct lane *lane)
{
	swr_free(&lane->swr);
	free(lane->pending.data);
	free(lane->work.data);
	pthread_mutex_destroy(&lane->mutex);
}

/* The encoder's sample format among those we can fill: float (Opus, AAC),
 * else 16-bit (FLAC: 16 bits are what the desktop plays). */
static enum AVSampleFormat pick_format(const AVCodec *codec)
{
	static const enum AVSampleFormat wanted[] = {
		AV_SAMPLE_FMT_FLT, AV_SAMPLE_FMT_FLTP, AV_SAMPLE_FMT_S16,
	};
	for (size_t i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++)
		for (const enum AVSampleFormat *format = codec->sample_fmts;
		     format && *format != AV_SAMPLE_FMT_NONE; format++)
			if (*format == wanted[i])
				return *format;
	return AV_SAMPLE_FMT_NONE;
}

struct audio_track *audio_track_create(const char *encoder, int64_t bitrate, bool global_header,
				       int sources)
{
	if (sources < 1 || sources > AUDIO_TRACK_MAX_SOURCES) {
		LOG_ERR("--audio: %d sources for one track (1 to %d)", sources,
			AUDIO_TRACK_MAX_SOURCES);
		return NULL;
	}
	const AVCodec *codec = avcodec_find_encoder_by_name(encoder);
	if (!codec) {
		LOG_ERR("--audio: this FFmpeg has no %s encoder", encoder);
		return NULL;
	}
	struct audio_track *track = calloc(1, sizeof(*track));
	if (!track) {
		LOG_ERRNO("audio track");
		return NULL;
	}
	track->stream = -1;
	track->lane_count = sources;
	for (int i = 0; i < sources; i++) {
		pthread_mutex_init(&track->lanes[i].mutex, NULL);
		track->lanes[i].index = i;
		silence_watch_init(&track->lanes[i].watch, CHANNELS);
	}
	track->context = avcodec_alloc_context3(codec);
	track->frame = av_frame_alloc();
	track->packet = av_packet_alloc();
	if (!track->context || !track->frame || !track->packet) {
		LOG_ERRNO_P(ENOMEM, "audio track");
		goto fail;
	}
	AVCodecContext *context = track->context;
	context->sample_rate = RATE;
	av_channel_layout_default(&context->ch_layout, CHANNELS);
	context->time_base = (AVRational){1, RATE};
	if (bitrate > 0)
		context->bit_rate = bitrate;
	else
		context->bit_rate = strcmp(encoder, "aac") == 0 ? 160000 : 128000;
	context->sample_fmt = pick_format(codec);
	if (context->sample_fmt == AV_SAMPLE_FMT_NONE) {
		LOG_ERR("--audio: %s takes no float or 16-bit samples", encoder);
		goto fail;
	}
	if (global_header)
		context->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
	int ret = avcodec_open2(context, codec, NULL);
	if (ret < 0) {
		LOG_ERR("--audio: cannot open the %s encoder: %s", encoder, av_err2str(ret));
		goto fail;
	}
	return track;
fail:
	audio_track_destroy(track);
	return NULL;
}

bool audio_track_attach(struct audio_track *track, struct muxer *muxer)
{
	track->stream = muxer_add_audio(muxer, track->context);
	track->muxer = muxer;
	return track->stream >= 0;
}

const char *audio_track_codec_name(const struct audio_track *track)
{
	return track->context->codec->name;
}

#define SILENCE "of silence"
#define DROPPED "dropped"

/* Under the lane's mutex. Says (at debug level) how long a run of `frames`
 * is, `what` it is, where in the file it lies and why: a summary's count
 * alone cannot tell a server's hole from a late chunk or an early end. */
static void say(struct lane *lane, int *said, int64_t at, int64_t frames, const char *what,
		const char *why)
{
	if (*said >= GAPS_SAID_MAX)
		return;
	++*said;
	LOG_DBG("audio %d: %.1f ms %s at %.3f s: %s%s", lane->index + 1,
		(double)frames * 1000.0 / RATE, what,
		lane->started ? (double)(at - lane->origin_abs) / RATE : 0.0, why,
		*said == GAPS_SAID_MAX ? " (said for the first few only)" : "");
}

static void say_gap(struct lane *lane, int64_t at, int64_t frames, const char *what,
		    const char *why)
{
	say(lane, &lane->gaps_said, at, frames, what, why);
}

/* Under the lane's mutex: a hole of the source's own, in its samples. */
static void on_digital_silence(void *data, int64_t start, int64_t frames)
{
	struct lane *lane = data;
	if (!lane->started || start < lane->origin_abs)
		return; /* before the file */
	say(lane, &lane->zeros_said, start, frames, "of digital silence in the source's sound",
		"so it came (the server's or the player's), not a gap of wl-record's");
}

/* Under the lane's mutex. */
static void count_mark(struct lane *lane, const struct mark *mark, int64_t origin_abs)
{
	int64_t size = mark->frames < 0 ? -mark->frames : mark->frames;
	int64_t before = origin_abs - mark->at;
	before = before < 0 ? 0 : before > size ? size : before;
	if (size - before == 0)
		return;
	if (mark->frames > 0)
		lane->stats.silence_frames += (uint64_t)(size - before);
	else
		lane->stats.dropped_frames += (uint64_t)(size - before);
	say_gap(lane, mark->at + before, size - before, mark->frames > 0 ? SILENCE : DROPPED,
		mark->lost ? "a hole the server reported"
		: mark->frames > 0 ? "a chunk came later than the sound before it"
				   : "a chunk overlapped the sound before it");
}

static void mark(struct lane *lane, int64_t at, int64_t frames, bool lost)
{
	struct mark m = { at, frames, lost };
	if (lane->started) /* the first frame is known */
		count_mark(lane, &m, lane->origin_abs);
	else if (lane->mark_count < MARKS_MAX)
		lane->marks[lane->mark_count++] = m;
	else /* more than can be kept before the first frame: counted */
		count_mark(lane, &m, INT64_MIN);
}

static bool make_resampler(struct lane *lane)
{
	if (lane->swr)
		return true;
	if (lane->swr_failed)
		return false;
	AVChannelLayout layout;
	av_channel_layout_default(&layout, CHANNELS);
	int ret = swr_alloc_set_opts2(&lane->swr, &layout, AV_SAMPLE_FMT_FLT, RATE, &layout,
				      AV_SAMPLE_FMT_FLT, RATE, 0, NULL);
	/* Resampling from the start, though the rates are the same: the
	 * compensation needs the resampler, and swr_set_compensation() would
	 * otherwise re-initialize the context (losing what it holds). */
	if (ret >= 0)
		ret = av_opt_set_int(lane->swr, "flags", SWR_FLAG_RESAMPLE, 0);
	if (ret >= 0)
		ret = swr_init(lane->swr);
	if (ret < 0) {
		LOG_WARN("audio: no resampler to follow the source's clock (%s): "
			 "its drift is filled with silence or dropped", av_err2str(ret));
		swr_free(&lane->swr);
		lane->swr_failed = true;
		return false;
	}
	return true;
}

/* A chunk `gap` frames later (earlier: negative) than the end of the
 * lane's sound, within the tolerance: no gap, the clock's slow correction
 * (or the rounding of a stamp). Stretched (squeezed) away over a second. */
static void stretch(struct lane *lane, int64_t gap)
{
	/* A frame or two is the rounding of the stamps to frames. */
	if (!lane->swr && gap >= -2 && gap <= 2)
		return;
	if (!make_resampler(lane))
		return;
	int delta = (int)(gap > MAX_STRETCH_FRAMES ? MAX_STRETCH_FRAMES
			  : gap < -MAX_STRETCH_FRAMES ? -MAX_STRETCH_FRAMES : gap);
	swr_set_compensation(lane->swr, delta, delta ? RATE : 0);
}

static void resample(struct lane *lane, const float *data, size_t frames)
{
	/* What comes out: the frames, what the resampler held, the stretch. */
	int room = swr_get_out_samples(lane->swr, (int)frames);
	if (room < 0 || !reserve(&lane->pending, (size_t)room))
		return;
	uint8_t *out = (uint8_t *)(lane->pending.data + lane->pending.frames * CHANNELS);
	const uint8_t *in = (const uint8_t *)data;
	int made = swr_convert(lane->swr, &out, room, frames ? &in : NULL, (int)frames);
	if (made > 0) {
		lane->pending.frames += (size_t)made;
		lane->pending_end += made;
	}
}

void audio_track_submit(struct audio_track *track, int source, const struct audio_chunk *chunk)
{
	if (source < 0 || source >= track->lane_count)
		return;
	struct lane *lane = &track->lanes[source];
	const float *data = chunk->samples;
	size_t frames = chunk->frames;
	int64_t at = abs_index(chunk->pts_ns);
	int64_t tolerance = abs_index(AUDIO_TRACK_GAP_NS);
	pthread_mutex_lock(&lane->mutex);
	lane->stats.chunks++;
	if (!lane->any) {
		lane->pending_end = at;
		lane->any = true;
	}
	/* Frames the resampler holds are not yet in `pending` but come
	 * before this chunk. */
	int64_t held = lane->swr ? swr_get_delay(lane->swr, RATE) : 0;
	int64_t gap = at - (lane->pending_end + held);
	if (gap > tolerance) {
		if (append(&lane->pending, NULL, (size_t)gap)) {
			mark(lane, lane->pending_end, gap, false);
			lane->pending_end += gap;
		}
	} else if (gap < -tolerance) {
		size_t skip = (size_t)-gap < frames ? (size_t)-gap : frames;
		data += skip * CHANNELS;
		frames -= skip;
		mark(lane, at, -(int64_t)skip, false);
	}
	if (gap >= -tolerance && gap <= tolerance)
		stretch(lane, gap);
	/* Silence the server put in place of what it lost: a gap. */
	if (chunk->lost && frames)
		mark(lane, lane->pending_end, (int64_t)frames, true);
	/* Digital silence inside the source's own sound: said, for telling a
	 * hole of the server's from one of ours. A gap, an overlap or a
	 * reported hole breaks the run. */
	if (chunk->lost || gap > tolerance || gap < -tolerance)
		silence_watch_break(&lane->watch);
	if (!chunk->lost)
		silence_watch_feed(&lane->watch, lane->pending_end + held, data, frames,
				   on_digital_silence, lane);
	if (lane->swr)
		resample(lane, data, frames);
	else if (append(&lane->pending, data, frames))
		lane->pending_end += (int64_t)frames;
	if (lane->pending.frames > PENDING_MAX_FRAMES) {
		size_t excess = lane->pending.frames - PENDING_MAX_FRAMES / 2;
		drop_front(&lane->pending, excess);
		lane->stats.dropped_frames += excess;
	}
	pthread_mutex_unlock(&lane->mutex);
}

static int write_packets(struct audio_track *track, struct muxer *muxer)
{
	for (;;) {
		int ret = avcodec_receive_packet(track->context, track->packet);
		if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF)
			return 0;
		if (ret < 0) {
			LOG_ERR("audio encoder: %s", av_err2str(ret));
			return ret;
		}
		ret = muxer_write_audio(muxer, track->stream, track->packet,
					track->context->time_base);
		if (ret < 0)
			return ret;
	}
}

/* The next `frames` frames of the track: one source's own samples, or the
 * sources summed. The sum is at unity gain, clipped at full scale: each
 * source sounds as loud as in a track of its own, as when the desktop plays
 * them together (which also sums them); scaling by 1/n would make every
 * source quieter all the time to spare the moments when several are loud
 * at once, and a limiter would pump. */
static const float *next_samples(struct audio_track *track, size_t frames)
{
	struct lane *first = &track->lanes[0];
	const float *own = first->work.data + first->work_start * CHANNELS;
	if (track->lane_count == 1)
		return own;
	track->mixed.frames = 0;
	if (!append(&track->mixed, own, frames))
		return NULL;
	float *sum = track->mixed.data;
	size_t values = frames * CHANNELS;
	for (int l = 1; l < track->lane_count; l++) {
		const struct lane *lane = &track->lanes[l];
		const float *from = lane->work.data + lane->work_start * CHANNELS;
		for (size_t i = 0; i < values; i++)
			sum[i] += from[i];
	}
	for (size_t i = 0; i < values; i++)
		sum[i] = sum[i] > 1.0f ? 1.0f : sum[i] < -1.0f ? -1.0f : sum[i];
	return sum;
}

static void fill_frame(AVFrame *frame, const float *from, size_t frames)
{
	switch (frame->format) {
	case AV_SAMPLE_FMT_FLT:
		memcpy(frame->data[0], from, frames * CHANNELS * sizeof(float));
		break;
	case AV_SAMPLE_FMT_FLTP:
		for (int c = 0; c < CHANNELS; c++) {
			float *plane = (float *)frame->data[c];
			for (size_t i = 0; i < frames; i++)
				plane[i] = from[i * CHANNELS + c];
		}
		break;
	default: { /* AV_SAMPLE_FMT_S16 (pick_format) */
		int16_t *to = (int16_t *)frame->data[0];
		for (size_t i = 0; i < frames * CHANNELS; i++) {
			float v = from[i] * 32767.0f;
			to[i] = (int16_t)lrintf(v > 32767.0f ? 32767.0f : v < -32768.0f ? -32768.0f : v);
		}
		break;
	}
	}
}

/* Encodes `frames` frames from the front of every lane's unencoded work. */
static int encode_frames(struct audio_track *track, struct muxer *muxer, size_t frames)
{
	AVFrame *frame = track->frame;
	av_frame_unref(frame);
	frame->nb_samples = (int)frames;
	frame->format = track->context->sample_fmt;
	frame->sample_rate = RATE;
	int ret = av_channel_layout_copy(&frame->ch_layout, &track->context->ch_layout);
	if (ret >= 0)
		ret = av_frame_get_buffer(frame, 0);
	const float *from = ret >= 0 ? next_samples(track, frames) : NULL;
	if (ret >= 0 && !from)
		ret = AVERROR(ENOMEM);
	if (ret < 0) {
		LOG_ERR("audio frame: %s", av_err2str(ret));
		return ret;
	}
	fill_frame(frame, from, frames);
	frame->pts = track->encoded;
	ret = avcodec_send_frame(track->context, frame);
	if (ret < 0) {
		LOG_ERR("audio encoder: %s", av_err2str(ret));
		return ret;
	}
	track->encoded += (int64_t)frames;
	for (int l = 0; l < track->lane_count; l++)
		track->lanes[l].work_start += frames;
	atomic_fetch_add(&track->frames_encoded, frames);
	return write_packets(track, muxer);
}

/* Moves what the capture sent into the work buffer, placed after what is
 * there: silence for a gap, the overlap dropped. */
static void take_pending(struct lane *lane, int64_t origin_ns)
{
	pthread_mutex_lock(&lane->mutex);
	/* What came before the first frame is not the file's: not counted. */
	if (!lane->started) {
		lane->next_abs = abs_index(origin_ns);
		lane->origin_abs = lane->next_abs;
		lane->started = true;
		for (int m = 0; m < lane->mark_count; m++)
			count_mark(lane, &lane->marks[m], lane->origin_abs);
		lane->mark_count = 0;
	}
	if (lane->pending.frames) {
		int64_t origin_abs = abs_index(origin_ns);
		int64_t start = lane->pending_end - (int64_t)lane->pending.frames;
		const float *data = lane->pending.data;
		size_t frames = lane->pending.frames;
		if (start > lane->next_abs) {
			size_t gap = (size_t)(start - lane->next_abs);
			if (append(&lane->work, NULL, gap)) {
				lane->stats.silence_frames += gap;
				say_gap(lane, lane->next_abs, (int64_t)gap, SILENCE,
					"the sound came later than the first frame or a filled gap");
				lane->next_abs = start;
			}
		} else if (start < lane->next_abs) {
			size_t skip = (size_t)(lane->next_abs - start);
			if (skip > frames)
				skip = frames;
			data += skip * CHANNELS;
			frames -= skip;
			/* Only what overlaps the file: the chunks stamped before
			 * the first frame keep coming for a latency after it. */
			int64_t before = origin_abs - start;
			before = before < 0 ? 0 : before > (int64_t)skip ? (int64_t)skip : before;
			lane->stats.dropped_frames += skip - (size_t)before;
			if (skip > (size_t)before)
				say_gap(lane, start + before, (int64_t)(skip - (size_t)before), DROPPED,
					"it came after its place was filled with silence");
		}
		if (append(&lane->work, data, frames))
			lane->next_abs += (int64_t)frames;
		lane->pending.frames = 0;
	}
	pthread_mutex_unlock(&lane->mutex);
}

/* Silence (or a cut) so that the lane's work ends at `end_abs`; with `cut`
 * false, only silence. */
static void lane_extend_to(struct lane *lane, int64_t end_abs, bool cut)
{
	if (end_abs > lane->next_abs) {
		size_t gap = (size_t)(end_abs - lane->next_abs);
		if (!append(&lane->work, NULL, gap))
			return;
		pthread_mutex_lock(&lane->mutex);
		lane->stats.silence_frames += gap;
		say_gap(lane, lane->next_abs, (int64_t)gap, SILENCE,
			cut ? "the sound had not come when the recording ended"
			    : "no sound came for half a second");
		pthread_mutex_unlock(&lane->mutex);
		lane->next_abs = end_abs;
	} else if (cut && end_abs < lane->next_abs) {
		size_t unencoded = lane->work.frames - lane->work_start;
		size_t excess = (size_t)(lane->next_abs - end_abs);
		lane->work.frames -= excess < unencoded ? excess : unencoded;
		lane->next_abs = end_abs;
	}
}

/* Frames every lane has: what can be encoded (mixed) now. */
static size_t ready_frames(const struct audio_track *track)
{
	size_t ready = SIZE_MAX;
	for (int l = 0; l < track->lane_count; l++) {
		const struct lane *lane = &track->lanes[l];
		size_t have = lane->work.frames - lane->work_start;
		if (have < ready)
			ready = have;
	}
	return ready;
}

/* Encodes whole encoder frames of what every lane has, up to `until_abs`
 * (an absolute sample index). */
static int encode_full_frames(struct audio_track *track, struct muxer *muxer, int64_t until_abs)
{
	size_t frame_size = track->context->frame_size > 0 ? (size_t)track->context->frame_size
							   : 1024;
	int64_t encoded_abs = track->lanes[0].next_abs -
			      (int64_t)(track->lanes[0].work.frames - track->lanes[0].work_start);
	int ret = 0;
	while (ret >= 0 && ready_frames(track) >= frame_size &&
	       until_abs - encoded_abs >= (int64_t)frame_size) {
		ret = encode_frames(track, muxer, frame_size);
		encoded_abs += (int64_t)frame_size;
	}
	for (int l = 0; l < track->lane_count; l++) {
		struct lane *lane = &track->lanes[l];
		drop_front(&lane->work, lane->work_start);
		lane->work_start = 0;
	}
	return ret;
}

int audio_track_encode(struct audio_track *track, struct muxer *muxer, int64_t origin_ns,
		       int64_t until_ns)
{
	/* A gap that has lasted LIVE_GAP_NS becomes silence now: one instant
	 * for every lane, so that they stay aligned. */
	int64_t live_until = abs_index(clock_now_ns() - LIVE_GAP_NS);
	/* As audio_track_finish() counts the end, to the sample. */
	int64_t until_abs = until_ns == INT64_MAX ? INT64_MAX
			    : abs_index(origin_ns) + abs_index(until_ns - origin_ns);
	if (live_until > until_abs)
		live_until = until_abs;
	for (int l = 0; l < track->lane_count; l++) {
		take_pending(&track->lanes[l], origin_ns);
		lane_extend_to(&track->lanes[l], live_until, false);
	}
	return encode_full_frames(track, muxer, until_abs);
}

int audio_track_finish(struct audio_track *track, struct muxer *muxer, int64_t origin_ns,
		       int64_t end_ns)
{
	/* The audio ends with the video: silence to the end, or cut. What
	 * a resampler still holds (its filter's delay) is the sound's end, not
	 * a gap: out first (no chunk comes any more). */
	for (int l = 0; l < track->lane_count; l++) {
		struct lane *lane = &track->lanes[l];
		pthread_mutex_lock(&lane->mutex);
		if (lane->swr)
			resample(lane, NULL, 0);
		pthread_mutex_unlock(&lane->mutex);
	}
	int64_t end_abs = abs_index(origin_ns) + abs_index(end_ns - origin_ns);
	int ret = audio_track_encode(track, muxer, origin_ns, end_ns);
	if (ret < 0)
		return ret;
	for (int l = 0; l < track->lane_count; l++)
		lane_extend_to(&track->lanes[l], end_abs, true);
	ret = encode_full_frames(track, muxer, end_abs);
	size_t rest = ready_frames(track);
	if (ret >= 0 && rest > 0)
		ret = encode_frames(track, muxer, rest); /* a short last frame */
	if (ret < 0)
		return ret;
	ret = avcodec_send_frame(track->context, NULL);
	if (ret < 0) {
		LOG_ERR("audio encoder: %s", av_err2str(ret));
		return ret;
	}
	return write_packets(track, muxer);
}

void audio_track_get_stats(struct audio_track *track, int source, struct audio_track_stats *stats)
{
	memset(stats, 0, sizeof(*stats));
	if (source >= 0 && source < track->lane_count) {
		struct lane *lane = &track->lanes[source];
		pthread_mutex_lock(&lane->mutex);
		*stats = lane->stats;
		pthread_mutex_unlock(&lane->mutex);
	}
	stats->frames_encoded = atomic_load(&track->frames_encoded);
}

void audio_track_destroy(struct audio_track *track)
{
	if (!track)
		return;
	avcodec_free_context(&track->context);
	av_frame_free(&track->frame);
	av_packet_free(&track->packet);
	for (int l = 0; l < track->lane_count; l++)
		lane_free(&track->lanes[l]);
	free(track->mixed.data);
	free(track);
}
