#define LOG_MODULE "encode"
#include "recorder.h"

#include <errno.h>
#include <pthread.h>
#include <sys/resource.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <libavutil/log.h>
#include <libavutil/mathematics.h>

#include "audio_track.h"
#include "clock.h"
#include "encoder.h"
#include "frame_queue.h"
#include "log.h"
#include "muxer.h"
#include "png_writer.h"

_Static_assert(RECORDER_AUDIO_END_MARGIN_NS == AUDIO_TRACK_GAP_NS,
	       "the wait at the end covers the placement tolerance");

#define DEFAULT_QUEUE_DEPTH 4
#define LATENCY_BUCKET_NS 500000 /* histogram of commit-to-packet times */
#define LATENCY_BUCKETS 2000
/* How much the encoder yields to the compositor thread (see encoder_thread). */
#define ENCODER_NICE 5
/* A picture that no newer one follows within this long (or three frame
 * periods, when longer) is written to the file without waiting for the next
 * one to give its duration (muxer_flush_held): a still screen's picture is
 * on disk a moment after it came, as a moving screen's is within the second
 * a cluster or fragment lasts. At least three periods, so that a picture
 * flushed so is followed by the stop's repeat (repeat_last_before_end),
 * which ends the file at the stop. */
#define STILL_FLUSH_NS INT64_C(250000000)

struct recorder {
	char *path;
	bool to_stdout;
	bool cfr;
	double fps;
	struct frame_queue *queue;
	struct encoder *encoder;
	struct muxer *muxer;
	/* With config.audio_sources: a track per source, or one mixing them. */
	struct audio_track *audio[RECORDER_MAX_AUDIO_SOURCES];
	int audio_tracks, audio_sources;
	bool audio_mix;
	pthread_mutex_t title_mutex;
	char *audio_titles[RECORDER_MAX_AUDIO_SOURCES]; /* until the stream starts */
	_Atomic int64_t audio_until_ns; /* recorder_end_audio_at(); INT64_MAX before */
	char encoder_name[64];
	int event_fd;
	pthread_t thread;
	bool thread_started;
	atomic_bool failed;
	atomic_bool seen_frame;
	atomic_uint_fast64_t frames_submitted, frames_dropped, frames_encoded;
	atomic_uint_fast64_t frames_replaced, frames_unreadable; /* recorder_stats */

	pthread_mutex_t still_mutex;
	struct still_request *still; /* pending still request */

	/* Set by recorder_finish() before the queue is closed. */
	int64_t end_pts_ns;

	/* The first frame's size (as queued) and time, posted by
	 * recorder_submit() before it copies that frame in, so that the
	 * encoder thread opens the encoder and writes the header while the
	 * compositor thread copies, not after. Written once, before
	 * start_posted is set. */
	int start_width, start_height;
	int64_t start_pts_ns;
	atomic_bool start_posted;

	/* Encoder thread only. */
	bool started;
	int64_t first_pts_ns;
	AVRational time_base;       /* encoder: 1/1000000 (VFR) or 1/fps (CFR) */
	AVRational stream_time_base;
	AVFrame *current;           /* the most recent converted frame */
	pthread_mutex_t latency_mutex;
	uint32_t latency[LATENCY_BUCKETS];
	uint64_t latency_count;
	/* The pts of the picture repeated at the stop (repeat_last_before_end),
	 * INT64_MIN before: it stands for no commit, so its packet is not
	 * timed (its "commit" would be one period before the stop, and the
	 * time taken to stop would be counted as latency). */
	int64_t end_repeat_pts;
	/* The frame last given to the encoder: `current` may view its pixels
	 * (an I420 queue frame at the stream size), so it is given back to the
	 * queue only when the next one replaces it. */
	struct frame *held;
	int64_t last_pts;           /* of the last frame given to the encoder */
	int64_t last_frame_done_ns; /* when the last popped frame was encoded */
	int64_t last_stream_pts;
	bool any_sent;
	int64_t next_slot;          /* CFR: the next 1/fps slot to fill */
	bool current_pending;       /* CFR: `current` not yet encoded */
};

static void mark_failed(struct recorder *recorder)
{
	if (atomic_exchange(&recorder->failed, true))
		return;
	uint64_t one = 1;
	if (write(recorder->event_fd, &one, sizeof(one)) != sizeof(one))
		LOG_ERRNO("cannot signal the encoder failure");
}

/* Commit-to-packet latency: what a frame waits in the queue plus conversion
 * and encoding. Only meaningful where packets carry commit times (VFR). */
static void note_latency(struct recorder *recorder, const AVPacket *packet)
{
	if (recorder->cfr || packet->pts == AV_NOPTS_VALUE || packet->pts == recorder->end_repeat_pts)
		return;
	int64_t commit_ns = recorder->first_pts_ns +
			    av_rescale_q(packet->pts, recorder->time_base, (AVRational){1, 1000000000});
	int64_t bucket = (clock_now_ns() - commit_ns) / LATENCY_BUCKET_NS;
	if (bucket < 0)
		bucket = 0;
	if (bucket >= LATENCY_BUCKETS)
		bucket = LATENCY_BUCKETS - 1;
	pthread_mutex_lock(&recorder->latency_mutex);
	recorder->latency[bucket]++;
	recorder->latency_count++;
	pthread_mutex_unlock(&recorder->latency_mutex);
}

static double latency_percentile(struct recorder *recorder, double fraction)
{
	uint64_t rank = (uint64_t)((double)recorder->latency_count * fraction), seen = 0;
	for (int i = 0; i < LATENCY_BUCKETS; i++) {
		seen += recorder->latency[i];
		if (seen > rank)
			return (i + 0.5) * LATENCY_BUCKET_NS / 1e6;
	}
	return 0;
}

static int write_packet(void *data, AVPacket *packet)
{
	struct recorder *recorder = data;
	note_latency(recorder, packet);
	return muxer_write(recorder->muxer, packet, recorder->time_base);
}

static int send_current(struct recorder *recorder, int64_t pts)
{
	recorder->current->pts = pts;
	int ret = encoder_send(recorder->encoder, recorder->current, write_packet, recorder);
	if (ret < 0)
		return ret;
	recorder->last_pts = pts;
	recorder->any_sent = true;
	recorder->current_pending = false;
	atomic_fetch_add(&recorder->frames_encoded, 1);
	return 0;
}

/* The tracks' titles: their source's name, or the mixed ones' joined. */
static void name_audio_tracks(struct recorder *recorder)
{
	pthread_mutex_lock(&recorder->title_mutex);
	for (int t = 0; t < recorder->audio_tracks; t++) {
		char title[512] = "";
		for (int s = 0; s < recorder->audio_sources; s++) {
			if ((recorder->audio_mix ? 0 : s) != t || !recorder->audio_titles[s])
				continue;
			size_t used = strlen(title);
			snprintf(title + used, sizeof(title) - used, "%s%s", used ? " + " : "",
				 recorder->audio_titles[s]);
		}
		if (title[0])
			muxer_set_audio_title(recorder->muxer, t, title);
	}
	pthread_mutex_unlock(&recorder->title_mutex);
}

/* The stream takes its size and time zero from the first frame. */
static int start_stream(struct recorder *recorder, int width, int height, int64_t pts_ns)
{
	recorder->first_pts_ns = pts_ns;
	recorder->time_base = recorder->cfr ? av_inv_q(av_d2q(recorder->fps, 1001000))
					    : (AVRational){1, 1000000};
	int ret = encoder_open(recorder->encoder, width, height, recorder->time_base,
			       muxer_wants_global_header(recorder->muxer));
	if (ret < 0)
		return ret;
	name_audio_tracks(recorder);
	/* The header needs the size and the codec's extradata, known only now. */
	ret = muxer_start(recorder->muxer, encoder_context(recorder->encoder));
	if (ret < 0)
		return ret;
	recorder->stream_time_base = muxer_time_base(recorder->muxer);
	recorder->last_stream_pts = INT64_MIN;
	recorder->started = true;
	return 0;
}

/* VFR: the frame's own time, made strictly increasing after the container's
 * rounding (Matroska counts milliseconds): a frame that would land on the
 * tick of the previous one is moved to the next tick, never dropped. */
static int64_t vfr_pts_after_last(struct recorder *recorder, int64_t pts)
{
	int64_t stream_pts = av_rescale_q(pts, recorder->time_base, recorder->stream_time_base);
	if (recorder->any_sent && stream_pts <= recorder->last_stream_pts) {
		stream_pts = recorder->last_stream_pts + 1;
		pts = av_rescale_q_rnd(stream_pts, recorder->stream_time_base, recorder->time_base,
				       AV_ROUND_UP);
	}
	if (recorder->any_sent && pts <= recorder->last_pts)
		pts = recorder->last_pts + 1;
	return pts;
}

static int send_current_vfr(struct recorder *recorder, int64_t pts)
{
	int ret = send_current(recorder, pts);
	if (ret < 0)
		return ret;
	recorder->last_stream_pts = av_rescale_q(pts, recorder->time_base, recorder->stream_time_base);
	return 0;
}

static int encode_vfr(struct recorder *recorder, const struct frame *frame)
{
	int64_t pts = vfr_pts_after_last(recorder,
					 av_rescale_q(frame->pts_ns - recorder->first_pts_ns,
						      (AVRational){1, 1000000000}, recorder->time_base));
	int ret = encoder_convert(recorder->encoder, frame, recorder->current);
	if (ret == AVERROR(EAGAIN)) {
		atomic_fetch_add(&recorder->frames_unreadable, 1);
		return 0; /* an unreadable dmabuf frame, logged: skipped */
	}
	if (ret < 0)
		return ret;
	return send_current_vfr(recorder, pts);
}

/* CFR: fill every 1/fps slot up to (not including) `slot` with the current
 * frame, repeating it as needed. */
static int fill_slots_until(struct recorder *recorder, int64_t slot)
{
	while (recorder->next_slot < slot) {
		int ret = send_current(recorder, recorder->next_slot);
		if (ret < 0)
			return ret;
		recorder->next_slot++;
	}
	return 0;
}

/* CFR: a frame goes into the slot nearest its time. Gaps are filled with the
 * previous frame; of several frames in one slot the first is encoded and the
 * later ones replace it as the picture for the following slots. */
static int encode_cfr(struct recorder *recorder, const struct frame *frame)
{
	int64_t slot = av_rescale_q(frame->pts_ns - recorder->first_pts_ns,
				    (AVRational){1, 1000000000}, recorder->time_base);
	int ret = 0;
	if (recorder->any_sent || recorder->current_pending)
		ret = fill_slots_until(recorder, slot);
	if (ret < 0)
		return ret;
	/* Still pending after the fill: the picture in `current` was never
	 * encoded, and this one takes its place. */
	bool outruns = recorder->current_pending;
	ret = encoder_convert(recorder->encoder, frame, recorder->current);
	if (ret == AVERROR(EAGAIN)) {
		atomic_fetch_add(&recorder->frames_unreadable, 1);
		return 0; /* an unreadable dmabuf frame, logged: skipped */
	}
	if (ret < 0)
		return ret;
	if (outruns)
		atomic_fetch_add(&recorder->frames_replaced, 1);
	recorder->current_pending = true;
	if (slot >= recorder->next_slot) {
		recorder->next_slot = slot;
		ret = send_current(recorder, recorder->next_slot);
		recorder->next_slot++;
	}
	return ret;
}

static int encode_frame(struct recorder *recorder, const struct frame *frame)
{
	if (!recorder->started) {
		int ret = start_stream(recorder, frame->width, frame->height, frame->pts_ns);
		if (ret < 0)
			return ret;
	}
	return recorder->cfr ? encode_cfr(recorder, frame) : encode_vfr(recorder, frame);
}

/* One 1/fps frame period in the encoder time base. */
static int64_t frame_period(struct recorder *recorder)
{
	return recorder->cfr ? 1 : av_rescale_q(1, av_inv_q(av_d2q(recorder->fps, 1001000)),
						recorder->time_base);
}

/* The end of the last frame in the encoder time base. An end at or before
 * the last frame (or none) gives the last frame one frame interval. */
static int64_t end_pts(struct recorder *recorder)
{
	int64_t end = av_rescale_q(recorder->end_pts_ns - recorder->first_pts_ns,
				   (AVRational){1, 1000000000}, recorder->time_base);
	if (end <= recorder->last_pts)
		end = recorder->last_pts + frame_period(recorder);
	return end;
}

/* VFR: a still app's last picture would otherwise be the file's last frame
 * long before its end (a terminal: 2 frames in 10 s), which seeking, editors
 * and re-encoders take for a video that ends there. When it came more than
 * two frame periods before the stop, it is sent once more one period before
 * the stop, so the video has a frame in its last period and lasts as long as
 * the recording. One frame, not a fill: VFR stays VFR (--cfr fills). */
static int repeat_last_before_end(struct recorder *recorder)
{
	if (!recorder->any_sent)
		return 0;
	int64_t period = frame_period(recorder);
	int64_t end = end_pts(recorder);
	if (end - recorder->last_pts <= 2 * period)
		return 0;
	recorder->end_repeat_pts = vfr_pts_after_last(recorder, end - period);
	return send_current_vfr(recorder, recorder->end_repeat_pts);
}

static int finish_stream(struct recorder *recorder)
{
	int ret = 0;
	if (recorder->started && !atomic_load(&recorder->failed)) {
		if (recorder->cfr) {
			int64_t end = end_pts(recorder);
			if (recorder->current_pending && end <= recorder->next_slot)
				end = recorder->next_slot + 1;
			ret = fill_slots_until(recorder, end);
		} else {
			ret = repeat_last_before_end(recorder);
		}
		if (ret >= 0)
			ret = encoder_send(recorder->encoder, NULL, write_packet, recorder);
	}
	int64_t end = recorder->started ? end_pts(recorder) : 0;
	if (recorder->cfr && end < recorder->next_slot)
		end = recorder->next_slot;
	/* The audio ends where the video does. */
	for (int t = 0; t < recorder->audio_tracks && ret >= 0 && recorder->started &&
			!atomic_load(&recorder->failed); t++)
		ret = audio_track_finish(recorder->audio[t], recorder->muxer, recorder->first_pts_ns,
					 recorder->first_pts_ns +
					 av_rescale_q(end, recorder->time_base,
						      (AVRational){1, 1000000000}));
	int mux_ret = muxer_finish(recorder->muxer, end, recorder->time_base);
	if (ret >= 0)
		ret = mux_ret;
	return ret;
}

/* A zero-copy frame has no pixels: they are read from the dmabuf first. */
static void write_still(const struct frame *frame, const char *path)
{
	struct frame copy = *frame;
	if (frame_in_buffer_only(frame)) {
		char why[256] = "";
		copy.stride = frame->width * 4;
		copy.data = malloc((size_t)copy.stride * (size_t)frame->height);
		copy.buffer = NULL;
		if (!copy.data || !wl_record_buffer_read(frame->buffer, copy.data, copy.stride, why,
							 sizeof(why))) {
			LOG_ERR("no still written to %s: cannot read the dmabuf frame (%s)", path,
				copy.data ? why : "out of memory");
			free(copy.data);
			return;
		}
	}
	if (png_write_frame(path, &copy) == 0)
		LOG_INFO("wrote %s", path);
	if (frame_in_buffer_only(frame))
		free(copy.data);
}

/* A still asked for during a recording: its own copy of the picture (or a
 * lock on its dmabuf), so the encoder's buffers need not be kept. */
struct still_request {
	char *path;
	struct frame frame;
};

static void still_request_free(struct still_request *still)
{
	if (!still)
		return;
	free(still->frame.data);
	wl_record_buffer_unlock(still->frame.buffer);
	free(still->path);
	free(still);
}

static void write_pending_still(struct recorder *recorder)
{
	pthread_mutex_lock(&recorder->still_mutex);
	struct still_request *still = recorder->still;
	recorder->still = NULL;
	pthread_mutex_unlock(&recorder->still_mutex);
	if (!still)
		return;
	write_still(&still->frame, still->path);
	still_request_free(still);
}

/* When the held packet of a still picture is to be written (INT64_MAX:
 * none is held). */
static int64_t still_flush_deadline(struct recorder *recorder)
{
	if (!recorder->started || atomic_load(&recorder->failed) ||
	    !muxer_holds_packet(recorder->muxer))
		return INT64_MAX;
	int64_t wait = 3 * (int64_t)(1e9 / recorder->fps);
	return recorder->last_frame_done_ns + (wait > STILL_FLUSH_NS ? wait : STILL_FLUSH_NS);
}

static void *encoder_thread(void *data)
{
	struct recorder *recorder = data;
	/* The compositor thread stamps commits and answers clients; on two
	 * cores it must not wait behind the encoder. Nice is per thread on
	 * Linux and inherited by the threads x264 and swscale start from here. */
	if (setpriority(PRIO_PROCESS, (id_t)gettid(), ENCODER_NICE) < 0)
		LOG_DBG("cannot lower the encoder thread's priority: %s", strerror(errno));
	for (;;) {
		struct frame *frame;
		enum frame_queue_event event = frame_queue_pop_until(recorder->queue, &frame,
								     still_flush_deadline(recorder));
		/* The first frame is on its way (woken by its kick, or it is
		 * here already). */
		if (!recorder->started && !atomic_load(&recorder->failed) &&
		    atomic_load(&recorder->start_posted) &&
		    start_stream(recorder, recorder->start_width, recorder->start_height,
				 recorder->start_pts_ns) < 0)
			mark_failed(recorder);
		if (event == FRAME_QUEUE_CLOSED)
			break;
		if (event == FRAME_QUEUE_FRAME) {
			/* After a failure frames are still taken (and stills
			 * served) but no longer encoded. */
			if (!atomic_load(&recorder->failed) && encode_frame(recorder, frame) < 0)
				mark_failed(recorder);
			frame_queue_release(recorder->queue, recorder->held);
			recorder->held = frame;
			recorder->last_frame_done_ns = clock_now_ns();
		}
		/* A still picture: its packet lasts one period for now (CFR: its
		 * exact slot), the next one keeps its own time. */
		if (event == FRAME_QUEUE_TIMEOUT &&
		    muxer_flush_held(recorder->muxer, frame_period(recorder), recorder->time_base) < 0)
			mark_failed(recorder);
		/* Audio waits for the first frame (encoded, not just announced):
		 * its time is the file's zero. */
		for (int t = 0; t < recorder->audio_tracks && recorder->any_sent &&
				!atomic_load(&recorder->failed); t++)
			if (audio_track_encode(recorder->audio[t], recorder->muxer,
					       recorder->first_pts_ns,
					       atomic_load(&recorder->audio_until_ns)) < 0)
				mark_failed(recorder);
		write_pending_still(recorder);
	}
	if (finish_stream(recorder) < 0)
		mark_failed(recorder);
	write_pending_still(recorder);
	frame_queue_release(recorder->queue, recorder->held);
	recorder->held = NULL;
	return NULL;
}

static void recorder_destroy(struct recorder *recorder)
{
	if (!recorder)
		return;
	muxer_destroy(recorder->muxer);
	for (int t = 0; t < recorder->audio_tracks; t++)
		audio_track_destroy(recorder->audio[t]);
	for (int s = 0; s < recorder->audio_sources; s++)
		free(recorder->audio_titles[s]);
	pthread_mutex_destroy(&recorder->title_mutex);
	encoder_destroy(recorder->encoder);
	frame_queue_destroy(recorder->queue);
	av_frame_free(&recorder->current);
	if (recorder->event_fd >= 0)
		close(recorder->event_fd);
	pthread_mutex_destroy(&recorder->still_mutex);
	pthread_mutex_destroy(&recorder->latency_mutex);
	still_request_free(recorder->still);
	free(recorder->path);
	free(recorder);
}

/* FFmpeg's messages (from any of its threads, often a line in pieces) go
 * through our logger at our levels, so -q leaves only their errors and
 * their chatter (x264's CPU flags...) waits for -v. */
static void log_from_ffmpeg(void *object, int av_level, const char *fmt, va_list args)
{
	enum log_level level;
	if (av_level <= AV_LOG_ERROR)
		level = LOG_LEVEL_ERROR;
	else if (av_level <= AV_LOG_WARNING)
		level = LOG_LEVEL_WARN;
	else if (av_level <= AV_LOG_VERBOSE)
		level = LOG_LEVEL_DEBUG;
	else
		return; /* AV_LOG_DEBUG and TRACE: per-packet noise */
	if (!log_enabled(level))
		return;
	char prefix[64] = "";
	const AVClass *class = object ? *(const AVClass *const *)object : NULL;
	if (class && class->item_name)
		snprintf(prefix, sizeof(prefix), "%s: ", class->item_name(object));
	log_vpiece(level, "ffmpeg", prefix, fmt, args);
}

static void route_ffmpeg_logs(void)
{
	av_log_set_callback(log_from_ffmpeg);
}

struct recorder *recorder_create(const struct recorder_config *config, enum recorder_error *error)
{
	enum recorder_error unused;
	if (!error)
		error = &unused;
	*error = RECORDER_ERROR_CONFIG;
	route_ffmpeg_logs();
	if (!config->path) {
		LOG_ERR("no output file");
		return NULL;
	}
	if (config->fps < 0 || config->queue_depth < 0 || config->bitrate < 0) {
		LOG_ERR("invalid recording settings (fps %g, queue depth %d, bitrate %lld)",
			config->fps, config->queue_depth, (long long)config->bitrate);
		return NULL;
	}
	*error = RECORDER_ERROR_RUNTIME;
	struct recorder *recorder = calloc(1, sizeof(*recorder));
	if (!recorder) {
		LOG_ERRNO("recorder");
		return NULL;
	}
	recorder->event_fd = -1;
	recorder->end_repeat_pts = INT64_MIN;
	pthread_mutex_init(&recorder->still_mutex, NULL);
	pthread_mutex_init(&recorder->latency_mutex, NULL);
	pthread_mutex_init(&recorder->title_mutex, NULL);
	atomic_init(&recorder->audio_until_ns, INT64_MAX);
	recorder->path = strdup(config->path);
	recorder->to_stdout = strcmp(config->path, "-") == 0;
	recorder->cfr = config->cfr;
	recorder->fps = config->fps > 0 ? config->fps : WL_RECORD_DEFAULT_FPS;
	recorder->current = av_frame_alloc();
	if (!recorder->path || !recorder->current) {
		LOG_ERRNO_P(ENOMEM, "recorder");
		goto fail;
	}
	recorder->event_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (recorder->event_fd < 0) {
		LOG_ERRNO("eventfd");
		goto fail;
	}
	/* The encoder is test-opened here: what fails is the settings. */
	struct encoder_config encoder_config = {
		.codec = config->codec,
		.default_codec = muxer_default_codec(config->path),
		.device = config->device,
		.bitrate = config->bitrate,
		.crf = config->crf,
		.fps = recorder->fps,
		.codec_params = config->codec_params,
	};
	recorder->encoder = encoder_create(&encoder_config);
	if (!recorder->encoder) {
		*error = RECORDER_ERROR_CONFIG;
		goto fail;
	}
	snprintf(recorder->encoder_name, sizeof(recorder->encoder_name), "%s",
		 encoder_name(recorder->encoder));
	bool bad_config;
	recorder->muxer = muxer_create(config->path, encoder_codec_id(recorder->encoder),
				       config->overwrite, &bad_config);
	if (!recorder->muxer) {
		*error = bad_config ? RECORDER_ERROR_CONFIG : RECORDER_ERROR_RUNTIME;
		goto fail;
	}
	if (config->audio_sources > 0) {
		const char *audio_encoder = muxer_audio_encoder(config->path, config->audio_codec);
		if (!audio_encoder || config->audio_sources > RECORDER_MAX_AUDIO_SOURCES ||
		    config->audio_bitrate < 0) {
			*error = RECORDER_ERROR_CONFIG;
			goto fail;
		}
		recorder->audio_sources = config->audio_sources;
		recorder->audio_mix = config->audio_mix && config->audio_sources > 1;
		int tracks = recorder->audio_mix ? 1 : config->audio_sources;
		for (int t = 0; t < tracks; t++) {
			recorder->audio[t] = audio_track_create(
				audio_encoder, config->audio_bitrate,
				muxer_wants_global_header(recorder->muxer),
				recorder->audio_mix ? config->audio_sources : 1);
			if (!recorder->audio[t])
				goto fail;
			recorder->audio_tracks = t + 1;
			if (!audio_track_attach(recorder->audio[t], recorder->muxer)) {
				LOG_ERR("--audio: too many audio tracks");
				goto fail;
			}
		}
	}
	recorder->queue = frame_queue_create(config->queue_depth > 0 ? config->queue_depth
								     : DEFAULT_QUEUE_DEPTH,
					     encoder_takes_i420(recorder->encoder));
	if (!recorder->queue)
		goto fail;
	int err = pthread_create(&recorder->thread, NULL, encoder_thread, recorder);
	if (err) {
		LOG_ERRNO_P(err, "cannot start the encoder thread");
		goto fail;
	}
	recorder->thread_started = true;
	*error = RECORDER_ERROR_NONE;
	return recorder;
fail:
	/* The output was created by muxer_create(); do not leave an empty file. */
	if (recorder->muxer && !recorder->to_stdout)
		unlink(recorder->path);
	recorder_destroy(recorder);
	return NULL;
}

bool recorder_submit(struct recorder *recorder, const struct frame *frame)
{
	atomic_fetch_add(&recorder->frames_submitted, 1);
	if (atomic_load(&recorder->failed))
		return false;
	/* The first frame: the encoder is opened (by the encoder thread) while
	 * the frame is copied in, not after. */
	int width, height;
	if (!atomic_load(&recorder->start_posted) &&
	    frame_queue_queued_size(recorder->queue, frame, &width, &height)) {
		recorder->start_width = width;
		recorder->start_height = height;
		recorder->start_pts_ns = frame->pts_ns;
		atomic_store(&recorder->start_posted, true);
		frame_queue_kick(recorder->queue);
	}
	/* A refused frame's damage is the caller's to carry into the next one
	 * it submits (the pacer does: frame_pacer.h); refused is not lost. */
	if (!frame_queue_push(recorder->queue, frame)) {
		atomic_fetch_add(&recorder->frames_dropped, 1);
		return false;
	}
	/* Said here: the queue may have cropped the frame already. */
	if (!atomic_exchange(&recorder->seen_frame, true) && (frame->width % 2 || frame->height % 2))
		LOG_INFO("%dx%d is odd: recording %dx%d (last column/row cropped)", frame->width,
			 frame->height, frame->width & ~1, frame->height & ~1);
	return true;
}

void recorder_submit_audio(struct recorder *recorder, int source, const struct audio_chunk *chunk)
{
	if (source < 0 || source >= recorder->audio_sources || atomic_load(&recorder->failed))
		return;
	if (recorder->audio_mix)
		audio_track_submit(recorder->audio[0], source, chunk);
	else
		audio_track_submit(recorder->audio[source], 0, chunk);
	frame_queue_kick(recorder->queue);
}

void recorder_end_audio_at(struct recorder *recorder, int64_t end_ns)
{
	atomic_store(&recorder->audio_until_ns, end_ns);
}

void recorder_set_audio_title(struct recorder *recorder, int source, const char *title)
{
	if (source < 0 || source >= recorder->audio_sources)
		return;
	char *copy = title ? strdup(title) : NULL;
	pthread_mutex_lock(&recorder->title_mutex);
	free(recorder->audio_titles[source]);
	recorder->audio_titles[source] = copy;
	pthread_mutex_unlock(&recorder->title_mutex);
}

bool recorder_request_still(struct recorder *recorder, const char *path,
			    const struct frame *picture)
{
	if (!atomic_load(&recorder->seen_frame))
		return false;
	struct still_request *still = calloc(1, sizeof(*still));
	if (!still || !(still->path = strdup(path)))
		goto out_of_memory;
	still->frame = (struct frame){ .width = picture->width, .height = picture->height,
				       .stride = picture->width * 4, .pts_ns = picture->pts_ns };
	if (frame_in_buffer_only(picture)) {
		still->frame.buffer = wl_record_buffer_lock(picture->buffer);
	} else {
		still->frame.data = malloc((size_t)still->frame.stride * (size_t)picture->height);
		if (!still->frame.data)
			goto out_of_memory;
		frame_copy_rows(picture, still->frame.data, still->frame.stride, 0, picture->height);
	}
	pthread_mutex_lock(&recorder->still_mutex);
	still_request_free(recorder->still);
	recorder->still = still;
	pthread_mutex_unlock(&recorder->still_mutex);
	frame_queue_kick(recorder->queue);
	return true;
out_of_memory:
	LOG_ERRNO("still request");
	still_request_free(still);
	return false;
}

int recorder_get_fd(struct recorder *recorder)
{
	return recorder->event_fd;
}

bool recorder_failed(struct recorder *recorder)
{
	return atomic_load(&recorder->failed);
}

void recorder_get_stats(struct recorder *recorder, struct recorder_stats *stats)
{
	memset(stats, 0, sizeof(*stats));
	stats->frames_submitted = atomic_load(&recorder->frames_submitted);
	stats->frames_dropped = atomic_load(&recorder->frames_dropped);
	stats->frames_encoded = atomic_load(&recorder->frames_encoded);
	stats->frames_replaced = atomic_load(&recorder->frames_replaced);
	stats->frames_unreadable = atomic_load(&recorder->frames_unreadable);
	stats->bytes_written = (uint64_t)muxer_bytes_written(recorder->muxer);
	snprintf(stats->encoder, sizeof(stats->encoder), "%s", recorder->encoder_name);
	if (recorder->audio_tracks) {
		snprintf(stats->audio_encoder, sizeof(stats->audio_encoder), "%s",
			 audio_track_codec_name(recorder->audio[0]));
		stats->audio_tracks = recorder->audio_tracks;
		stats->audio_sources = recorder->audio_sources;
	}
	for (int s = 0; s < recorder->audio_sources; s++) {
		struct audio_track_stats audio;
		if (recorder->audio_mix)
			audio_track_get_stats(recorder->audio[0], s, &audio);
		else
			audio_track_get_stats(recorder->audio[s], 0, &audio);
		stats->audio_chunks += audio.chunks;
		/* Every track is as long: they start and end with the video. */
		if (audio.frames_encoded > stats->audio_frames)
			stats->audio_frames = audio.frames_encoded;
		if (audio.silence_frames > stats->audio_silence_frames)
			stats->audio_silence_frames = audio.silence_frames;
		stats->audio_dropped_frames += audio.dropped_frames;
		stats->audio_source_silence_frames[s] = audio.silence_frames;
		stats->audio_source_dropped_frames[s] = audio.dropped_frames;
	}
	pthread_mutex_lock(&recorder->latency_mutex);
	stats->latency_frames = recorder->latency_count;
	if (recorder->latency_count) {
		stats->latency_p50_ms = latency_percentile(recorder, 0.5);
		stats->latency_p99_ms = latency_percentile(recorder, 0.99);
	}
	pthread_mutex_unlock(&recorder->latency_mutex);
}

int recorder_finish(struct recorder *recorder, int64_t end_pts_ns, struct recorder_stats *stats)
{
	if (!recorder)
		return 0;
	recorder->end_pts_ns = end_pts_ns;
	frame_queue_close(recorder->queue);
	if (recorder->thread_started)
		pthread_join(recorder->thread, NULL);
	if (stats) {
		recorder_get_stats(recorder, stats);
		/* The encoder thread has ended: its figures can be read now. */
		if (recorder->encoder) {
			struct encoder_zero_copy zero_copy;
			encoder_get_zero_copy(recorder->encoder, &zero_copy);
			stats->dmabuf_frames = zero_copy.dmabuf_frames;
			stats->dmabuf_frames_mapped = zero_copy.dmabuf_frames_mapped;
			stats->hop_dmabuf_import = zero_copy.imported;
			stats->hop_vaapi_map = zero_copy.mapped;
			stats->hop_scale_vaapi = zero_copy.converted;
		}
		if (recorder->started) {
			const AVCodecContext *context = encoder_context(recorder->encoder);
			stats->width = context->width;
			stats->height = context->height;
		}
	}
	int ret = atomic_load(&recorder->failed) ? -1 : 0;
	if (!recorder->started && !recorder->to_stdout)
		unlink(recorder->path); /* no frame: remove the empty file */
	recorder_destroy(recorder);
	return ret;
}

bool recorder_list_encoders(void)
{
	route_ffmpeg_logs();
	encoder_list();
	return true;
}
