/* src/log.c as the command line relies on it: the levels each threshold
 * shows (-q errors only, default up to info, -v debug with file:line), and
 * libraries' lines that come in pieces from several threads (FFmpeg's) each
 * written whole, once their newline arrives. stderr is redirected into a
 * temporary file and read back. */
#define LOG_MODULE "test"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "test-runner.h"

static FILE *captured;
static int saved_stderr;

static void capture_start(void)
{
	captured = tmpfile();
	test_assert(captured);
	fflush(stderr);
	saved_stderr = dup(STDERR_FILENO);
	test_assert(dup2(fileno(captured), STDERR_FILENO) >= 0);
}

/* Returns what was written to stderr since capture_start (malloc'd). */
static char *capture_end(void)
{
	fflush(stderr);
	test_assert(dup2(saved_stderr, STDERR_FILENO) >= 0);
	close(saved_stderr);
	long size = ftell(captured);
	test_assert(size >= 0);
	char *text = calloc(1, (size_t)size + 1);
	rewind(captured);
	test_assert(fread(text, 1, (size_t)size, captured) == (size_t)size);
	fclose(captured);
	return text;
}

/* Compares and frees `got`. */
static void expect_text(const char *what, char *got, const char *want)
{
	test_assert(strcmp(got, want) == 0, "%s:\n--- got\n%s--- want\n%s", what, got, want);
	free(got);
}

static void piece(enum log_level level, const char *prefix, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void piece(enum log_level level, const char *prefix, const char *fmt, ...)
{
	va_list args;
	va_start(args, fmt);
	log_vpiece(level, "lib", prefix, fmt, args);
	va_end(args);
}

/* A user reads messages, not module names: "wl-record: record: wrote"
 * was what a sway user saw. Modules and file:line are for -v; a library's
 * lines keep their origin (pieces, "lib:" here). */
TEST(thresholds)
{
	log_set_level(LOG_LEVEL_QUIET);
	capture_start();
	LOG_ERR("an error %d", 1);
	LOG_WARN("a warning");
	LOG_INFO("some info");
	LOG_DBG("debug");
	errno = ENOENT;
	LOG_ERRNO("opening %s", "x");
	expect_text("-q", capture_end(),
		    "wl-record: an error 1\n"
		    "wl-record: opening x: No such file or directory\n");

	log_set_level(LOG_LEVEL_INFO);
	capture_start();
	LOG_ERR("an error");
	LOG_WARN("a warning");
	LOG_INFO("some info");
	LOG_DBG("debug");
	expect_text("default", capture_end(),
		    "wl-record: an error\n"
		    "wl-record: a warning\n"
		    "wl-record: some info\n");
}

TEST(file_line)
{
	log_set_level(LOG_LEVEL_DEBUG);
	capture_start();
	int line = __LINE__ + 1;
	LOG_DBG("where");
	char want[256];
	snprintf(want, sizeof(want), "wl-record: test: tests/cli/test-log.c:%d: where\n", line);
	expect_text("-v file:line", capture_end(), want);
}

TEST(pieces)
{
	log_set_level(LOG_LEVEL_INFO);
	capture_start();
	piece(LOG_LEVEL_WARN, "x264: ", "one %s", "line");
	piece(LOG_LEVEL_WARN, "x264: ", " in three");
	piece(LOG_LEVEL_WARN, "x264: ", " pieces\n");
	piece(LOG_LEVEL_WARN, NULL, "two\nlines\n");
	piece(LOG_LEVEL_DEBUG, NULL, "hidden by the threshold\n");
	piece(LOG_LEVEL_ERROR, NULL, "a line, then the start of the next\nwhich ends");
	piece(LOG_LEVEL_ERROR, NULL, " here\n");
	expect_text("pieces", capture_end(),
		    "wl-record: lib: x264: one line in three pieces\n"
		    "wl-record: lib: two\n"
		    "wl-record: lib: lines\n"
		    "wl-record: lib: a line, then the start of the next\n"
		    "wl-record: lib: which ends here\n");
}

#define THREADS 4
#define LINES 1000

static void *log_from_thread(void *data)
{
	int id = (int)(intptr_t)data;
	for (int i = 0; i < LINES; i++) {
		/* Yielding between pieces lets the other threads in mid-line. */
		piece(LOG_LEVEL_WARN, NULL, "thread %d ", id);
		sched_yield();
		piece(LOG_LEVEL_WARN, NULL, "line %d", i);
		sched_yield();
		piece(LOG_LEVEL_WARN, NULL, " end\n");
		LOG_WARN("thread %d whole %d", id, i);
	}
	return NULL;
}

/* Pieces from one thread never join another thread's line, and no line is
 * cut by another. */
TEST(threads)
{
	log_set_level(LOG_LEVEL_INFO);
	capture_start();
	pthread_t threads[THREADS];
	for (int t = 0; t < THREADS; t++)
		test_assert(pthread_create(&threads[t], NULL, log_from_thread, (void *)(intptr_t)t) == 0);
	for (int t = 0; t < THREADS; t++)
		pthread_join(threads[t], NULL);
	char *text = capture_end();
	int pieced[THREADS] = { 0 }, whole[THREADS] = { 0 }, lines = 0;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"), lines++) {
		int id, i, n = 0;
		if (sscanf(line, "wl-record: lib: thread %d line %d end%n", &id, &i, &n) == 2 &&
		    line[n] == '\0' && id >= 0 && id < THREADS && i == pieced[id]) {
			pieced[id]++;
		} else if (sscanf(line, "wl-record: thread %d whole %d%n", &id, &i, &n) == 2 &&
			   line[n] == '\0' && id >= 0 && id < THREADS && i == whole[id]) {
			whole[id]++;
		} else {
			test_assert(false, "unexpected line '%s'", line);
		}
	}
	for (int t = 0; t < THREADS; t++)
		test_assert(pieced[t] == LINES && whole[t] == LINES,
			    "thread %d wrote %d + %d lines, not %d + %d", t, pieced[t], whole[t],
			    LINES, LINES);
	test_assert(lines == 2 * THREADS * LINES);
	free(text);
}

TEST(control_characters_are_not_written)
{
	/* A node name or title with an escape sequence, a carriage return and
	 * a newline: one line, nothing a terminal would act on. */
	log_set_level(LOG_LEVEL_INFO);
	capture_start();
	LOG_INFO("node '%s' found", "evil\033[2J\033]0;title\007\rnext\nline\x7f");
	LOG_INFO("tab\tkept");
	expect_text("control characters", capture_end(),
		    "wl-record: node 'evil?[2J?]0;title??next?line?' found\n"
		    "wl-record: tab\tkept\n");
}

/* stderr on a pseudo-terminal (as a user's), read by a thread of its own:
 * the logger draws a status line only on a terminal. */
struct pty_capture {
	int master, saved_stderr;
	pthread_t reader;
	char *data;
	size_t len, capacity;
};

static void *read_pty(void *arg)
{
	struct pty_capture *pty = arg;
	for (;;) {
		if (pty->len + 4096 > pty->capacity) {
			pty->capacity = pty->capacity ? 2 * pty->capacity : 1 << 20;
			pty->data = realloc(pty->data, pty->capacity);
			test_assert(pty->data);
		}
		ssize_t n = read(pty->master, pty->data + pty->len, 4096);
		if (n <= 0) /* EIO: the terminal's other side closed */
			return NULL;
		pty->len += (size_t)n;
	}
}

static void pty_start(struct pty_capture *pty)
{
	*pty = (struct pty_capture){ .master = posix_openpt(O_RDWR | O_NOCTTY) };
	if (pty->master < 0)
		test_skip("no pseudo-terminal: %s", strerror(errno));
	test_assert(grantpt(pty->master) == 0 && unlockpt(pty->master) == 0);
	int terminal = open(ptsname(pty->master), O_RDWR | O_NOCTTY);
	test_assert(terminal >= 0, "%s: %s", ptsname(pty->master), strerror(errno));
	fflush(stderr);
	pty->saved_stderr = dup(STDERR_FILENO);
	test_assert(dup2(terminal, STDERR_FILENO) >= 0);
	close(terminal);
	test_assert(pthread_create(&pty->reader, NULL, read_pty, pty) == 0);
}

/* What the terminal received, as a string (malloc'd). */
static char *pty_end(struct pty_capture *pty)
{
	fflush(stderr);
	test_assert(dup2(pty->saved_stderr, STDERR_FILENO) >= 0);
	close(pty->saved_stderr);
	pthread_join(pty->reader, NULL);
	close(pty->master);
	char *text = realloc(pty->data, pty->len + 1);
	test_assert(text);
	text[pty->len] = '\0';
	return text;
}

#define STATUS_TEXT "wl-record: 00:00:01  60 frames  a status line"

static atomic_bool messages_done;

static void *draw_status(void *data)
{
	(void)data;
	while (!atomic_load(&messages_done)) {
		log_status_line(STATUS_TEXT);
		sched_yield();
	}
	return NULL;
}

/* Lines from several threads while another redraws the status line (the
 * compositor thread's timer, here as fast as it can): on the rows the
 * terminal shows, each line starts at column 0 with no status text before
 * it, and every line is there whole. Played through a minimal terminal:
 * CR, LF, ESC [ K and text. */
TEST(status_line_around_lines)
{
	log_set_level(LOG_LEVEL_INFO);
	struct pty_capture pty;
	pty_start(&pty);
	pthread_t status, threads[THREADS];
	test_assert(pthread_create(&status, NULL, draw_status, NULL) == 0);
	for (int t = 0; t < THREADS; t++)
		test_assert(pthread_create(&threads[t], NULL, log_from_thread, (void *)(intptr_t)t) == 0);
	for (int t = 0; t < THREADS; t++)
		pthread_join(threads[t], NULL);
	atomic_store(&messages_done, true);
	pthread_join(status, NULL);
	log_status_clear();
	char *text = pty_end(&pty);

	char row[4096];
	size_t row_len = 0, col = 0;
	int rows = 0, status_draws = 0;
	for (const char *c = text; *c; c++) {
		if (*c == '\r') {
			col = 0;
		} else if (*c == '\n') {
			row[row_len] = '\0';
			test_assert(strncmp(row, "wl-record: ", 11) == 0 && strstr(row, " thread ") &&
				    !strstr(row, "status"),
				    "row %d is not one whole line: '%s'", rows, row);
			rows++;
			row_len = 0;
		} else if (*c == '\033') {
			test_assert(strncmp(c, "\033[K", 3) == 0, "an escape other than ESC [ K");
			row_len = col < row_len ? col : row_len;
			c += 2;
		} else {
			test_assert(col < sizeof(row) - 1);
			while (row_len < col)
				row[row_len++] = ' ';
			row[col++] = *c;
			if (col > row_len)
				row_len = col;
			if (col == 1 && strncmp(c, STATUS_TEXT, strlen(STATUS_TEXT)) == 0)
				status_draws++;
		}
	}
	test_assert(rows == 2 * THREADS * LINES, "%d rows, expected %d", rows, 2 * THREADS * LINES);
	test_assert(row_len == 0, "the status line is left after log_status_clear()");
	test_assert(status_draws > THREADS * LINES, "the status line was drawn %d times", status_draws);
	free(text);
}
