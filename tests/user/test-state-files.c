/* The files wl-record keeps between runs, in folders another process of
 * the user may write to: the pid file (cmd/control.c) and the portal's
 * restore token (src/portal/portal_token.c). Their temporary names are
 * predictable (NAME.PID): a link planted there is not followed; a token
 * file that is a link, or is not one line of text, is not read (one
 * warning); the pid file is removed only while it is ours, even when a
 * newer instance replaces it between our read and our removal.
 *
 * Linked with -Wl,--wrap=fclose: __wrap_fclose() below runs a hook after
 * the next fclose(), the moment control.c has read the pid file. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "control.h"
#include "portal_screencast.h"
#include "test-runner.h"

int __real_fclose(FILE *f);
int __wrap_fclose(FILE *f);

static void (*after_next_fclose)(void);

int __wrap_fclose(FILE *f)
{
	int ret = __real_fclose(f);
	void (*hook)(void) = after_next_fclose;
	after_next_fclose = NULL;
	if (hook)
		hook();
	return ret;
}

static char root[256];

/* Each case in a fresh folder of its own. */
static void fresh_root(void)
{
	snprintf(root, sizeof(root), "%s/wl-record-state-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	test_assert(mkdtemp(root));
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* At a case's end; a failed case keeps its folder, for a look. */
static void remove_root(void)
{
	test_assert(nftw(root, remove_one, 8, FTW_DEPTH | FTW_PHYS) == 0);
}

static const char *in_root(const char *name)
{
	static char paths[4][512];
	static int next;
	char *path = paths[next++ % 4];
	snprintf(path, sizeof(paths[0]), "%s/%s", root, name);
	return path;
}

static void write_file(const char *path, const char *text, size_t length)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	test_assert(fd >= 0);
	test_assert(write(fd, text, length) == (ssize_t)length);
	test_assert(close(fd) == 0);
}

static bool file_is(const char *path, const char *text)
{
	char buffer[256];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buffer, sizeof(buffer) - 1);
	close(fd);
	if (n < 0)
		return false;
	buffer[n] = 0;
	return strcmp(buffer, text) == 0;
}

/* The pid the pid file at `path` names, or 0. */
static int pid_in(const char *path)
{
	FILE *f = fopen(path, "r");
	int pid = 0;
	if (f) {
		if (fscanf(f, "%d", &pid) != 1)
			pid = 0;
		fclose(f);
	}
	return pid;
}

/* What `load` logs on stderr, in `log` (a file). */
static char *load_logged(const char *token_path, const char *log)
{
	fflush(stderr);
	int saved = dup(STDERR_FILENO);
	int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	test_assert(saved >= 0 && fd >= 0 && dup2(fd, STDERR_FILENO) == STDERR_FILENO);
	close(fd);
	char *token = portal_token_load(token_path);
	fflush(stderr);
	test_assert(dup2(saved, STDERR_FILENO) == STDERR_FILENO);
	close(saved);
	return token;
}

static int lines_in(const char *path)
{
	FILE *f = fopen(path, "r");
	test_assert(f);
	int lines = 0;
	for (int c; (c = fgetc(f)) != EOF;)
		lines += c == '\n';
	fclose(f);
	return lines;
}

static bool log_says(const char *log, const char *text)
{
	char buffer[1024];
	FILE *f = fopen(log, "r");
	test_assert(f);
	size_t n = fread(buffer, 1, sizeof(buffer) - 1, f);
	fclose(f);
	buffer[n] = 0;
	return strstr(buffer, text) != NULL;
}

TEST(pid_file_temporary_link_not_followed)
{
	fresh_root();
	const char *pid_file = in_root("wl-record.pid");
	const char *target = in_root("target");
	write_file(target, "precious", 8);
	char planted[512];
	snprintf(planted, sizeof(planted), "%s.%d", pid_file, (int)getpid());
	test_assert(symlink(target, planted) == 0);
	struct control_entry previous;
	test_assert(control_write_pid_file(pid_file, "out.mkv", &previous));
	test_assert(file_is(target, "precious"), "the planted link was followed");
	struct stat st;
	test_assert(lstat(pid_file, &st) == 0 && S_ISREG(st.st_mode));
	test_assert((st.st_mode & 0777) == 0600);
	test_assert(pid_in(pid_file) == getpid());
	test_assert(lstat(planted, &st) < 0 && errno == ENOENT);
	remove_root();
}

static const char *replaced_pid_file;

/* A newer instance renames its pid file over ours. */
static void newer_instance_writes(void)
{
	const char *tmp = in_root("newer.tmp");
	write_file(tmp, "1 1\n/newer.mkv\n", 15);
	test_assert(rename(tmp, replaced_pid_file) == 0);
}

TEST(pid_file_newer_instance_kept)
{
	fresh_root();
	const char *pid_file = in_root("wl-record.pid");
	struct control_entry previous;
	test_assert(control_write_pid_file(pid_file, "out.mkv", &previous));
	test_assert(pid_in(pid_file) == getpid());
	/* Replaced just after control.c has read it (ours then). */
	replaced_pid_file = pid_file;
	after_next_fclose = newer_instance_writes;
	control_remove_pid_file(pid_file, &previous);
	test_assert(!after_next_fclose, "the pid file was not read");
	test_assert(file_is(pid_file, "1 1\n/newer.mkv\n"), "the newer instance's pid file is gone");
	remove_root();
}

TEST(pid_file_ours_removed_others_kept)
{
	fresh_root();
	const char *pid_file = in_root("wl-record.pid");
	struct control_entry previous;
	test_assert(control_write_pid_file(pid_file, "out.mkv", &previous));
	control_remove_pid_file(pid_file, &previous);
	struct stat st;
	test_assert(lstat(pid_file, &st) < 0 && errno == ENOENT);
	write_file(pid_file, "1 1\n/other.mkv\n", 15);
	control_remove_pid_file(pid_file, &previous);
	test_assert(file_is(pid_file, "1 1\n/other.mkv\n"));
	/* Nothing else is left in the folder. */
	test_assert(unlink(pid_file) == 0);
	test_assert(rmdir(root) == 0, "files left in %s", root);
	test_assert(mkdir(root, 0700) == 0);
	remove_root();
}

TEST(token_temporary_link_not_followed)
{
	fresh_root();
	const char *token = in_root("state/wl-record/portal-token");
	const char *target = in_root("target");
	write_file(target, "precious", 8);
	test_assert(mkdir(in_root("state"), 0700) == 0);
	test_assert(mkdir(in_root("state/wl-record"), 0700) == 0);
	char planted[512];
	snprintf(planted, sizeof(planted), "%s.%ld", token, (long)getpid());
	test_assert(symlink(target, planted) == 0);
	char why[256] = "";
	test_assert(portal_token_store(token, "fake-token-1", why, sizeof(why)), "%s", why);
	test_assert(file_is(target, "precious"), "the planted link was followed");
	struct stat st;
	test_assert(lstat(token, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0600);
	test_assert(file_is(token, "fake-token-1\n"));
	remove_root();
}

TEST(token_link_not_read)
{
	fresh_root();
	const char *token = in_root("portal-token");
	const char *target = in_root("elsewhere");
	write_file(target, "planted-token\n", 14);
	test_assert(symlink(target, token) == 0);
	const char *log = in_root("log");
	test_assert(!load_logged(token, log), "a token read through a link");
	test_assert(lines_in(log) == 1 && log_says(log, "ignoring the portal token"));
	remove_root();
}

TEST(token_not_text_ignored)
{
	static const struct {
		const char *text;
		size_t length;
	} bad[] = {
		{ "abc\033[31mdef\n", 13 },  /* a terminal escape */
		{ "abc\ndef\n", 8 },         /* two lines */
		{ "abc\0def\n", 8 },         /* a NUL */
		{ "abc\r\n", 5 },            /* a carriage return */
		{ "abc\xff\xfe\n", 6 },      /* not UTF-8 */
		{ "abc\xc0\xafx\n", 7 },     /* an overlong '/' */
		{ "abc\xc2\x9b\n", 6 },      /* a C1 control (CSI) */
	};
	fresh_root();
	const char *token = in_root("portal-token");
	const char *log = in_root("log");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_file(token, bad[i].text, bad[i].length);
		char *loaded = load_logged(token, log);
		test_assert(!loaded, "bad token %zu read as '%s'", i, loaded);
		test_assert(lines_in(log) == 1 && log_says(log, "ignoring the portal token"),
			    "bad token %zu: not one warning", i);
	}
	/* Too long for a token: not read either. */
	char long_token[600];
	memset(long_token, 'a', sizeof(long_token));
	write_file(token, long_token, sizeof(long_token));
	test_assert(!load_logged(token, log));
	test_assert(lines_in(log) == 1);
	remove_root();
}

TEST(token_text_read)
{
	fresh_root();
	const char *token = in_root("portal-token");
	const char *log = in_root("log");
	const char *good[] = { "fake-token-1\n", "0b9a6f0e-8c2b-4b55-a3c1-2f1e9c7d5a40",
			       "t\xc3\xa9l\xc3\xa9-\xe2\x82\xac-\xf0\x9f\x8e\xa5\n" };
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		write_file(token, good[i], strlen(good[i]));
		char *loaded = load_logged(token, log);
		test_assert(loaded, "good token %zu not read", i);
		test_assert(strncmp(loaded, good[i], strcspn(good[i], "\n")) == 0 &&
			    strlen(loaded) == strcspn(good[i], "\n"));
		test_assert(lines_in(log) == 0);
		free(loaded);
	}
	/* None stored: nothing said. */
	test_assert(unlink(token) == 0);
	test_assert(!load_logged(token, log));
	test_assert(lines_in(log) == 0);
	remove_root();
}
