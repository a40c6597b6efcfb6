#ifndef WL_RECORD_ENCODER_H
#define WL_RECORD_ENCODER_H

#include <stdbool.h>
#include <stdint.h>

#include <libavcodec/avcodec.h>

#include "frame.h"

/* Encoder selection and setup, and the conversion of BGRX frames into what
 * the encoder takes.
 *
 * Selection: with no codec asked for, VA-API (h264_vaapi) is tried on
 * --device or the first /dev/dri/renderD* node, and checked by opening a
 * small test encoder; any failure falls back to libx264 with one line saying
 * why. A codec asked for by name is used or refused: no silent fallback.
 *
 * Software path: yuv420p limited range BT.601, converted by libyuv when the
 * frame enters the queue (FRAME_I420, only the damaged part) or here from
 * BGRX; libx264 (preset ultrafast, tune zerolatency unless -p overrides
 * them).
 * VA-API path: BGRX uploaded into a VA-API surface, converted to NV12 on the
 * GPU by scale_vaapi (same matrix and tags), encoded by h264_vaapi/hevc_vaapi.
 *
 * Odd sizes: the stream size is the frame size rounded down to even (the last
 * odd column/row is cropped, nothing is scaled). Frames of another size than
 * the first are scaled to the stream size. */

struct encoder;

/* What the encoder needs of the recording's settings (the recorder fills it
 * from its own; the encoder knows nothing of the recorder). */
struct encoder_config {
	const char *codec;   /* encoder name, NULL picks VA-API or software (below) */
	enum AVCodecID default_codec; /* codec NULL: H.264 (NONE) or VP9 */
	const char *device;  /* VA-API render node, NULL auto-detects */
	int64_t bitrate;     /* bits per second, 0 for quality-based */
	int crf;             /* -1 for the encoder's default quality */
	double fps;          /* nominal rate; 0 means WL_RECORD_DEFAULT_FPS */
	const char *const *codec_params; /* "KEY=VALUE", NULL-terminated, may be NULL */
};

/* Picks and configures the encoder, applies the -p KEY=VALUE params (an
 * unknown key or bad value is an error here). Logs and returns NULL. */
struct encoder *encoder_create(const struct encoder_config *config);

const char *encoder_name(const struct encoder *encoder);
enum AVCodecID encoder_codec_id(const struct encoder *encoder);

/* Opens the encoder for frames of `width` x `height` (the first frame). */
int encoder_open(struct encoder *encoder, int width, int height, AVRational time_base,
		 bool global_header);

/* The opened codec context (for the muxer's stream parameters). */
const AVCodecContext *encoder_context(const struct encoder *encoder);

/* Converts `frame` into a frame ready for encoder_send(), stored in `*out`
 * (which may hold the previous converted frame: it is reused when nothing
 * else references it). An I420 frame at the stream size is not copied: `out`
 * views it, so it must stay valid until `out` is converted into again or
 * freed. The pts is left to the caller. */
int encoder_convert(struct encoder *encoder, const struct frame *frame, AVFrame *out);

/* True when the encoder takes FRAME_I420 frames as they are (the software
 * path); the VA-API path takes XRGB8888 frames only (uploaded as they are). */
bool encoder_takes_i420(const struct encoder *encoder);

/* encoder_convert() takes dmabuf frames (frame_in_buffer_only) in any case: mapped
 * into VA-API while that works, else read by the CPU; it returns
 * AVERROR(EAGAIN) for a frame it could not read at all (logged; skip it). */

/* Sends a frame (NULL: flush) and hands every packet that comes out to
 * `sink`. Returns 0 or a negative AVERROR (from the encoder or the sink). */
typedef int (*encoder_packet_sink)(void *data, AVPacket *packet);
int encoder_send(struct encoder *encoder, const AVFrame *frame, encoder_packet_sink sink,
		 void *data);

/* The zero-copy path so far (for recorder_stats). */
struct encoder_zero_copy {
	uint64_t dmabuf_frames;        /* frames that came as a client's dmabuf */
	uint64_t dmabuf_frames_mapped; /* of those, mapped into VA-API without a CPU copy */
	bool imported, mapped, converted; /* the hops that ran (struct vaapi_map_hops) */
};
void encoder_get_zero_copy(const struct encoder *encoder, struct encoder_zero_copy *out);

void encoder_destroy(struct encoder *encoder);

/* Prints the usable encoders, one per line. */
void encoder_list(void);

#endif
