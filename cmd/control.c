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

/* The start time of a live (not zombie) process called wl-record, or 0. */
static unsigned long long wl_record_start_time(pid_t pid)
{
	char path[64], line[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	bool ok = fgets(line, sizeof(line), f) != NULL;
	fclose(f);
	if (!ok)
		return 0;
	/* "PID (COMM) STATE PPID ...": COMM may itself hold parentheses. */
	static const char name[] = "wl-record";
	const char *comm = strchr(line, '(');
	const char *comm_end = strrchr(line, ')');
	if (!comm || !comm_end || comm_end < comm || comm_end[1] != ' ')
		return 0;
	if ((size_t)(comm_end - comm - 1) != strlen(name) ||
	    strncmp(comm + 1, name, strlen(name)) != 0)
		return 0;
	char state = comm_end[2];
	if (state == 'Z' || state == 'X')
		return 0;
	/* STATE is field 3; the start time is field 22. */
	const char *field = comm_end + 2;
	for (int i = 3; i < 22 && field; i++) {
		field = strchr(field, ' ');
		if (field)
			field++;
	}
	return field ? strtoull(field, NULL, 10) : 0;
}

/* "relative" as an absolute path, from the current folder. */
static void absolute_path(const char *path, char *out, size_t size)
{
	if (strcmp(path, "-") == 0 || path[0] == '/' || !getcwd(out, size))
		snprintf(out, size, "%s", path);
	else
		snprintf(out + strlen(out), size - strlen(out), "/%s", path);
}

/* Reads the pid file; false when it is missing or malformed. */
static bool read_entry(const char *pid_file, struct control_entry *entry)
{
	*entry = (struct control_entry){ 0 };
	FILE *f = fopen(pid_file, "r");
	if (!f)
		return false;
	int pid = 0;
	bool ok = fscanf(f, "%d %llu", &pid, &entry->start) == 2 && pid > 1 && fgetc(f) == '\n' &&
		  fgets(entry->path, sizeof(entry->path), f) != NULL;
	if (ok && fgets(entry->still, sizeof(entry->still), f) == NULL)
		entry->still[0] = '\0';
	fclose(f);
	if (!ok)
		return false;
	entry->path[strcspn(entry->path, "\n")] = '\0';
	entry->still[strcspn(entry->still, "\n")] = '\0';
	entry->pid = pid;
	return true;
}

static bool entry_is_live(const struct control_entry *entry)
{
	return entry->pid > 1 && wl_record_start_time(entry->pid) == entry->start;
}

bool control_running(const char *pid_file, struct control_entry *entry)
{
	return pid_file && read_entry(pid_file, entry) && entry->pid != getpid() &&
	       entry_is_live(entry);
}

/* Written under a temporary name, then renamed (or, unless `replace`,
 * linked: a newer instance's file is never replaced). The temporary name
 * is predictable (our pid), so it is created afresh, not opened through a
 * link someone planted there. */
static bool write_entry(const char *pid_file, const struct control_entry *entry, bool replace)
{
	char tmp[PATH_MAX + 16];
	snprintf(tmp, sizeof(tmp), "%s.%d", pid_file, (int)getpid());
	unlink(tmp); /* ours, left by a crash */
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		LOG_ERRNO("cannot write the pid file %s", tmp);
		if (fd >= 0)
			close(fd);
		return false;
	}
	bool ok = fprintf(f, "%d %llu\n%s\n", (int)entry->pid, entry->start, entry->path) > 0;
	if (ok && entry->still[0])
		ok = fprintf(f, "%s\n", entry->still) > 0;
	ok = fclose(f) == 0 && ok;
	if (ok && !replace) {
		/* A filesystem without hard links: renamed, as before. */
		if (link(tmp, pid_file) == 0 || errno == EEXIST) {
			unlink(tmp);
			return true;
		}
	}
	if (!ok || rename(tmp, pid_file) < 0) {
		LOG_ERRNO("cannot write the pid file %s", pid_file);
		unlink(tmp);
		return false;
	}
	return true;
}

bool control_write_pid_file(const char *pid_file, const char *output_path,
			    struct control_entry *previous)
{
	if (!control_running(pid_file, previous))
		*previous = (struct control_entry){ 0 };
	if (previous->pid)
		LOG_WARN("another recording runs (pid %d); --stop now reaches this one first",
			 (int)previous->pid);
	struct control_entry self = { .pid = getpid(), .start = wl_record_start_time(getpid()) };
	/* The path scripts take from --stop: absolute, whatever our cwd was. */
	absolute_path(output_path, self.path, sizeof(self.path));
	return write_entry(pid_file, &self, true);
}

void control_note_still(const char *pid_file, const char *still_path)
{
	struct control_entry self;
	if (!pid_file || !read_entry(pid_file, &self) || self.pid != getpid())
		return; /* not ours (anymore): no --snap can be waiting on us */
	absolute_path(still_path, self.still, sizeof(self.still));
	write_entry(pid_file, &self, true);
}

void control_remove_pid_file(const char *pid_file, const struct control_entry *previous)
{
	/* Only ours: a newer instance may have replaced it, even between a
	 * read and an unlink. So it is moved aside first, then read: what is
	 * removed is what was read. */
	char aside[PATH_MAX + 32];
	snprintf(aside, sizeof(aside), "%s.%d.gone", pid_file, (int)getpid());
	unlink(aside); /* ours, left by a crash */
	if (rename(pid_file, aside) < 0)
		return;
	struct control_entry current;
	bool ours = read_entry(aside, &current) && current.pid == getpid();
	/* Not ours: back, unless a newer one has taken the name meanwhile
	 * (renamed back where there are no hard links). */
	if (!ours && link(aside, pid_file) < 0 && errno != EEXIST) {
		if (rename(aside, pid_file) < 0)
			LOG_DBG("cannot put %s back: %s", pid_file, strerror(errno));
		return;
	}
	unlink(aside);
	/* An older recording still running gets its entry back, so that a
	 * second --stop reaches it. */
	if (ours && previous->pid && entry_is_live(previous))
		write_entry(pid_file, previous, false);
}

bool control_wait_gone(const struct control_entry *entry, double timeout_s)
{
	struct timespec step = { .tv_nsec = 20 * 1000 * 1000 };
	for (double waited = 0; waited < timeout_s; waited += 0.02) {
		if (!entry_is_live(entry))
			return true;
		nanosleep(&step, NULL);
	}
	return !entry_is_live(entry);
}

/* The live recording the pid file names, or false after saying why not
 * (and removing a stale file). */
static bool find_running(const char *pid_file, struct control_entry *entry)
{
	if (!pid_file) {
		LOG_ERR("XDG_RUNTIME_DIR is not set; give --pid-file");
		return false;
	}
	if (control_running(pid_file, entry))
		return true;
	if (access(pid_file, F_OK) != 0) {
		LOG_ERR("no recording is running (no %s)", pid_file);
	} else {
		LOG_ERR("no recording is running; removing stale pid file %s", pid_file);
		if (unlink(pid_file) < 0)
			LOG_ERRNO("cannot remove %s", pid_file);
	}
	return false;
}

static int print_path(const char *path)
{
	return log_output_line(stdout, path) ? EXIT_OK : EXIT_FAILED;
}

int control_snap(const char *pid_file)
{
	struct control_entry entry;
	if (!find_running(pid_file, &entry))
		return EXIT_FAILED;
	char before[PATH_MAX];
	snprintf(before, sizeof(before), "%s", entry.still);
	if (kill(entry.pid, SIGUSR1) < 0) {
		LOG_ERRNO("cannot signal the recording (pid %d)", (int)entry.pid);
		return EXIT_FAILED;
	}
	/* The recording names the still in its entry at once; the file appears
	 * when it is complete (written under a temporary name, renamed). */
	struct timespec step = { .tv_nsec = 20 * 1000 * 1000 };
	for (double waited = 0; waited < CONTROL_SNAP_WAIT_S; waited += 0.02) {
		struct control_entry now;
		if (!read_entry(pid_file, &now) || now.pid != entry.pid || !entry_is_live(&entry)) {
			LOG_ERR("the recording (pid %d) ended before writing the still",
				(int)entry.pid);
			return EXIT_FAILED;
		}
		if (now.still[0] && strcmp(now.still, before) != 0 && access(now.still, F_OK) == 0)
			return print_path(now.still);
		nanosleep(&step, NULL);
	}
	LOG_ERR("no still after %d s: has anything been presented to the recording yet?",
		CONTROL_SNAP_WAIT_S);
	return EXIT_FAILED;
}

int control_stop_entry(const struct control_entry *entry)
{
	if (kill(entry->pid, SIGINT) < 0) {
		LOG_ERRNO("cannot signal the recording (pid %d)", (int)entry->pid);
		return EXIT_FAILED;
	}
	if (!control_wait_gone(entry, CONTROL_STOP_WAIT_S)) {
		LOG_ERR("the recording (pid %d) is still finishing its file after %d s",
			(int)entry->pid, CONTROL_STOP_WAIT_S);
		return EXIT_FAILED;
	}
	if (strcmp(entry->path, "-") != 0 && access(entry->path, F_OK) == 0)
		return print_path(entry->path);
	return EXIT_OK;
}

int control_stop(const char *pid_file)
{
	struct control_entry entry;
	if (!find_running(pid_file, &entry))
		return EXIT_FAILED;
	return control_stop_entry(&entry);
}
