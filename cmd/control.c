#define LOG_MODULE ""
#include "control.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
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

bool control_write_pid_file(const char *path)
{
	char tmp[4200];
	snprintf(tmp, sizeof(tmp), "%s.%d", path, (int)getpid());
	FILE *f = fopen(tmp, "w");
	if (!f) {
		LOG_ERRNO("cannot write the pid file %s", tmp);
		return false;
	}
	bool ok = fprintf(f, "%d\n", (int)getpid()) > 0;
	ok = fclose(f) == 0 && ok;
	if (!ok || rename(tmp, path) < 0) {
		LOG_ERRNO("cannot write the pid file %s", path);
		unlink(tmp);
		return false;
	}
	return true;
}

void control_remove_pid_file(const char *path)
{
	/* Only ours: a newer instance may have replaced it. */
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	int pid = 0;
	if (fscanf(f, "%d", &pid) == 1 && pid == (int)getpid())
		unlink(path);
	fclose(f);
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
