#include "media.h"

#include <math.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>

static void print_av_error(const char *what, const char *path, int err)
{
	char text[AV_ERROR_MAX_STRING_SIZE];
	av_strerror(err, text, sizeof(text));
	fprintf(stderr, "media: %s %s: %s\n", what, path, text);
}

static void copy_name(char *dst, size_t size, const char *name)
{
	snprintf(dst, size, "%s", name ? name : "unknown");
}

static int swscale_coefficients(enum AVColorSpace space)
{
	switch (space) {
	case AVCOL_SPC_BT709: return SWS_CS_ITU709;
	case AVCOL_SPC_BT470BG: case AVCOL_SPC_SMPTE170M: return SWS_CS_ITU601;
	case AVCOL_SPC_BT2020_NCL: case AVCOL_SPC_BT2020_CL: return SWS_CS_BT2020;
	default: return SWS_CS_DEFAULT;
	}
}

/* Converts one decoded picture to packed RGB24 honouring its tagged matrix
 * and range, the way a careful player would. */
static int frame_to_rgb(const AVFrame *frame, struct rgb_image *image)
{
	struct SwsContext *sws = sws_getContext(frame->width, frame->height, frame->format,
						frame->width, frame->height, AV_PIX_FMT_RGB24,
						SWS_BILINEAR | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT,
						NULL, NULL, NULL);
	if (!sws)
		return -1;
	const int *coefficients = sws_getCoefficients(swscale_coefficients(frame->colorspace));
	int src_full = frame->color_range == AVCOL_RANGE_JPEG;
	sws_setColorspaceDetails(sws, coefficients, src_full, coefficients, 1, 0, 1 << 16, 1 << 16);
	image->width = frame->width;
	image->height = frame->height;
	image->rgb = malloc((size_t)frame->width * (size_t)frame->height * 3);
	int ret = -1;
	if (image->rgb) {
		uint8_t *dst[4] = {image->rgb};
		int dst_linesize[4] = {frame->width * 3};
		ret = sws_scale(sws, (const uint8_t *const *)frame->data, frame->linesize, 0,
				frame->height, dst, dst_linesize) == frame->height ? 0 : -1;
	}
	sws_freeContext(sws);
	return ret;
}

static int take_frames(AVCodecContext *decoder, AVFrame *frame, const AVStream *stream,
		       int64_t start, struct decoded_video *out, int *capacity)
{
	for (;;) {
		int ret = avcodec_receive_frame(decoder, frame);
		if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF)
			return 0;
		if (ret < 0)
			return ret;
		if (out->frame_count == *capacity) {
			int grown = *capacity ? *capacity * 2 : 64;
			struct decoded_frame *frames = realloc(out->frames, (size_t)grown * sizeof(*frames));
			if (!frames)
				return AVERROR(ENOMEM);
			out->frames = frames;
			*capacity = grown;
		}
		struct decoded_frame *decoded = &out->frames[out->frame_count];
		memset(decoded, 0, sizeof(*decoded));
		int64_t pts = frame->best_effort_timestamp;
		if (pts == AV_NOPTS_VALUE)
			pts = frame->pts;
		decoded->pts_us = pts == AV_NOPTS_VALUE ? -1
			: av_rescale_q(pts - start, stream->time_base, (AVRational){1, 1000000});
		decoded->duration_us = frame->pkt_duration > 0
			? av_rescale_q(frame->pkt_duration, stream->time_base, (AVRational){1, 1000000}) : 0;
		ret = frame_to_rgb(frame, &decoded->image);
		av_frame_unref(frame);
		if (ret < 0)
			return AVERROR(ENOMEM);
		out->frame_count++;
	}
}

/* Opens `path`, finds its best stream of `type` and opens a decoder for
 * it: 0, or a negative AVERROR after printing why (the caller frees what
 * was made either way). */
static int open_best_stream(const char *path, enum AVMediaType type, AVFormatContext **format,
			    AVCodecContext **decoder, int *index)
{
	int ret = avformat_open_input(format, path, NULL, NULL);
	if (ret < 0) {
		print_av_error("cannot open", path, ret);
		return ret;
	}
	ret = avformat_find_stream_info(*format, NULL);
	if (ret < 0) {
		print_av_error("no stream info in", path, ret);
		return ret;
	}
	const AVCodec *codec = NULL;
	*index = av_find_best_stream(*format, type, -1, -1, &codec, 0);
	if (*index < 0 || !codec) {
		ret = *index < 0 ? *index : AVERROR_DECODER_NOT_FOUND;
		print_av_error(type == AVMEDIA_TYPE_VIDEO ? "no video stream in" : "no audio stream in",
			       path, ret);
		return ret;
	}
	*decoder = avcodec_alloc_context3(codec);
	if (!*decoder)
		return AVERROR(ENOMEM);
	ret = avcodec_parameters_to_context(*decoder, (*format)->streams[*index]->codecpar);
	if (ret >= 0)
		ret = avcodec_open2(*decoder, codec, NULL);
	if (ret < 0)
		print_av_error("cannot open the decoder for", path, ret);
	return ret < 0 ? ret : 0;
}

int media_decode_video(const char *path, struct decoded_video *out)
{
	AVFormatContext *format = NULL;
	AVCodecContext *decoder = NULL;
	AVPacket *packet = av_packet_alloc();
	AVFrame *frame = av_frame_alloc();
	int capacity = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!packet || !frame) {
		ret = AVERROR(ENOMEM);
		goto out;
	}
	int index;
	ret = open_best_stream(path, AVMEDIA_TYPE_VIDEO, &format, &decoder, &index);
	if (ret < 0)
		goto out;
	AVStream *stream = format->streams[index];
	const AVCodecParameters *par = stream->codecpar;
	copy_name(out->container, sizeof(out->container), format->iformat->name);
	copy_name(out->codec, sizeof(out->codec), avcodec_get_name(par->codec_id));
	copy_name(out->pix_fmt, sizeof(out->pix_fmt), av_get_pix_fmt_name(par->format));
	copy_name(out->color_range, sizeof(out->color_range), av_color_range_name(par->color_range));
	copy_name(out->colorspace, sizeof(out->colorspace), av_color_space_name(par->color_space));
	out->width = par->width;
	out->height = par->height;
	out->duration_us = format->duration == AV_NOPTS_VALUE ? -1 : format->duration;

	int64_t start = stream->start_time == AV_NOPTS_VALUE ? 0 : stream->start_time;

	/* A truncated file ends in a read error: decode what came before. */
	while (av_read_frame(format, packet) >= 0) {
		if (packet->stream_index == index) {
			if (avcodec_send_packet(decoder, packet) >= 0) {
				ret = take_frames(decoder, frame, stream, start, out, &capacity);
				if (ret == AVERROR(ENOMEM))
					goto out;
			}
		}
		av_packet_unref(packet);
	}
	avcodec_send_packet(decoder, NULL);
	ret = take_frames(decoder, frame, stream, start, out, &capacity);
	if (ret == AVERROR(ENOMEM))
		goto out;
	ret = 0;
out:
	if (ret < 0)
		media_decoded_video_free(out);
	avcodec_free_context(&decoder);
	avformat_close_input(&format);
	av_packet_free(&packet);
	av_frame_free(&frame);
	return ret;
}

void media_decoded_video_free(struct decoded_video *video)
{
	if (!video)
		return;
	for (int i = 0; i < video->frame_count; i++)
		media_rgb_image_free(&video->frames[i].image);
	free(video->frames);
	video->frames = NULL;
	video->frame_count = 0;
}

static int read_png_rows(png_structp png, png_infop info, FILE *file, struct rgb_image *out)
{
	if (setjmp(png_jmpbuf(png)))
		return -1;
	png_init_io(png, file);
	png_read_info(png, info);
	png_set_expand(png);
	png_set_strip_16(png);
	png_set_strip_alpha(png);
	png_set_gray_to_rgb(png);
	png_read_update_info(png, info);
	out->width = (int)png_get_image_width(png, info);
	out->height = (int)png_get_image_height(png, info);
	if (png_get_rowbytes(png, info) != (size_t)out->width * 3)
		return -1;
	out->rgb = malloc((size_t)out->width * (size_t)out->height * 3);
	if (!out->rgb)
		return -1;
	for (int y = 0; y < out->height; y++)
		png_read_row(png, out->rgb + (size_t)y * (size_t)out->width * 3, NULL);
	png_read_end(png, NULL);
	return 0;
}

/* Appends the samples of `frame` to `out`, interleaved float. */
static int append_audio(const AVFrame *frame, struct decoded_audio *out, int64_t *capacity)
{
	int channels = frame->ch_layout.nb_channels;
	if (channels != out->channels || frame->nb_samples <= 0)
		return channels != out->channels ? AVERROR(EINVAL) : 0;
	if (out->frames + frame->nb_samples > *capacity) {
		int64_t wanted = *capacity ? *capacity * 2 : 48000;
		while (wanted < out->frames + frame->nb_samples)
			wanted *= 2;
		float *grown = realloc(out->samples, (size_t)wanted * (size_t)channels * sizeof(float));
		if (!grown)
			return AVERROR(ENOMEM);
		out->samples = grown;
		*capacity = wanted;
	}
	float *to = out->samples + out->frames * channels;
	for (int i = 0; i < frame->nb_samples; i++) {
		for (int c = 0; c < channels; c++) {
			float v;
			switch (frame->format) {
			case AV_SAMPLE_FMT_FLT: v = ((const float *)frame->data[0])[i * channels + c]; break;
			case AV_SAMPLE_FMT_FLTP: v = ((const float *)frame->data[c])[i]; break;
			case AV_SAMPLE_FMT_S16: v = ((const int16_t *)frame->data[0])[i * channels + c] / 32768.0f; break;
			case AV_SAMPLE_FMT_S16P: v = ((const int16_t *)frame->data[c])[i] / 32768.0f; break;
			case AV_SAMPLE_FMT_S32: v = (float)(((const int32_t *)frame->data[0])[i * channels + c] / 2147483648.0); break;
			default: return AVERROR(ENOSYS);
			}
			to[i * channels + c] = v;
		}
	}
	out->frames += frame->nb_samples;
	return 0;
}

static int take_audio(AVCodecContext *decoder, AVFrame *frame, struct decoded_audio *out,
		      int64_t *capacity)
{
	for (;;) {
		int ret = avcodec_receive_frame(decoder, frame);
		if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF)
			return 0;
		if (ret < 0)
			return ret;
		ret = append_audio(frame, out, capacity);
		av_frame_unref(frame);
		if (ret < 0)
			return ret;
	}
}

int media_decode_audio(const char *path, struct decoded_audio *out)
{
	AVFormatContext *format = NULL;
	AVCodecContext *decoder = NULL;
	AVPacket *packet = av_packet_alloc();
	AVFrame *frame = av_frame_alloc();
	int64_t capacity = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!packet || !frame) {
		ret = AVERROR(ENOMEM);
		goto out;
	}
	int index;
	ret = open_best_stream(path, AVMEDIA_TYPE_AUDIO, &format, &decoder, &index);
	if (ret < 0)
		goto out;
	const AVCodecParameters *par = format->streams[index]->codecpar;
	copy_name(out->codec, sizeof(out->codec), avcodec_get_name(par->codec_id));
	out->sample_rate = par->sample_rate;
	out->channels = par->ch_layout.nb_channels;
	while (ret >= 0 && av_read_frame(format, packet) >= 0) {
		if (packet->stream_index == index && avcodec_send_packet(decoder, packet) >= 0)
			ret = take_audio(decoder, frame, out, &capacity);
		av_packet_unref(packet);
	}
	if (ret >= 0 && avcodec_send_packet(decoder, NULL) >= 0)
		ret = take_audio(decoder, frame, out, &capacity);
	if (ret < 0)
		print_av_error("cannot decode the audio of", path, ret);
out:
	av_packet_free(&packet);
	av_frame_free(&frame);
	avcodec_free_context(&decoder);
	avformat_close_input(&format);
	if (ret < 0)
		media_decoded_audio_free(out);
	return ret < 0 ? ret : 0;
}

void media_decoded_audio_free(struct decoded_audio *audio)
{
	free(audio->samples);
	audio->samples = NULL;
	audio->frames = 0;
}

int media_read_png(const char *path, struct rgb_image *out)
{
	memset(out, 0, sizeof(*out));
	FILE *file = fopen(path, "rb");
	if (!file) {
		perror(path);
		return -1;
	}
	png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	png_infop info = png ? png_create_info_struct(png) : NULL;
	int ret = png && info ? read_png_rows(png, info, file, out) : -1;
	if (ret < 0) {
		fprintf(stderr, "media: %s: not a readable PNG\n", path);
		media_rgb_image_free(out);
	}
	if (png)
		png_destroy_read_struct(&png, info ? &info : NULL, NULL);
	fclose(file);
	return ret;
}

void media_rgb_image_free(struct rgb_image *image)
{
	if (!image)
		return;
	free(image->rgb);
	image->rgb = NULL;
}

double media_psnr(const struct rgb_image *a, const struct rgb_image *b)
{
	if (a->width != b->width || a->height != b->height)
		return -INFINITY;
	size_t samples = (size_t)a->width * (size_t)a->height * 3;
	double sum = 0;
	for (size_t i = 0; i < samples; i++) {
		double d = (double)a->rgb[i] - (double)b->rgb[i];
		sum += d * d;
	}
	if (sum == 0)
		return INFINITY;
	return 10.0 * log10(255.0 * 255.0 / (sum / (double)samples));
}
