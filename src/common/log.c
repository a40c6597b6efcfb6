#define LOG_MODULE ""
#include "log.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#define LOG_LINE_MAX 1024

/* Read by the encoder thread and by libraries' threads too. */
static atomic_int current_level = LOG_LEVEL_INFO;

/* A status line is on stderr without its newline (log_status_line): the
 * next message clears it first, so that it starts at column 0. */
static atomic_bool status_shown;

#define CLEAR_LINE "\r\033[K"

void log_set_level(enum log_level level)
{
	atomic_store(&current_level, (int)level);
}

enum log_level log_get_level(void)
{
	return (enum log_level)atomic_load(&current_level);
}

bool log_enabled(enum log_level level)
{
	return (int)level <= atomic_load(&current_level);
}

/* Meson compiles "../src/encode/recorder.c"; the part from the source root
 * is what a reader looks for. */
static const char *source_path(const char *file)
{
	for (;;) {
		if (strncmp(file, "../", 3) == 0)
			file += 3;
		else if (strncmp(file, "./", 2) == 0)
			file += 2;
		else
			return file;
	}
}

struct line {
	char text[LOG_LINE_MAX];
	size_t len;
};

/* Appends like snprintf, never past the end; the result stays a string. */
static void line_vappend(struct line *line, const char *fmt, va_list args)
{
	if (line->len >= sizeof(line->text) - 1)
		return;
	size_t room = sizeof(line->text) - line->len;
	int n = vsnprintf(line->text + line->len, room, fmt, args);
	if (n < 0)
		return;
	line->len += (size_t)n < room ? (size_t)n : room - 1;
}

static void line_append(struct line *line, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void line_append(struct line *line, const char *fmt, ...)
{
	va_list args;
	va_start(args, fmt);
	line_vappend(line, fmt, args);
	va_end(args);
}

static void line_start(struct line *line, const char *module, const char *file, int lineno)
{
	line->len = 0;
	line->text[0] = '\0';
	line_append(line, "wl-record: ");
	/* Our own modules are for -v (with file:line); a library's lines
	 * (no file) keep their origin: they are not our words. */
	if (module && module[0] && (!file || log_enabled(LOG_LEVEL_DEBUG)))
		line_append(line, "%s: ", module);
	if (file && log_enabled(LOG_LEVEL_DEBUG))
		line_append(line, "%s:%d: ", source_path(file), lineno);
}

/* One fwrite per line: stdio locks the stream for each call, so lines from
 * the encoder thread and the compositor thread never interleave. */
static void line_write(struct line *line)
{
	while (line->len > 0 && line->text[line->len - 1] == '\n')
		line->len--;
	if (line->len > sizeof(line->text) - 2)
		line->len = sizeof(line->text) - 2;
	/* Names from peers (a PipeWire node, an app's title, a path) reach our
	 * lines: their control characters must not move the terminal's cursor,
	 * change its colours or split the line. */
	for (size_t i = 0; i < line->len; i++) {
		unsigned char c = (unsigned char)line->text[i];
		if ((c < 0x20 && c != '\t') || c == 0x7f)
			line->text[i] = '?';
	}
	line->text[line->len++] = '\n';
	if (atomic_exchange(&status_shown, false)) {
		char cleared[sizeof(CLEAR_LINE) - 1 + LOG_LINE_MAX];
		memcpy(cleared, CLEAR_LINE, sizeof(CLEAR_LINE) - 1);
		memcpy(cleared + sizeof(CLEAR_LINE) - 1, line->text, line->len);
		fwrite(cleared, 1, sizeof(CLEAR_LINE) - 1 + line->len, stderr);
		return;
	}
	fwrite(line->text, 1, line->len, stderr);
}

void log_status_line(const char *text)
{
	char line[LOG_LINE_MAX];
	int n = snprintf(line, sizeof(line), "\r%s\033[K", text);
	if (n <= 0)
		return;
	fwrite(line, 1, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1, stderr);
	fflush(stderr);
	atomic_store(&status_shown, true);
}

void log_status_clear(void)
{
	if (atomic_exchange(&status_shown, false))
		fputs(CLEAR_LINE, stderr);
}

void log_msg(enum log_level level, const char *module, const char *file, int lineno,
	     int errno_value, const char *fmt, ...)
{
	if (!log_enabled(level))
		return;
	struct line line;
	line_start(&line, module, file, lineno);
	va_list args;
	va_start(args, fmt);
	line_vappend(&line, fmt, args);
	va_end(args);
	if (errno_value)
		line_append(&line, ": %s", strerror(errno_value));
	line_write(&line);
}

/* A library's line still waiting for its newline, one per thread. */
static _Thread_local struct {
	struct line line;
	bool started;
} pending;

void log_vpiece(enum log_level level, const char *module, const char *line_prefix,
		const char *fmt, va_list args)
{
	if (!pending.started) {
		if (!log_enabled(level))
			return;
		line_start(&pending.line, module, NULL, 0);
		if (line_prefix)
			line_append(&pending.line, "%s", line_prefix);
		pending.started = true;
	}
	size_t from = pending.line.len;
	line_vappend(&pending.line, fmt, args);

	/* A piece may end one line and begin the next: write each whole line,
	 * keep the rest. */
	char *newline;
	while ((newline = memchr(pending.line.text + from, '\n', pending.line.len - from))) {
		size_t rest_len = pending.line.len - (size_t)(newline + 1 - pending.line.text);
		char rest[LOG_LINE_MAX];
		memcpy(rest, newline + 1, rest_len);
		pending.line.len = (size_t)(newline - pending.line.text);
		line_write(&pending.line);
		pending.started = false;
		if (rest_len == 0)
			return;
		line_start(&pending.line, module, NULL, 0);
		if (line_prefix)
			line_append(&pending.line, "%s", line_prefix);
		pending.started = true;
		from = pending.line.len;
		line_append(&pending.line, "%.*s", (int)rest_len, rest);
	}
	/* A line that fills the buffer is written as it is. */
	if (pending.line.len >= sizeof(pending.line.text) - 1) {
		line_write(&pending.line);
		pending.started = false;
	}
}
