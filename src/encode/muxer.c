#define LOG_MODULE "encode"
#include "muxer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libavformat/avformat.h>
#include <libavutil/opt.h>

#include "log.h"

#define MAX_AUDIO_STREAMS 8
#define OUTPUT_BUFFER_SIZE (32 * 1024)

struct muxer {
	char *path;
	AVFormatContext *format;
	AVStream *stream;
	int audio_count;
	AVStream *audio_streams[MAX_AUDIO_STREAMS];
	/* Added to an audio stream's packet times, in samples (see
	 * opus_padding_offset()), and its sample rate. */
	int64_t audio_ts_offsets[MAX_AUDIO_STREAMS];
	int audio_rates[MAX_AUDIO_STREAMS];
	/* Until muxer_start(): */
	const AVCodecContext *audio_encoders[MAX_AUDIO_STREAMS];
	char *audio_titles[MAX_AUDIO_STREAMS];
	AVPacket *held;       /* last packet, waiting for its duration */
	bool has_held;
	bool started;
	bool failed;
	bool fragmented_mov; /* mp4/mov */
	int fd;              /* the file's, -1 for stdout (libavformat's pipe:1) */
	_Atomic int64_t bytes_written;
};

/* The sound codecs we offer: --audio-codec NAME, and FFmpeg's encoder. */
struct audio_codec {
	const char *name;
	const char *encoder;
};

static const struct audio_codec audio_codecs[] = {
	{"opus", "libopus"},
	{"aac", "aac"},
	{"flac", "flac"},
};

struct container {
	const char *extension;
	const char *format_name;
	const char *label;    /* for people */
	bool fragmented;
	/* What it holds, the default first: Opus where it fits, else AAC.
	 * Found by writing a header with FFmpeg 5.1, not by
	 * avformat_query_codec(), which says yes to Opus and FLAC in MOV and
	 * to FLAC in MP4 (refused: "experimental", "only supported in MP4"). */
	const char *audio[4];
};

static const struct container containers[] = {
	{".mkv", "matroska", "Matroska", false, {"opus", "aac", "flac"}},
	{".mp4", "mp4", "MP4", true, {"aac", "opus"}},
	{".mov", "mov", "MOV", true, {"aac"}},
	{".webm", "webm", "WebM", false, {"opus"}},
};

static const struct container *container_for_path(const char *path)
{
	static const struct container stdout_container = {"-", "matroska", "Matroska", false,
								  {"opus", "aac", "flac"}};
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

static const struct audio_codec *find_audio_codec(const char *name)
{
	for (size_t i = 0; i < sizeof(audio_codecs) / sizeof(audio_codecs[0]); i++)
		if (strcasecmp(name, audio_codecs[i].name) == 0)
			return &audio_codecs[i];
	return NULL;
}

static bool container_holds(const struct container *container, const char *codec)
{
	for (size_t i = 0; i < sizeof(container->audio) / sizeof(container->audio[0]); i++)
		if (container->audio[i] && strcmp(container->audio[i], codec) == 0)
			return true;
	return false;
}

const char *muxer_audio_encoder(const char *path, const char *codec)
{
	static const struct container fallback = {"", "", "", false, {"opus"}};
	const struct container *container = container_for_path(path);
	if (!container)
		container = &fallback;
	const struct audio_codec *wanted = find_audio_codec(codec ? codec : container->audio[0]);
	if (!wanted) {
		char names[64] = "";
		for (size_t i = 0; i < sizeof(audio_codecs) / sizeof(audio_codecs[0]); i++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
				 i ? ", " : "", audio_codecs[i].name);
		LOG_ERR("unknown --audio-codec '%s': expected %s", codec, names);
		return NULL;
	}
	if (!container_holds(container, wanted->name)) {
		char names[64] = "";
		for (size_t i = 0; i < sizeof(container->audio) / sizeof(container->audio[0]) &&
				   container->audio[i]; i++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
				 i ? " or " : "", container->audio[i]);
		LOG_ERR("--audio-codec %s: %s holds %s (.mkv holds opus, aac and flac)",
			wanted->name, container->label, names);
		return NULL;
	}
	return wanted->encoder;
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

/* The file is ours to open, not libavformat's: given a name, avio_open2()
 * parses it as a URL, so "file:out.mkv" opened out.mkv (truncating it
 * without -y) and "rec-12:30.mkv" asked for a protocol "rec-12". The muxer
 * writes to the descriptor through these callbacks. */
#if LIBAVFORMAT_VERSION_MAJOR >= 61
typedef const uint8_t avio_write_data;
#else
typedef uint8_t avio_write_data;
#endif

static int write_output(void *opaque, avio_write_data *data, int size)
{
	const struct muxer *muxer = opaque;
	int done = 0;
	while (done < size) {
		ssize_t n = write(muxer->fd, data + done, (size_t)(size - done));
		if (n < 0 && errno == EINTR)
			continue;
		/* The error stays in pb->error: the caller's fail() says it. */
		if (n < 0)
			return AVERROR(errno);
		if (n == 0)
			return AVERROR(EIO);
		done += (int)n;
	}
	return done;
}

static int64_t seek_output(void *opaque, int64_t offset, int whence)
{
	const struct muxer *muxer = opaque;
	if (whence & AVSEEK_SIZE) {
		struct stat st;
		return fstat(muxer->fd, &st) < 0 ? AVERROR(errno) : st.st_size;
	}
	off_t at = lseek(muxer->fd, (off_t)offset, whence & ~AVSEEK_FORCE);
	return at < 0 ? AVERROR(errno) : at;
}

/* Opens `path` literally: created exclusively unless `overwrite`, so an
 * existing recording is never truncated; an existing FIFO or device
 * (/dev/null) holds no recording to lose and is written to. AVERROR_EXIT
 * once the refusal is logged. */
static int open_file(const char *path, bool overwrite)
{
	if (overwrite) {
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
		return fd >= 0 ? fd : AVERROR(errno);
	}
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd >= 0)
		return fd;
	if (errno != EEXIST) {
		LOG_ERRNO("cannot create %s", path);
		return AVERROR_EXIT;
	}
	/* A FIFO or device (/dev/null) holds no recording to lose; a FIFO
	 * waits for its reader, as it did in avio_open2(). */
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
		if (fd < 0)
			return AVERROR(errno);
		if (fstat(fd, &st) == 0 && !S_ISREG(st.st_mode))
			return fd;
		close(fd); /* replaced by a file meanwhile */
	}
	LOG_ERR("%s already exists: give --overwrite (-y) to replace it", path);
	return AVERROR_EXIT;
}

static int open_output(struct muxer *muxer, const char *path, bool overwrite)
{
	int fd = open_file(path, overwrite);
	if (fd < 0)
		return fd;
	muxer->fd = fd;
	unsigned char *buffer = av_malloc(OUTPUT_BUFFER_SIZE);
	AVIOContext *pb = buffer ? avio_alloc_context(buffer, OUTPUT_BUFFER_SIZE, 1, muxer, NULL,
						      write_output, seek_output) : NULL;
	if (!pb) {
		av_free(buffer);
		close(fd);
		muxer->fd = -1;
		return AVERROR(ENOMEM);
	}
	/* As libavformat's file protocol: a pipe cannot seek back. */
	struct stat st;
	pb->seekable = fstat(fd, &st) == 0 && !S_ISFIFO(st.st_mode) && !S_ISSOCK(st.st_mode) &&
				       lseek(fd, 0, SEEK_CUR) >= 0
			       ? AVIO_SEEKABLE_NORMAL : 0;
	muxer->format->pb = pb;
	muxer->format->flags |= AVFMT_FLAG_CUSTOM_IO;
	return 0;
}

/* Flushes and frees the output (ours or libavformat's pipe:1). */
static int close_output(struct muxer *muxer)
{
	if (!muxer->format || !muxer->format->pb)
		return 0;
	if (!(muxer->format->flags & AVFMT_FLAG_CUSTOM_IO))
		return avio_closep(&muxer->format->pb);
	AVIOContext *pb = muxer->format->pb;
	avio_flush(pb);
	int ret = pb->error < 0 ? pb->error : 0;
	av_freep(&pb->buffer);
	avio_context_free(&muxer->format->pb);
	if (close(muxer->fd) < 0 && ret == 0)
		ret = AVERROR(errno);
	muxer->fd = -1;
	return ret;
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
	muxer->fd = -1;
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
	if (strcmp(path, "-") == 0)
		ret = avio_open2(&muxer->format->pb, "pipe:1", AVIO_FLAG_WRITE, NULL, NULL);
	else
		ret = open_output(muxer, path, overwrite);
	if (ret < 0) {
		if (ret != AVERROR_EXIT)
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

/* Opus packets start `initial_padding` (the pre-skip, 312 samples) before
 * the first sample: the encoder stamps the first packet -312. Matroska
 * writes the pre-skip as CodecDelay, which demuxers subtract from the
 * audio's times. libavformat from 59.31 adds the padding back to the Opus
 * block times itself (the track's ts_offset); older ones (Debian 12's
 * 59.27) see a negative time and shift every stream by 6.5 ms to make it
 * non-negative, so the video started at 0.007 while the audio, less its
 * CodecDelay, started at 0: the sound played 6.5 ms early. For those we add
 * the padding ourselves, as the newer muxer does. */
static int64_t opus_padding_offset(const struct muxer *muxer, const AVCodecContext *audio)
{
	if (muxer->fragmented_mov || audio->codec_id != AV_CODEC_ID_OPUS ||
	    audio->initial_padding <= 0 || avformat_version() > AV_VERSION_INT(59, 30, 100))
		return 0;
	return audio->initial_padding;
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
	for (int i = 0; i < muxer->audio_count; i++) {
		AVStream *audio = avformat_new_stream(muxer->format, NULL);
		if (!audio)
			return fail(muxer, "cannot add the audio stream to", AVERROR(ENOMEM));
		ret = avcodec_parameters_from_context(audio->codecpar, muxer->audio_encoders[i]);
		if (ret < 0)
			return fail(muxer, "cannot describe the audio stream of", ret);
		audio->time_base = muxer->audio_encoders[i]->time_base;
		muxer->audio_ts_offsets[i] = opus_padding_offset(muxer, muxer->audio_encoders[i]);
		muxer->audio_rates[i] = muxer->audio_encoders[i]->sample_rate;
		/* Matroska keeps a "title"; MP4 and MOV only the handler's name. */
		if (muxer->audio_titles[i])
			av_dict_set(&audio->metadata,
				    muxer->fragmented_mov ? "handler_name" : "title",
				    muxer->audio_titles[i], 0);
		muxer->audio_streams[i] = audio;
	}
	ret = avformat_write_header(muxer->format, NULL);
	if (ret < 0)
		return fail(muxer, "cannot write the header of", ret);
	if (muxer->format->pb->error < 0)
		return fail(muxer, "cannot write the header of", muxer->format->pb->error);
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
	int ret = muxer->audio_count ? av_interleaved_write_frame(muxer->format, packet)
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

bool muxer_holds_packet(const struct muxer *muxer)
{
	return muxer->has_held;
}

int muxer_flush_held(struct muxer *muxer, int64_t duration, AVRational time_base)
{
	if (muxer->failed)
		return AVERROR(EIO);
	if (!muxer->has_held)
		return 0;
	int64_t stream_duration = av_rescale_q(duration, time_base, muxer->stream->time_base);
	int ret = write_held(muxer, muxer->held->pts + (stream_duration > 0 ? stream_duration : 1));
	if (ret < 0)
		return ret;
	/* Out of the interleaving queue first (it holds packets until every
	 * stream has a later one: the still video never would), then out of
	 * the muxer's cluster or fragment. */
	if (muxer->audio_count && (ret = av_interleaved_write_frame(muxer->format, NULL)) < 0)
		return fail(muxer, "cannot write", ret);
	if ((ret = av_write_frame(muxer->format, NULL)) < 0)
		return fail(muxer, "cannot write", ret);
	/* The next fragment starts at its first packet's own time, not where
	 * this packet's guessed duration ends. */
	if (muxer->fragmented_mov &&
	    (ret = av_opt_set(muxer->format->priv_data, "movflags", "+frag_discont", 0)) < 0)
		return fail(muxer, "cannot mark a discontinuity in", ret);
	if (muxer->format->pb->error < 0)
		return fail(muxer, "cannot write", muxer->format->pb->error);
	muxer->bytes_written = avio_tell(muxer->format->pb);
	return 0;
}

int muxer_add_audio(struct muxer *muxer, const AVCodecContext *audio_encoder)
{
	if (muxer->started || muxer->audio_count == MAX_AUDIO_STREAMS)
		return -1;
	muxer->audio_encoders[muxer->audio_count] = audio_encoder;
	return muxer->audio_count++;
}

void muxer_set_audio_title(struct muxer *muxer, int index, const char *title)
{
	if (muxer->started || index < 0 || index >= muxer->audio_count)
		return;
	free(muxer->audio_titles[index]);
	muxer->audio_titles[index] = title ? strdup(title) : NULL;
}

int muxer_write_audio(struct muxer *muxer, int index, AVPacket *packet, AVRational time_base)
{
	if (muxer->failed || index < 0 || index >= muxer->audio_count ||
	    !muxer->audio_streams[index]) {
		av_packet_unref(packet);
		return muxer->failed ? AVERROR(EIO) : AVERROR_BUG;
	}
	AVStream *stream = muxer->audio_streams[index];
	if (muxer->audio_ts_offsets[index]) {
		/* In the packet's time base, before rounding to the stream's. */
		int64_t offset = av_rescale_q(muxer->audio_ts_offsets[index],
					      (AVRational){1, muxer->audio_rates[index]}, time_base);
		if (packet->pts != AV_NOPTS_VALUE)
			packet->pts += offset;
		if (packet->dts != AV_NOPTS_VALUE)
			packet->dts += offset;
	}
	av_packet_rescale_ts(packet, time_base, stream->time_base);
	packet->stream_index = stream->index;
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
		int close_ret = close_output(muxer);
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
		close_output(muxer);
		avformat_free_context(muxer->format);
	}
	av_packet_free(&muxer->held);
	for (int i = 0; i < muxer->audio_count; i++)
		free(muxer->audio_titles[i]);
	free(muxer->path);
	free(muxer);
}
