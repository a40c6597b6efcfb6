#ifndef WLR_CHILD_H
#define WLR_CHILD_H

#include <stdbool.h>
#include <sys/types.h>

/* Starts argv[0] (searched in PATH) with WAYLAND_DISPLAY=socket_name and the
 * default signal dispositions and mask. Returns its pid, or -1. */
pid_t child_spawn(char **argv, const char *socket_name);

/* Exit status the way a shell reports it: the code, or 128 + signal. */
int child_exit_status(int wait_status);

/* Asks the child to end (SIGTERM), waits up to `timeout_ms`, then SIGKILL.
 * Returns the wait status, or -1 when it could not be reaped. */
int child_terminate(pid_t pid, int timeout_ms);

#endif
