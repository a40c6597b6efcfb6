#define LOG_MODULE ""
#include "output_name.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"

#define BASE_PATTERN "wl-record-%Y-%m-%d_%H-%M-%S"
#define MAX_SUFFIX 1000

static const char *home_dir(void)
{
	const char *home = getenv("HOME");
	if (home && *home)
		return home;
	const struct passwd *pw = getpwuid(getuid());
	return pw && pw->pw_dir && *pw->pw_dir ? pw->pw_dir : NULL;
}

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* True when `path` names `home` itself ("$HOME" or "$HOME/"): xdg-user-dirs
 * writes that for a disabled directory. */
static bool is_home(const char *path, const char *home)
{
	size_t n = strlen(home);
	while (n > 1 && home[n - 1] == '/')
		n--;
	if (strncmp(path, home, n) != 0)
		return false;
	for (const char *p = path + n; *p; p++) {
		if (*p != '/')
			return false;
	}
	return true;
}

/* Parses the quoted value at `p` (just after KEY=) into `out`, expanding a
 * leading $HOME. False for anything that is not "…" with an absolute result. */
static bool parse_value(const char *p, const char *home, char *out, size_t size)
{
	if (*p++ != '"')
		return false;
	size_t len = 0;
	if (strncmp(p, "$HOME", 5) == 0 && (p[5] == '/' || p[5] == '"')) {
		if (!home)
			return false;
		len = strlen(home);
		if (len >= size)
			return false;
		memcpy(out, home, len);
		p += 5;
	}
	for (;; p++) {
		char c = *p;
		if (c == '\0' || c == '\n')
			return false; /* no closing quote */
		if (c == '"')
			break;
		if (c == '\\') {
			c = *++p;
			if (c == '\0' || c == '\n')
				return false;
		}
		if (len + 1 >= size)
			return false;
		out[len++] = c;
	}
	out[len] = '\0';
	return out[0] == '/';
}

bool user_dirs_lookup(const char *file, const char *key, const char *home, char *out,
		      size_t size)
{
	FILE *f = fopen(file, "r");
	if (!f)
		return false;
	char line[4096], value[4096];
	size_t key_len = strlen(key);
	bool found = false;
	while (fgets(line, sizeof(line), f)) {
		const char *p = line + strspn(line, " \t");
		if (strncmp(p, key, key_len) != 0 || p[key_len] != '=')
			continue;
		/* As the shell that sources the file: the last assignment wins. */
		if (parse_value(p + key_len + 1, home, value, sizeof(value))) {
			found = !(home && is_home(value, home));
			if (found && (size_t)snprintf(out, size, "%s", value) >= size)
				found = false;
		}
	}
	fclose(f);
	return found;
}

static bool user_dirs_file(char *out, size_t size, const char *home)
{
	const char *config = getenv("XDG_CONFIG_HOME");
	int n;
	if (config && config[0] == '/')
		n = snprintf(out, size, "%s/user-dirs.dirs", config);
	else if (home)
		n = snprintf(out, size, "%s/.config/user-dirs.dirs", home);
	else
		return false;
	return n > 0 && (size_t)n < size;
}

/* mkdir -p with the mode xdg-user-dirs gives its folders. True when `path`
 * is a directory afterwards; errno tells why not. */
static bool make_dirs(const char *path)
{
	char buf[4096];
	if ((size_t)snprintf(buf, sizeof(buf), "%s", path) >= sizeof(buf)) {
		errno = ENAMETOOLONG;
		return false;
	}
	for (char *p = buf + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;
		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return false;
		*p = c;
		if (c == '\0')
			break;
	}
	if (!is_dir(path)) {
		errno = ENOTDIR;
		return false;
	}
	return true;
}

/* Takes `dir` when it is a folder or can be made one (said once made: a
 * hotkey's user finds the file there). */
static bool take_dir(const char *dir, char *out, size_t size)
{
	if (strlen(dir) >= size)
		return false;
	if (!is_dir(dir)) {
		if (!make_dirs(dir)) {
			LOG_WARN("cannot create %s: %s", dir, strerror(errno));
			return false;
		}
		LOG_INFO("created %s for the file", dir);
	}
	snprintf(out, size, "%s", dir);
	return true;
}

void output_default_dir(enum output_kind kind, char *out, size_t size)
{
	const char *key = kind == OUTPUT_VIDEO ? "XDG_VIDEOS_DIR" : "XDG_PICTURES_DIR";
	const char *fallback = kind == OUTPUT_VIDEO ? "Videos" : "Pictures";
	const char *home = home_dir();
	char file[4096], dir[4096];

	const char *env = getenv(key);
	if (env && env[0] == '/' && take_dir(env, out, size))
		return;
	if (user_dirs_file(file, sizeof(file), home) &&
	    user_dirs_lookup(file, key, home, dir, sizeof(dir)) && take_dir(dir, out, size))
		return;
	if (home && (size_t)snprintf(dir, sizeof(dir), "%s/%s", home, fallback) < sizeof(dir) &&
	    take_dir(dir, out, size))
		return;
	if (home && is_dir(home) && (size_t)snprintf(out, size, "%s", home) < size) {
		LOG_WARN("the file goes to %s", home);
		return;
	}
	/* The current folder, named as a path the user can open later from
	 * anywhere (it is printed when the file is complete). */
	if (!getcwd(out, size))
		snprintf(out, size, ".");
	LOG_WARN("the file goes to the current folder, %s", out);
}

bool output_default_path(enum output_kind kind, const struct tm *tm, char *out, size_t size)
{
	char dir[4096], base[64];
	output_default_dir(kind, dir, sizeof(dir));
	if (strftime(base, sizeof(base), BASE_PATTERN, tm) == 0)
		return false;
	const char *ext = kind == OUTPUT_VIDEO ? "mkv" : "png";
	int n = snprintf(out, size, "%s/%s.%s", dir, base, ext);
	return n > 0 && (size_t)n < size;
}

/* `path` with "-N" before its extension (the part after the last '.' of
 * the last component), or at its end. */
static bool numbered_name(const char *path, int number, char *out, size_t size)
{
	const char *slash = strrchr(path, '/');
	const char *dot = strrchr(path, '.');
	size_t stem = dot && dot > (slash ? slash + 1 : path) ? (size_t)(dot - path) : strlen(path);
	int n = snprintf(out, size, "%.*s-%d%s", (int)stem, path, number, path + stem);
	return n > 0 && (size_t)n < size;
}

int output_reserve(char *path, size_t size)
{
	char candidate[PATH_MAX];
	if (snprintf(candidate, sizeof(candidate), "%s", path) >= (int)sizeof(candidate))
		return ENAMETOOLONG;
	/* Two presses of a hotkey within a second, or two shares of one
	 * pattern, must not share a file: O_EXCL decides, not a prior check. */
	for (int i = 1; i <= MAX_SUFFIX; i++) {
		if (i > 1 && !numbered_name(path, i, candidate, sizeof(candidate)))
			return ENAMETOOLONG;
		int fd = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0) {
			close(fd);
			if (strlen(candidate) >= size) {
				unlink(candidate);
				return ENAMETOOLONG;
			}
			memcpy(path, candidate, strlen(candidate) + 1);
			return 0;
		}
		if (errno != EEXIST)
			return errno;
	}
	return EEXIST;
}

bool output_expand_name(const char *pattern, const struct tm *tm, char *out, size_t size)
{
	if (!strchr(pattern, '%')) {
		int n = snprintf(out, size, "%s", pattern);
		return n > 0 && (size_t)n < size;
	}
	/* strftime returns 0 both for "too long" and for an empty result. */
	size_t n = strftime(out, size, pattern, tm);
	return n > 0 && n < size;
}
