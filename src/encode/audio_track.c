#define LOG_MODULE "encode"
#include "audio_track.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <libavcodec/avcodec.h>
#include <libavutil/channel_layout.h>
#include <libavutil/mathematics.h>

#include "clock.h"
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

struct samples {
	float *data;   /* interleaved */
	size_t frames, capacity;
};

struct audio_track {
	AVCodecContext *context;
	AVFrame *frame;
	AVPacket *packet;

	pthread_mutex_t mutex; /* the capture's side */
	struct samples pending;
	bool any;
	int64_t pending_end;   /* absolute sample index of the end of what came */
	struct audio_track_stats stats; /* under the mutex */

	/* Encoder thread. */
	struct samples work;
	size_t work_start;     /* frames of `work` already encoded */
	bool started;
	int64_t next_abs;      /* absolute sample index of the end of `work` */
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
	memmove(samples->data, samples->data + frames * CHANNELS,
		(samples->frames - frames) * CHANNELS * sizeof(float));
	samples->frames -= frames;
}

struct audio_track *audio_track_create(const char *path, bool global_header)
{
	const char *name = muxer_audio_encoder(path);
	const AVCodec *codec = avcodec_find_encoder_by_name(name);
	if (!codec) {
		LOG_ERR("--audio: this FFmpeg has no %s encoder", name);
		return NULL;
	}
	struct audio_track *track = calloc(1, sizeof(*track));
	if (!track) {
		LOG_ERRNO("audio track");
		return NULL;
	}
	pthread_mutex_init(&track->mutex, NULL);
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
	context->bit_rate = strcmp(name, "aac") == 0 ? 160000 : 128000;
	context->sample_fmt = AV_SAMPLE_FMT_NONE;
	for (const enum AVSampleFormat *format = codec->sample_fmts; format && *format != -1;
	     format++) {
		if (*format == AV_SAMPLE_FMT_FLT || *format == AV_SAMPLE_FMT_FLTP) {
			context->sample_fmt = *format;
			break;
		}
	}
	if (context->sample_fmt == AV_SAMPLE_FMT_NONE) {
		LOG_ERR("--audio: %s takes no float samples", name);
		goto fail;
	}
	if (global_header)
		context->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
	int ret = avcodec_open2(context, codec, NULL);
	if (ret < 0) {
		LOG_ERR("--audio: cannot open the %s encoder: %s", name, av_err2str(ret));
		goto fail;
	}
	return track;
fail:
	audio_track_destroy(track);
	return NULL;
}

const AVCodecContext *audio_track_context(const struct audio_track *track)
{
	return track->context;
}

const char *audio_track_codec_name(const struct audio_track *track)
{
	return track->context->codec->name;
}

void audio_track_submit(struct audio_track *track, const struct audio_chunk *chunk)
{
	const float *data = chunk->samples;
	size_t frames = chunk->frames;
	int64_t at = abs_index(chunk->pts_ns);
	int64_t tolerance = abs_index(AUDIO_TRACK_TOLERANCE_NS);
	pthread_mutex_lock(&track->mutex);
	track->stats.chunks++;
	if (!track->any) {
		track->pending_end = at;
		track->any = true;
	}
	int64_t gap = at - track->pending_end;
	if (gap > tolerance) {
		if (append(&track->pending, NULL, (size_t)gap)) {
			track->stats.silence_frames += (uint64_t)gap;
			track->pending_end += gap;
		}
	} else if (gap < -tolerance) {
		size_t skip = (size_t)-gap < frames ? (size_t)-gap : frames;
		data += skip * CHANNELS;
		frames -= skip;
		track->stats.dropped_frames += skip;
	}
	if (append(&track->pending, data, frames))
		track->pending_end += (int64_t)frames;
	if (track->pending.frames > PENDING_MAX_FRAMES) {
		size_t excess = track->pending.frames - PENDING_MAX_FRAMES / 2;
		drop_front(&track->pending, excess);
		track->stats.dropped_frames += excess;
	}
	pthread_mutex_unlock(&track->mutex);
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
		ret = muxer_write_audio(muxer, track->packet, track->context->time_base);
		if (ret < 0)
			return ret;
	}
}

/* Encodes `frames` frames from the front of the unencoded work. */
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
	if (ret < 0) {
		LOG_ERR("audio frame: %s", av_err2str(ret));
		return ret;
	}
	const float *from = track->work.data + track->work_start * CHANNELS;
	if (track->context->sample_fmt == AV_SAMPLE_FMT_FLT) {
		memcpy(frame->data[0], from, frames * CHANNELS * sizeof(float));
	} else {
		for (int c = 0; c < CHANNELS; c++) {
			float *plane = (float *)frame->data[c];
			for (size_t i = 0; i < frames; i++)
				plane[i] = from[i * CHANNELS + c];
		}
	}
	frame->pts = track->encoded;
	ret = avcodec_send_frame(track->context, frame);
	if (ret < 0) {
		LOG_ERR("audio encoder: %s", av_err2str(ret));
		return ret;
	}
	track->encoded += (int64_t)frames;
	track->work_start += frames;
	pthread_mutex_lock(&track->mutex);
	track->stats.frames_encoded += frames;
	pthread_mutex_unlock(&track->mutex);
	return write_packets(track, muxer);
}

/* Moves what the capture sent into the work buffer, placed after what is
 * there: silence for a gap, the overlap dropped. */
static void take_pending(struct audio_track *track, int64_t origin_ns)
{
	pthread_mutex_lock(&track->mutex);
	/* What came before the first frame is not the file's: not counted. */
	bool first = !track->started;
	if (first) {
		track->next_abs = abs_index(origin_ns);
		track->started = true;
	}
	if (track->pending.frames) {
		int64_t start = track->pending_end - (int64_t)track->pending.frames;
		const float *data = track->pending.data;
		size_t frames = track->pending.frames;
		if (start > track->next_abs) {
			size_t gap = (size_t)(start - track->next_abs);
			if (append(&track->work, NULL, gap)) {
				track->stats.silence_frames += gap;
				track->next_abs = start;
			}
		} else if (start < track->next_abs) {
			size_t skip = (size_t)(track->next_abs - start);
			if (skip > frames)
				skip = frames;
			data += skip * CHANNELS;
			frames -= skip;
			if (!first)
				track->stats.dropped_frames += skip;
		}
		if (append(&track->work, data, frames))
			track->next_abs += (int64_t)frames;
		track->pending.frames = 0;
	}
	pthread_mutex_unlock(&track->mutex);
}

static int encode_full_frames(struct audio_track *track, struct muxer *muxer)
{
	size_t frame_size = track->context->frame_size > 0 ? (size_t)track->context->frame_size
							   : 1024;
	int ret = 0;
	while (ret >= 0 && track->work.frames - track->work_start >= frame_size)
		ret = encode_frames(track, muxer, frame_size);
	drop_front(&track->work, track->work_start);
	track->work_start = 0;
	return ret;
}

/* A gap that has lasted LIVE_GAP_NS becomes silence now. */
static void fill_live_gap(struct audio_track *track)
{
	int64_t until = abs_index(clock_now_ns() - LIVE_GAP_NS);
	if (until <= track->next_abs)
		return;
	size_t gap = (size_t)(until - track->next_abs);
	if (!append(&track->work, NULL, gap))
		return;
	track->next_abs = until;
	pthread_mutex_lock(&track->mutex);
	track->stats.silence_frames += gap;
	pthread_mutex_unlock(&track->mutex);
}

int audio_track_encode(struct audio_track *track, struct muxer *muxer, int64_t origin_ns)
{
	take_pending(track, origin_ns);
	fill_live_gap(track);
	return encode_full_frames(track, muxer);
}

int audio_track_finish(struct audio_track *track, struct muxer *muxer, int64_t origin_ns,
		       int64_t end_ns)
{
	int ret = audio_track_encode(track, muxer, origin_ns);
	if (ret < 0)
		return ret;
	/* The audio ends with the video: silence to the end, or cut. */
	int64_t end_abs = abs_index(origin_ns) + abs_index(end_ns - origin_ns);
	if (end_abs > track->next_abs) {
		size_t gap = (size_t)(end_abs - track->next_abs);
		if (append(&track->work, NULL, gap)) {
			pthread_mutex_lock(&track->mutex);
			track->stats.silence_frames += gap;
			pthread_mutex_unlock(&track->mutex);
			track->next_abs = end_abs;
		}
	} else if (end_abs < track->next_abs) {
		size_t cut = (size_t)(track->next_abs - end_abs);
		track->work.frames = cut < track->work.frames ? track->work.frames - cut : 0;
	}
	ret = encode_full_frames(track, muxer);
	if (ret >= 0 && track->work.frames > 0)
		ret = encode_frames(track, muxer, track->work.frames); /* a short last frame */
	if (ret < 0)
		return ret;
	ret = avcodec_send_frame(track->context, NULL);
	if (ret < 0) {
		LOG_ERR("audio encoder: %s", av_err2str(ret));
		return ret;
	}
	return write_packets(track, muxer);
}

void audio_track_get_stats(struct audio_track *track, struct audio_track_stats *stats)
{
	pthread_mutex_lock(&track->mutex);
	*stats = track->stats;
	pthread_mutex_unlock(&track->mutex);
}

void audio_track_destroy(struct audio_track *track)
{
	if (!track)
		return;
	avcodec_free_context(&track->context);
	av_frame_free(&track->frame);
	av_packet_free(&track->packet);
	free(track->pending.data);
	free(track->work.data);
	pthread_mutex_destroy(&track->mutex);
	free(track);
}
