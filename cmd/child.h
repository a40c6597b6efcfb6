#ifndef WL_RECORD_CHILD_H
#define WL_RECORD_CHILD_H

#include <stdbool.h>
#include <sys/types.h>

/* Starts argv[0] (searched in PATH) with WAYLAND_DISPLAY=socket_name and the
 * default signal dispositions and mask; its stdout and stderr go to
 * `output_fd` when it is not -1 (child_output.h), else its stdout goes to
 * stderr when `stdout_is_ours` (the video is written there). `audio_sink` (NULL: none)
 * is the output its sound should go to (PULSE_SINK, PIPEWIRE_NODE).
 * It runs in a process group of its own (Ctrl+C is for wl-record), with
 * SIGTTIN and SIGTTOU ignored (a background group must not stop on the tty).
 * Returns its pid, or -1 with errno set. */
pid_t child_spawn(char **argv, const char *socket_name, int output_fd, bool stdout_is_ours,
		  const char *audio_sink);

/* Exit status the way a shell reports it: the code, or 128 + signal. */
int child_exit_status(int wait_status);

/* Asks the child to end (SIGTERM), waits up to `timeout_ms`, then SIGKILL.
 * Returns the wait status, or -1 when it could not be reaped. */
int child_terminate(pid_t pid, int timeout_ms);

#endif
