#define LOG_MODULE "encode"
#include "muxer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libavformat/avformat.h>
#include <libavutil/opt.h>

#include "log.h"

struct muxer {
	char *path;
	AVFormatContext *format;
	AVStream *stream;
	AVStream *audio_stream;
	const AVCodecContext *audio_encoder; /* until muxer_start() */
	AVPacket *held;       /* last packet, waiting for its duration */
	bool has_held;
	bool started;
	bool failed;
	bool fragmented_mov; /* mp4/mov */
	_Atomic int64_t bytes_written;
};

struct container {
	const char *extension;
	const char *format_name;
	bool fragmented;
	const char *audio_encoder; /* FFmpeg's name: Opus where it fits, else AAC */
};

static const struct container containers[] = {
	{".mkv", "matroska", false, "libopus"},
	{".mp4", "mp4", true, "aac"},
	{".mov", "mov", true, "aac"},
	{".webm", "webm", false, "libopus"},
};

static const struct container *container_for_path(const char *path)
{
	static const struct container stdout_container = {"-", "matroska", false, "libopus"};
	if (strcmp(path, "-") == 0)
		return &stdout_container;
	const char *dot = strrchr(path, '.');
	const char *slash = strrchr(path, '/');
	if (!dot || (slash && dot < slash))
		return NULL;
	for (size_t i = 0; i < sizeof(containers) / sizeof(containers[0]); i++)
		if (strcasecmp(dot, containers[i].extension) == 0)
			return &containers[i];
	return NULL;
}

static void log_av_error(const char *what, const char *path, int err)
{
	LOG_ERR("%s %s: %s", what, path, av_err2str(err));
}

/* One clear line for the first failure, then silence: the recording is over. */
static int fail(struct muxer *muxer, const char *what, int err)
{
	if (!muxer->failed)
		log_av_error(what, muxer->path, err);
	muxer->failed = true;
	return err;
}

enum AVCodecID muxer_default_codec(const char *path)
{
	const struct container *container = container_for_path(path);
	return container && strcmp(container->format_name, "webm") == 0 ? AV_CODEC_ID_VP9
									 : AV_CODEC_ID_H264;
}

const char *muxer_audio_encoder(const char *path)
{
	const struct container *container = container_for_path(path);
	return container ? container->audio_encoder : "libopus";
}

/* The container for `path`, checked to hold `codec_id` (NONE: any); logs. */
static const AVOutputFormat *checked_format(const char *path, enum AVCodecID codec_id,
					    const struct container **container_out)
{
	const struct container *container = container_for_path(path);
	if (!container) {
		LOG_ERR("%s: unknown container; use a .mkv, .mp4, .mov or .webm file name, or - for Matroska on stdout",
			path);
		return NULL;
	}
	const AVOutputFormat *oformat = av_guess_format(container->format_name, NULL, NULL);
	if (!oformat) {
		LOG_ERR("%s: this FFmpeg has no %s muxer", path, container->format_name);
		return NULL;
	}
	if (codec_id != AV_CODEC_ID_NONE &&
	    avformat_query_codec(oformat, codec_id, FF_COMPLIANCE_NORMAL) != 1) {
		if (strcmp(container->format_name, "webm") == 0)
			LOG_ERR("%s: webm holds VP8/VP9/AV1, not %s; use .mkv for H.264/HEVC "
				"(or leave out --codec: .webm gets VP9)", path,
				avcodec_get_name(codec_id));
		else
			LOG_ERR("%s: the %s container cannot hold %s", path, container->format_name,
				avcodec_get_name(codec_id));
		return NULL;
	}
	*container_out = container;
	return oformat;
}

bool muxer_check(const char *path, enum AVCodecID codec_id)
{
	const struct container *container;
	return checked_format(path, codec_id, &container) != NULL;
}

struct muxer *muxer_create(const char *path, enum AVCodecID codec_id, bool overwrite,
			   bool *bad_config)
{
	struct muxer *muxer = NULL;
	*bad_config = true;
	const struct container *container;
	const AVOutputFormat *oformat = checked_format(path, codec_id, &container);
	if (!oformat)
		return NULL;
	*bad_config = false;

	muxer = calloc(1, sizeof(*muxer));
	if (!muxer)
		goto fail_nomem;
	muxer->path = strdup(strcmp(path, "-") == 0 ? "stdout" : path);
	muxer->held = av_packet_alloc();
	if (!muxer->path || !muxer->held)
		goto fail_nomem;
	int ret = avformat_alloc_output_context2(&muxer->format, oformat, NULL, NULL);
	if (ret < 0) {
		log_av_error("cannot set up the muxer for", path, ret);
		goto fail;
	}
	if (container->fragmented) {
		/* A fragment at each keyframe and at least every second: a crash or
		 * a full disk loses at most the last second. */
		ret = av_opt_set(muxer->format->priv_data, "movflags",
				 "frag_keyframe+empty_moov+default_base_moof", 0);
		if (ret >= 0)
			ret = av_opt_set_int(muxer->format->priv_data, "frag_duration", 1000000, 0);
		if (ret < 0) {
			log_av_error("cannot set fragmented output for", path, ret);
			goto fail;
		}
	}
	/* What is muxed reaches the file at once, not when a 32 KiB buffer
	 * fills (a small recording would be all lost to SIGKILL), and a
	 * Matroska cluster closes every second (libavformat: 5 s): a killed
	 * recording loses about the last second. */
	muxer->format->flags |= AVFMT_FLAG_FLUSH_PACKETS;
	if (!container->fragmented) {
		ret = av_opt_set_int(muxer->format->priv_data, "cluster_time_limit", 1000, 0);
		if (ret < 0) {
			log_av_error("cannot set the cluster length for", path, ret);
			goto fail;
		}
	}
	muxer->fragmented_mov = container->fragmented;
	const char *url = strcmp(path, "-") == 0 ? "pipe:1" : path;
	if (!overwrite && url == path) {
		/* Created here, exclusively, so an existing recording is never
		 * truncated; avio then opens the new empty file. */
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		struct stat st;
		if (fd >= 0) {
			close(fd);
		} else if (errno != EEXIST) {
			LOG_ERRNO("cannot create %s", path);
			goto fail;
		} else if (stat(path, &st) < 0 || S_ISREG(st.st_mode)) {
			/* A FIFO or device (/dev/null) holds no recording to lose. */
			LOG_ERR("%s already exists: give --overwrite (-y) to replace it", path);
			goto fail;
		}
	}
	ret = avio_open2(&muxer->format->pb, url, AVIO_FLAG_WRITE, NULL, NULL);
	if (ret < 0) {
		log_av_error("cannot open", path, ret);
		goto fail;
	}
	return muxer;

fail_nomem:
	LOG_ERRNO_P(ENOMEM, "%s", path);
fail:
	muxer_destroy(muxer);
	return NULL;
}

bool muxer_wants_global_header(const struct muxer *muxer)
{
	return muxer->format->oformat->flags & AVFMT_GLOBALHEADER;
}

int muxer_start(struct muxer *muxer, const AVCodecContext *encoder)
{
	muxer->stream = avformat_new_stream(muxer->format, NULL);
	if (!muxer->stream)
		return fail(muxer, "cannot add a stream to", AVERROR(ENOMEM));
	int ret = avcodec_parameters_from_context(muxer->stream->codecpar, encoder);
	if (ret < 0)
		return fail(muxer, "cannot describe the stream of", ret);
	muxer->stream->time_base = encoder->time_base;
	/* MP4 sample durations are 32-bit: a microsecond timescale would wrap
	 * after 71 minutes. 90 kHz is the usual video clock. */
	if (muxer->fragmented_mov && encoder->time_base.den > 90000 * (int64_t)encoder->time_base.num)
		muxer->stream->time_base = (AVRational){1, 90000};
	if (encoder->framerate.num > 0)
		muxer->stream->avg_frame_rate = encoder->framerate;
	if (muxer->audio_encoder) {
		muxer->audio_stream = avformat_new_stream(muxer->format, NULL);
		if (!muxer->audio_stream)
			return fail(muxer, "cannot add the audio stream to", AVERROR(ENOMEM));
		ret = avcodec_parameters_from_context(muxer->audio_stream->codecpar,
						      muxer->audio_encoder);
		if (ret < 0)
			return fail(muxer, "cannot describe the audio stream of", ret);
		muxer->audio_stream->time_base = muxer->audio_encoder->time_base;
	}
	ret = avformat_write_header(muxer->format, NULL);
	if (ret < 0)
		return fail(muxer, "cannot write the header of", ret);
	if (muxer->format->pb->error < 0)
		return fail(muxer, "cannot write the header of", muxer->format->pb->error);
	muxer->audio_encoder = NULL;
	muxer->started = true;
	muxer->bytes_written = avio_tell(muxer->format->pb);
	return 0;
}

AVRational muxer_time_base(const struct muxer *muxer)
{
	return muxer->stream->time_base;
}

static int write_held(struct muxer *muxer, int64_t next_pts)
{
	AVPacket *packet = muxer->held;
	packet->duration = next_pts - packet->pts;
	if (packet->duration < 1)
		packet->duration = 1;
	muxer->has_held = false;
	/* av_write_frame() takes the packet's reference; the held slot is
	 * free again either way. */
	/* With audio, libavformat interleaves the two streams by time. */
	int ret = muxer->audio_stream ? av_interleaved_write_frame(muxer->format, packet)
				      : av_write_frame(muxer->format, packet);
	av_packet_unref(packet);
	if (ret < 0)
		return fail(muxer, "cannot write", ret);
	if (muxer->format->pb->error < 0)
		return fail(muxer, "cannot write", muxer->format->pb->error);
	muxer->bytes_written = avio_tell(muxer->format->pb);
	return 0;
}

int muxer_write(struct muxer *muxer, AVPacket *packet, AVRational time_base)
{
	if (muxer->failed)
		return AVERROR(EIO);
	av_packet_rescale_ts(packet, time_base, muxer->stream->time_base);
	packet->stream_index = muxer->stream->index;
	if (muxer->has_held) {
		if (packet->pts <= muxer->held->pts) {
			av_packet_unref(packet);
			return fail(muxer, "non-increasing timestamps for", AVERROR_BUG);
		}
		int ret = write_held(muxer, packet->pts);
		if (ret < 0) {
			av_packet_unref(packet);
			return ret;
		}
	}
	av_packet_move_ref(muxer->held, packet);
	muxer->has_held = true;
	return 0;
}

void muxer_add_audio(struct muxer *muxer, const AVCodecContext *audio_encoder)
{
	muxer->audio_encoder = audio_encoder;
}

int muxer_write_audio(struct muxer *muxer, AVPacket *packet, AVRational time_base)
{
	if (muxer->failed || !muxer->audio_stream) {
		av_packet_unref(packet);
		return muxer->failed ? AVERROR(EIO) : AVERROR_BUG;
	}
	av_packet_rescale_ts(packet, time_base, muxer->audio_stream->time_base);
	packet->stream_index = muxer->audio_stream->index;
	int ret = av_interleaved_write_frame(muxer->format, packet);
	av_packet_unref(packet);
	if (ret < 0)
		return fail(muxer, "cannot write audio to", ret);
	if (muxer->format->pb->error < 0)
		return fail(muxer, "cannot write", muxer->format->pb->error);
	muxer->bytes_written = avio_tell(muxer->format->pb);
	return 0;
}

int muxer_finish(struct muxer *muxer, int64_t end_pts, AVRational time_base)
{
	int ret = 0;
	if (muxer->started && !muxer->failed) {
		if (muxer->has_held)
			ret = write_held(muxer, av_rescale_q(end_pts, time_base, muxer->stream->time_base));
		if (ret >= 0) {
			ret = av_write_trailer(muxer->format);
			if (ret < 0)
				fail(muxer, "cannot finish", ret);
		}
	}
	if (muxer->format && muxer->format->pb) {
		if (muxer->format->pb->error < 0 && !muxer->failed)
			fail(muxer, "cannot write", muxer->format->pb->error);
		muxer->bytes_written = avio_tell(muxer->format->pb);
		int close_ret = avio_closep(&muxer->format->pb);
		if (close_ret < 0)
			fail(muxer, "cannot close", close_ret);
	}
	if (!muxer->started)
		return AVERROR(ENODATA); /* the caller knows why: its own message */
	return muxer->failed ? AVERROR(EIO) : 0;
}

int64_t muxer_bytes_written(const struct muxer *muxer)
{
	return muxer->bytes_written;
}

void muxer_destroy(struct muxer *muxer)
{
	if (!muxer)
		return;
	if (muxer->format) {
		if (muxer->format->pb)
			avio_closep(&muxer->format->pb);
		avformat_free_context(muxer->format);
	}
	av_packet_free(&muxer->held);
	free(muxer->path);
	free(muxer);
}
