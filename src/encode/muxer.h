#ifndef WL_RECORD_MUXER_H
#define WL_RECORD_MUXER_H

#include <stdbool.h>
#include <stdint.h>

#include <libavcodec/avcodec.h>

/* libavformat output of one video stream, and optionally audio streams
 * (up to 8, in the order added). The container comes from the file
 * extension: .mkv, .mp4, .mov (both fragmented, so an interrupted file still
 * plays), .webm (VP8/VP9/AV1 only), or "-" for Matroska on stdout.
 *
 * Packets are held back by one so that each gets the exact duration up to the
 * next one, and the last one lasts until the end time given to muxer_finish():
 * the container duration is the recording's real length. A packet whose next
 * one does not come (a still screen) is written by muxer_flush_held(). Any
 * write error stops the muxer for good, and muxer_finish() then reports it. */

struct muxer;

/* The codec a recording into `path` gets when none is asked for: VP9 for
 * .webm, H.264 otherwise. */
enum AVCodecID muxer_default_codec(const char *path);

/* The FFmpeg encoder of a recording's sound into `path` in `codec`
 * (--audio-codec: "opus", "aac", "flac"; NULL: the container's default,
 * Opus for Matroska (and stdout) and WebM, AAC for MP4 and MOV). NULL, with
 * one line logged, for a codec we do not know or the container cannot hold
 * (MP4: aac, opus; MOV: aac; WebM: opus; Matroska: all). */
const char *muxer_audio_encoder(const char *path, const char *codec);

/* True when the extension names a known container that can hold `codec_id`
 * (AV_CODEC_ID_NONE: any codec); otherwise logs one line and returns false.
 * Touches no file. */
bool muxer_check(const char *path, enum AVCodecID codec_id);

/* Checks the extension and that the container accepts `codec_id`, and opens
 * (creates) the output so an unwritable path fails at once. */
/* `bad_config` is set when the path or codec is refused (before any file is
 * opened), as opposed to a file that cannot be opened. */
/* An existing file is an error unless `overwrite`. */
struct muxer *muxer_create(const char *path, enum AVCodecID codec_id, bool overwrite,
			   bool *bad_config);

/* Whether the encoder must put its headers in extradata. */
bool muxer_wants_global_header(const struct muxer *muxer);

/* Adds the stream from the opened encoder and writes the header. */
int muxer_start(struct muxer *muxer, const AVCodecContext *encoder);

/* Before muxer_start(): the recording also has an audio stream from this
 * opened encoder (kept by reference until muxer_start()). Packets of all
 * streams are then interleaved by libavformat. Returns the stream's index
 * for muxer_write_audio(), -1 when there are too many. */
int muxer_add_audio(struct muxer *muxer, const AVCodecContext *audio_encoder);

/* Before muxer_start(): the audio stream's title (Matroska "title", MP4
 * handler name), e.g. its source. Copied. */
void muxer_set_audio_title(struct muxer *muxer, int index, const char *title);

/* Takes a packet of audio stream `index` whose timestamps are in
 * `time_base`, written as it comes (its duration is the encoder's).
 * Returns 0 or a negative AVERROR. */
int muxer_write_audio(struct muxer *muxer, int index, AVPacket *packet, AVRational time_base);

/* The stream time base, valid after muxer_start() (Matroska: 1/1000). */
AVRational muxer_time_base(const struct muxer *muxer);

/* Takes a packet whose timestamps are in `time_base`; pts must be strictly
 * increasing in the stream time base. Returns 0 or a negative AVERROR. */
int muxer_write(struct muxer *muxer, AVPacket *packet, AVRational time_base);

/* Whether a video packet waits for the next one to know its duration. */
bool muxer_holds_packet(const struct muxer *muxer);

/* Writes the waiting video packet now, lasting `duration` (in `time_base`)
 * for want of its next one, and flushes the container (ends the Matroska
 * cluster or the MP4 fragment, and the interleaving with audio), so that a
 * still screen's picture is in the file rather than in memory until the
 * screen changes. The next video packet keeps its own time: Matroska stores
 * no duration for such a packet, and the next MP4 fragment is marked
 * discontinuous. Returns 0 or a negative AVERROR; 0 with nothing waiting. */
int muxer_flush_held(struct muxer *muxer, int64_t duration, AVRational time_base);

/* Writes the held packet lasting until `end_pts` (in `time_base`), the
 * trailer (unless the muxer failed or never started) and closes the output.
 * Returns 0 when the file is complete, AVERROR(ENODATA) (not logged) when
 * no packet was ever written. */
int muxer_finish(struct muxer *muxer, int64_t end_pts, AVRational time_base);

int64_t muxer_bytes_written(const struct muxer *muxer);

/* Frees everything; closes the output without a trailer if still open. */
void muxer_destroy(struct muxer *muxer);

#endif
