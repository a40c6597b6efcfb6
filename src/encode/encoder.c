#define LOG_MODULE "encode"
#include "encoder.h"

#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <libavutil/hwcontext.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>

#include "avfilter_loader.h"
#include "letterbox.h"
#include "log.h"
#include "vaapi_graph.h"
#include "vaapi_map.h"
#include "yuv_convert.h"

#define PROBE_SIZE 256
/* libvpx-vp9's constant quality (0-63, lower is better) when neither --crf
 * nor --bitrate is given: the middle of the range FFmpeg's VP9 guide gives. */
#define VP9_DEFAULT_CRF 32

struct encoder {
	const AVCodec *codec;
	AVCodecContext *context;
	AVPacket *packet;
	bool opened;
	int input_width, input_height;   /* size of the first frame */
	int width, height;               /* stream size: the first frame's, even */

	/* Software path: I420 frames from the queue; BGRX -> yuv420p by
	 * libyuv; frames of another size than the first by swscale, rebuilt
	 * when that size or format changes, letterboxed (letterbox.h). */
	struct SwsContext *convert;
	enum AVPixelFormat convert_format;
	int convert_width, convert_height;
	bool previous_was_first_size; /* the picture kept in the output frame */

	/* VA-API path. */
	AVBufferRef *hw_device;
	AVBufferRef *upload_frames;      /* BGR0 surfaces the frames go into */
	AVFilterGraph *graph;            /* scale_vaapi: BGR0 -> NV12 on the GPU */
	AVFilterContext *buffer_source, *buffer_sink;
	struct SwsContext *resize;       /* BGRX -> BGRX at the stream size */
	int resize_width, resize_height;
	AVFrame *resized;
	int64_t upload_count;

	/* Zero-copy: dmabuf frames mapped into VA-API (NULL without VA-API). */
	struct vaapi_map *zero_copy;
	atomic_bool zero_copy_failed;    /* after a failure, dmabufs are read by the CPU */
	uint64_t dmabuf_frames, dmabuf_frames_mapped;
	uint8_t *dmabuf_pixels;          /* the CPU fallback's copy */
	size_t dmabuf_pixels_size;
};

static const char *const known_encoders[] = {"h264_vaapi", "hevc_vaapi", "vp9_vaapi",
					     "libx264", "libx265", "libvpx-vp9"};

/* What codec NULL picks, per codec family: VA-API when it works, else the
 * software encoder. H.264 unless the container wants something else (.webm). */
struct default_encoders {
	enum AVCodecID id;
	const char *hardware, *software;
};

static const struct default_encoders default_encoders[] = {
	{AV_CODEC_ID_H264, "h264_vaapi", "libx264"},
	{AV_CODEC_ID_VP9, "vp9_vaapi", "libvpx-vp9"},
};

static const struct default_encoders *defaults_for(enum AVCodecID id)
{
	for (size_t i = 0; i < sizeof(default_encoders) / sizeof(default_encoders[0]); i++) {
		if (default_encoders[i].id == id)
			return &default_encoders[i];
	}
	return &default_encoders[0];
}

static bool is_vaapi(const AVCodec *codec)
{
	const char *suffix = "_vaapi";
	size_t length = strlen(codec->name), suffix_length = strlen(suffix);
	return length > suffix_length && strcmp(codec->name + length - suffix_length, suffix) == 0;
}

static bool is_x26x(const AVCodec *codec)
{
	return strcmp(codec->name, "libx264") == 0 || strcmp(codec->name, "libx265") == 0;
}

static void noop_free(void *opaque, uint8_t *data)
{
	(void)opaque;
	(void)data;
}

/* x265 prints its banner and summary with its own fprintf, not through
 * av_log: only its log-level keeps -q (and the default) quiet. A log-level
 * the user gave in -p x265-params=... wins. */
static int quiet_x265(AVCodecContext *context)
{
	AVDictionary *params = NULL;
	int ret = av_opt_get_dict_val(context->priv_data, "x265-params", 0, &params);
	if (ret >= 0 && !av_dict_get(params, "log-level", NULL, 0)) {
		ret = av_dict_set(&params, "log-level",
				  log_enabled(LOG_LEVEL_DEBUG) ? "info" : "error", 0);
		if (ret >= 0)
			ret = av_opt_set_dict_val(context->priv_data, "x265-params", params, 0);
	}
	av_dict_free(&params);
	if (ret < 0)
		LOG_ERR("libx265: cannot set its log level: %s", av_err2str(ret));
	return ret;
}

/* Sets our defaults, then the user's KEY=VALUE params on top. */
static int configure_context(struct encoder *encoder, const struct encoder_config *config)
{
	AVCodecContext *context = encoder->context;
	double fps = config->fps > 0 ? config->fps : WL_RECORD_DEFAULT_FPS;

	context->framerate = av_d2q(fps, 1001000);
	context->gop_size = (int)(fps * 2 + 0.5) > 0 ? (int)(fps * 2 + 0.5) : 1;
	/* No reordering: packets come out in presentation order, which keeps
	 * latency low and lets the muxer give each one its exact duration. */
	context->max_b_frames = 0;
	context->color_range = YUV_COLOR_RANGE;
	context->colorspace = YUV_COLORSPACE;
	context->color_primaries = YUV_COLOR_PRIMARIES;
	context->color_trc = YUV_COLOR_TRC;
	context->sample_aspect_ratio = (AVRational){1, 1};
	if (config->bitrate > 0)
		context->bit_rate = config->bitrate;

	int ret = 0;
	if (is_x26x(encoder->codec)) {
		ret = av_opt_set(context->priv_data, "preset", "ultrafast", 0);
		if (ret >= 0)
			ret = av_opt_set(context->priv_data, "tune", "zerolatency", 0);
		if (ret >= 0 && config->crf >= 0)
			ret = av_opt_set_int(context->priv_data, "crf", config->crf, 0);
	} else if (strcmp(encoder->codec->name, "libvpx-vp9") == 0) {
		/* libvpx's defaults are for offline encoding (one 1080p frame takes
		 * longer than a frame period) at 256 kbit/s: realtime instead, the
		 * fastest speed, threads over rows, no look-ahead (latency), and
		 * constant quality unless a bit rate was given. */
		ret = av_opt_set(context->priv_data, "deadline", "realtime", 0);
		if (ret >= 0)
			ret = av_opt_set_int(context->priv_data, "cpu-used", 8, 0);
		if (ret >= 0)
			ret = av_opt_set_int(context->priv_data, "row-mt", 1, 0);
		if (ret >= 0)
			ret = av_opt_set_int(context->priv_data, "lag-in-frames", 0, 0);
		if (ret >= 0 && config->bitrate <= 0) {
			context->bit_rate = 0;
			ret = av_opt_set_int(context->priv_data, "crf",
					     config->crf >= 0 ? config->crf : VP9_DEFAULT_CRF, 0);
		} else if (ret >= 0 && config->crf >= 0) {
			ret = av_opt_set_int(context->priv_data, "crf", config->crf, 0);
		}
		context->thread_count = 0; /* one per core (libavcodec's default is 1) */
	} else if (config->crf >= 0) {
		/* VA-API: constant QP; other encoders: their quality scale. */
		context->global_quality = is_vaapi(encoder->codec) ? config->crf
								   : config->crf * FF_QP2LAMBDA;
		if (!is_vaapi(encoder->codec))
			context->flags |= AV_CODEC_FLAG_QSCALE;
	}
	if (ret < 0) {
		LOG_ERR("%s: cannot set the defaults: %s", encoder->codec->name, av_err2str(ret));
		return ret;
	}

	for (const char *const *param = config->codec_params; param && *param; param++) {
		const char *equals = strchr(*param, '=');
		if (!equals || equals == *param) {
			LOG_ERR("-p %s: expected KEY=VALUE", *param);
			return AVERROR(EINVAL);
		}
		char key[128];
		size_t key_length = (size_t)(equals - *param);
		if (key_length >= sizeof(key)) {
			LOG_ERR("-p %s: key too long", *param);
			return AVERROR(EINVAL);
		}
		memcpy(key, *param, key_length);
		key[key_length] = '\0';
		ret = av_opt_set(context, key, equals + 1, AV_OPT_SEARCH_CHILDREN);
		if (ret == AVERROR_OPTION_NOT_FOUND) {
			LOG_ERR("-p %s: %s has no option '%s'", *param, encoder->codec->name, key);
			return ret;
		}
		if (ret < 0) {
			LOG_ERR("-p %s: invalid value for %s: %s", *param, encoder->codec->name,
				av_err2str(ret));
			return ret;
		}
	}
	if (strcmp(encoder->codec->name, "libx265") == 0)
		return quiet_x265(context);
	return 0;
}

static struct encoder *encoder_new(const AVCodec *codec, AVBufferRef *hw_device,
				   const struct encoder_config *config)
{
	struct encoder *encoder = calloc(1, sizeof(*encoder));
	if (!encoder) {
		LOG_ERRNO("encoder");
		return NULL;
	}
	encoder->codec = codec;
	encoder->context = avcodec_alloc_context3(codec);
	encoder->packet = av_packet_alloc();
	encoder->resized = av_frame_alloc();
	if (hw_device)
		encoder->hw_device = av_buffer_ref(hw_device);
	if (!encoder->context || !encoder->packet || !encoder->resized ||
	    (hw_device && !encoder->hw_device)) {
		LOG_ERRNO_P(ENOMEM, "encoder");
		goto fail;
	}
	if (configure_context(encoder, config) < 0)
		goto fail;
	/* Without it dmabuf frames are simply read by the CPU. */
	if (encoder->hw_device)
		encoder->zero_copy = vaapi_map_create(encoder->hw_device);
	return encoder;
fail:
	encoder_destroy(encoder);
	return NULL;
}

static int make_upload_frames(struct encoder *encoder, char *why, size_t why_size)
{
	encoder->upload_frames = av_hwframe_ctx_alloc(encoder->hw_device);
	if (!encoder->upload_frames) {
		snprintf(why, why_size, "out of memory");
		return AVERROR(ENOMEM);
	}
	AVHWFramesContext *frames = (AVHWFramesContext *)encoder->upload_frames->data;
	frames->format = AV_PIX_FMT_VAAPI;
	frames->sw_format = AV_PIX_FMT_BGR0; /* DRM XRGB8888 */
	frames->width = encoder->width;
	frames->height = encoder->height;
	frames->initial_pool_size = 8;
	int ret = av_hwframe_ctx_init(encoder->upload_frames);
	if (ret < 0)
		snprintf(why, why_size, "no BGR0 VA-API surfaces: %s", av_err2str(ret));
	return ret;
}

static int make_filter_graph(struct encoder *encoder, AVRational time_base, char *why, size_t why_size)
{
	return vaapi_nv12_graph_create(encoder->upload_frames, encoder->width, encoder->height,
				       time_base, encoder->width, encoder->height, &encoder->graph,
				       &encoder->buffer_source, &encoder->buffer_sink, why, why_size);
}

static int open_context(struct encoder *encoder, int width, int height, AVRational time_base,
			bool global_header, char *why, size_t why_size)
{
	int ret;
	encoder->input_width = width;
	encoder->input_height = height;
	/* 4:2:0 needs even sizes: crop the odd last column/row. */
	encoder->width = width & ~1;
	encoder->height = height & ~1;
	if (encoder->width < 2 || encoder->height < 2) {
		snprintf(why, why_size, "frame size %dx%d is too small", width, height);
		return AVERROR(EINVAL);
	}
	AVCodecContext *context = encoder->context;
	context->width = encoder->width;
	context->height = encoder->height;
	context->time_base = time_base;
	if (global_header)
		context->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;

	if (encoder->hw_device) {
		ret = make_upload_frames(encoder, why, why_size);
		if (ret < 0)
			return ret;
		ret = make_filter_graph(encoder, time_base, why, why_size);
		if (ret < 0)
			return ret;
		context->pix_fmt = AV_PIX_FMT_VAAPI;
		context->sw_pix_fmt = AV_PIX_FMT_NV12;
		context->hw_frames_ctx = av_buffer_ref(
			avfilter_api_get(NULL)->buffersink_get_hw_frames_ctx(encoder->buffer_sink));
		if (!context->hw_frames_ctx) {
			snprintf(why, why_size, "scale_vaapi gave no VA-API frames");
			return AVERROR(EINVAL);
		}
	} else {
		context->pix_fmt = AV_PIX_FMT_YUV420P;
	}
	ret = avcodec_open2(context, encoder->codec, NULL);
	if (ret < 0) {
		snprintf(why, why_size, "cannot open %s at %dx%d: %s", encoder->codec->name,
			 encoder->width, encoder->height, av_err2str(ret));
		return ret;
	}
	encoder->opened = true;
	return 0;
}

/* Opens a throwaway encoder with the same settings, so that a codec, device
 * or option that cannot work fails now rather than at the first frame. */
static int probe(const AVCodec *codec, AVBufferRef *hw_device, const struct encoder_config *config,
		 char *why, size_t why_size)
{
	struct encoder *test = encoder_new(codec, hw_device, config);
	if (!test) {
		snprintf(why, why_size, "bad settings");
		return AVERROR(EINVAL);
	}
	int ret = open_context(test, PROBE_SIZE, PROBE_SIZE, (AVRational){1, 1000000}, false, why,
			       why_size);
	encoder_destroy(test);
	return ret;
}

/* Finds the render node to use: `device`, or the first /dev/dri/renderD*. */
static const char *find_render_node(const char *device, char *buffer, size_t size, char *why,
				    size_t why_size)
{
	if (device)
		return device;
	int first_errno = 0;
	for (int minor = 128; minor < 136; minor++) {
		snprintf(buffer, size, "/dev/dri/renderD%d", minor);
		if (access(buffer, R_OK | W_OK) == 0)
			return buffer;
		if (minor == 128)
			first_errno = errno;
	}
	snprintf(why, why_size, "no VA-API render node (/dev/dri/renderD128: %s)", strerror(first_errno));
	return NULL;
}

static int open_vaapi_device(const char *device, AVBufferRef **hw_device, const char **node_out,
			     char *node_buffer, size_t node_size, char *why, size_t why_size)
{
	const char *node = find_render_node(device, node_buffer, node_size, why, why_size);
	if (!node)
		return AVERROR(ENODEV);
	*node_out = node;
	int ret = av_hwdevice_ctx_create(hw_device, AV_HWDEVICE_TYPE_VAAPI, node, NULL, 0);
	if (ret < 0)
		snprintf(why, why_size, "cannot open VA-API device %s: %s", node, av_err2str(ret));
	return ret;
}

struct encoder *encoder_create(const struct encoder_config *config)
{
	struct encoder *encoder = NULL;
	AVBufferRef *hw_device = NULL;
	const AVCodec *codec = NULL;
	char why[512] = "";
	char node_buffer[64];
	const char *node = NULL;

	if (!config->codec) {
		const struct default_encoders *defaults = defaults_for(config->default_codec);
		codec = avcodec_find_encoder_by_name(defaults->hardware);
		int ret = AVERROR_ENCODER_NOT_FOUND;
		if (!codec)
			snprintf(why, sizeof(why), "this FFmpeg has no %s", defaults->hardware);
		else
			ret = open_vaapi_device(config->device, &hw_device, &node, node_buffer,
						sizeof(node_buffer), why, sizeof(why));
		/* Option errors are the user's to fix, not a reason to switch
		 * encoders: encoder_new() reports them and probe() fails. */
		if (ret >= 0) {
			struct encoder *check = encoder_new(codec, hw_device, config);
			if (!check)
				goto out;
			encoder_destroy(check);
			ret = probe(codec, hw_device, config, why, sizeof(why));
		}
		if (ret >= 0) {
			LOG_INFO("using %s on %s", codec->name, node);
		} else {
			av_buffer_unref(&hw_device);
			codec = avcodec_find_encoder_by_name(defaults->software);
			if (!codec) {
				LOG_ERR("no usable encoder: %s, and this FFmpeg has no %s", why,
					defaults->software);
				goto out;
			}
			/* No GPU is a normal machine, not a problem: the status line
			 * and the summary name the encoder; -v says why. A --device
			 * the user gave that does not work is worth a line. */
			if (config->device)
				LOG_WARN("using %s (software): %s", codec->name, why);
			else
				LOG_DBG("using %s (software): %s", codec->name, why);
		}
	} else {
		codec = avcodec_find_encoder_by_name(config->codec);
		if (!codec || codec->type != AVMEDIA_TYPE_VIDEO) {
			LOG_ERR("unknown video encoder '%s' (see --list-encoders)", config->codec);
			goto out;
		}
		if (is_vaapi(codec)) {
			/* Asked for by name: an error, not a silent fallback. */
			if (open_vaapi_device(config->device, &hw_device, &node, node_buffer,
					      sizeof(node_buffer), why, sizeof(why)) < 0) {
				LOG_ERR("%s: %s", codec->name, why);
				goto out;
			}
		} else {
			bool has_yuv420p = false;
			for (const enum AVPixelFormat *format = codec->pix_fmts; format && *format != AV_PIX_FMT_NONE; format++)
				has_yuv420p |= *format == AV_PIX_FMT_YUV420P;
			if (!has_yuv420p) {
				LOG_ERR("%s does not take yuv420p frames; use libx264", codec->name);
				goto out;
			}
		}
	}

	encoder = encoder_new(codec, hw_device, config);
	if (!encoder)
		goto out;
	if (probe(codec, hw_device, config, why, sizeof(why)) < 0) {
		LOG_ERR("%s", why);
		encoder_destroy(encoder);
		encoder = NULL;
		goto out;
	}
out:
	av_buffer_unref(&hw_device);
	return encoder;
}

const char *encoder_name(const struct encoder *encoder)
{
	return encoder->codec->name;
}

enum AVCodecID encoder_codec_id(const struct encoder *encoder)
{
	return encoder->codec->id;
}

int encoder_open(struct encoder *encoder, int width, int height, AVRational time_base,
		 bool global_header)
{
	char why[512] = "";
	int ret = open_context(encoder, width, height, time_base, global_header, why, sizeof(why));
	if (ret < 0)
		LOG_ERR("%s", why);
	return ret;
}

const AVCodecContext *encoder_context(const struct encoder *encoder)
{
	return encoder->context;
}

/* A frame viewing `frame`'s pixels (XRGB8888 or I420) without copying them;
 * sws_scale_frame() and the encoders want refcounted frames and would copy a
 * plain one. Valid while `frame` is. */
static int wrap_source(const struct frame *frame, int width, int height, AVFrame *view)
{
	size_t size = (size_t)frame->stride * (size_t)frame->height;
	if (frame->format == FRAME_I420)
		size += size / 2;
	view->buf[0] = av_buffer_create(frame->data, size, noop_free, NULL, AV_BUFFER_FLAG_READONLY);
	if (!view->buf[0])
		return AVERROR(ENOMEM);
	view->width = width;
	view->height = height;
	if (frame->format == FRAME_I420) {
		uint8_t *planes[3];
		int strides[3];
		frame_i420_planes(frame, planes, strides);
		for (int i = 0; i < 3; i++) {
			view->data[i] = planes[i];
			view->linesize[i] = strides[i];
		}
		view->format = AV_PIX_FMT_YUV420P;
		yuv_tag_frame(view);
	} else {
		view->data[0] = frame->data;
		view->linesize[0] = frame->stride;
		view->format = AV_PIX_FMT_BGR0;
		view->color_range = AVCOL_RANGE_JPEG;
	}
	return 0;
}

static struct SwsContext *make_scaler(enum AVPixelFormat source_format, int source_width,
				      int source_height, int width, int height,
				      enum AVPixelFormat format)
{
	struct SwsContext *scaler = sws_alloc_context();
	if (!scaler)
		return NULL;
	bool same_size = source_width == width && source_height == height;
	int ret = av_opt_set_int(scaler, "srcw", source_width, 0);
	if (ret >= 0)
		ret = av_opt_set_int(scaler, "srch", source_height, 0);
	if (ret >= 0)
		ret = av_opt_set_pixel_fmt(scaler, "src_format", source_format, 0);
	if (ret >= 0)
		ret = av_opt_set_int(scaler, "dstw", width, 0);
	if (ret >= 0)
		ret = av_opt_set_int(scaler, "dsth", height, 0);
	if (ret >= 0)
		ret = av_opt_set_pixel_fmt(scaler, "dst_format", format, 0);
	/* Same size: only chroma is resampled, the cheap filter is exact
	 * enough. Another size: a proper scaler. */
	if (ret >= 0)
		ret = av_opt_set(scaler, "sws_flags", same_size ? "bilinear" : "bicubic", 0);
	if (ret >= 0)
		ret = av_opt_set_int(scaler, "threads", 0, 0); /* one per core */
	if (ret >= 0)
		ret = sws_init_context(scaler, NULL, NULL);
	if (ret >= 0 && format == AV_PIX_FMT_YUV420P) {
		/* Limited-range BT.601 out, from full-range RGB or from the same
		 * YUV: the matrix libyuv uses (yuv_convert.h), as tagged. */
		const int *bt601 = sws_getCoefficients(SWS_CS_ITU601);
		int source_range = source_format == AV_PIX_FMT_BGR0 ? 1 : 0;
		ret = sws_setColorspaceDetails(scaler, bt601, source_range, bt601, 0, 0, 1 << 16,
					       1 << 16);
	}
	if (ret < 0) {
		sws_freeContext(scaler);
		return NULL;
	}
	return scaler;
}

/* Paints the stream outside `box` black: the bars around a letterboxed
 * picture. Only yuv420p (limited range, as tagged) and BGR0 frames. */
static void fill_bars(AVFrame *out, struct letterbox box)
{
	bool yuv = out->format == AV_PIX_FMT_YUV420P;
	int planes = yuv ? 3 : 1;
	for (int i = 0; i < planes; i++) {
		int shift = i > 0 ? 1 : 0; /* chroma: half the size both ways */
		int bytes = yuv ? 1 : 4;
		uint8_t value = !yuv ? 0 : i == 0 ? 16 : 128;
		int width = out->width >> shift, height = out->height >> shift;
		int x1 = box.x >> shift, x2 = (box.x + box.width) >> shift;
		int y1 = box.y >> shift, y2 = (box.y + box.height) >> shift;
		for (int y = 0; y < height; y++) {
			uint8_t *row = out->data[i] + (size_t)y * out->linesize[i];
			if (y < y1 || y >= y2) {
				memset(row, value, (size_t)width * bytes);
				continue;
			}
			memset(row, value, (size_t)x1 * bytes);
			memset(row + (size_t)x2 * bytes, value, (size_t)(width - x2) * bytes);
		}
	}
}

/* Scales `source` into the `box` part of `out` (allocated, at the stream
 * size): a view of that part is the scaler's destination, so swscale keeps
 * its threads and writes nothing outside it. */
static int scale_into_box(struct SwsContext *scaler, AVFrame *out, struct letterbox box,
			  const AVFrame *source)
{
	AVFrame *view = av_frame_alloc();
	if (!view)
		return AVERROR(ENOMEM);
	int ret = av_frame_ref(view, out);
	if (ret >= 0) {
		bool yuv = out->format == AV_PIX_FMT_YUV420P;
		view->width = box.width;
		view->height = box.height;
		view->data[0] += (ptrdiff_t)box.y * view->linesize[0] + box.x * (yuv ? 1 : 4);
		for (int i = 1; yuv && i < 3; i++)
			view->data[i] += (ptrdiff_t)(box.y / 2) * view->linesize[i] + box.x / 2;
		ret = sws_scale_frame(scaler, view, source);
	}
	av_frame_free(&view);
	return ret;
}

/* The frame at the stream size in yuv420p. An I420 queue frame of that size
 * is viewed as it is (the caller keeps it until the next one). Otherwise the
 * first size is cropped to even and converted by libyuv, only where it
 * changed when the previous picture is still in `out`; another size is
 * scaled by swscale to fit, letterboxed (the context is kept until the size
 * changes). */
static int convert_software(struct encoder *encoder, const struct frame *frame, AVFrame *source,
			    AVFrame *out)
{
	if (frame->format == FRAME_I420 && frame->width == encoder->width &&
	    frame->height == encoder->height) {
		av_frame_unref(out);
		encoder->previous_was_first_size = false;
		return wrap_source(frame, frame->width, frame->height, out);
	}
	bool first_size = frame->format == FRAME_XRGB8888 && frame->width == encoder->input_width &&
			  frame->height == encoder->input_height;
	/* Reuse the buffer unless the encoder still holds a reference to it. */
	if (out->buf[0] && !av_frame_is_writable(out))
		av_frame_unref(out);
	bool keep_previous = out->buf[0] && out->format == AV_PIX_FMT_YUV420P &&
			     out->width == encoder->width && out->height == encoder->height &&
			     encoder->previous_was_first_size;
	if (!keep_previous) {
		av_frame_unref(out);
		out->format = AV_PIX_FMT_YUV420P;
		out->width = encoder->width;
		out->height = encoder->height;
		int ret = av_frame_get_buffer(out, 0);
		if (ret < 0)
			return ret;
	}
	encoder->previous_was_first_size = first_size;
	int ret;
	if (first_size) {
		struct frame_damage all = {0, 0, encoder->width, encoder->height};
		ret = yuv_convert_rect(frame, out->data, out->linesize, out->width, out->height,
				       keep_previous && frame->damage_known ? frame->damage : all);
	} else {
		enum AVPixelFormat source_format =
			frame->format == FRAME_I420 ? AV_PIX_FMT_YUV420P : AV_PIX_FMT_BGR0;
		struct letterbox box = letterbox_fit(frame->width, frame->height, encoder->width,
						     encoder->height);
		ret = wrap_source(frame, frame->width, frame->height, source);
		if (ret >= 0 && (!encoder->convert || encoder->convert_format != source_format ||
				 encoder->convert_width != frame->width ||
				 encoder->convert_height != frame->height)) {
			sws_freeContext(encoder->convert);
			encoder->convert = make_scaler(source_format, frame->width, frame->height,
						       box.width, box.height, AV_PIX_FMT_YUV420P);
			if (!encoder->convert)
				return AVERROR(EINVAL);
			encoder->convert_format = source_format;
			encoder->convert_width = frame->width;
			encoder->convert_height = frame->height;
		}
		if (ret >= 0 && box.fills) {
			ret = sws_scale_frame(encoder->convert, out, source);
		} else if (ret >= 0) {
			fill_bars(out, box);
			ret = scale_into_box(encoder->convert, out, box, source);
		}
	}
	if (ret < 0)
		return ret;
	yuv_tag_frame(out);
	return 0;
}

static int convert_vaapi(struct encoder *encoder, const struct frame *frame, AVFrame *source,
			 AVFrame *out)
{
	AVFrame *surface = NULL;
	const AVFrame *upload_from = source;
	if (frame->format != FRAME_XRGB8888)
		return AVERROR(EINVAL); /* the queue converts only for software encoders */
	bool first_size = frame->width == encoder->input_width && frame->height == encoder->input_height;
	int ret = wrap_source(frame, first_size ? encoder->width : frame->width,
			      first_size ? encoder->height : frame->height, source);
	if (ret < 0)
		goto out;
	if (!first_size) {
		struct letterbox box = letterbox_fit(frame->width, frame->height, encoder->width,
						     encoder->height);
		if (!encoder->resize || encoder->resize_width != frame->width ||
		    encoder->resize_height != frame->height) {
			sws_freeContext(encoder->resize);
			encoder->resize = make_scaler(AV_PIX_FMT_BGR0, frame->width, frame->height,
						      box.width, box.height, AV_PIX_FMT_BGR0);
			if (!encoder->resize) {
				ret = AVERROR(EINVAL);
				goto out;
			}
			encoder->resize_width = frame->width;
			encoder->resize_height = frame->height;
		}
		if (encoder->resized->buf[0] && !av_frame_is_writable(encoder->resized))
			av_frame_unref(encoder->resized);
		encoder->resized->format = AV_PIX_FMT_BGR0;
		encoder->resized->width = encoder->width;
		encoder->resized->height = encoder->height;
		if (box.fills) {
			ret = sws_scale_frame(encoder->resize, encoder->resized, source);
		} else {
			if (!encoder->resized->buf[0])
				ret = av_frame_get_buffer(encoder->resized, 0);
			if (ret >= 0) {
				fill_bars(encoder->resized, box);
				ret = scale_into_box(encoder->resize, encoder->resized, box, source);
			}
		}
		if (ret < 0)
			goto out;
		upload_from = encoder->resized;
	}
	surface = av_frame_alloc();
	if (!surface) {
		ret = AVERROR(ENOMEM);
		goto out;
	}
	ret = av_hwframe_get_buffer(encoder->upload_frames, surface, 0);
	if (ret < 0)
		goto out;
	ret = av_hwframe_transfer_data(surface, upload_from, 0);
	if (ret < 0)
		goto out;
	surface->pts = encoder->upload_count++;
	/* The graph exists, so libavfilter is loaded. */
	const struct avfilter_api *avf = avfilter_api_get(NULL);
	ret = avf->buffersrc_add_frame(encoder->buffer_source, surface);
	if (ret < 0)
		goto out;
	/* The converted surface replaces the previous one; the encoder keeps
	 * its own reference to surfaces it still needs. */
	av_frame_unref(out);
	ret = avf->buffersink_get_frame(encoder->buffer_sink, out);
out:
	av_frame_free(&surface);
	return ret;
}

/* A zero-copy frame: mapped into VA-API when that works, else read by the
 * CPU and converted like any other frame. */
static int convert_dmabuf(struct encoder *encoder, const struct frame *frame, AVFrame *out)
{
	char why[256] = "";
	encoder->dmabuf_frames++;
	/* Without pad_vaapi the GPU cannot letterbox: such a frame is read by
	 * the CPU, and zero-copy stays on for the frames that fit. */
	bool gpu_can_place = letterbox_fit(frame->width, frame->height, encoder->width,
					   encoder->height).fills ||
			     vaapi_graph_can_letterbox();
	if (encoder->zero_copy && gpu_can_place && !atomic_load(&encoder->zero_copy_failed) &&
	    wl_record_buffer_get_dmabuf(frame->buffer)) {
		int ret = vaapi_map_convert(encoder->zero_copy, frame->buffer, encoder->width,
					    encoder->height, out, why, sizeof(why));
		if (ret >= 0) {
			encoder->dmabuf_frames_mapped++;
			return 0;
		}
		LOG_WARN("zero-copy VA-API import failed (%s): dmabufs are read by the CPU from now on",
			 why);
		atomic_store(&encoder->zero_copy_failed, true);
	}
	size_t size = (size_t)frame->width * 4 * (size_t)frame->height;
	if (size > encoder->dmabuf_pixels_size) {
		uint8_t *pixels = realloc(encoder->dmabuf_pixels, size);
		if (!pixels)
			return AVERROR(ENOMEM);
		encoder->dmabuf_pixels = pixels;
		encoder->dmabuf_pixels_size = size;
	}
	if (!wl_record_buffer_read(frame->buffer, encoder->dmabuf_pixels, frame->width * 4, why,
				   sizeof(why))) {
		LOG_WARN("cannot read a dmabuf frame (%s): frame skipped", why);
		encoder->previous_was_first_size = false;
		return AVERROR(EAGAIN);
	}
	struct frame copy = *frame;
	copy.data = encoder->dmabuf_pixels;
	copy.stride = frame->width * 4;
	copy.buffer = NULL;
	return encoder_convert(encoder, &copy, out);
}

/* A frame whose buffer gives its pixels in place (a hosted client's wl_shm
 * buffer, lent): converted straight from there, the read guarded by the
 * buffer (SIGBUS for another process's memory). Positive: no such access. */
static int convert_in_place(struct encoder *encoder, const struct frame *frame, AVFrame *out)
{
	const uint8_t *data;
	int stride;
	if (!wl_record_buffer_begin_data_ptr_access(frame->buffer, &data, &stride))
		return 1;
	struct frame view = *frame;
	view.data = (uint8_t *)data; /* only read */
	view.stride = stride;
	view.buffer = NULL;
	int ret = encoder_convert(encoder, &view, out);
	if (!wl_record_buffer_end_data_ptr_access(frame->buffer)) {
		LOG_WARN("a frame's buffer faulted while it was read: frame skipped");
		ret = AVERROR(EAGAIN);
	}
	if (ret < 0)
		encoder->previous_was_first_size = false; /* `out` holds no whole picture */
	return ret;
}

bool encoder_takes_i420(const struct encoder *encoder)
{
	return !encoder->hw_device;
}

int encoder_convert(struct encoder *encoder, const struct frame *frame, AVFrame *out)
{
	if (frame_in_buffer_only(frame)) {
		int ret = wl_record_buffer_get_dmabuf(frame->buffer)
				  ? 1
				  : convert_in_place(encoder, frame, out);
		return ret <= 0 ? ret : convert_dmabuf(encoder, frame, out);
	}
	AVFrame *source = av_frame_alloc();
	if (!source)
		return AVERROR(ENOMEM);
	int ret = encoder->hw_device ? convert_vaapi(encoder, frame, source, out)
				     : convert_software(encoder, frame, source, out);
	av_frame_free(&source);
	if (ret < 0)
		LOG_ERR("cannot convert a %dx%d frame for %s: %s", frame->width, frame->height,
			encoder->codec->name, av_err2str(ret));
	return ret;
}

int encoder_send(struct encoder *encoder, const AVFrame *frame, encoder_packet_sink sink, void *data)
{
	int ret = avcodec_send_frame(encoder->context, frame);
	if (ret < 0) {
		LOG_ERR("%s: cannot encode: %s", encoder->codec->name, av_err2str(ret));
		return ret;
	}
	for (;;) {
		ret = avcodec_receive_packet(encoder->context, encoder->packet);
		if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF)
			return 0;
		if (ret < 0) {
			LOG_ERR("%s: cannot encode: %s", encoder->codec->name, av_err2str(ret));
			return ret;
		}
		ret = sink(data, encoder->packet);
		av_packet_unref(encoder->packet);
		if (ret < 0)
			return ret;
	}
}

void encoder_get_zero_copy(const struct encoder *encoder, struct encoder_zero_copy *out)
{
	struct vaapi_map_hops hops = { 0 };
	if (encoder->zero_copy)
		vaapi_map_get_hops(encoder->zero_copy, &hops);
	*out = (struct encoder_zero_copy){
		.dmabuf_frames = encoder->dmabuf_frames,
		.dmabuf_frames_mapped = encoder->dmabuf_frames_mapped,
		.imported = hops.imported, .mapped = hops.mapped, .converted = hops.converted,
	};
}

void encoder_destroy(struct encoder *encoder)
{
	if (!encoder)
		return;
	if (encoder->dmabuf_frames) {
		struct vaapi_map_hops hops = { 0 };
		if (encoder->zero_copy)
			vaapi_map_get_hops(encoder->zero_copy, &hops);
		/* For people; scripts/check-hw reads the same from --stats-fd. */
		LOG_INFO("zero-copy: %" PRIu64 " dmabuf frames, %" PRIu64 " mapped; hops: dmabuf "
			 "import %s, VAAPI map %s, scale_vaapi %s", encoder->dmabuf_frames,
			 encoder->dmabuf_frames_mapped, hops.imported ? "ran" : "no",
			 hops.mapped ? "ran" : "no", hops.converted ? "ran" : "no");
	}
	vaapi_map_destroy(encoder->zero_copy);
	free(encoder->dmabuf_pixels);
	avcodec_free_context(&encoder->context);
	av_packet_free(&encoder->packet);
	av_frame_free(&encoder->resized);
	sws_freeContext(encoder->convert);
	sws_freeContext(encoder->resize);
	if (encoder->graph)
		avfilter_api_get(NULL)->graph_free(&encoder->graph);
	av_buffer_unref(&encoder->upload_frames);
	av_buffer_unref(&encoder->hw_device);
	free(encoder);
}

void encoder_list(void)
{
	struct encoder_config config = {.crf = -1};
	for (size_t i = 0; i < sizeof(known_encoders) / sizeof(known_encoders[0]); i++) {
		const AVCodec *codec = avcodec_find_encoder_by_name(known_encoders[i]);
		if (!codec)
			continue;
		if (!is_vaapi(codec)) {
			printf("%s\t%s (software)\n", codec->name, codec->long_name);
			continue;
		}
		char why[512], node_buffer[64];
		const char *node = NULL;
		AVBufferRef *hw_device = NULL;
		int ret = open_vaapi_device(NULL, &hw_device, &node, node_buffer, sizeof(node_buffer),
					    why, sizeof(why));
		if (ret >= 0)
			ret = probe(codec, hw_device, &config, why, sizeof(why));
		av_buffer_unref(&hw_device);
		if (ret >= 0)
			printf("%s\t%s on %s\n", codec->name, codec->long_name, node);
		else
			LOG_INFO("%s is not usable: %s", codec->name, why);
	}
}
