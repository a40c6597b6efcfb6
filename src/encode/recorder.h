#ifndef WL_RECORD_RECORDER_H
#define WL_RECORD_RECORDER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "audio_chunk.h"
#include "frame.h"

/* The recording pipeline: a bounded queue in front of an encoder thread that
 * converts, encodes and muxes. Every function here is called from the
 * compositor (main) thread and none of them waits on the encoder, except
 * recorder_finish(), which is the end of the recording. */

struct recorder_config {
	const char *path;          /* output file; "-" writes Matroska to stdout */
	const char *codec;         /* encoder name, NULL picks VA-API or libx264 */
	const char *device;        /* VA-API render node, NULL auto-detects */
	int64_t bitrate;           /* bits per second, 0 for quality-based */
	int crf;                   /* -1 for the encoder's default quality */
	double fps;                /* rate cap, and the rate of --cfr */
	bool cfr;                  /* constant frame rate: repeat frames to fill gaps */
	const char *const *codec_params; /* "KEY=VALUE" strings, NULL-terminated, may be NULL */
	int queue_depth;           /* frames that may wait for the encoder, 0 = default */
	bool overwrite;            /* replace an existing file (default: refuse) */
	/* Sound, from recorder_submit_audio(): */
	int audio_sources;         /* 0: none; up to RECORDER_MAX_AUDIO_SOURCES */
	bool audio_mix;            /* the sources summed into one track; else a track
				    * each, in the order of their numbers */
	const char *audio_codec;   /* "opus", "aac", "flac"; NULL: the container's */
	int64_t audio_bitrate;     /* bits per second; 0: the codec's default */
};

#define RECORDER_MAX_AUDIO_SOURCES 8

struct recorder_stats {
	uint64_t frames_submitted; /* offered by the compositor side */
	uint64_t frames_dropped;   /* refused because the queue was full */
	uint64_t frames_encoded;   /* given to the encoder (CFR repeats included) */
	/* Submitted frames that are not in the file, and why (a test checks
	 * that every commit missing from the file is one of these): */
	uint64_t frames_replaced;  /* --cfr: outrun by a newer one in the same slot before
				    * it was encoded (the caller adds its pacer's) */
	uint64_t frames_unreadable; /* a dmabuf that could not be read: skipped */
	uint64_t bytes_written;
	char encoder[64];          /* e.g. "libx264" or "h264_vaapi" */
	/* With config.audio_sources: */
	char audio_encoder[16];    /* "libopus", "aac" or "flac" */
	int audio_tracks;          /* audio streams in the file */
	int audio_sources;
	uint64_t audio_chunks;     /* received from the captures, all sources */
	uint64_t audio_frames;     /* sample frames encoded per track (all tracks
				    * are as long), silence included */
	uint64_t audio_silence_frames; /* of those, silence filling gaps: the most
					* any one source needed */
	uint64_t audio_dropped_frames; /* overlapping, all sources (what came before
					* the first frame is not counted) */
	/* Per source, in their order: */
	uint64_t audio_source_silence_frames[RECORDER_MAX_AUDIO_SOURCES];
	uint64_t audio_source_dropped_frames[RECORDER_MAX_AUDIO_SOURCES];
	double latency_p50_ms;     /* commit to encoded packet, median; 0 when unknown (CFR) */
	double latency_p99_ms;
	uint64_t latency_frames;   /* the frames those are of: each one a commit (the
				    * picture repeated at the stop is none) */
	/* Set by recorder_finish() only: */
	int width, height;         /* of the stream, 0 without frames */
	uint64_t dmabuf_frames;    /* frames that came as a client's dmabuf */
	uint64_t dmabuf_frames_mapped; /* of those, mapped into VA-API without a CPU copy */
	bool hop_dmabuf_import, hop_vaapi_map, hop_scale_vaapi; /* zero-copy hops that ran */
};

/* Checks the configuration (container from the extension, codec present,
 * options well formed) and opens the output file, so that a bad command line
 * or an unwritable path fails before anything is captured. Logs one clear
 * line and returns NULL on error. Starts the encoder thread.
 * codec NULL: h264_vaapi when a VA-API device opens and a test encode works,
 * otherwise libx264 (saying why at debug level); for .webm vp9_vaapi, else
 * libvpx-vp9. A codec named explicitly is
 * used or refused (no fallback). The encoder is test-opened here, so unknown
 * -p keys and bad values fail now. Routes the libav* messages through log.h
 * (their errors and warnings as ours, their info at LOG_LEVEL_DEBUG). */
enum recorder_error {
	RECORDER_ERROR_NONE,
	RECORDER_ERROR_CONFIG,  /* the settings asked for something impossible: a bad command line */
	RECORDER_ERROR_RUNTIME, /* the settings are fine, the machine said no (file, memory) */
};

/* What can be checked before anything starts, without opening a device or
 * the file: the container is known from the extension, the codec exists and
 * fits the container, and so does the audio codec (a lossless one takes no
 * audio bitrate). Logs one line; RECORDER_ERROR_CONFIG when refused. */
enum recorder_error recorder_check(const struct recorder_config *config);

/* `error` (may be NULL) tells which kind of failure a NULL return was. */
struct recorder *recorder_create(const struct recorder_config *config, enum recorder_error *error);

/* Copies `frame` into a pooled buffer and queues it. Never blocks: when the
 * queue is full the frame is dropped and counted, and false is returned.
 * Drop policy: the NEWEST frame (this one) is refused; queued frames are kept,
 * so the recording stays in order and the next accepted frame covers the gap:
 * its damage must then include the refused frame's (damage is accumulated
 * in one place, the caller's pacer: frame_pacer.h).
 * After a failure every frame is refused (not counted as dropped).
 * Odd sizes: the stream is the first frame's size rounded down to even (the
 * last column/row is cropped, not scaled); frames of any other size are
 * scaled to the stream size. */
bool recorder_submit(struct recorder *recorder, const struct frame *frame);

/* With config.audio_sources: takes a chunk of audio (audio_chunk.h) of
 * source `source` (0 to audio_sources - 1), placed in the file by its pts
 * on the video's clock (time zero: the first frame). Called on that audio
 * capture's thread: copies under a mutex and wakes the encoder thread,
 * which encodes it (Opus in Matroska/WebM, AAC in MP4/MOV, or
 * config.audio_codec). Gaps become silence and the audio ends with the
 * video (recorder_finish). */
void recorder_submit_audio(struct recorder *recorder, int source, const struct audio_chunk *chunk);

/* The recording ends at `end_ns` (CLOCK_MONOTONIC), to be given to
 * recorder_finish() too: audio after it is no longer encoded while the
 * caller waits for its last frames to be queued (else a full queue at the
 * stop would let the audio run past the video's end). */
void recorder_end_audio_at(struct recorder *recorder, int64_t end_ns);

/* How far past the end the audio must have come for the file's sound to
 * reach its end: a source's samples may sit up to this much earlier than
 * their stamps while its drift is being stretched away
 * (AUDIO_TRACK_GAP_NS, which recorder.c checks it equals), so the sound
 * stamped up to the end can end that much short of it in the file: a
 * moment of silence, counted as a gap. */
#define RECORDER_AUDIO_END_MARGIN_NS 8000000

/* Names source `source` (e.g. the audio server's name for it): the title of
 * its track (Matroska "title", MP4 handler name); a mixed track is titled
 * with its sources' names joined by " + ". Only before the first frame is
 * submitted (the header is written then); copied. */
void recorder_set_audio_title(struct recorder *recorder, int source, const char *title);

/* Asks the encoder thread to write `picture` (the screen now) as a PNG at
 * `path`. Both are copied here (a dmabuf picture by reference), so the PNG
 * is written off this thread. Returns false when no frame has been seen yet
 * or memory is short. */
bool recorder_request_still(struct recorder *recorder, const char *path,
			    const struct frame *picture);

/* A file descriptor that becomes readable when the encoder thread has failed
 * (write error, encoder error): the compositor side should then stop and call
 * recorder_finish(). */
int recorder_get_fd(struct recorder *recorder);

/* True once the encoder thread has failed. */
bool recorder_failed(struct recorder *recorder);

void recorder_get_stats(struct recorder *recorder, struct recorder_stats *stats);

/* Ends the recording: the frames already queued are encoded, the last frame
 * lasts until `end_pts_ns` (CLOCK_MONOTONIC), the encoder is drained, the
 * trailer written and the file closed, all checked. Joins the thread and
 * frees the recorder (NULL is accepted). Returns 0 when the file is complete,
 * negative when anything failed (already logged). An end at or before the
 * last frame gives it one 1/fps interval. Without --cfr, a last frame more
 * than two 1/fps periods before the end is repeated one period before it, so
 * the video lasts until the end (--cfr fills every period up to the end
 * anyway). With no frame at all the empty
 * output file is removed and -1 returned, without a message (the caller
 * knows whether that is an error worth one: stats->frames_encoded is 0). The final figures go to `stats`
 * when it is not NULL. */
int recorder_finish(struct recorder *recorder, int64_t end_pts_ns, struct recorder_stats *stats);

/* Prints the encoders wl-record can use on this machine, one per line.
 * False when the encoders cannot be used at all (logged). */
bool recorder_list_encoders(void);

/* One line of FFmpeg's libraries and their versions, one of libva's: what
 * this machine gives at run time, not what we were built against. */
void recorder_print_libraries(FILE *out);

#endif
