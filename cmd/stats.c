#define LOG_MODULE "stats"
#include "stats.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"

/* One run, one summary: what the run noted on its way, kept here so that
 * the summary is written in one place at the very end, when the status is
 * final. */
static struct {
	/* A copy: reasons may be built in a caller's buffer (a signal's). */
	char stop_reason[128];
	bool have_recording;
	struct recorder_stats recording;
	double recording_s;
	double still_write_ms; /* < 0: no still written */
	int64_t first_frame_ns; /* CLOCK_MONOTONIC; 0: no frame yet */
	bool written;
} run = { .still_write_ms = -1 };

void stats_note_stop(const char *reason)
{
	if (!run.stop_reason[0] && reason)
		snprintf(run.stop_reason, sizeof(run.stop_reason), "%s", reason);
}

void stats_note_still(double write_ms)
{
	run.still_write_ms = write_ms;
}

void stats_note_first_frame(int64_t pts_ns)
{
	if (!run.first_frame_ns)
		run.first_frame_ns = pts_ns;
}

void stats_note_recording(const struct recorder_stats *stats, double duration_s)
{
	run.have_recording = true;
	run.recording = *stats;
	run.recording_s = duration_s;
}

/* A JSON string: quotes, backslashes and control characters escaped. */
static void put_string(FILE *out, const char *key, const char *value)
{
	fprintf(out, ",\"%s\":", key);
	if (!value) {
		fputs("null", out);
		return;
	}
	fputc('"', out);
	for (const unsigned char *c = (const unsigned char *)value; *c; c++) {
		if (*c == '"' || *c == '\\')
			fprintf(out, "\\%c", *c);
		else if (*c < 0x20)
			fprintf(out, "\\u%04x", *c);
		else
			fputc(*c, out);
	}
	fputc('"', out);
}

static void put_count(FILE *out, const char *key, bool known, uint64_t value)
{
	if (known)
		fprintf(out, ",\"%s\":%" PRIu64, key, value);
	else
		fprintf(out, ",\"%s\":null", key);
}

static void put_number(FILE *out, const char *key, bool known, double value)
{
	if (known)
		fprintf(out, ",\"%s\":%.3f", key, value);
	else
		fprintf(out, ",\"%s\":null", key);
}

/* An array of `count` sample counts as seconds. */
static void put_numbers(FILE *out, const char *key, bool known, const uint64_t *values, int count,
			double per_second)
{
	if (!known) {
		fprintf(out, ",\"%s\":null", key);
		return;
	}
	fprintf(out, ",\"%s\":[", key);
	for (int i = 0; i < count; i++)
		fprintf(out, "%s%.3f", i ? "," : "", (double)values[i] / per_second);
	fputc(']', out);
}

static void put_flag(FILE *out, const char *key, bool known, bool value)
{
	fprintf(out, ",\"%s\":%s", key, !known ? "null" : value ? "true" : "false");
}

/* A PNG's size from its IHDR chunk, which the format puts first. */
static bool png_size(const char *path, int *width, int *height)
{
	unsigned char header[24];
	FILE *file = fopen(path, "rb");
	if (!file)
		return false;
	bool ok = fread(header, 1, sizeof(header), file) == sizeof(header) &&
		  memcmp(header + 12, "IHDR", 4) == 0;
	fclose(file);
	if (!ok)
		return false;
	*width = (int)((uint32_t)header[16] << 24 | (uint32_t)header[17] << 16 |
		       (uint32_t)header[18] << 8 | header[19]);
	*height = (int)((uint32_t)header[20] << 24 | (uint32_t)header[21] << 16 |
			(uint32_t)header[22] << 8 | header[23]);
	return true;
}

/* Why it stopped, when app_stop was given no words (--frames and
 * --duration end a recording without any). */
static const char *stop_reason(const struct app *app)
{
	if (run.stop_reason[0])
		return run.stop_reason;
	const struct options *options = app->options;
	if (run.have_recording && options->max_frames &&
	    run.recording.frames_submitted >= (uint64_t)options->max_frames)
		return "--frames reached";
	if (run.have_recording && options->duration_s > 0 &&
	    run.recording_s >= options->duration_s * 0.99)
		return "--duration reached";
	if (app->status == EXIT_USAGE)
		return "bad command line";
	if (app->status != EXIT_OK)
		return "failed";
	return options->screenshot ? "still taken" : "done";
}

static void write_all(int fd, const char *text, size_t size)
{
	while (size > 0) {
		ssize_t n = write(fd, text, size);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			LOG_ERRNO("cannot write the summary to file descriptor %d", fd);
			return;
		}
		text += n;
		size -= (size_t)n;
	}
}

void stats_write(const struct app *app)
{
	const struct options *options = app->options;
	if (options->stats_fd < 0 || run.written)
		return;
	run.written = true;

	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);
	if (!out) {
		LOG_ERRNO("cannot make the summary");
		return;
	}
	/* What the process will return: COMMAND's failure comes first (main.c). */
	int exit_status = app->child_exited && (app->child_status != 0 || app->status == EXIT_OK)
				  ? app->child_status : app->status;
	fprintf(out, "{\"kind\":\"%s\"", options->screenshot ? "still" : "video");
	put_string(out, "path", app->output_path);
	put_string(out, "status", app->status == EXIT_OK ? "ok"
				  : app->status == EXIT_USAGE ? "usage" : "failed");
	put_string(out, "reason", stop_reason(app));
	fprintf(out, ",\"exit_status\":%d", exit_status);
	if (app->child_exited)
		fprintf(out, ",\"command_status\":%d", app->child_status);
	else
		fputs(",\"command_status\":null", out);

	if (options->screenshot) {
		int width = 0, height = 0;
		struct stat st;
		bool written = app->status == EXIT_OK && app->output_path &&
			       png_size(app->output_path, &width, &height) &&
			       stat(app->output_path, &st) == 0;
		put_string(out, "encoder", written ? "png" : NULL);
		put_count(out, "width", written, (uint64_t)width);
		put_count(out, "height", written, (uint64_t)height);
		put_count(out, "frames_submitted", written, 1);
		put_count(out, "frames_dropped", written, 0);
		put_count(out, "frames_encoded", written, 1);
		put_count(out, "frames_replaced", written, 0);
		put_count(out, "frames_unreadable", written, 0);
		put_count(out, "bytes", written, written ? (uint64_t)st.st_size : 0);
		put_number(out, "duration_s", false, 0);
		put_number(out, "latency_p50_ms", false, 0);
		put_number(out, "latency_p99_ms", false, 0);
		put_number(out, "write_ms", written && run.still_write_ms >= 0, run.still_write_ms);
		fputs(",\"start_monotonic_ns\":null", out);
		fputs(",\"dmabuf_frames\":null,\"dmabuf_frames_mapped\":null,\"hop_dmabuf_import\":null"
		      ",\"hop_vaapi_map\":null,\"hop_scale_vaapi\":null", out);
		fputs(",\"audio_encoder\":null,\"audio_s\":null,\"audio_silence_s\":null"
		      ",\"audio_tracks\":null,\"audio_source_silence_s\":null", out);
	} else {
		const struct recorder_stats *stats = &run.recording;
		bool known = run.have_recording;
		bool sized = known && stats->width > 0;
		/* The latency is unknown with --cfr and without frames (0). */
		bool timed = known && stats->latency_p50_ms > 0;
		put_string(out, "encoder", known && stats->encoder[0] ? stats->encoder : NULL);
		put_count(out, "width", sized, (uint64_t)stats->width);
		put_count(out, "height", sized, (uint64_t)stats->height);
		put_count(out, "frames_submitted", known, stats->frames_submitted);
		put_count(out, "frames_dropped", known, stats->frames_dropped);
		put_count(out, "frames_encoded", known, stats->frames_encoded);
		/* Offered and not in the file: outrun by a newer picture (two
		 * in one --fps period, or the encoder's queue was full), or an
		 * unreadable dmabuf. tests/tools/video-check --stats checks that
		 * these are exactly the commits missing from the file. */
		put_count(out, "frames_replaced", known, stats->frames_replaced);
		put_count(out, "frames_unreadable", known, stats->frames_unreadable);
		put_count(out, "bytes", known, stats->bytes_written);
		put_number(out, "duration_s", known, run.recording_s);
		put_number(out, "latency_p50_ms", timed, stats->latency_p50_ms);
		put_number(out, "latency_p99_ms", timed, stats->latency_p99_ms);
		put_number(out, "write_ms", false, 0);
		/* Time zero of the file on CLOCK_MONOTONIC, so that a script can
		 * place a frame's pts among its own events (scripts/bench-input-
		 * latency). */
		put_count(out, "start_monotonic_ns", known && run.first_frame_ns > 0,
			  (uint64_t)run.first_frame_ns);
		put_count(out, "dmabuf_frames", known, stats->dmabuf_frames);
		put_count(out, "dmabuf_frames_mapped", known, stats->dmabuf_frames_mapped);
		put_flag(out, "hop_dmabuf_import", known, stats->hop_dmabuf_import);
		put_flag(out, "hop_vaapi_map", known, stats->hop_vaapi_map);
		put_flag(out, "hop_scale_vaapi", known, stats->hop_scale_vaapi);
		/* --audio: the seconds in the file, and of those the silence
		 * that filled gaps. */
		bool audio = known && stats->audio_encoder[0];
		put_string(out, "audio_encoder", audio ? stats->audio_encoder : NULL);
		put_number(out, "audio_s", audio, (double)stats->audio_frames / AUDIO_CHUNK_RATE);
		put_number(out, "audio_silence_s", audio,
			   (double)stats->audio_silence_frames / AUDIO_CHUNK_RATE);
		/* Several sources: the tracks in the file (1 with --audio-mix),
		 * and each source's silence, in --audio order (audio_silence_s
		 * is the most of these). */
		put_count(out, "audio_tracks", audio, (uint64_t)stats->audio_tracks);
		put_numbers(out, "audio_source_silence_s", audio, stats->audio_source_silence_frames,
			    audio ? stats->audio_sources : 0, AUDIO_CHUNK_RATE);
	}
	fputs("}\n", out);
	if (fclose(out) != 0) {
		free(text);
		LOG_ERR("cannot make the summary");
		return;
	}
	write_all(options->stats_fd, text, size);
	free(text);
}
