#ifndef WLR_CONTROL_H
#define WLR_CONTROL_H

#include <stdbool.h>

/* The pid file lets `wl-record --snap` and `--stop` reach a running
 * recording. Default: $XDG_RUNTIME_DIR/wl-record.pid. */
const char *control_default_pid_file(char *buf, unsigned size);

bool control_write_pid_file(const char *path);
void control_remove_pid_file(const char *path);

/* Sends `sig` to the process named in the pid file; returns an exit status. */
int control_signal_running(const char *path, int sig, const char *what);

#endif
