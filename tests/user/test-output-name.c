/* Default file names: user-dirs.dirs parsing, the fallbacks in their order,
 * strftime expansion, and the -2 suffix when the name is taken. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output_name.h"
#include "test-runner.h"

static char root[256];

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	test_assert(f);
	test_assert(fputs(text, f) >= 0);
	test_assert(fclose(f) == 0);
}

static void make_dir(const char *fmt, const char *sub)
{
	char path[512];
	snprintf(path, sizeof(path), fmt, root, sub);
	test_assert(mkdir(path, 0700) == 0);
}

/* Each case works in a fresh folder of its own. */
static void make_root(void)
{
	snprintf(root, sizeof(root), "%s/wl-record-output-name.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	test_assert(mkdtemp(root), "mkdtemp: %s", root);
}

static void remove_root(void)
{
	char command[600];
	snprintf(command, sizeof(command), "rm -rf '%s'", root);
	test_assert(system(command) == 0);
}

static const struct tm *fixed_time(void)
{
	static struct tm tm = {
		.tm_year = 2026 - 1900, .tm_mon = 11, .tm_mday = 3,
		.tm_hour = 14, .tm_min = 5, .tm_sec = 9,
	};
	return &tm;
}

TEST(user_dirs_parsing)
{
	make_root();
	char file[512], out[512];
	snprintf(file, sizeof(file), "%s/parse.dirs", root);
	write_file(file,
		   "# This file is written by xdg-user-dirs-update\n"
		   "XDG_DESKTOP_DIR=\"$HOME/Desktop\"\n"
		   "  XDG_VIDEOS_DIR=\"$HOME/Films\"\n"
		   "XDG_PICTURES_DIR=\"/srv/pics/with \\\"quote\\\" and \\\\\"\n"
		   "XDG_MUSIC_DIR=\"$HOME/\"\n"
		   "XDG_TEMPLATES_DIR=relative/unquoted\n"
		   "XDG_PUBLICSHARE_DIR=\"no closing quote\n"
		   "XDG_DOCUMENTS_DIR=\"$HOME/Old\"\n"
		   "XDG_DOCUMENTS_DIR=\"$HOME/New\"\n"
		   "#XDG_DOWNLOAD_DIR=\"$HOME/Commented\"\n"
		   "XDG_VIDEOS_DIRX=\"$HOME/Wrong\"\n");

	test_assert(user_dirs_lookup(file, "XDG_VIDEOS_DIR", "/home/me", out, sizeof(out)));
	test_assert(strcmp(out, "/home/me/Films") == 0);
	/* A trailing slash on HOME is kept as given: "$HOME/x" is textual. */
	test_assert(user_dirs_lookup(file, "XDG_DESKTOP_DIR", "/home/me", out, sizeof(out)));
	test_assert(strcmp(out, "/home/me/Desktop") == 0);
	/* Absolute, with escapes. */
	test_assert(user_dirs_lookup(file, "XDG_PICTURES_DIR", "/home/me", out, sizeof(out)));
	test_assert(strcmp(out, "/srv/pics/with \"quote\" and \\") == 0);
	/* "$HOME/" means disabled. */
	test_assert(!user_dirs_lookup(file, "XDG_MUSIC_DIR", "/home/me", out, sizeof(out)));
	/* Not quoted, not absolute, not closed: ignored. */
	test_assert(!user_dirs_lookup(file, "XDG_TEMPLATES_DIR", "/home/me", out, sizeof(out)));
	test_assert(!user_dirs_lookup(file, "XDG_PUBLICSHARE_DIR", "/home/me", out, sizeof(out)));
	/* The last assignment wins, as when the shell sources the file. */
	test_assert(user_dirs_lookup(file, "XDG_DOCUMENTS_DIR", "/home/me", out, sizeof(out)));
	test_assert(strcmp(out, "/home/me/New") == 0);
	test_assert(!user_dirs_lookup(file, "XDG_DOWNLOAD_DIR", "/home/me", out, sizeof(out)));
	/* A key that is only a prefix of another does not match it. */
	test_assert(!user_dirs_lookup(file, "XDG_VIDEOS", "/home/me", out, sizeof(out)));
	/* Too small a buffer is a failure, not a truncated path. */
	test_assert(!user_dirs_lookup(file, "XDG_VIDEOS_DIR", "/home/me", out, 8));
	/* No file. */
	test_assert(!user_dirs_lookup("/nonexistent/user-dirs.dirs", "XDG_VIDEOS_DIR", "/home/me",
				 out, sizeof(out)));
	remove_root();
}

static void check_dir(enum output_kind kind, const char *want_fmt, const char *sub)
{
	char want[512], got[512];
	snprintf(want, sizeof(want), want_fmt, root, sub);
	output_default_dir(kind, got, sizeof(got));
	test_assert(strcmp(got, want) == 0, "default dir: got '%s', want '%s'", got, want);
}

static bool dir_exists(const char *sub)
{
	char path[512];
	struct stat st;
	snprintf(path, sizeof(path), "%s/%s", root, sub);
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Walks the fallbacks in their order. A missing folder is created (mkdir -p, as
 * xdg-user-dirs would): the current folder of a hotkey is the
 * compositor's, where a file fails or gets lost. */
static void walk_fallbacks(void)
{
	char home[300], config[300], env_dir[300], text[600];
	snprintf(home, sizeof(home), "%s/home", root);
	snprintf(config, sizeof(config), "%s/home/.config", root);
	make_dir("%s/%s", "home");
	make_dir("%s/%s", "home/.config");
	setenv("HOME", home, 1);
	unsetenv("XDG_CONFIG_HOME");
	unsetenv("XDG_VIDEOS_DIR");
	unsetenv("XDG_PICTURES_DIR");
	test_assert(chdir(root) == 0);

	/* Nothing at all: ~/Videos and ~/Pictures are created. */
	check_dir(OUTPUT_VIDEO, "%s/%s", "home/Videos");
	test_assert(dir_exists("home/Videos"), "~/Videos was not created");
	check_dir(OUTPUT_PICTURE, "%s/%s", "home/Pictures");
	test_assert(dir_exists("home/Pictures"), "~/Pictures was not created");

	/* user-dirs.dirs in ~/.config wins over ~/Videos, its folder created
	 * with its parents. */
	snprintf(text, sizeof(text),
		 "XDG_VIDEOS_DIR=\"$HOME/Vids/new\"\nXDG_PICTURES_DIR=\"$HOME/\"\n");
	write_file("home/.config/user-dirs.dirs", text);
	check_dir(OUTPUT_VIDEO, "%s/%s", "home/Vids/new");
	test_assert(dir_exists("home/Vids/new"), "XDG_VIDEOS_DIR was not created");
	check_dir(OUTPUT_PICTURE, "%s/%s", "home/Pictures"); /* disabled entry */

	/* XDG_CONFIG_HOME moves the file. */
	make_dir("%s/%s", "cfg");
	make_dir("%s/%s", "elsewhere");
	snprintf(text, sizeof(text), "XDG_VIDEOS_DIR=\"%s/elsewhere\"\n", root);
	write_file("cfg/user-dirs.dirs", text);
	snprintf(config, sizeof(config), "%s/cfg", root);
	setenv("XDG_CONFIG_HOME", config, 1);
	check_dir(OUTPUT_VIDEO, "%s/%s", "elsewhere");
	/* A relative XDG_CONFIG_HOME is invalid by the spec: ~/.config again. */
	setenv("XDG_CONFIG_HOME", "cfg", 1);
	check_dir(OUTPUT_VIDEO, "%s/%s", "home/Vids/new");
	setenv("XDG_CONFIG_HOME", config, 1);

	/* The environment variable beats the file; one that cannot be
	 * created (under a file: root may create anything else) does not. */
	snprintf(env_dir, sizeof(env_dir), "%s/home/Pictures", root);
	setenv("XDG_VIDEOS_DIR", env_dir, 1);
	check_dir(OUTPUT_VIDEO, "%s/%s", "home/Pictures");
	snprintf(env_dir, sizeof(env_dir), "%s/cfg/user-dirs.dirs/sub", root);
	setenv("XDG_VIDEOS_DIR", env_dir, 1);
	check_dir(OUTPUT_VIDEO, "%s/%s", "elsewhere");
	unsetenv("XDG_VIDEOS_DIR");
	unsetenv("XDG_CONFIG_HOME");

	/* No folder can be created: $HOME, then the current folder. */
	make_dir("%s/%s", "home2");
	write_file("home2/Videos", "not a folder\n");
	snprintf(home, sizeof(home), "%s/home2", root);
	setenv("HOME", home, 1);
	check_dir(OUTPUT_VIDEO, "%s/%s", "home2");
	snprintf(home, sizeof(home), "%s/home2/Videos", root);
	setenv("HOME", home, 1);
	check_dir(OUTPUT_VIDEO, "%s%s", "");
}

TEST(fallbacks)
{
	make_root();
	walk_fallbacks();
	remove_root();
}

TEST(default_path)
{
	char path[512], want[512];
	make_root();
	walk_fallbacks();
	/* Back to videos in elsewhere/, pictures in home/Pictures/. */
	snprintf(path, sizeof(path), "%s/home", root);
	setenv("HOME", path, 1);
	snprintf(path, sizeof(path), "%s/cfg", root);
	setenv("XDG_CONFIG_HOME", path, 1);
	test_assert(output_default_path(OUTPUT_VIDEO, fixed_time(), path, sizeof(path)));
	snprintf(want, sizeof(want), "%s/elsewhere/wl-record-2026-12-03_14-05-09.mkv", root);
	test_assert(strcmp(path, want) == 0);
	test_assert(output_default_path(OUTPUT_PICTURE, fixed_time(), path, sizeof(path)));
	snprintf(want, sizeof(want), "%s/home/Pictures/wl-record-2026-12-03_14-05-09.png", root);
	test_assert(strcmp(path, want) == 0);

	/* Does not fit: refused. */
	test_assert(!output_default_path(OUTPUT_VIDEO, fixed_time(), path, 20));
	remove_root();
}

/* Reserving creates the name, and taken names get -2, -3 before the
 * extension (after the whole name when it has none). */
TEST(reserve)
{
	char path[512], want[512];
	make_root();
	const char *bases[] = { "talk-1405.mp4", "noext", "dir.d/noext" };
	const char *seconds[] = { "talk-1405-2.mp4", "noext-2", "dir.d/noext-2" };
	const char *thirds[] = { "talk-1405-3.mp4", "noext-3", "dir.d/noext-3" };
	snprintf(path, sizeof(path), "%s/dir.d", root);
	test_assert(mkdir(path, 0755) == 0);
	for (int i = 0; i < 3; i++) {
		const char *expect[] = { bases[i], seconds[i], thirds[i] };
		for (int n = 0; n < 3; n++) {
			snprintf(path, sizeof(path), "%s/%s", root, bases[i]);
			test_assert(output_reserve(path, sizeof(path)) == 0);
			snprintf(want, sizeof(want), "%s/%s", root, expect[n]);
			test_assert(strcmp(path, want) == 0);
			test_assert(access(want, F_OK) == 0);
		}
	}
	/* A missing folder is an error, not a loop. */
	snprintf(path, sizeof(path), "%s/missing/x.mkv", root);
	test_assert(output_reserve(path, sizeof(path)) == ENOENT);
	remove_root();
}

TEST(expand)
{
	char out[256];
	test_assert(output_expand_name("plain.mkv", fixed_time(), out, sizeof(out)));
	test_assert(strcmp(out, "plain.mkv") == 0);
	test_assert(output_expand_name("-", fixed_time(), out, sizeof(out)));
	test_assert(strcmp(out, "-") == 0);
	test_assert(output_expand_name("/tmp/rec-%Y-%m-%d_%H-%M-%S.mp4", fixed_time(), out, sizeof(out)));
	test_assert(strcmp(out, "/tmp/rec-2026-12-03_14-05-09.mp4") == 0);
	test_assert(output_expand_name("100%%-%H%M.png", fixed_time(), out, sizeof(out)));
	test_assert(strcmp(out, "100%-1405.png") == 0);
	/* Empty or too long results are refused. */
	test_assert(!output_expand_name("%p", &(struct tm){ 0 }, out, 1));
	test_assert(!output_expand_name("rec-%Y-%m-%d.mkv", fixed_time(), out, 8));
	test_assert(!output_expand_name("plain.mkv", fixed_time(), out, 4));
}
