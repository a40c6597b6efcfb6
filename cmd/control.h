#ifndef WL_RECORD_CONTROL_H
#define WL_RECORD_CONTROL_H

#include <stdbool.h>
#include <sys/types.h>

/* The pid file lets `wl-record --snap`, `--stop` and `--toggle` reach a
 * running recording. Default: $XDG_RUNTIME_DIR/wl-record.pid. */
const char *control_default_pid_file(char *buf, unsigned size);

/* The pid of the live wl-record named in the pid file (not this process),
 * or 0. */
pid_t control_running_pid(const char *path);

/* Writes this process's pid; `*previous` gets the live recording it
 * replaces (0 when none), for control_remove_pid_file(). */
bool control_write_pid_file(const char *path, pid_t *previous);
void control_remove_pid_file(const char *path, pid_t previous);

/* Waits until `pid` is no longer a live wl-record; false on timeout. */
bool control_wait_gone(pid_t pid, double timeout_s);

/* Sends `sig` to the process named in the pid file; returns an exit status. */
int control_signal_running(const char *path, int sig, const char *what);

#endif
