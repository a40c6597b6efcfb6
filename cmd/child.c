#define LOG_MODULE ""
#include "child.h"

#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

extern char **environ;

pid_t child_spawn(char **argv, const char *socket_name, int output_fd, bool stdout_is_ours,
		  const char *audio_sink)
{
	/* The child must not take over wl-record's own connection variables. */
	if (setenv("WAYLAND_DISPLAY", socket_name, 1) < 0) {
		LOG_ERRNO("cannot set WAYLAND_DISPLAY");
		return -1;
	}
	unsetenv("WAYLAND_SOCKET");
	unsetenv("WAYLAND_SERVER_SOCKET");
	/* --app-audio: libpulse apps (and pipewire-pulse's) take the default
	 * output from PULSE_SINK, native PipeWire streams and its ALSA plugin
	 * from PIPEWIRE_NODE (a node name works: it becomes target.object). */
	if (audio_sink && (setenv("PULSE_SINK", audio_sink, 1) < 0 ||
			   setenv("PIPEWIRE_NODE", audio_sink, 1) < 0)) {
		LOG_ERRNO("cannot set PULSE_SINK");
		return -1;
	}

	posix_spawnattr_t attr;
	if (posix_spawnattr_init(&attr) != 0) {
		LOG_ERR("cannot prepare to start %s", argv[0]);
		return -1;
	}
	/* Our signals are blocked (they arrive through the event loop) and
	 * SIGPIPE and SIGXFSZ are ignored; the command gets the ordinary defaults. */
	sigset_t empty, defaults;
	sigemptyset(&empty);
	sigemptyset(&defaults);
	int reset[] = { SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGCHLD, SIGPIPE, SIGXFSZ };
	for (size_t i = 0; i < sizeof(reset) / sizeof(reset[0]); i++)
		sigaddset(&defaults, reset[i]);
	posix_spawnattr_setsigmask(&attr, &empty);
	posix_spawnattr_setsigdefault(&attr, &defaults);
	/* A process group of its own: Ctrl+C (SIGINT to the terminal's
	 * foreground group) reaches wl-record only, which finishes the file
	 * and then asks the command to close; SIGTERM and SIGHUP end it the
	 * same way. In a background group, reading or configuring the
	 * terminal would stop it for good (SIGTTIN, SIGTTOU): with those
	 * ignored it gets EIO on a read and may write as before. */
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
					POSIX_SPAWN_SETPGROUP);
	struct sigaction ignore = { .sa_handler = SIG_IGN }, old_ttin, old_ttou;
	sigemptyset(&ignore.sa_mask);
	sigaction(SIGTTIN, &ignore, &old_ttin);
	sigaction(SIGTTOU, &ignore, &old_ttou);

	/* When the video goes to stdout, the command's output must not land
	 * in the middle of it: it goes to stderr instead. */
	posix_spawn_file_actions_t actions;
	posix_spawn_file_actions_init(&actions);
	if (output_fd >= 0) {
		posix_spawn_file_actions_adddup2(&actions, output_fd, STDOUT_FILENO);
		posix_spawn_file_actions_adddup2(&actions, output_fd, STDERR_FILENO);
	} else if (stdout_is_ours) {
		posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO);
	}

	pid_t pid;
	int err = posix_spawnp(&pid, argv[0], &actions, &attr, argv, environ);
	sigaction(SIGTTIN, &old_ttin, NULL);
	sigaction(SIGTTOU, &old_ttou, NULL);
	posix_spawn_file_actions_destroy(&actions);
	posix_spawnattr_destroy(&attr);
	if (err != 0) {
		LOG_ERRNO_P(err, "cannot run '%s'", argv[0]);
		errno = err;
		return -1;
	}
	return pid;
}

int child_exit_status(int wait_status)
{
	if (WIFEXITED(wait_status))
		return WEXITSTATUS(wait_status);
	if (WIFSIGNALED(wait_status))
		return 128 + WTERMSIG(wait_status);
	return 1;
}

int child_terminate(pid_t pid, int timeout_ms)
{
	int status;
	kill(pid, SIGTERM);
	for (int waited = 0; waited < timeout_ms; waited += 10) {
		pid_t r = waitpid(pid, &status, WNOHANG);
		if (r == pid)
			return status;
		if (r < 0 && errno != EINTR)
			return -1;
		nanosleep(&(struct timespec){ .tv_nsec = 10 * 1000000 }, NULL);
	}
	LOG_WARN("'%d' did not end after SIGTERM; killing it", (int)pid);
	kill(pid, SIGKILL);
	return waitpid(pid, &status, 0) == pid ? status : -1;
}
