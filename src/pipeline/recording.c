#define LOG_MODULE "record"
#include "recording.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "app_sink.h"
#include "audio_capture.h"
#include "clock.h"
#include "frame_pacer.h"
#include "frame_source.h"
#include "log.h"
#include "recorder.h"

#define STATUS_INTERVAL_MS 500

/* One sound source: its chunks go to the recorder as source `index`. */
struct recording_audio {
	struct recorder *recorder;
	int index;
	struct audio_capture *capture;
	char name[160]; /* what is recorded, for people */
};

struct recording {
	struct recording_config config;
	struct recorder *recorder;
	struct recording_audio audio[RECORDER_MAX_AUDIO_SOURCES]; /* --audio, in order */
	int audio_count;
	struct frame_pacer pacer;
	struct frame_sink sink;  /* on the screen's frame source */
	struct frame newest;     /* kept: the picture a still is made of */
	bool still_pending;      /* asked for before the first frame */
	struct wl_event_source *recorder_event;
	struct wl_event_source *status_timer;
	struct wl_event_source *duration_timer;
	int64_t start_ns;
	int64_t frames_accepted;
	int64_t frames_end_ns;   /* --frames reached: where the file ends, 0 before */
};

static bool stopping(const struct recording *recording)
{
	return recording->config.events.stopping(recording->config.events.data);
}

static void stop(const struct recording *recording, bool failed, const char *reason)
{
	recording->config.events.stop(recording->config.events.data, failed, reason);
}

/* "-" is a file name for the command line, not for a sentence. */
static const char *path_for_people(const char *path)
{
	return strcmp(path, "-") == 0 ? "standard output" : path;
}

static bool consume_frame(void *data, const struct frame *frame)
{
	struct recording *recording = data;
	if (stopping(recording) && recording->config.max_frames &&
	    recording->frames_accepted >= recording->config.max_frames)
		return true; /* --frames reached: later pictures are not wanted */
	if (!recorder_submit(recording->recorder, frame))
		return false;
	if (!recording->frames_accepted)
		recording->config.events.first_frame(recording->config.events.data, frame->pts_ns);
	recording->frames_accepted++;
	if (recording->still_pending) {
		recording->still_pending = false;
		recording_snap(recording);
	}
	int64_t max = recording->config.max_frames;
	if (max && recording->frames_accepted >= max) {
		/* The N-th frame lasts one period, as the others did: the file
		 * ends there, not when the loop gets round to stopping (later
		 * on a loaded machine, which would repeat the picture once more:
		 * recorder_finish). */
		recording->frames_end_ns = frame->pts_ns + recording->config.grid->period_ns;
		stop(recording, false, NULL);
	}
	return true;
}

static void handle_frame(struct frame_sink *sink, const struct frame *frame)
{
	struct recording *recording = wl_container_of(sink, recording, sink);
	/* The screen as it is now, for a still (the same picture the screen
	 * shows, so keeping it holds no extra client buffer). */
	frame_unref(&recording->newest);
	frame_ref(&recording->newest, frame);
	if (stopping(recording))
		return;
	frame_pacer_offer(&recording->pacer, frame);
}

static const struct frame_sink_impl recording_sink = { .frame = handle_frame };

static int handle_recorder_event(int fd, uint32_t mask, void *data)
{
	struct recording *recording = data;
	if (recorder_failed(recording->recorder))
		stop(recording, true, "the recording failed");
	return 0;
}

static void format_size(char *out, size_t size, uint64_t bytes)
{
	if (bytes >= 1024 * 1024)
		snprintf(out, size, "%.1f MiB", (double)bytes / (1024.0 * 1024.0));
	else
		snprintf(out, size, "%.1f KiB", (double)bytes / 1024.0);
}

/* The terminal's width, for a status line that must not wrap: a wrapped
 * line is not overwritten by '\r' and stacks up. */
static int terminal_columns(void)
{
	struct winsize size;
	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0)
		return size.ws_col;
	const char *columns = getenv("COLUMNS");
	int n = columns ? atoi(columns) : 0;
	return n > 0 ? n : 80;
}

static const char *plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

static void print_status(struct recording *recording)
{
	struct recorder_stats stats;
	recorder_get_stats(recording->recorder, &stats);
	double elapsed = (double)(clock_now_ns() - recording->start_ns) / 1e9;
	char size[32];
	format_size(size, sizeof(size), stats.bytes_written);
	int seconds = (int)elapsed;
	char text[256];
	char audio[160] = "";
	int64_t now_ns = clock_now_ns();
	for (int i = 0; i < recording->audio_count; i++) {
		struct audio_capture_level level;
		audio_capture_get_level(recording->audio[i].capture, now_ns, &level);
		char described[32];
		audio_capture_describe_level(&level, described, sizeof(described));
		size_t used = strlen(audio);
		snprintf(audio + used, sizeof(audio) - used, "%s%s", i ? ", " : "  audio: ", described);
	}
	/* The audio level before the encoder's name: on a narrow terminal the
	 * line is cut, and the level is what changes. */
	snprintf(text, sizeof(text), "wl-record: %02d:%02d:%02d  %" PRIu64 " %s  %.1f fps  %" PRIu64
		 " dropped  %s%s  %s", seconds / 3600, seconds / 60 % 60, seconds % 60,
		 stats.frames_encoded, plural(stats.frames_encoded, "frame", "frames"),
		 elapsed > 0 ? (double)stats.frames_encoded / elapsed : 0.0, stats.frames_dropped,
		 size, audio, stats.encoder[0] ? stats.encoder : "starting");
	/* One column spare: a line that reaches the last column wraps on some
	 * terminals. Cut, not wrapped: the time and frame count come first. */
	size_t fit = (size_t)(terminal_columns() - 1);
	if (strlen(text) > fit)
		text[fit] = '\0';
	log_status_line(text);
}

static int handle_status_timer(void *data)
{
	struct recording *recording = data;
	print_status(recording);
	wl_event_source_timer_update(recording->status_timer, STATUS_INTERVAL_MS);
	return 0;
}

static int handle_duration(void *data)
{
	struct recording *recording = data;
	stop(recording, false, NULL);
	return 0;
}

/* "out.mkv" -> "out-2026-12-03_14-05-09.123.png"; with a still folder
 * (a default name, whose own date would make two), FOLDER/wl-record-
 * 2026-12-03_14-05-09.123.png. */
static void still_path(const struct recording_config *config, char *out, size_t size)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	struct tm tm;
	localtime_r(&ts.tv_sec, &tm);
	char stamp[32];
	strftime(stamp, sizeof(stamp), "%Y-%m-%d_%H-%M-%S", &tm);
	long ms = ts.tv_nsec / 1000000;

	if (config->still_folder) {
		char folder[4096];
		config->still_folder(folder, sizeof(folder));
		int n = snprintf(out, size, "%s/wl-record-%s.%03ld.png", folder, stamp, ms);
		if (n > 0 && (size_t)n < size)
			return;
		/* Too long a folder: beside the recording after all. */
	}
	const char *base = config->recorder.path;
	size_t base_len = strlen(base);
	if (strcmp(base, "-") == 0) {
		base = "wl-record";
		base_len = strlen(base);
	} else {
		const char *slash = strrchr(base, '/');
		const char *dot = strrchr(base, '.');
		if (dot && (!slash || dot > slash))
			base_len = (size_t)(dot - base);
	}
	snprintf(out, size, "%.*s-%s.%03ld.png", (int)base_len, base, stamp, ms);
}

void recording_snap(struct recording *recording)
{
	/* An accepted frame has been kept as the newest first (handle_frame),
	 * and the recorder takes stills once it has seen a frame. */
	if (recording->frames_accepted == 0) {
		/* A hotkey pressed as the recording starts (or `wl-record --snap`
		 * right after it) is answered by the first frame, not dropped. */
		if (!recording->still_pending)
			LOG_INFO("no frame yet: the still will be the first frame");
		recording->still_pending = true;
		return;
	}
	char path[4096];
	still_path(&recording->config, path, sizeof(path));
	/* The screen as it is now, in RGB: the encoder's own frames may be
	 * YUV already (frame_queue.h). */
	if (recorder_request_still(recording->recorder, path, &recording->newest)) {
		LOG_INFO("writing a still to %s", path);
		recording->config.events.snapped(recording->config.events.data, path);
	} else {
		LOG_WARN("no still written to %s", path);
	}
}

/* On the audio capture's thread: the recorder copies and returns. */
static void handle_audio(void *data, const struct audio_chunk *chunk)
{
	struct recording_audio *audio = data;
	recorder_submit_audio(audio->recorder, audio->index, chunk);
}

/* Starts the capture of recorder source `recording->audio_count`. */
/* `name`: what the user is told is recorded; NULL: the source's name. */
static bool start_audio(struct recording *recording, const char *source, const char *name)
{
	struct recording_audio *audio = &recording->audio[recording->audio_count];
	audio->recorder = recording->recorder;
	audio->index = recording->audio_count;
	audio->capture = audio_capture_start(source, handle_audio, audio);
	if (!audio->capture)
		return false;
	recording->audio_count++;
	snprintf(audio->name, sizeof(audio->name), "%s",
		 name ? name : audio_capture_source(audio->capture));
	recorder_set_audio_title(recording->recorder, audio->index, audio->name);
	LOG_INFO("audio: %s", audio->name);
	return true;
}

static void stop_audio(struct recording *recording)
{
	for (int i = 0; i < recording->audio_count; i++)
		audio_capture_stop(recording->audio[i].capture);
	recording->audio_count = 0;
}

struct recording *recording_create(const struct recording_config *config, bool *bad_config)
{
	*bad_config = false;
	struct recording *recording = calloc(1, sizeof(*recording));
	if (!recording)
		return NULL;
	recording->config = *config;
	recording->start_ns = clock_now_ns();

	struct recorder_config recorder_config = config->recorder;
	recorder_config.audio_sources = config->audio_source_count + (config->app_sink ? 1 : 0);
	enum recorder_error error;
	recording->recorder = recorder_create(&recorder_config, &error);
	if (!recording->recorder) {
		*bad_config = error == RECORDER_ERROR_CONFIG;
		goto fail;
	}
	/* No server or no such source: one line, exit 1, no file (the
	 * recorder removes its empty output). --app-audio's source, the
	 * monitor of the command's own output, is the first track. */
	if (config->app_sink) {
		char name[160];
		snprintf(name, sizeof(name), "the command's own sound (%s)",
			 app_sink_name(config->app_sink));
		if (!start_audio(recording, app_sink_monitor(config->app_sink), name))
			goto fail;
	}
	for (int i = 0; i < config->audio_source_count; i++)
		if (!start_audio(recording, config->audio_sources[i], NULL))
			goto fail;
	if (!frame_pacer_init(&recording->pacer, config->loop, config->grid,
			      consume_frame, recording))
		goto fail;
	/* --frames counts frame periods from the first frame: a still app
	 * would otherwise never send the N-th frame. */
	frame_pacer_set_repeat(&recording->pacer, config->max_frames > 0);
	recording->recorder_event = wl_event_loop_add_fd(config->loop,
							 recorder_get_fd(recording->recorder),
							 WL_EVENT_READABLE, handle_recorder_event,
							 recording);
	if (!recording->recorder_event)
		goto fail;
	if (config->duration_s > 0) {
		recording->duration_timer = wl_event_loop_add_timer(config->loop, handle_duration,
								    recording);
		if (!recording->duration_timer)
			goto fail;
		wl_event_source_timer_update(recording->duration_timer,
					     (int)(config->duration_s * 1000));
	}
	if (config->status_line) {
		recording->status_timer = wl_event_loop_add_timer(config->loop, handle_status_timer,
								  recording);
		if (recording->status_timer)
			wl_event_source_timer_update(recording->status_timer, STATUS_INTERVAL_MS);
	}
	frame_sink_connect(&recording->sink, &recording_sink, config->source);
	return recording;

fail:
	recording_finish(recording);
	return NULL;
}

int recording_finish(struct recording *recording)
{
	if (!recording)
		return 0;
	int64_t now_ns = clock_now_ns();
	int64_t end_ns = recording->frames_end_ns ? recording->frames_end_ns : now_ns;
	frame_sink_disconnect(&recording->sink);
	if (recording->status_timer)
		wl_event_source_remove(recording->status_timer);
	if (recording->duration_timer)
		wl_event_source_remove(recording->duration_timer);
	if (recording->recorder_event)
		wl_event_source_remove(recording->recorder_event);

	int ret = 0;
	if (recording->recorder) {
		recorder_end_audio_at(recording->recorder, end_ns);
		/* The newest picture may still wait in the pacer; it belongs in the
		 * file. The queue may be full: give the encoder a moment. */
		if (!recorder_failed(recording->recorder)) {
			for (int tries = 0; tries < 200 && !frame_pacer_flush(&recording->pacer); tries++)
				usleep(5000);
		}
		log_status_clear();
		/* The sound of the last instants is still on its way. */
		int64_t sound_until = end_ns + RECORDER_AUDIO_END_MARGIN_NS;
		for (int i = 0; i < recording->audio_count; i++)
			audio_capture_wait_until(recording->audio[i].capture, sound_until, 250000000);
		/* No chunk reaches the recorder after this. */
		struct audio_capture_stats audio_stats[RECORDER_MAX_AUDIO_SOURCES] = { 0 };
		char audio_names[RECORDER_MAX_AUDIO_SOURCES][160] = { 0 };
		/* " + " between the names, each at most 159 characters. */
		char audio_source[RECORDER_MAX_AUDIO_SOURCES * 163 + 1] = "";
		uint64_t reanchors = 0;
		int audio_count = recording->audio_count;
		for (int i = 0; i < audio_count; i++) {
			struct audio_capture *capture = recording->audio[i].capture;
			audio_capture_get_stats(capture, &audio_stats[i]);
			reanchors += audio_stats[i].reanchors;
			snprintf(audio_names[i], sizeof(audio_names[i]), "%s",
				 recording->audio[i].name);
			size_t used = strlen(audio_source);
			snprintf(audio_source + used, sizeof(audio_source) - used, "%s%.159s",
				 i ? " + " : "", audio_names[i]);
		}
		stop_audio(recording);
		struct recorder_stats stats;
		ret = recorder_finish(recording->recorder, end_ns, &stats);
		/* The pacer's replacements too: with the recorder's, every picture
		 * offered before the last recorded one that is not in the file. */
		stats.frames_replaced += recording->pacer.replaced;
		recording->config.events.recorded(recording->config.events.data, &stats,
						  (double)(now_ns - recording->start_ns) / 1e9);
		char size[32];
		format_size(size, sizeof(size), stats.bytes_written);
		if (ret == 0)
			LOG_INFO("wrote %s: %" PRIu64 " %s in %.1f s, %" PRIu64 " dropped, %" PRIu64
				 " replaced, %s (%s)",
				 path_for_people(recording->config.recorder.path), stats.frames_encoded,
				 plural(stats.frames_encoded, "frame", "frames"),
				 (double)(now_ns - recording->start_ns) / 1e9, stats.frames_dropped,
				 stats.frames_replaced + stats.frames_unreadable, size, stats.encoder);
		/* After a failed start-up its own error is the only message. */
		if (ret < 0 && stats.frames_submitted == 0 &&
		    recording->config.events.running(recording->config.events.data))
			LOG_ERR("%s: no frame was recorded%s",
				path_for_people(recording->config.recorder.path),
				recording->config.hosting ? ": nothing presented to wl-record" : "");
		char tracks[32] = "";
		if (audio_count > 1)
			snprintf(tracks, sizeof(tracks), stats.audio_tracks > 1 ? ", %d tracks" :
				 ", mixed", stats.audio_tracks);
		if (ret == 0 && audio_count)
			LOG_INFO("audio: %.1f s from %s (%s%s), %" PRIu64 " chunks, %.2f s of gaps "
				 "filled with silence, %.2f s dropped, %" PRIu64 " re-anchors",
				 (double)stats.audio_frames / AUDIO_CHUNK_RATE, audio_source,
				 stats.audio_encoder, tracks, stats.audio_chunks,
				 (double)stats.audio_silence_frames / AUDIO_CHUNK_RATE,
				 (double)stats.audio_dropped_frames / AUDIO_CHUNK_RATE, reanchors);
		for (int i = 0; ret == 0 && audio_count > 1 && i < audio_count; i++)
			LOG_INFO("audio %d: %s, %.2f s of gaps filled with silence, %.2f s dropped, "
				 "%" PRIu64 " re-anchors", i + 1, audio_names[i],
				 (double)stats.audio_source_silence_frames[i] / AUDIO_CHUNK_RATE,
				 (double)stats.audio_source_dropped_frames[i] / AUDIO_CHUNK_RATE,
				 audio_stats[i].reanchors);
		if (ret == 0 && stats.latency_p50_ms > 0)
			LOG_DBG("commit to packet: median %.1f ms, 99th percentile %.1f ms",
				stats.latency_p50_ms, stats.latency_p99_ms);
	}
	stop_audio(recording);
	frame_pacer_finish(&recording->pacer);
	frame_unref(&recording->newest);
	free(recording);
	return ret;
}
