#ifndef WL_RECORD_OPTIONS_H
#define WL_RECORD_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "source_choice.h"

#define OPTIONS_MAX_CODEC_PARAMS 32
#define OPTIONS_MAX_AUDIO_SOURCES 4

struct options {
	const char *output;      /* FILE or -f, strftime patterns unexpanded; NULL when not given */
	const char *output_name; /* -o: the desktop's monitor to record; NULL: the first */
	bool list_outputs;       /* --list-outputs */
	bool region;             /* -g "X,Y WxH", the compositor's logical coordinates */
	int region_x, region_y, region_width, region_height;
	bool no_cursor;          /* --no-cursor: leave the desktop's cursor out */
	bool cursor;             /* --cursor: draw the --window app's pointer in */
	bool audio;              /* --audio[=SOURCE]: record sound too */
	/* Each --audio in order: a track each (or mixed); NULL: the default
	 * sink's monitor. */
	const char *audio_sources[OPTIONS_MAX_AUDIO_SOURCES];
	int audio_source_count;
	bool audio_mix;          /* --audio-mix: the sources in one track */
	const char *audio_codec; /* --audio-codec; NULL: the container's */
	int64_t audio_bitrate;   /* --audio-bitrate; 0: the codec's default */
	bool app_audio;          /* --app-audio: COMMAND's sound, through a sink of its own */
	bool mute_app;           /* --mute-app: and the user does not hear it meanwhile */
	bool screenshot;         /* --screenshot, or an output ending in .png */
	int width, height;       /* --size */
	double fps;
	const char *socket_name; /* --socket */
	double timeout_s;        /* screenshot: how long to wait for a frame */
	double delay_s;          /* screenshot: wait this long after the first frame */
	double duration_s;       /* 0: until stopped */
	int64_t max_frames;      /* 0: until stopped */
	const char *codec;
	const char *device;
	int64_t bitrate;
	int crf;                 /* -1: encoder default */
	const char *codec_params[OPTIONS_MAX_CODEC_PARAMS + 1]; /* NULL-terminated */
	bool cfr;
	bool overwrite;          /* --overwrite, -y: replace an existing FILE */
	bool list_encoders;
	bool snap;               /* ask the running instance for a PNG still */
	bool stop;               /* ask the running instance to stop */
	bool toggle;             /* stop the running instance if any, else record */
	const char *pid_file;
	int verbosity;           /* -1 quiet, 0 normal, 1 verbose */
	bool no_fullscreen_shell; /* --no-fullscreen-shell: offer xdg-shell only */
	uint32_t background;     /* --background: XRGB8888 behind xdg-shell windows */
	bool compose_all;        /* --compose-all: every toplevel, not only the newest */
	bool window;             /* --window: show the hosted COMMAND in a window on the desktop */
	enum capture_method capture; /* --capture */
	const char *pipewire_node; /* --capture pipewire=NODE */
	bool forget_portal;      /* --forget-portal: drop the portal's remembered choice */
	int stats_fd;            /* --stats-fd: the JSON summary goes there; -1 when not given */
	char **command;          /* after "--", NULL-terminated; NULL when none */
};

enum options_result {
	OPTIONS_RUN,        /* go on with `options` filled */
	OPTIONS_DONE,       /* --help or --version printed: exit 0 */
	OPTIONS_BAD,        /* one-line error printed: exit 2 */
};

enum options_result options_parse(int argc, char **argv, struct options *options);

/* One row of the options table, in the order of --help: what getopt is
 * given, what --help prints and how the value is parsed and stored. */
struct option_spec {
	const char *name;        /* long name without "--"; NULL: a line of --help only */
	char short_name;         /* 0: long only */
	int has_arg;             /* getopt's no_argument, required_argument, optional_argument */
	/* --help: a heading printed first ("": a blank line only); the left
	 * column when it is not "-x, --name VALUE"; the value's name; the
	 * text in the right column, '\n' going on below it. With `usage`
	 * and no `help`, `usage` is the whole line; with neither, a line or
	 * heading nearby tells the option. */
	const char *section, *usage, *value_name, *help;
	enum options_result (*parse)(const struct option_spec *spec, const char *arg,
				     struct options *options);
	size_t field;            /* offsetof(struct options, ...): where the value goes */
	double min, max;         /* a number's range */
	const char *invalid;     /* the one-line error, '%s' the value, when it does not parse */
};

extern const struct option_spec option_specs[];
extern const size_t option_spec_count;

/* True when `path` ends in `.ext` (case-insensitive). */
bool path_has_extension(const char *path, const char *ext);

#endif
