#ifndef WL_RECORD_OUTPUT_NAME_H
#define WL_RECORD_OUTPUT_NAME_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

/* Where files go when no name is given, as screenshot tools do it:
 * videos into XDG_VIDEOS_DIR, stills into XDG_PICTURES_DIR, each taken from
 * the environment, else from $XDG_CONFIG_HOME/user-dirs.dirs (default
 * ~/.config), else ~/Videos or ~/Pictures: the first that is a directory or
 * can be created as one (mkdir -p, as xdg-user-dirs would), else $HOME, else
 * the current folder (a hotkey's is the compositor's). The name is wl-record-%Y-%m-%d_%H-%M-%S.mkv
 * (.png for stills), with -2, -3... added when that file already exists
 * (output_reserve). */

enum output_kind {
	OUTPUT_VIDEO,
	OUTPUT_PICTURE,
};

/* Reads KEY (e.g. "XDG_VIDEOS_DIR") from a user-dirs.dirs file: lines
 * KEY="$HOME/sub" or KEY="/abs", '#' comments, backslash escapes inside the
 * quotes. "$HOME/" alone means the directory is disabled (false). */
bool user_dirs_lookup(const char *file, const char *key, const char *home, char *out,
		      size_t size);

/* The folder for `kind` by the rules above, created when missing (and said
 * so); never fails ("." at worst). */
void output_default_dir(enum output_kind kind, char *out, size_t size);

/* A complete default path for `kind` at time `tm`. False if it does not fit. */
bool output_default_path(enum output_kind kind, const struct tm *tm, char *out, size_t size);

/* Creates `path` empty with O_EXCL, or when it exists the first free of
 * NAME-2.EXT, NAME-3.EXT...; `path` becomes the name taken. Returns 0 or an
 * errno value. For default names and strftime patterns: a name the user
 * spelled out is never renamed. */
int output_reserve(char *path, size_t size);

/* Expands strftime patterns (%Y, %H, %%...) in a given name. A name without
 * '%' is copied as it is. False when the result is empty or does not fit. */
bool output_expand_name(const char *pattern, const struct tm *tm, char *out, size_t size);

#endif
