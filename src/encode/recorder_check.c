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
	return muxer_check(config->path, codec_id) ? RECORDER_ERROR_NONE : RECORDER_ERROR_CONFIG;
}
