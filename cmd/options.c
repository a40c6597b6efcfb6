#define LOG_MODULE ""
#include "options.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "frame.h"
#include "help.h"
#include "log.h"

#define ARRAY_LENGTH(a) (sizeof(a) / sizeof((a)[0]))

/* Through the log, as every message on stderr. */
static enum options_result bad(const char *fmt, const char *arg)
{
	char message[512];
	snprintf(message, sizeof(message), fmt, arg);
	LOG_ERR("%s (see wl-record --help)", message);
	return OPTIONS_BAD;
}

/* Edit distance with transpositions (optimal string alignment): "durtion"
 * and "duraiton" are one edit from "duration". */
static size_t edit_distance(const char *a, size_t a_len, const char *b)
{
	size_t b_len = strlen(b);
	if (a_len > 63 || b_len > 63)
		return SIZE_MAX;
	size_t d[64][64];
	for (size_t i = 0; i <= a_len; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= b_len; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= a_len; i++) {
		for (size_t j = 1; j <= b_len; j++) {
			size_t cost = a[i - 1] != b[j - 1];
			size_t best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + cost < best)
				best = d[i - 1][j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	}
	return d[a_len][b_len];
}

bool path_has_extension(const char *path, const char *ext)
{
	const char *dot = strrchr(path, '.');
	return dot && !strchr(dot, '/') && strcasecmp(dot + 1, ext) == 0;
}

static bool parse_double(const char *s, double min, double max, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < min || v > max)
		return false;
	*out = v;
	return true;
}

static bool parse_int64(const char *s, int64_t min, int64_t max, int64_t *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

static bool parse_size(const char *s, int *width, int *height)
{
	char *end;
	errno = 0;
	long w = strtol(s, &end, 10);
	if (errno || end == s || (*end != 'x' && *end != 'X'))
		return false;
	const char *h_start = end + 1;
	long h = strtol(h_start, &end, 10);
	if (errno || end == h_start || *end || w < 1 || h < 1 || w > 16384 || h > 16384)
		return false;
	*width = (int)w;
	*height = (int)h;
	return true;
}

/* "8M", "2500k", "800000": bits per second. */
static bool parse_bitrate(const char *s, int64_t *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v <= 0)
		return false;
	if (*end == 'k' || *end == 'K')
		v *= 1e3, end++;
	else if (*end == 'm' || *end == 'M')
		v *= 1e6, end++;
	if (*end || v < 1e3 || v > 1e10)
		return false;
	*out = (int64_t)v;
	return true;
}

/* "#rrggbb", "rrggbb", "0xrrggbb", or black/white/gray: XRGB8888. */
static bool parse_color(const char *s, uint32_t *out)
{
	static const struct { const char *name; uint32_t rgb; } names[] = {
		{ "black", 0x000000 }, { "white", 0xffffff }, { "gray", 0x808080 },
		{ "grey", 0x808080 },
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcasecmp(s, names[i].name) == 0) {
			*out = names[i].rgb;
			return true;
		}
	}
	if (s[0] == '#')
		s++;
	else if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	if (strlen(s) != 6 || strspn(s, "0123456789abcdefABCDEF") != 6)
		return false;
	*out = (uint32_t)strtoul(s, NULL, 16);
	return true;
}

/* A PulseAudio source name: printable, no spaces (pactl prints them so). */
static bool audio_source_valid(const char *name)
{
	if (!name[0] || strlen(name) > 200)
		return false;
	for (const char *c = name; *c; c++)
		if ((unsigned char)*c <= ' ' || *c == 0x7f)
			return false;
	return true;
}

/* slurp's "X,Y WxH" (X and Y may be negative: outputs left of or above
 * the origin). */
static bool parse_region(const char *s, struct options *options)
{
	long v[4];
	const char separators[4] = { ',', ' ', 'x', 0 };
	for (int i = 0; i < 4; i++) {
		char *end;
		errno = 0;
		v[i] = strtol(s, &end, 10);
		if (errno || end == s || *end != separators[i] || v[i] < -1000000 || v[i] > 1000000)
			return false;
		s = end + (i < 3);
		if (i >= 1 && i < 3 && (*s == ' ' || *s == '+' || *s == '-'))
			return false; /* "W" and "H" are plain */
	}
	if (v[2] < 1 || v[3] < 1 || v[2] > 16384 || v[3] > 16384)
		return false;
	options->region = true;
	options->region_x = (int)v[0];
	options->region_y = (int)v[1];
	options->region_width = (int)v[2];
	options->region_height = (int)v[3];
	return true;
}

/* What -o meant before it picked a monitor: a file. */
static bool looks_like_file(const char *arg)
{
	static const char *const extensions[] = { "mkv", "mp4", "mov", "webm", "png" };
	if (strcmp(arg, "-") == 0 || strchr(arg, '/'))
		return true;
	for (size_t i = 0; i < sizeof(extensions) / sizeof(extensions[0]); i++) {
		if (path_has_extension(arg, extensions[i]))
			return true;
	}
	return false;
}

/* How a row's value is parsed and stored: by kind, the option's row giving
 * the field, the range and the message; then the options of their own. */

#define FIELD(options, spec, type) ((type *)(void *)((char *)(options) + (spec)->field))

static enum options_result set_true(const struct option_spec *spec, const char *arg,
				    struct options *options)
{
	(void)arg;
	*FIELD(options, spec, bool) = true;
	return OPTIONS_RUN;
}

static enum options_result set_string(const struct option_spec *spec, const char *arg,
				      struct options *options)
{
	*FIELD(options, spec, const char *) = arg;
	return OPTIONS_RUN;
}

static enum options_result set_double(const struct option_spec *spec, const char *arg,
				      struct options *options)
{
	if (!parse_double(arg, spec->min, spec->max, FIELD(options, spec, double)))
		return bad(spec->invalid, arg);
	return OPTIONS_RUN;
}

static enum options_result set_int(const struct option_spec *spec, const char *arg,
				   struct options *options)
{
	int64_t value;
	if (!parse_int64(arg, (int64_t)spec->min, (int64_t)spec->max, &value))
		return bad(spec->invalid, arg);
	*FIELD(options, spec, int) = (int)value;
	return OPTIONS_RUN;
}

/* A whole number from `min` on, as large as int64_t holds. */
static enum options_result set_count(const struct option_spec *spec, const char *arg,
				     struct options *options)
{
	if (!parse_int64(arg, (int64_t)spec->min, INT64_MAX, FIELD(options, spec, int64_t)))
		return bad(spec->invalid, arg);
	return OPTIONS_RUN;
}

static enum options_result set_bitrate(const struct option_spec *spec, const char *arg,
				       struct options *options)
{
	int64_t *bitrate = FIELD(options, spec, int64_t);
	if (!parse_bitrate(arg, bitrate) || *bitrate < spec->min || *bitrate > spec->max)
		return bad(spec->invalid, arg);
	return OPTIONS_RUN;
}

static enum options_result set_color(const struct option_spec *spec, const char *arg,
				     struct options *options)
{
	if (!parse_color(arg, FIELD(options, spec, uint32_t)))
		return bad(spec->invalid, arg);
	return OPTIONS_RUN;
}

static enum options_result set_verbosity(const struct option_spec *spec, const char *arg,
					 struct options *options)
{
	(void)arg;
	options->verbosity = spec->short_name == 'q' ? -1 : 1;
	return OPTIONS_RUN;
}

static enum options_result show_help(const struct option_spec *spec, const char *arg,
				     struct options *options)
{
	(void)spec, (void)arg, (void)options;
	print_help(stdout);
	return OPTIONS_DONE;
}

static enum options_result show_version(const struct option_spec *spec, const char *arg,
					struct options *options)
{
	(void)spec, (void)arg, (void)options;
	print_version(stdout);
	return OPTIONS_DONE;
}

static enum options_result set_monitor(const struct option_spec *spec, const char *arg,
				       struct options *options)
{
	(void)spec;
	if (looks_like_file(arg)) {
		LOG_ERR("-o picks a monitor now (like grim and wf-recorder); give the file "
			"as the argument or with -f");
		return OPTIONS_BAD;
	}
	options->output_name = arg;
	return OPTIONS_RUN;
}

static enum options_result set_file(const struct option_spec *spec, const char *arg,
				    struct options *options)
{
	if (options->output)
		return bad(spec->invalid, arg);
	options->output = arg;
	return OPTIONS_RUN;
}

static enum options_result set_region(const struct option_spec *spec, const char *arg,
				      struct options *options)
{
	if (!parse_region(arg, options))
		return bad(spec->invalid, arg);
	return OPTIONS_RUN;
}

static enum options_result set_size(const struct option_spec *spec, const char *arg,
				    struct options *options)
{
	if (!parse_size(arg, &options->width, &options->height))
		return bad(spec->invalid, arg);
	return OPTIONS_RUN;
}

static enum options_result set_socket(const struct option_spec *spec, const char *arg,
				      struct options *options)
{
	if (!*arg || strchr(arg, '/'))
		return bad(spec->invalid, arg);
	options->socket_name = arg;
	return OPTIONS_RUN;
}

/* Checked now: the summary must not be lost at the end. */
static enum options_result set_stats_fd(const struct option_spec *spec, const char *arg,
					struct options *options)
{
	enum options_result result = set_int(spec, arg, options);
	if (result == OPTIONS_RUN && fcntl(options->stats_fd, F_GETFD) < 0)
		return bad("--stats-fd %s: not an open file descriptor", arg);
	return result;
}

static enum options_result set_capture(const struct option_spec *spec, const char *arg,
				       struct options *options)
{
	if (strncmp(arg, "pipewire=", strlen("pipewire=")) == 0) {
		options->capture = CAPTURE_PIPEWIRE;
		options->pipewire_node = arg + strlen("pipewire=");
		if (!options->pipewire_node[0])
			return bad("%s", "--capture pipewire=NODE: give the node's id, name or serial");
	} else if (!capture_method_parse(arg, &options->capture)) {
		return bad(spec->invalid, arg);
	}
	return OPTIONS_RUN;
}

static enum options_result add_codec_param(const struct option_spec *spec, const char *arg,
					   struct options *options)
{
	if (!strchr(arg, '=') || arg[0] == '=')
		return bad(spec->invalid, arg);
	size_t count = 0;
	while (options->codec_params[count])
		count++;
	if (count == OPTIONS_MAX_CODEC_PARAMS)
		return bad("%s", "too many -p options");
	options->codec_params[count] = arg;
	return OPTIONS_RUN;
}

/* --audio alone: the default sink's monitor; --audio=SOURCE: that source.
 * Each once, up to OPTIONS_MAX_AUDIO_SOURCES. */
static enum options_result add_audio_source(const struct option_spec *spec, const char *arg,
					    struct options *options)
{
	if (arg && !audio_source_valid(arg))
		return bad(spec->invalid, arg);
	for (int i = 0; i < options->audio_source_count; i++)
		if (!options->audio_sources[i] == !arg &&
		    (!arg || strcmp(options->audio_sources[i], arg) == 0))
			return arg ? bad("--audio=%s given twice: a source is recorded once", arg)
				   : bad("%s", "--audio given twice: a source is recorded once");
	if (options->audio_source_count == OPTIONS_MAX_AUDIO_SOURCES)
		return bad("%s", "too many --audio: at most 4 sources");
	options->audio = true;
	options->audio_sources[options->audio_source_count++] = arg;
	return OPTIONS_RUN;
}

#define AT(member) offsetof(struct options, member)

/* Every option, in the order --help tells them. getopt's arrays are built
 * from it, the parser calls a row's `parse` with its value, print_help()
 * prints its lines. */
const struct option_spec option_specs[] = {
	{ .section = "Output:",
	  .name = "file", .short_name = 'f', .has_arg = required_argument,
	  .usage = "  FILE, -f, --file FILE",
	  .help = ".mkv .mp4 .mov .webm: video; .png: still; -: MKV on\n"
		  "stdout; strftime patterns expand (%Y-%m-%d_%H%M%S)",
	  .parse = set_file, .invalid = "-f '%s': only one output file" },
	{ .name = "screenshot", .short_name = 's', .help = "take one PNG still and exit",
	  .parse = set_true, .field = AT(screenshot) },
	{ .name = "delay", .has_arg = required_argument, .value_name = "SECONDS",
	  .help = "still: take it this long after the first frame",
	  .parse = set_double, .field = AT(delay_s), .min = 0, .max = 1e6,
	  .invalid = "invalid --delay '%s': expected seconds >= 0" },
	{ .name = "timeout", .has_arg = required_argument, .value_name = "SECONDS",
	  .help = "still: give up after this long without a frame (10)",
	  .parse = set_double, .field = AT(timeout_s), .min = 0.001, .max = 1e6,
	  .invalid = "invalid --timeout '%s': expected seconds > 0" },
	{ .name = "duration", .has_arg = required_argument, .value_name = "SECONDS",
	  .help = "stop recording after this long",
	  .parse = set_double, .field = AT(duration_s), .min = 0.001, .max = 1e9,
	  .invalid = "invalid --duration '%s': expected seconds > 0" },
	{ .name = "frames", .has_arg = required_argument, .value_name = "N",
	  .help = "stop after N frames at --fps (a still app's repeated)",
	  .parse = set_count, .field = AT(max_frames), .min = 1,
	  .invalid = "invalid --frames '%s': expected a whole number >= 1" },
	{ .name = "stats-fd", .has_arg = required_argument, .value_name = "N",
	  .help = "when done, a JSON summary line on fd N (for scripts)",
	  .parse = set_stats_fd, .field = AT(stats_fd), .min = 0, .max = INT_MAX,
	  .invalid = "invalid --stats-fd '%s': expected a file descriptor number" },

	{ .section = "Connection (Weston's screen-share: none needed, WAYLAND_SERVER_SOCKET is used):",
	  .name = "capture", .has_arg = required_argument, .value_name = "HOW",
	  .help = "screencopy, ext-image-copy, wlr-screencopy, portal,\n"
		  "listen, pipewire=NODE (man wl-record)",
	  .parse = set_capture,
	  .invalid = "invalid --capture '%s': expected screencopy, ext-image-copy, "
		     "wlr-screencopy, portal, listen or pipewire=NODE" },
	{ .name = "forget-portal", .help = "forget the screen chosen in the portal's dialog",
	  .parse = set_true, .field = AT(forget_portal) },
	{ .name = "output", .short_name = 'o', .has_arg = required_argument, .value_name = "NAME",
	  .help = "the desktop's monitor to record (default: the first)",
	  .parse = set_monitor },
	{ .name = "geometry", .short_name = 'g', .has_arg = required_argument,
	  .value_name = "'X,Y WxH'", .help = "only that region (logical, as slurp prints it)",
	  .parse = set_region,
	  .invalid = "invalid -g '%s': expected \"X,Y WxH\" as slurp prints it" },
	{ .name = "list-outputs", .help = "list the monitors",
	  .parse = set_true, .field = AT(list_outputs) },
	{ .name = "no-cursor", .help = "leave the desktop's pointer out",
	  .parse = set_true, .field = AT(no_cursor) },
	{ .name = "socket", .has_arg = required_argument, .value_name = "NAME",
	  .help = "listen on $XDG_RUNTIME_DIR/NAME (default wl-record-N)",
	  .parse = set_socket, .invalid = "invalid --socket '%s': expected a name without '/'" },
	{ .usage = "  -- COMMAND [ARG...]", .help = "run COMMAND on that socket; stop when it exits" },
	{ .name = "size", .has_arg = required_argument, .value_name = "WxH",
	  .help = "mode offered to clients (1920x1080)",
	  .parse = set_size, .invalid = "invalid --size '%s': expected WxH, 1 to 16384 each" },
	{ .name = "fps", .has_arg = required_argument, .value_name = "N",
	  .help = "frame rate (60)",
	  .parse = set_double, .field = AT(fps), .min = 1, .max = 1000,
	  .invalid = "invalid --fps '%s': expected a number from 1 to 1000" },
	{ .name = "no-fullscreen-shell", .help = "offer xdg-shell only (nested compositors: a window)",
	  .parse = set_true, .field = AT(no_fullscreen_shell) },
	{ .name = "background", .has_arg = required_argument, .value_name = "COLOR",
	  .help = "behind windows: #rrggbb, black, white, gray (black)",
	  .parse = set_color, .field = AT(background),
	  .invalid = "--background: '%s' is not a colour (#rrggbb, black, white, gray)" },
	{ .name = "compose-all", .help = "show every window, not only the newest (oldest below)",
	  .parse = set_true, .field = AT(compose_all) },
	{ .name = "window", .help = "show COMMAND in a window here",
	  .parse = set_true, .field = AT(window) },
	{ .name = "cursor", .help = "draw COMMAND's pointer",
	  .parse = set_true, .field = AT(cursor) },

	{ .section = "Encoding:",
	  .name = "codec", .has_arg = required_argument, .value_name = "NAME",
	  .help = "h264_vaapi, libx264, libvpx-vp9... (default: VA-API,\n"
		  "else libx264; .webm: VP9)",
	  .parse = set_string, .field = AT(codec) },
	{ .name = "device", .has_arg = required_argument, .value_name = "PATH",
	  .help = "VA-API render node (default: first renderD*)",
	  .parse = set_string, .field = AT(device) },
	{ .name = "bitrate", .has_arg = required_argument, .value_name = "RATE",
	  .help = "e.g. 8M (instead of --crf)",
	  .parse = set_bitrate, .field = AT(bitrate), .min = 0, .max = 1e10,
	  .invalid = "invalid --bitrate '%s': expected e.g. 8M, 2500k or 800000" },
	{ .name = "crf", .has_arg = required_argument, .value_name = "N",
	  .help = "quality, lower: better (x264 23)",
	  .parse = set_int, .field = AT(crf), .min = 0, .max = 63,
	  .invalid = "invalid --crf '%s': expected a whole number from 0 to 63" },
	{ .name = "codec-param", .short_name = 'p', .has_arg = required_argument,
	  .value_name = "K=V", .help = "encoder option (-p preset=veryfast)",
	  .parse = add_codec_param, .invalid = "invalid -p '%s': expected KEY=VALUE" },
	{ .name = "cfr", .help = "a fixed frame rate", .parse = set_true, .field = AT(cfr) },
	{ .name = "audio", .has_arg = optional_argument, .value_name = "[=SOURCE]",
	  .help = "sound: the desktop's or SOURCE (more: a track each)",
	  .parse = add_audio_source,
	  .invalid = "invalid --audio '%s': expected a source name as `pactl list short "
		     "sources` prints it (or --audio alone: what the desktop plays)" },
	{ .name = "app-audio", .help = "COMMAND's sound only",
	  .parse = set_true, .field = AT(app_audio) },
	{ .name = "mute-app", .help = "--app-audio not heard meanwhile",
	  .parse = set_true, .field = AT(mute_app) },
	{ .name = "audio-mix", .help = "the sources in one track",
	  .parse = set_true, .field = AT(audio_mix) },
	/* Checked against the container before anything starts. */
	{ .name = "audio-codec", .has_arg = required_argument, .value_name = "NAME",
	  .help = "opus, aac or flac",
	  .parse = set_string, .field = AT(audio_codec) },
	/* Opus takes 6 to 510 kb/s; AAC goes as high. */
	{ .name = "audio-bitrate", .has_arg = required_argument, .value_name = "RATE",
	  .help = "e.g. 96k",
	  .parse = set_bitrate, .field = AT(audio_bitrate), .min = 6000, .max = 510000,
	  .invalid = "invalid --audio-bitrate '%s': expected e.g. 96k or 128000, 6k to 510k" },
	{ .name = "overwrite", .short_name = 'y',
	  .help = "replace an existing FILE",
	  .parse = set_true, .field = AT(overwrite) },
	{ .name = "list-encoders", .help = "the encoders that work here",
	  .parse = set_true, .field = AT(list_encoders) },

	{ .section = "A running recording ($XDG_RUNTIME_DIR/wl-record.pid, or --pid-file PATH):",
	  .name = "pid-file", .has_arg = required_argument,
	  .parse = set_string, .field = AT(pid_file) },
	{ .name = "stop", .help = "finish it (as SIGINT), wait, print its file's path",
	  .parse = set_true, .field = AT(stop) },
	{ .name = "snap", .help = "save a PNG still beside its file, print its path",
	  .parse = set_true, .field = AT(snap) },
	{ .name = "toggle", .help = "stop it if one runs, else record (for hotkeys)",
	  .parse = set_true, .field = AT(toggle) },

	{ .section = "",
	  .name = "verbose", .short_name = 'v',
	  .usage = "  -v, --verbose  -q, --quiet  -h, --help  -V, --version",
	  .parse = set_verbosity },
	{ .name = "quiet", .short_name = 'q', .parse = set_verbosity },
	{ .name = "help", .short_name = 'h', .parse = show_help },
	{ .name = "version", .short_name = 'V', .parse = show_version },
};

const size_t option_spec_count = ARRAY_LENGTH(option_specs);

/* getopt's view of the table: a long-only option returns LONG_ONLY + its
 * row, one with a short name that letter. */
enum { LONG_ONLY = 256 };

struct getopt_table {
	struct option long_options[ARRAY_LENGTH(option_specs) + 1];
	char short_options[1 + 2 * ARRAY_LENGTH(option_specs) + 1];
};

static void build_getopt_table(struct getopt_table *table)
{
	size_t n_long = 0;
	char *letter = table->short_options;
	*letter++ = ':'; /* a missing value returns ':', not '?' */
	for (size_t i = 0; i < ARRAY_LENGTH(option_specs); i++) {
		const struct option_spec *spec = &option_specs[i];
		if (!spec->name)
			continue;
		table->long_options[n_long++] = (struct option){
			.name = spec->name, .has_arg = spec->has_arg,
			.val = spec->short_name ? spec->short_name : LONG_ONLY + (int)i,
		};
		if (spec->short_name) {
			*letter++ = spec->short_name;
			if (spec->has_arg == required_argument)
				*letter++ = ':';
		}
	}
	table->long_options[n_long] = (struct option){ 0 };
	*letter = 0;
}

/* The row of what getopt_long() returned. */
static const struct option_spec *spec_of(int c)
{
	if (c >= LONG_ONLY)
		return &option_specs[c - LONG_ONLY];
	for (size_t i = 0; i < ARRAY_LENGTH(option_specs); i++)
		if (option_specs[i].short_name && option_specs[i].short_name == c)
			return &option_specs[i];
	return NULL;
}

/* Of two names as near to a mistyped one, the first is suggested, though
 * the table has it later: the suggestion stays what it was when the long
 * options were listed in another order. These are the only pairs that
 * order changes, for every string within two edits of a name. */
static const char *const preferred_in_a_tie[][2] = {
	{ "snap", "stop" }, { "size", "socket" }, { "fps", "frames" }, { "audio", "codec" },
};

static bool preferred(const char *candidate, const char *best)
{
	for (size_t i = 0; i < ARRAY_LENGTH(preferred_in_a_tie); i++)
		if (strcmp(candidate, preferred_in_a_tie[i][0]) == 0 &&
		    strcmp(best, preferred_in_a_tie[i][1]) == 0)
			return true;
	return false;
}

/* The long option `arg` ("--durtion" or "--durtion=3") was probably meant
 * as: one within two edits (one for short names), else NULL. Of names as
 * near, the first in the table, or the one preferred_in_a_tie names. */
static const char *nearest_option(const char *arg)
{
	if (strncmp(arg, "--", 2) != 0)
		return NULL;
	const char *name = arg + 2;
	size_t len = strcspn(name, "=");
	const char *best = NULL;
	size_t best_distance = SIZE_MAX;
	for (size_t i = 0; i < ARRAY_LENGTH(option_specs); i++) {
		const char *candidate = option_specs[i].name;
		if (!candidate)
			continue;
		size_t distance = edit_distance(name, len, candidate);
		if (distance < best_distance ||
		    (distance == best_distance && best && preferred(candidate, best))) {
			best_distance = distance;
			best = candidate;
		}
	}
	size_t limit = len <= 4 ? 1 : 2;
	return best_distance <= limit ? best : NULL;
}

/* What getopt_long() did not take: `arg` is the word it stopped at. */
static enum options_result unknown_option(const char *arg)
{
	if (optopt) {
		char short_name[3] = { '-', (char)optopt, 0 };
		return bad("unknown option '%s'", short_name);
	}
	const char *nearest = nearest_option(arg);
	if (nearest) {
		LOG_ERR("unknown option '%s': did you mean --%s? (see wl-record --help)", arg,
			nearest);
		return OPTIONS_BAD;
	}
	return bad("unknown option '%s'", arg);
}

/* The checks across options, run in this order once all are read: each
 * refuses one combination with one line, or lets it through. */

static enum options_result check_still_is_png(const struct options *options)
{
	if (options->screenshot && options->output && !path_has_extension(options->output, "png"))
		return bad("--screenshot writes PNG: '%s' does not end in .png", options->output);
	return OPTIONS_RUN;
}

static enum options_result check_one_request(const struct options *options)
{
	if (options->snap + options->stop + options->toggle > 1)
		return bad("%s", "--snap, --stop and --toggle are separate requests; give one");
	return OPTIONS_RUN;
}

static enum options_result check_stats_not_in_video(const struct options *options)
{
	if (options->stats_fd == 1 && options->output && strcmp(options->output, "-") == 0)
		return bad("%s", "--stats-fd 1 and FILE '-': the video is on stdout");
	return OPTIONS_RUN;
}

static bool hosts(const struct options *options)
{
	return options->command || options->socket_name;
}

static enum options_result check_copy_hosts_nothing(const struct options *options)
{
	if (capture_method_copies(options->capture) && hosts(options))
		return bad("%s", "--capture screencopy (ext-image-copy, wlr-screencopy) copies the "
			   "desktop: it hosts no COMMAND and opens no --socket");
	return OPTIONS_RUN;
}

static enum options_result check_pipewire_alone(const struct options *options)
{
	if (options->capture == CAPTURE_PIPEWIRE &&
	    (hosts(options) || options->output_name || options->region))
		return bad("%s", "--capture pipewire=NODE records a PipeWire node: it hosts no "
			   "COMMAND, opens no --socket and takes no -o or -g");
	return OPTIONS_RUN;
}

static enum options_result check_portal_alone(const struct options *options)
{
	if (options->capture == CAPTURE_PORTAL &&
	    (hosts(options) || options->output_name || options->region))
		return bad("%s", "--capture portal records what is chosen in the desktop's dialog: "
			   "it hosts no COMMAND, opens no --socket and takes no -o or -g");
	return OPTIONS_RUN;
}

static enum options_result check_forget_portal_alone(const struct options *options)
{
	if (options->forget_portal &&
	    (options->output || options->command || options->snap || options->stop ||
	     options->toggle || options->screenshot || options->list_outputs ||
	     options->list_encoders || options->capture != CAPTURE_AUTO))
		return bad("%s", "--forget-portal only drops the screen or window remembered for the "
			   "portal: give it alone");
	return OPTIONS_RUN;
}

/* They pick part of the desktop: only a copied desktop has one. */
static enum options_result check_part_of_copy(const struct options *options)
{
	if ((options->output_name || options->region) &&
	    (options->capture == CAPTURE_LISTEN || hosts(options)))
		return bad("%s", "-o and -g pick part of the desktop being copied: they do not "
			   "go with --capture listen, --socket or a COMMAND");
	return OPTIONS_RUN;
}

/* The pointer: a copied desktop's is drawn in unless --no-cursor; a hosted
 * app's only with --window (wl-record's own seat then) and --cursor. */
static enum options_result check_cursor(const struct options *options)
{
	if (options->cursor && options->no_cursor)
		return bad("%s", "--cursor and --no-cursor contradict each other: give one");
	if (options->no_cursor && (hosts(options) || options->capture == CAPTURE_LISTEN))
		return bad("%s", "--no-cursor leaves the pointer out of a copied desktop; a hosted "
			   "app's pointer is left out already (--window --cursor draws it in)");
	if (options->cursor && !options->window)
		return bad("%s", "--cursor draws the pointer of the app --window hosts: add --window "
			   "(a copied desktop's pointer is drawn in unless --no-cursor)");
	return OPTIONS_RUN;
}

/* --app-audio records sound as --audio does, as one more source (the first
 * track): refused where --audio is. */
static enum options_result check_audio(const struct options *options)
{
	bool any_audio = options->audio || options->app_audio;
	int audio_sources = options->audio_source_count + (options->app_audio ? 1 : 0);
	const char *audio_option = options->audio ? "--audio" : "--app-audio";
	if ((options->audio_mix || options->audio_codec || options->audio_bitrate) && !any_audio)
		return bad("%s", options->audio_mix ? "--audio-mix needs two sources or more "
			   "(--audio, --app-audio)"
			   : options->audio_codec ? "--audio-codec needs --audio or --app-audio"
			   : "--audio-bitrate needs --audio or --app-audio");
	if (options->audio_mix && audio_sources < 2)
		return bad("%s", "--audio-mix needs two sources or more (--audio, --app-audio)");
	if (any_audio && options->screenshot)
		return bad("%s records sound with a video: a still (--screenshot, .png) has none",
			   audio_option);
	if (any_audio && (options->snap || options->stop))
		return bad("%s is for a new recording, not for --snap or --stop", audio_option);
	if (options->mute_app && !options->app_audio)
		return bad("%s", "--mute-app keeps the sound --app-audio records from the speakers: "
			   "give --app-audio too");
	if (options->app_audio && !options->command)
		return bad("%s", "--app-audio records the sound of the command wl-record runs: "
			   "give it after '--'");
	if (audio_sources > OPTIONS_MAX_AUDIO_SOURCES)
		return bad("%s", "too many sources: at most 4 (--audio and --app-audio together)");
	return OPTIONS_RUN;
}

static enum options_result check_toggle_not_still(const struct options *options)
{
	if (options->toggle && options->screenshot)
		return bad("%s", "--toggle starts or stops a recording, not a still");
	return OPTIONS_RUN;
}

/* --window shows a hosted COMMAND's recording as it is made. */
static enum options_result check_window(const struct options *options)
{
	if (!options->window)
		return OPTIONS_RUN;
	if (options->snap || options->stop)
		return bad("%s", "--window is for a new recording, not for --snap or --stop");
	if (options->screenshot)
		return bad("%s", "--window shows a recording as it is made: a still (--screenshot, "
			   ".png) has none");
	if (capture_method_copies(options->capture))
		return bad("%s", "--window shows a hosted COMMAND; --capture screencopy (ext-image-copy, "
			   "wlr-screencopy) copies the desktop the window would be on");
	if (!options->command)
		return bad("%s", "--window needs an app to host: give it after '--' "
			   "(wl-record --window demo.mkv -- APP)");
	return OPTIONS_RUN;
}

/* Binary video would scramble the terminal: almost always a mistake. */
static enum options_result check_video_not_to_terminal(const struct options *options)
{
	if (options->output && strcmp(options->output, "-") == 0 && !options->screenshot &&
	    !options->snap && !options->stop && !options->list_encoders && isatty(STDOUT_FILENO))
		return bad("%s", "FILE '-' writes the video to standard output, which is a terminal: "
			   "redirect it (wl-record - > out.mkv, or | a player) or give a file name");
	return OPTIONS_RUN;
}

static enum options_result (*const checks[])(const struct options *options) = {
	check_still_is_png, check_one_request, check_stats_not_in_video,
	check_copy_hosts_nothing, check_pipewire_alone, check_portal_alone,
	check_forget_portal_alone, check_part_of_copy, check_cursor, check_audio,
	check_toggle_not_still, check_window, check_video_not_to_terminal,
};

/* Everything after "--" is the command to run, untouched by getopt's
 * permutation: returns how many words getopt sees. */
static int split_command(int argc, char **argv, struct options *options)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			if (i + 1 < argc)
				options->command = &argv[i + 1];
			return i;
		}
	}
	return argc;
}

enum options_result options_parse(int argc, char **argv, struct options *options)
{
	*options = (struct options){
		.width = 1920, .height = 1080, .fps = WL_RECORD_DEFAULT_FPS, .timeout_s = 10, .crf = -1,
		.stats_fd = -1,
	};
	int parse_argc = split_command(argc, argv, options);
	if (parse_argc < argc && !options->command)
		return bad("%s", "nothing after '--': give a command to run");

	struct getopt_table table;
	build_getopt_table(&table);
	opterr = 0;
	optind = 0; /* 0, not 1: glibc then also forgets a half-read "-abc" of a previous parse */
	int c;
	while ((c = getopt_long(parse_argc, argv, table.short_options, table.long_options,
				NULL)) != -1) {
		if (c == ':')
			return bad("option '%s' needs a value", argv[optind - 1]);
		const struct option_spec *spec = spec_of(c);
		if (!spec)
			return unknown_option(argv[optind - 1]);
		enum options_result result = spec->parse(spec, optarg, options);
		if (result != OPTIONS_RUN)
			return result;
	}

	for (int i = optind; i < parse_argc; i++) {
		if (options->output)
			return bad("unexpected argument '%s': only one output file", argv[i]);
		options->output = argv[i];
	}
	if (options->output && path_has_extension(options->output, "png"))
		options->screenshot = true;
	for (size_t i = 0; i < ARRAY_LENGTH(checks); i++) {
		enum options_result result = checks[i](options);
		if (result != OPTIONS_RUN)
			return result;
	}
	return OPTIONS_RUN;
}
