#ifndef WL_RECORD_CHILD_OUTPUT_H
#define WL_RECORD_CHILD_OUTPUT_H

#include <wayland-server-core.h>

/* The hosted command's stdout and stderr, when wl-record draws a status
 * line on its terminal: written as they were, they would land on the
 * status line's row, glued after it. The command writes instead into a
 * pseudo-terminal of ours (still a terminal to it: colours and line
 * buffering as before, the size of ours), and each line it writes is
 * printed on stderr around the status line as wl-record's own are
 * (log_output_line). */
struct child_output;

/* NULL (said at -v only) when the pseudo-terminal cannot be had: the
 * command then writes to the terminal itself, as it would without a status
 * line. */
struct child_output *child_output_create(struct wl_event_loop *loop);

/* The descriptor the command gets as stdout and stderr. */
int child_output_fd(const struct child_output *output);

/* The command started: our copy of its end is closed, so that its end of
 * the output is seen when it (and what it started) is gone. */
void child_output_started(struct child_output *output);

/* Prints what the command wrote and was not printed yet (a last line
 * without its newline too), then frees. NULL is ignored. */
void child_output_destroy(struct child_output *output);

#endif
