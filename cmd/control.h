#ifndef WL_RECORD_CONTROL_H
#define WL_RECORD_CONTROL_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

/* The pid file lets `wl-record --snap`, `--stop` and `--toggle` reach a
 * running recording. Default: $XDG_RUNTIME_DIR/wl-record.pid.
 *
 * It holds "PID START\nFILE\n", then "STILL\n" once a still was asked
 * for: the process id, the process's start time (field 22 of
 * /proc/PID/stat, clock ticks since boot), the file being recorded and the
 * newest still's file. A pid is reused once its process is gone, a start
 * time with it is not: a stale file can never name an unrelated process. */
struct control_entry {
	pid_t pid;
	unsigned long long start;
	char path[PATH_MAX];
	char still[PATH_MAX]; /* "" until a still is asked for */
};

/* How long --snap waits for the still to be written. */
#define CONTROL_SNAP_WAIT_S 10

/* How long --stop and --toggle wait for a recording to finish its file. */
#define CONTROL_STOP_WAIT_S 30

const char *control_default_pid_file(char *buf, unsigned size);

/* The live recording the pid file names (not this process): true and
 * `*entry` filled in, or false. */
bool control_running(const char *pid_file, struct control_entry *entry);

/* Writes this process's entry for `output_path`; `*previous` gets the live
 * recording it replaces (pid 0 when none), for control_remove_pid_file(). */
bool control_write_pid_file(const char *pid_file, const char *output_path,
			    struct control_entry *previous);
void control_remove_pid_file(const char *pid_file, const struct control_entry *previous);

/* Notes in this process's entry that a still is being written to
 * `still_path` (complete once it exists: the writer renames it into place),
 * for the --snap that asked for it. */
void control_note_still(const char *pid_file, const char *still_path);

/* --snap: asks the recording for a still, waits until that still's file is
 * complete and prints its path on stdout. Returns an exit status. */
int control_snap(const char *pid_file);

/* Waits until the recording of `entry` has ended; false on timeout. */
bool control_wait_gone(const struct control_entry *entry, double timeout_s);

/* --stop: sends SIGINT to the recording the pid file names, if it is one (a
 * stale file is removed and said so), waits until the recording has
 * finished its file and prints the file's path on stdout. Returns an exit
 * status. */
int control_stop(const char *pid_file);

/* The same for a recording already found (--toggle): SIGINT, the wait, the
 * path on stdout. Returns an exit status. */
int control_stop_entry(const struct control_entry *entry);

#endif
