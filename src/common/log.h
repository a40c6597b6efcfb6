#ifndef WL_RECORD_LOG_H
#define WL_RECORD_LOG_H

/* One family of log macros. Each .c file defines LOG_MODULE before including
 * this header; messages go to stderr as "wl-record: text", one write per
 * line, so lines from different threads never mix. At LOG_LEVEL_DEBUG each
 * line also names its module and the file and line that logged it
 * ("wl-record: module: file.c:12: text"); a library's lines (no file) always
 * name their origin ("wl-record: ffmpeg: ..."). */

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

/* How important a message is; also the threshold log_set_level() takes:
 * messages less important than it are dropped. */
enum log_level {
	LOG_LEVEL_ERROR = 0, /* something failed */
	LOG_LEVEL_WARN,
	LOG_LEVEL_INFO,      /* the default threshold: warnings and info */
	LOG_LEVEL_DEBUG,     /* -v: everything, with file:line */
};

/* The -q threshold: errors only. */
#define LOG_LEVEL_QUIET LOG_LEVEL_ERROR

void log_set_level(enum log_level level);
enum log_level log_get_level(void);
/* True when a message at `level` would be printed. */
bool log_enabled(enum log_level level);

/* `file` and `line` may be NULL and 0 (messages from libraries). */
void log_msg(enum log_level level, const char *module, const char *file, int line,
	     int errno_value, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* For libraries' log callbacks (libwayland, FFmpeg), which may hand over a
 * line in several pieces and from their own threads: text is kept per
 * thread until a newline ends the line, which is then logged at the level
 * of its first piece. `line_prefix` (may be NULL) is put before the text
 * when the piece starts a line (FFmpeg's "libx264: "). */
void log_vpiece(enum log_level level, const char *module, const char *line_prefix,
		const char *fmt, va_list args) __attribute__((format(printf, 4, 0)));

/* A status line redrawn in place on stderr: `text` without a newline,
 * replacing the previous one; drawn only when stderr is a terminal on which
 * wl-record is in the foreground (never as a background job), so that
 * without a terminal no control sequence is written. Every line written
 * while it is shown (messages, libraries' lines, log_output_line()) first
 * erases it and then draws it again below itself, so no line starts after
 * it (or after an echoed ^C). */
void log_status_line(const char *text);
/* Erases the status line and draws it no more (the recording is over). */
void log_status_clear(void);

/* Prints `text` and a newline on `stream` (stdout: the file's path for
 * scripts), around the status line as messages are. False when the stream
 * failed. */
bool log_output_line(FILE *stream, const char *text);

#ifndef LOG_MODULE
#error "define LOG_MODULE before including log.h"
#endif

#define LOG_ERR(...) log_msg(LOG_LEVEL_ERROR, LOG_MODULE, __FILE__, __LINE__, 0, __VA_ARGS__)
#define LOG_ERRNO(...) \
	log_msg(LOG_LEVEL_ERROR, LOG_MODULE, __FILE__, __LINE__, errno, __VA_ARGS__)
#define LOG_ERRNO_P(err, ...) \
	log_msg(LOG_LEVEL_ERROR, LOG_MODULE, __FILE__, __LINE__, (err), __VA_ARGS__)
#define LOG_WARN(...) log_msg(LOG_LEVEL_WARN, LOG_MODULE, __FILE__, __LINE__, 0, __VA_ARGS__)
#define LOG_INFO(...) log_msg(LOG_LEVEL_INFO, LOG_MODULE, __FILE__, __LINE__, 0, __VA_ARGS__)
#define LOG_DBG(...) log_msg(LOG_LEVEL_DEBUG, LOG_MODULE, __FILE__, __LINE__, 0, __VA_ARGS__)

#endif
