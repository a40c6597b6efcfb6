#define LOG_MODULE ""
#include "child_output.h"

#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "log.h"

/* A line longer than this is printed in pieces of this length. */
#define CHILD_LINE_MAX 4096

struct child_output {
	int master, slave;
	struct wl_event_source *source;
	char line[CHILD_LINE_MAX];
	size_t used;
};

static void print_line(struct child_output *output)
{
	/* A carriage return before the newline (a program that writes CRLF)
	 * would put the cursor back over the line just printed. */
	while (output->used > 0 && output->line[output->used - 1] == '\r')
		output->used--;
	output->line[output->used] = '\0';
	log_output_line(stderr, output->line);
	output->used = 0;
}

static void take(struct child_output *output, const char *data, size_t size)
{
	for (size_t i = 0; i < size; i++) {
		if (data[i] == '\n') {
			print_line(output);
			continue;
		}
		output->line[output->used++] = data[i];
		if (output->used == CHILD_LINE_MAX - 1)
			print_line(output);
	}
}

/* Reads what is there; false once the command's side is closed. */
static bool drain(struct child_output *output)
{
	char buffer[4096];
	for (;;) {
		ssize_t got = read(output->master, buffer, sizeof(buffer));
		if (got > 0) {
			take(output, buffer, (size_t)got);
			continue;
		}
		if (got < 0 && errno == EINTR)
			continue;
		/* EIO: every holder of the other end closed it (Linux). */
		return got < 0 && errno == EAGAIN;
	}
}

static int handle_readable(int fd, uint32_t mask, void *data)
{
	(void)fd;
	struct child_output *output = data;
	bool open = drain(output);
	if (!open || (mask & (WL_EVENT_HANGUP | WL_EVENT_ERROR))) {
		wl_event_source_remove(output->source);
		output->source = NULL;
	}
	return 0;
}

struct child_output *child_output_create(struct wl_event_loop *loop)
{
	struct child_output *output = calloc(1, sizeof(*output));
	if (!output)
		return NULL;
	output->master = output->slave = -1;
	struct winsize size;
	bool sized = ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0;
	if (openpty(&output->master, &output->slave, NULL, NULL, sized ? &size : NULL) < 0)
		goto fail;
	/* Lines as written: no CR added before each newline. */
	struct termios mode;
	if (tcgetattr(output->slave, &mode) == 0) {
		mode.c_oflag &= ~(tcflag_t)OPOST;
		tcsetattr(output->slave, TCSANOW, &mode);
	}
	int flags = fcntl(output->master, F_GETFL);
	if (flags < 0 || fcntl(output->master, F_SETFL, flags | O_NONBLOCK) < 0 ||
	    fcntl(output->master, F_SETFD, FD_CLOEXEC) < 0 ||
	    fcntl(output->slave, F_SETFD, FD_CLOEXEC) < 0)
		goto fail;
	output->source = wl_event_loop_add_fd(loop, output->master, WL_EVENT_READABLE,
					      handle_readable, output);
	if (!output->source)
		goto fail;
	return output;
fail:
	LOG_DBG("no pseudo-terminal for the command's output (%s): it writes to ours",
		strerror(errno));
	if (output->master >= 0)
		close(output->master);
	if (output->slave >= 0)
		close(output->slave);
	free(output);
	return NULL;
}

int child_output_fd(const struct child_output *output)
{
	return output->slave;
}

void child_output_started(struct child_output *output)
{
	if (output && output->slave >= 0) {
		close(output->slave);
		output->slave = -1;
	}
}

void child_output_destroy(struct child_output *output)
{
	if (!output)
		return;
	if (output->source)
		wl_event_source_remove(output->source);
	drain(output);
	if (output->used > 0)
		print_line(output);
	close(output->master);
	if (output->slave >= 0)
		close(output->slave);
	free(output);
}
