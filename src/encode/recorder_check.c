#define LOG_MODULE "encode"
#include "recorder.h"

#include <libavcodec/avcodec.h>

#include "log.h"
#include "muxer.h"

/* No device is opened and no file touched: this runs before anything starts,
 * so that a bad command line gets its error as the first line. */
enum recorder_error recorder_check(const struct recorder_config *config)
{
	enum AVCodecID codec_id = muxer_default_codec(config->path);
	if (config->codec) {
		const AVCodec *codec = avcodec_find_encoder_by_name(config->codec);
		if (!codec || codec->type != AVMEDIA_TYPE_VIDEO) {
			LOG_ERR("unknown video encoder '%s' (see --list-encoders)", config->codec);
			return RECORDER_ERROR_CONFIG;
		}
		codec_id = codec->id;
	}
	if (!muxer_check(config->path, codec_id))
		return RECORDER_ERROR_CONFIG;
	if (config->audio_sources > 0) {
		if (config->audio_sources > RECORDER_MAX_AUDIO_SOURCES) {
			LOG_ERR("%d sound sources: at most %d", config->audio_sources,
				RECORDER_MAX_AUDIO_SOURCES);
			return RECORDER_ERROR_CONFIG;
		}
		const char *encoder = muxer_audio_encoder(config->path, config->audio_codec);
		if (!encoder)
			return RECORDER_ERROR_CONFIG;
		const AVCodec *codec = avcodec_find_encoder_by_name(encoder);
		if (!codec) {
			LOG_ERR("--audio: this FFmpeg has no %s encoder", encoder);
			return RECORDER_ERROR_CONFIG;
		}
		const AVCodecDescriptor *descriptor = avcodec_descriptor_get(codec->id);
		bool lossless = descriptor && (descriptor->props & AV_CODEC_PROP_LOSSLESS) &&
				!(descriptor->props & AV_CODEC_PROP_LOSSY);
		if (config->audio_bitrate > 0 && lossless) {
			LOG_ERR("--audio-bitrate: %s is lossless, it takes no bitrate", encoder);
			return RECORDER_ERROR_CONFIG;
		}
	}
	return RECORDER_ERROR_NONE;
}
