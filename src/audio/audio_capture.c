#define LOG_MODULE "audio"
#include "audio_capture.h"

#include <errno.h>
#include <math.h>
#include <pulse/pulseaudio.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "audio_clock.h"
#include "clock.h"
#include "log.h"

#define FRAME_BYTES (AUDIO_CHUNK_CHANNELS * sizeof(float))
/* Asked of the server: a fragment every 10 ms. */
#define FRAGMENT_MS 10
/* The level meter's window: long enough that a meter read twice a second
 * misses no peak, short enough to follow speech. */
#define LEVEL_WINDOW_FRAMES (AUDIO_CHUNK_RATE / 2)
/* How long the start waits for the stream's first sample (below). */
#define AUDIO_CAPTURE_START_WAIT_NS 500000000

struct audio_capture {
	pa_threaded_mainloop *loop;
	pa_context *context;
	pa_stream *stream;
	audio_chunk_fn fn;
	void *data;
	char source[256];
	atomic_bool lost;
	/* The level meter, written by the mainloop thread, read by any. */
	atomic_int_least64_t last_chunk_ns; /* 0: none yet */
	_Atomic float published_peak;       /* linear, last full window */

	/* Mainloop thread only (and the stats under the mainloop lock). */
	struct audio_clock clock;
	float *silence;           /* for holes in the stream */
	size_t silence_frames;
	float window_peak;        /* linear peak of the window being filled */
	size_t window_frames;
	struct audio_capture_stats stats;
	int64_t delivered_until_ns; /* the end of the last chunk handed out */
};

static void lose(struct audio_capture *capture, const char *why)
{
	if (!atomic_exchange(&capture->lost, true))
		LOG_WARN("audio from %s stopped: %s; the recording goes on with silence",
			 capture->source, why);
}

static void handle_context_state(pa_context *context, void *data)
{
	struct audio_capture *capture = data;
	pa_context_state_t state = pa_context_get_state(context);
	if (state == PA_CONTEXT_FAILED && capture->stream)
		lose(capture, pa_strerror(pa_context_errno(context)));
	pa_threaded_mainloop_signal(capture->loop, 0);
}

static void handle_stream_state(pa_stream *stream, void *data)
{
	struct audio_capture *capture = data;
	pa_stream_state_t state = pa_stream_get_state(stream);
	if (state == PA_STREAM_FAILED && capture->stats.chunks > 0)
		lose(capture, "the source went away");
	if (state == PA_STREAM_READY) {
		const char *name = pa_stream_get_device_name(stream);
		if (name)
			snprintf(capture->source, sizeof(capture->source), "%s", name);
	}
	pa_threaded_mainloop_signal(capture->loop, 0);
}

/* Only a stream on the default monitor may be moved by the server (to the
 * new default); a source the user named is recorded or lost, never swapped
 * for another (PA_STREAM_DONT_MOVE below). */
static void handle_stream_moved(pa_stream *stream, void *data)
{
	struct audio_capture *capture = data;
	const char *name = pa_stream_get_device_name(stream);
	if (name) {
		LOG_INFO("audio: now from %s (the server moved the stream)", name);
		snprintf(capture->source, sizeof(capture->source), "%s", name);
	}
}

/* The time the first unread sample was captured: now minus the latency the
 * server reports for the stream (interpolated between its timing updates). */
static bool measured_time(struct audio_capture *capture, int64_t now_ns, int64_t *out)
{
	pa_usec_t latency;
	int negative = 0;
	if (pa_stream_get_latency(capture->stream, &latency, &negative) < 0)
		return false;
	int64_t latency_ns = (int64_t)latency * 1000;
	*out = negative ? now_ns + latency_ns : now_ns - latency_ns;
	return true;
}

static float db_to_linear(double db)
{
	return (float)pow(10.0, db / 20.0);
}

static void measure_level(struct audio_capture *capture, const float *samples, size_t frames,
			  int64_t now_ns)
{
	float peak = capture->window_peak;
	for (size_t i = 0; i < frames * AUDIO_CHUNK_CHANNELS; i++) {
		float magnitude = fabsf(samples[i]);
		if (magnitude > peak)
			peak = magnitude;
	}
	capture->window_peak = peak;
	capture->window_frames += frames;
	if (capture->window_frames >= LEVEL_WINDOW_FRAMES) {
		atomic_store(&capture->published_peak, peak);
		capture->window_peak = 0;
		capture->window_frames = 0;
	}
	atomic_store(&capture->last_chunk_ns, now_ns);
}

static void deliver(struct audio_capture *capture, const float *samples, size_t frames,
		    int64_t now_ns, bool lost)
{
	measure_level(capture, samples, frames, now_ns);
	int64_t reading = now_ns;
	bool have_reading = measured_time(capture, now_ns, &reading);
	struct audio_clock_stats before = capture->clock.stats;
	int64_t pts = audio_clock_stamp(&capture->clock, have_reading, reading, now_ns, frames);
	const struct audio_clock_stats *after = &capture->clock.stats;
	/* A re-anchor is a jump (a gap the consumer fills with silence); a
	 * slew is followed by resampling, no cut: said, not counted as one. */
	if (after->gaps != before.gaps) {
		if (capture->stats.reanchors == 0)
			LOG_DBG("audio: a gap in the source's timing: filled with silence "
				"(said once)");
		capture->stats.reanchors++;
	}
	if (after->unconfirmed != before.unconfirmed && before.unconfirmed == 0)
		LOG_DBG("audio: a jump in the source's timing that did not last: no gap "
			"(said once)");
	if (after->slews != before.slews && before.slews == 0)
		LOG_DBG("audio: the sample count drifts from the server's timing: followed "
			"by resampling, at most %.2f %% (said once)", AUDIO_CLOCK_SLEW_PPM / 1e4);
	capture->stats.slewed_ns = after->slewed_ns;
	capture->stats.offset_ns = after->last_offset_ns;
	struct audio_chunk chunk = { .samples = samples, .frames = frames, .pts_ns = pts,
				     .lost = lost };
	capture->fn(capture->data, &chunk);
	capture->stats.chunks++;
	capture->stats.frames += frames;
	capture->delivered_until_ns = pts + (int64_t)(frames * 1000000000ull / AUDIO_CHUNK_RATE);
}

static void handle_read(pa_stream *stream, size_t nbytes, void *data)
{
	(void)nbytes;
	struct audio_capture *capture = data;
	for (;;) {
		const void *bytes;
		size_t size;
		if (pa_stream_peek(stream, &bytes, &size) < 0 || size == 0)
			return;
		int64_t now_ns = clock_now_ns();
		size_t frames = size / FRAME_BYTES;
		if (bytes) {
			deliver(capture, bytes, frames, now_ns, false);
		} else {
			/* A hole: the server lost data. Silence of its length,
			 * counted as a gap by the recorder. */
			if (frames > capture->silence_frames) {
				float *silence = calloc(frames, FRAME_BYTES);
				if (silence) {
					free(capture->silence);
					capture->silence = silence;
					capture->silence_frames = frames;
				}
			}
			if (frames <= capture->silence_frames)
				deliver(capture, capture->silence, frames, now_ns, true);
		}
		pa_stream_drop(stream);
	}
}

static void destroy(struct audio_capture *capture)
{
	if (capture->loop)
		pa_threaded_mainloop_stop(capture->loop);
	if (capture->stream) {
		pa_stream_disconnect(capture->stream);
		pa_stream_unref(capture->stream);
	}
	if (capture->context) {
		pa_context_disconnect(capture->context);
		pa_context_unref(capture->context);
	}
	if (capture->loop)
		pa_threaded_mainloop_free(capture->loop);
	free(capture->silence);
	free(capture);
}

struct audio_capture *audio_capture_start(const char *source, audio_chunk_fn fn, void *data)
{
	const char *device = source ? source : "@DEFAULT_MONITOR@";
	struct audio_capture *capture = calloc(1, sizeof(*capture));
	if (!capture) {
		LOG_ERRNO("audio");
		return NULL;
	}
	capture->fn = fn;
	capture->data = data;
	audio_clock_init(&capture->clock, AUDIO_CHUNK_RATE);
	snprintf(capture->source, sizeof(capture->source), "%s", device);
	capture->loop = pa_threaded_mainloop_new();
	if (!capture->loop) {
		LOG_ERR("--audio: cannot set up the audio client");
		free(capture);
		return NULL;
	}
	pa_threaded_mainloop_set_name(capture->loop, "wl-record-audio");
	capture->context = pa_context_new(pa_threaded_mainloop_get_api(capture->loop), "wl-record");
	if (!capture->context) {
		LOG_ERR("--audio: cannot set up the audio client");
		destroy(capture);
		return NULL;
	}
	pa_context_set_state_callback(capture->context, handle_context_state, capture);
	if (pa_threaded_mainloop_start(capture->loop) < 0) {
		LOG_ERR("--audio: cannot start the audio thread");
		pa_threaded_mainloop_free(capture->loop);
		capture->loop = NULL;
		destroy(capture);
		return NULL;
	}
	pa_threaded_mainloop_lock(capture->loop);
	/* No autospawn: a recorder must not start a sound server behind the
	 * user's back; no server is an error the user should see. */
	if (pa_context_connect(capture->context, NULL, PA_CONTEXT_NOAUTOSPAWN, NULL) < 0)
		goto no_server;
	for (;;) {
		pa_context_state_t state = pa_context_get_state(capture->context);
		if (state == PA_CONTEXT_READY)
			break;
		if (!PA_CONTEXT_IS_GOOD(state))
			goto no_server;
		pa_threaded_mainloop_wait(capture->loop);
	}
	const pa_sample_spec spec = { .format = PA_SAMPLE_FLOAT32LE, .rate = AUDIO_CHUNK_RATE,
				      .channels = AUDIO_CHUNK_CHANNELS };
	capture->stream = pa_stream_new(capture->context, "wl-record", &spec, NULL);
	if (!capture->stream) {
		LOG_ERR("--audio: cannot make a record stream: %s",
			pa_strerror(pa_context_errno(capture->context)));
		goto fail;
	}
	pa_stream_set_state_callback(capture->stream, handle_stream_state, capture);
	pa_stream_set_read_callback(capture->stream, handle_read, capture);
	pa_stream_set_moved_callback(capture->stream, handle_stream_moved, capture);
	const pa_buffer_attr attr = {
		.maxlength = (uint32_t)-1,
		.fragsize = (uint32_t)(AUDIO_CHUNK_RATE * FRAME_BYTES * FRAGMENT_MS / 1000),
		.tlength = (uint32_t)-1, .prebuf = (uint32_t)-1, .minreq = (uint32_t)-1,
	};
	if (pa_stream_connect_record(capture->stream, device, &attr,
				     PA_STREAM_ADJUST_LATENCY | PA_STREAM_INTERPOLATE_TIMING |
				     PA_STREAM_AUTO_TIMING_UPDATE |
				     (source ? PA_STREAM_DONT_MOVE : 0)) < 0)
		goto no_source;
	for (;;) {
		pa_stream_state_t state = pa_stream_get_state(capture->stream);
		if (state == PA_STREAM_READY)
			break;
		if (!PA_STREAM_IS_GOOD(state))
			goto no_source;
		pa_threaded_mainloop_wait(capture->loop);
	}
	/* The server links the stream and delivers its first sample some
	 * time after READY (pipewire-pulse: 100-200 ms, wireplumber links
	 * it), and the clock's anchor is set from the first readings, which
	 * move the stamps by some ms from one chunk to the next: both are
	 * waited for, up to a bound, so that the recording's first frame
	 * comes after them and the track neither begins with silence (a
	 * lead-in of 30-80 ms was measured without the wait) nor has the
	 * anchor's first moves in it. A source that delivers nothing
	 * (suspended) costs the bound. */
	int64_t until_ns = clock_now_ns() + AUDIO_CAPTURE_START_WAIT_NS;
	while (capture->stats.chunks < AUDIO_CLOCK_START_READINGS && clock_now_ns() < until_ns &&
	       PA_STREAM_IS_GOOD(pa_stream_get_state(capture->stream))) {
		pa_threaded_mainloop_unlock(capture->loop);
		nanosleep(&(struct timespec){ .tv_nsec = 2000000 }, NULL);
		pa_threaded_mainloop_lock(capture->loop);
	}
	uint64_t chunks = capture->stats.chunks;
	pa_threaded_mainloop_unlock(capture->loop);
	LOG_DBG("audio: %s, 48 kHz stereo float%s", capture->source,
		chunks ? "" : "; no sound delivered yet");
	return capture;

no_server:
	LOG_ERR("--audio: no audio server (PulseAudio or pipewire-pulse): %s",
		pa_strerror(pa_context_errno(capture->context)));
	goto fail;
no_source:
	LOG_ERR("--audio: cannot record from '%s': %s", device,
		pa_strerror(pa_context_errno(capture->context)));
fail:
	pa_threaded_mainloop_unlock(capture->loop);
	destroy(capture);
	return NULL;
}

const char *audio_capture_source(const struct audio_capture *capture)
{
	return capture->source;
}

bool audio_capture_lost(struct audio_capture *capture)
{
	return atomic_load(&capture->lost);
}

void audio_capture_get_level(struct audio_capture *capture, int64_t now_ns,
			     struct audio_capture_level *level)
{
	float peak = atomic_load(&capture->published_peak);
	level->peak_db = peak > 0 ? 20.0 * log10(peak) : -INFINITY;
	int64_t last_chunk = atomic_load(&capture->last_chunk_ns);
	if (atomic_load(&capture->lost))
		level->state = AUDIO_CAPTURE_LOST;
	else if (last_chunk == 0)
		level->state = AUDIO_CAPTURE_WAITING;
	else if (now_ns - last_chunk > AUDIO_CAPTURE_MISSING_NS)
		level->state = AUDIO_CAPTURE_MISSING;
	else if (peak < db_to_linear(AUDIO_CAPTURE_SILENT_DB))
		level->state = AUDIO_CAPTURE_SILENT;
	else
		level->state = AUDIO_CAPTURE_SOUND;
}

void audio_capture_describe_level(const struct audio_capture_level *level, char *out, size_t size)
{
	switch (level->state) {
	case AUDIO_CAPTURE_SOUND:
		snprintf(out, size, "%.0f dB", level->peak_db);
		return;
	case AUDIO_CAPTURE_SILENT:
		snprintf(out, size, "silent");
		return;
	case AUDIO_CAPTURE_MISSING:
		snprintf(out, size, "missing");
		return;
	case AUDIO_CAPTURE_LOST:
		snprintf(out, size, "lost");
		return;
	case AUDIO_CAPTURE_WAITING:
		break;
	}
	snprintf(out, size, "waiting");
}

void audio_capture_get_stats(struct audio_capture *capture, struct audio_capture_stats *stats)
{
	pa_threaded_mainloop_lock(capture->loop);
	*stats = capture->stats;
	pa_threaded_mainloop_unlock(capture->loop);
}

bool audio_capture_wait_until(struct audio_capture *capture, int64_t until_ns, int64_t timeout_ns)
{
	/* The wait goes on while chunks keep coming (a loaded machine's server
	 * delivers late, not never): it ends `timeout_ns` after the last
	 * chunk, and at most 8 times that after its start. */
	int64_t started = clock_now_ns();
	int64_t hard_deadline = started + 8 * timeout_ns;
	pa_threaded_mainloop_lock(capture->loop);
	bool done;
	int64_t now = started;
	while (!(done = capture->delivered_until_ns >= until_ns) &&
	       !atomic_load(&capture->lost) && capture->stats.chunks > 0 && now < hard_deadline) {
		int64_t last_chunk = atomic_load(&capture->last_chunk_ns);
		int64_t quiet_since = last_chunk > started ? last_chunk : started;
		if (now - quiet_since >= timeout_ns)
			break;
		pa_threaded_mainloop_unlock(capture->loop);
		nanosleep(&(struct timespec){ .tv_nsec = 2000000 }, NULL);
		pa_threaded_mainloop_lock(capture->loop);
		now = clock_now_ns();
	}
	int64_t short_ns = until_ns - capture->delivered_until_ns;
	bool waited_for_chunks = capture->stats.chunks > 0 && !atomic_load(&capture->lost);
	pa_threaded_mainloop_unlock(capture->loop);
	if (!done && waited_for_chunks)
		LOG_DBG("audio: the sound of the last %.1f ms had not come after %.0f ms: "
			"silence in its place", (double)short_ns / 1e6,
			(double)(clock_now_ns() - started) / 1e6);
	return done;
}

void audio_capture_stop(struct audio_capture *capture)
{
	if (capture)
		destroy(capture);
}
