#define LOG_MODULE ""
#include "log.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define LOG_LINE_MAX 1024

/* Read by the encoder thread and by libraries' threads too. */
static atomic_int current_level = LOG_LEVEL_INFO;

/* The terminal's status line (log_status_line), owned here: every line
 * written to the terminal goes through terminal_write(), which erases the
 * status line first and draws it again after, in one write, under stderr's
 * stdio lock, so that no line from any thread starts after it on its row.
 * Under that lock: */
static char status_text[LOG_LINE_MAX]; /* "" when there is none */
static bool status_shown; /* drawn, the cursor at its end */

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

/* A status line is drawn only on a terminal where wl-record is in the
 * foreground: as a background job (`wl-record out.mkv &`) it would be
 * drawn over the shell's prompt and what the user types after it. A
 * terminal that is not the controlling one of this process (no foreground
 * to ask about) is taken as ours. */
static bool terminal_in_foreground(void)
{
	if (!isatty(STDERR_FILENO))
		return false;
	pid_t foreground = tcgetpgrp(STDERR_FILENO);
	return foreground < 0 || foreground == getpgrp();
}

/* Under stderr's lock: forgets a status line drawn before wl-record went to
 * the background: its row is the shell's now, not to be erased. */
static bool status_still_ours(void)
{
	if (status_shown && !terminal_in_foreground())
		status_shown = false;
	return status_shown;
}

/* Writes `text` (`len` bytes) and a newline to `stream`. On the terminal
 * that shows the status line the line comes after it is erased, and it is
 * drawn again below it: a line never starts after a status line (or after
 * the ^C the terminal echoed on its row), and the status line is not
 * missing until its next update. A line to stderr is one write when it
 * fits, so that the output of other processes on the same stderr (a
 * COMMAND's) never splits it. False when the stream failed. */
static bool terminal_write(FILE *stream, const char *text, size_t len)
{
	/* Not the terminal (stdout to a pipe): nothing to erase, and a slow
	 * reader must not hold up the threads that log. */
	if (stream != stderr && !isatty(fileno(stream)))
		return fwrite(text, 1, len, stream) == len && putc('\n', stream) != EOF &&
		       fflush(stream) == 0;
	flockfile(stderr);
	bool redraw = status_still_ours();
	bool ok;
	char out[sizeof(CLEAR_LINE) + 2 * LOG_LINE_MAX + 8];
	int n = stream == stderr
		? snprintf(out, sizeof(out), "%s%.*s\n%s%s", redraw ? CLEAR_LINE : "", (int)len,
			   text, redraw ? status_text : "", redraw ? "\033[K" : "")
		: -1;
	if (n > 0 && (size_t)n < sizeof(out)) {
		ok = fwrite(out, 1, (size_t)n, stderr) == (size_t)n;
	} else {
		/* Another stream on the same terminal (stdout), or a long line:
		 * the same in three writes, under the same lock. */
		if (redraw)
			fputs(CLEAR_LINE, stderr);
		ok = fwrite(text, 1, len, stream) == len && putc('\n', stream) != EOF &&
		     fflush(stream) == 0;
		if (redraw)
			fprintf(stderr, "%s\033[K", status_text);
	}
	funlockfile(stderr);
	return ok;
}

void log_status_line(const char *text)
{
	flockfile(stderr);
	snprintf(status_text, sizeof(status_text), "%s", text);
	if (terminal_in_foreground()) {
		fprintf(stderr, "\r%s\033[K", status_text);
		status_shown = true;
	} else {
		status_shown = false;
	}
	funlockfile(stderr);
}

void log_status_clear(void)
{
	flockfile(stderr);
	if (status_still_ours())
		fputs(CLEAR_LINE, stderr);
	status_shown = false;
	status_text[0] = '\0';
	funlockfile(stderr);
}

bool log_output_line(FILE *stream, const char *text)
{
	return terminal_write(stream, text, strlen(text));
}

/* One write per line, through terminal_write(): lines from the encoder
 * thread, the compositor thread and libraries' threads never interleave. */
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
	terminal_write(stderr, line->text, line->len);
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
