#define LOG_MODULE ""
#include "control.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app.h"
#include "log.h"

const char *control_default_pid_file(char *buf, unsigned size)
{
	const char *dir = getenv("XDG_RUNTIME_DIR");
	if (!dir || !*dir)
		return NULL;
	snprintf(buf, size, "%s/wl-record.pid", dir);
	return buf;
}

static pid_t read_pid_file(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	int pid = 0;
	if (fscanf(f, "%d", &pid) != 1 || pid <= 1)
		pid = 0;
	fclose(f);
	return pid;
}

/* A pid file outlives a killed process and pids are reused: only a live
 * process called wl-record counts. */
static bool is_live_wl_record(pid_t pid)
{
	char path[64], line[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	bool ok = fgets(line, sizeof(line), f) != NULL;
	fclose(f);
	if (!ok)
		return false;
	/* "PID (COMM) STATE ...": COMM may itself hold parentheses. */
	static const char name[] = "wl-record";
	const char *comm = strchr(line, '(');
	const char *comm_end = strrchr(line, ')');
	if (!comm || !comm_end || comm_end < comm || comm_end[1] != ' ')
		return false;
	char state = comm_end[2];
	return (size_t)(comm_end - comm - 1) == strlen(name) &&
	       strncmp(comm + 1, name, strlen(name)) == 0 && state != 'Z' && state != 'X';
}

pid_t control_running_pid(const char *path)
{
	if (!path)
		return 0;
	pid_t pid = read_pid_file(path);
	return pid > 1 && pid != getpid() && is_live_wl_record(pid) ? pid : 0;
}

static bool write_pid(const char *path, pid_t pid)
{
	char tmp[4200];
	snprintf(tmp, sizeof(tmp), "%s.%d", path, (int)getpid());
	FILE *f = fopen(tmp, "w");
	if (!f) {
		LOG_ERRNO("cannot write the pid file %s", tmp);
		return false;
	}
	bool ok = fprintf(f, "%d\n", (int)pid) > 0;
	ok = fclose(f) == 0 && ok;
	if (!ok || rename(tmp, path) < 0) {
		LOG_ERRNO("cannot write the pid file %s", path);
		unlink(tmp);
		return false;
	}
	return true;
}

bool control_write_pid_file(const char *path, pid_t *previous)
{
	*previous = control_running_pid(path);
	if (*previous)
		LOG_WARN("another recording runs (pid %d); --stop now reaches this one first",
			 (int)*previous);
	return write_pid(path, getpid());
}

void control_remove_pid_file(const char *path, pid_t previous)
{
	/* Only ours: a newer instance may have replaced it. */
	if (read_pid_file(path) != getpid())
		return;
	/* An older recording still running gets its entry back, so that a
	 * second --stop reaches it. */
	if (previous && is_live_wl_record(previous) && write_pid(path, previous))
		return;
	unlink(path);
}

bool control_wait_gone(pid_t pid, double timeout_s)
{
	struct timespec step = { .tv_nsec = 20 * 1000 * 1000 };
	for (double waited = 0; waited < timeout_s; waited += 0.02) {
		if (!is_live_wl_record(pid))
			return true;
		nanosleep(&step, NULL);
	}
	return !is_live_wl_record(pid);
}

int control_signal_running(const char *path, int sig, const char *what)
{
	if (!path) {
		LOG_ERR("XDG_RUNTIME_DIR is not set; give --pid-file");
		return EXIT_FAILED;
	}
	FILE *f = fopen(path, "r");
	if (!f) {
		LOG_ERRNO("no running recording found (%s)", path);
		return EXIT_FAILED;
	}
	int pid = 0;
	int n = fscanf(f, "%d", &pid);
	fclose(f);
	if (n != 1 || pid <= 1) {
		LOG_ERR("%s does not hold a process id", path);
		return EXIT_FAILED;
	}
	if (kill(pid, sig) < 0) {
		LOG_ERRNO("cannot %s the recording (pid %d)", what, pid);
		return EXIT_FAILED;
	}
	return EXIT_OK;
}
