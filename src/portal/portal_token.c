#include "portal_screencast.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Restore tokens are short (a UUID); anything longer is not one. */
#define TOKEN_MAX 512

bool portal_token_path(char *path, size_t size)
{
	const char *state = getenv("XDG_STATE_HOME");
	const char *home = getenv("HOME");
	int n;
	if (state && state[0] == '/')
		n = snprintf(path, size, "%s/wl-record/portal-token", state);
	else if (home && home[0])
		n = snprintf(path, size, "%s/.local/state/wl-record/portal-token", home);
	else
		return false;
	return n > 0 && (size_t)n < size;
}

char *portal_token_load(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	char buffer[TOKEN_MAX + 1];
	ssize_t n = read(fd, buffer, TOKEN_MAX);
	close(fd);
	if (n <= 0)
		return NULL;
	buffer[n] = 0;
	buffer[strcspn(buffer, "\r\n")] = 0;
	return buffer[0] ? strdup(buffer) : NULL;
}

/* mkdir -p of the folders above `path`, private ones. */
static bool make_parents(const char *path)
{
	char folder[4096];
	if (snprintf(folder, sizeof(folder), "%s", path) >= (int)sizeof(folder))
		return false;
	for (char *slash = strchr(folder + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = 0;
		if (mkdir(folder, 0700) < 0 && errno != EEXIST)
			return false;
		*slash = '/';
	}
	return true;
}

bool portal_token_store(const char *path, const char *token, char *why, size_t why_size)
{
	char temporary[4200];
	snprintf(temporary, sizeof(temporary), "%s.%ld", path, (long)getpid());
	if (!make_parents(path)) {
		snprintf(why, why_size, "cannot make the folder of %s: %s", path, strerror(errno));
		return false;
	}
	int fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(why, why_size, "cannot write %s: %s", temporary, strerror(errno));
		return false;
	}
	size_t length = strlen(token);
	bool written = write(fd, token, length) == (ssize_t)length && write(fd, "\n", 1) == 1;
	written = close(fd) == 0 && written;
	if (!written || rename(temporary, path) < 0) {
		snprintf(why, why_size, "cannot write %s: %s", path, strerror(errno));
		unlink(temporary);
		return false;
	}
	return true;
}

int portal_token_forget(const char *path, char *why, size_t why_size)
{
	if (unlink(path) == 0)
		return 1;
	if (errno == ENOENT)
		return 0;
	snprintf(why, why_size, "cannot remove %s: %s", path, strerror(errno));
	return -1;
}
