#define LOG_MODULE "portal"
#include "portal_screencast.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"

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

/* The length of the UTF-8 character at `s` (no control character, no
 * overlong form, no surrogate), or 0. */
static size_t utf8_char(const unsigned char *s)
{
	if (s[0] >= 0x20 && s[0] < 0x7f)
		return 1;
	size_t length = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4
		      : s[0] >= 0xe0 && s[0] < 0xf0 ? 3
		      : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : 0;
	if (!length)
		return 0;
	uint32_t c = s[0] & (0x7f >> length);
	for (size_t i = 1; i < length; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	static const uint32_t least[] = { 0, 0, 0x80, 0x800, 0x10000 };
	bool valid = c >= least[length] && c <= 0x10ffff && (c < 0xd800 || c > 0xdfff) &&
		     (c < 0x80 || c > 0x9f);
	return valid ? length : 0;
}

/* A token is one line of printable text: it goes to the portal as a D-Bus
 * string, which must be valid UTF-8. */
static bool token_valid(const char *token)
{
	const unsigned char *c = (const unsigned char *)token;
	while (*c) {
		size_t length = utf8_char(c);
		if (!length)
			return false;
		c += length;
	}
	return c != (const unsigned char *)token;
}

char *portal_token_load(const char *path)
{
	/* Our own file, not one a link points at; O_NONBLOCK: a FIFO put
	 * there cannot hang us. */
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		if (errno != ENOENT)
			LOG_WARN("ignoring the portal token %s: %s", path,
				 errno == ELOOP ? "it is a symbolic link" : strerror(errno));
		return NULL;
	}
	char buffer[TOKEN_MAX + 2];
	struct stat st;
	ssize_t n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, buffer, TOKEN_MAX + 1) : -1;
	close(fd);
	if (n < 0 || n > TOKEN_MAX) {
		LOG_WARN("ignoring the portal token %s: %s", path,
			 n < 0 ? "not a plain file" : "too long for a token");
		return NULL;
	}
	buffer[n] = 0;
	/* One line: its end is the file's. */
	if (n > 0 && buffer[n - 1] == '\n')
		buffer[--n] = 0;
	if (n == 0)
		return NULL;
	if (strlen(buffer) != (size_t)n || !token_valid(buffer)) {
		LOG_WARN("ignoring the portal token %s: not a token (one line of text)",
			 path);
		return NULL;
	}
	return strdup(buffer);
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
	/* The temporary name is predictable (our pid): created afresh, never
	 * opened through a link someone planted there. */
	unlink(temporary); /* ours, left by a crash */
	int fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
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
