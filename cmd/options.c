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

enum {
	OPT_SIZE = 256, OPT_FPS, OPT_SOCKET, OPT_TIMEOUT, OPT_DURATION, OPT_FRAMES, OPT_CODEC,
	OPT_DEVICE, OPT_BITRATE, OPT_CRF, OPT_CFR, OPT_LIST_ENCODERS, OPT_SNAP, OPT_STOP,
	OPT_PID_FILE, OPT_DELAY,
	OPT_TOGGLE,
	OPT_NO_FULLSCREEN_SHELL, OPT_BACKGROUND, OPT_COMPOSE_ALL, OPT_STATS_FD,
	OPT_CAPTURE, OPT_LIST_OUTPUTS, OPT_NO_CURSOR, OPT_AUDIO, OPT_APP_AUDIO, OPT_MUTE_APP,
	OPT_AUDIO_MIX, OPT_AUDIO_CODEC, OPT_AUDIO_BITRATE,
	OPT_WINDOW, OPT_FORGET_PORTAL, OPT_CURSOR,
};

static const struct option long_options[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "file", required_argument, NULL, 'f' },
	{ "geometry", required_argument, NULL, 'g' },
	{ "list-outputs", no_argument, NULL, OPT_LIST_OUTPUTS },
	{ "no-cursor", no_argument, NULL, OPT_NO_CURSOR },
	{ "cursor", no_argument, NULL, OPT_CURSOR },
	{ "audio", optional_argument, NULL, OPT_AUDIO },
	{ "app-audio", no_argument, NULL, OPT_APP_AUDIO },
	{ "mute-app", no_argument, NULL, OPT_MUTE_APP },
	{ "audio-mix", no_argument, NULL, OPT_AUDIO_MIX },
	{ "audio-codec", required_argument, NULL, OPT_AUDIO_CODEC },
	{ "audio-bitrate", required_argument, NULL, OPT_AUDIO_BITRATE },
	{ "screenshot", no_argument, NULL, 's' },
	{ "size", required_argument, NULL, OPT_SIZE },
	{ "fps", required_argument, NULL, OPT_FPS },
	{ "socket", required_argument, NULL, OPT_SOCKET },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "delay", required_argument, NULL, OPT_DELAY },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "frames", required_argument, NULL, OPT_FRAMES },
	{ "codec", required_argument, NULL, OPT_CODEC },
	{ "device", required_argument, NULL, OPT_DEVICE },
	{ "bitrate", required_argument, NULL, OPT_BITRATE },
	{ "crf", required_argument, NULL, OPT_CRF },
	{ "codec-param", required_argument, NULL, 'p' },
	{ "cfr", no_argument, NULL, OPT_CFR },
	{ "overwrite", no_argument, NULL, 'y' },
	{ "list-encoders", no_argument, NULL, OPT_LIST_ENCODERS },
	{ "snap", no_argument, NULL, OPT_SNAP },
	{ "stop", no_argument, NULL, OPT_STOP },
	{ "toggle", no_argument, NULL, OPT_TOGGLE },
	{ "pid-file", required_argument, NULL, OPT_PID_FILE },
	{ "no-fullscreen-shell", no_argument, NULL, OPT_NO_FULLSCREEN_SHELL },
	{ "background", required_argument, NULL, OPT_BACKGROUND },
	{ "compose-all", no_argument, NULL, OPT_COMPOSE_ALL },
	{ "stats-fd", required_argument, NULL, OPT_STATS_FD },
	{ "capture", required_argument, NULL, OPT_CAPTURE },
	{ "window", no_argument, NULL, OPT_WINDOW },
	{ "forget-portal", no_argument, NULL, OPT_FORGET_PORTAL },
	{ "verbose", no_argument, NULL, 'v' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ 0 },
};

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

/* The long option `arg` ("--durtion" or "--durtion=3") was probably meant
 * as: one within two edits (one for short names), else NULL. */
static const char *nearest_option(const char *arg)
{
	if (strncmp(arg, "--", 2) != 0)
		return NULL;
	const char *name = arg + 2;
	size_t len = strcspn(name, "=");
	const char *best = NULL;
	size_t best_distance = SIZE_MAX;
	for (const struct option *option = long_options; option->name; option++) {
		size_t distance = edit_distance(name, len, option->name);
		if (distance < best_distance) {
			best_distance = distance;
			best = option->name;
		}
	}
	size_t limit = len <= 4 ? 1 : 2;
	return best_distance <= limit ? best : NULL;
}

static enum options_result bad(const char *fmt, const char *arg)
{
	fputs("wl-record: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs(" (see wl-record --help)\n", stderr);
	return OPTIONS_BAD;
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

/* --window shows a hosted COMMAND's recording as it is made. */
static enum options_result check_window(const struct options *options)
{
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

enum options_result options_parse(int argc, char **argv, struct options *options)
{
	*options = (struct options){
		.width = 1920, .height = 1080, .fps = WL_RECORD_DEFAULT_FPS, .timeout_s = 10, .crf = -1,
		.stats_fd = -1,
	};

	/* Everything after "--" is the command to run, untouched by getopt's
	 * permutation. */
	int parse_argc = argc;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			parse_argc = i;
			if (i + 1 < argc)
				options->command = &argv[i + 1];
			else
				return bad("%s", "nothing after '--': give a command to run");
			break;
		}
	}

	int n_params = 0;
	opterr = 0;
	optind = 0; /* 0, not 1: glibc then also forgets a half-read "-abc" of a previous parse */
	int c;
	while ((c = getopt_long(parse_argc, argv, ":o:f:g:sp:yvqhV", long_options, NULL)) != -1) {
		int64_t i64;
		switch (c) {
		case 'o':
			if (looks_like_file(optarg)) {
				fprintf(stderr, "wl-record: -o picks a monitor now (like grim and "
					"wf-recorder); give the file as the argument or with -f\n");
				return OPTIONS_BAD;
			}
			options->output_name = optarg;
			break;
		case 'f':
			if (options->output)
				return bad("-f '%s': only one output file", optarg);
			options->output = optarg;
			break;
		case 'g':
			if (!parse_region(optarg, options))
				return bad("invalid -g '%s': expected \"X,Y WxH\" as slurp prints it", optarg);
			break;
		case OPT_LIST_OUTPUTS:
			options->list_outputs = true;
			break;
		case OPT_NO_CURSOR:
			options->no_cursor = true;
			break;
		case OPT_CURSOR:
			options->cursor = true;
			break;
		case OPT_AUDIO:
			if (optarg && !audio_source_valid(optarg))
				return bad("invalid --audio '%s': expected a source name as `pactl list "
					   "short sources` prints it (or --audio alone: what the "
					   "desktop plays)", optarg);
			for (int i = 0; i < options->audio_source_count; i++)
				if (!options->audio_sources[i] == !optarg &&
				    (!optarg || strcmp(options->audio_sources[i], optarg) == 0))
					return optarg ? bad("--audio=%s given twice: a source is "
							    "recorded once", optarg)
						      : bad("%s", "--audio given twice: a source is "
							    "recorded once");
			if (options->audio_source_count == OPTIONS_MAX_AUDIO_SOURCES)
				return bad("%s", "too many --audio: at most 4 sources");
			options->audio = true;
			options->audio_sources[options->audio_source_count++] = optarg;
			break;
		case OPT_AUDIO_MIX:
			options->audio_mix = true;
			break;
		case OPT_AUDIO_CODEC: /* checked against the container before anything starts */
			options->audio_codec = optarg;
			break;
		case OPT_AUDIO_BITRATE:
			/* Opus takes 6 to 510 kb/s; AAC goes as high. */
			if (!parse_bitrate(optarg, &options->audio_bitrate) ||
			    options->audio_bitrate < 6000 || options->audio_bitrate > 510000)
				return bad("invalid --audio-bitrate '%s': expected e.g. 96k or 128000, "
					   "6k to 510k", optarg);
			break;
		case OPT_APP_AUDIO:
			options->app_audio = true;
			break;
		case OPT_MUTE_APP:
			options->mute_app = true;
			break;
		case 's':
			options->screenshot = true;
			break;
		case OPT_SIZE:
			if (!parse_size(optarg, &options->width, &options->height))
				return bad("invalid --size '%s': expected WxH, 1 to 16384 each", optarg);
			break;
		case OPT_FPS:
			if (!parse_double(optarg, 1, 1000, &options->fps))
				return bad("invalid --fps '%s': expected a number from 1 to 1000", optarg);
			break;
		case OPT_SOCKET:
			if (!*optarg || strchr(optarg, '/'))
				return bad("invalid --socket '%s': expected a name without '/'", optarg);
			options->socket_name = optarg;
			break;
		case OPT_TIMEOUT:
			if (!parse_double(optarg, 0.001, 1e6, &options->timeout_s))
				return bad("invalid --timeout '%s': expected seconds > 0", optarg);
			break;
		case OPT_DELAY:
			if (!parse_double(optarg, 0, 1e6, &options->delay_s))
				return bad("invalid --delay '%s': expected seconds >= 0", optarg);
			break;
		case OPT_DURATION:
			if (!parse_double(optarg, 0.001, 1e9, &options->duration_s))
				return bad("invalid --duration '%s': expected seconds > 0", optarg);
			break;
		case OPT_FRAMES:
			if (!parse_int64(optarg, 1, INT64_MAX, &options->max_frames))
				return bad("invalid --frames '%s': expected a whole number >= 1", optarg);
			break;
		case OPT_CODEC:
			options->codec = optarg;
			break;
		case OPT_DEVICE:
			options->device = optarg;
			break;
		case OPT_BITRATE:
			if (!parse_bitrate(optarg, &options->bitrate))
				return bad("invalid --bitrate '%s': expected e.g. 8M, 2500k or 800000", optarg);
			break;
		case OPT_CRF:
			if (!parse_int64(optarg, 0, 63, &i64))
				return bad("invalid --crf '%s': expected a whole number from 0 to 63", optarg);
			options->crf = (int)i64;
			break;
		case 'p':
			if (!strchr(optarg, '=') || optarg[0] == '=')
				return bad("invalid -p '%s': expected KEY=VALUE", optarg);
			if (n_params == OPTIONS_MAX_CODEC_PARAMS)
				return bad("%s", "too many -p options");
			options->codec_params[n_params++] = optarg;
			break;
		case OPT_CFR:
			options->cfr = true;
			break;
		case OPT_LIST_ENCODERS:
			options->list_encoders = true;
			break;
		case OPT_SNAP:
			options->snap = true;
			break;
		case OPT_STOP:
			options->stop = true;
			break;
		case OPT_TOGGLE:
			options->toggle = true;
			break;
		case OPT_PID_FILE:
			options->pid_file = optarg;
			break;
		case 'y':
			options->overwrite = true;
			break;
		case OPT_NO_FULLSCREEN_SHELL:
			options->no_fullscreen_shell = true;
			break;
		case OPT_BACKGROUND:
			if (!parse_color(optarg, &options->background))
				return bad("--background: '%s' is not a colour (#rrggbb, black, white, gray)",
					   optarg);
			break;
		case OPT_COMPOSE_ALL:
			options->compose_all = true;
			break;
		case OPT_WINDOW:
			options->window = true;
			break;
		case OPT_FORGET_PORTAL:
			options->forget_portal = true;
			break;
		case OPT_STATS_FD:
			if (!parse_int64(optarg, 0, INT_MAX, &i64))
				return bad("invalid --stats-fd '%s': expected a file descriptor number", optarg);
			/* Checked now: the summary must not be lost at the end. */
			if (fcntl((int)i64, F_GETFD) < 0)
				return bad("--stats-fd %s: not an open file descriptor", optarg);
			options->stats_fd = (int)i64;
			break;
		case OPT_CAPTURE:
			if (strncmp(optarg, "pipewire=", strlen("pipewire=")) == 0) {
				options->capture = CAPTURE_PIPEWIRE;
				options->pipewire_node = optarg + strlen("pipewire=");
				if (!options->pipewire_node[0])
					return bad("%s", "--capture pipewire=NODE: give the node's id, "
						   "name or serial");
			} else if (!capture_method_parse(optarg, &options->capture)) {
				return bad("invalid --capture '%s': expected screencopy, ext-image-copy, "
					   "wlr-screencopy, portal, listen or pipewire=NODE", optarg);
			}
			break;
		case 'v':
			options->verbosity = 1;
			break;
		case 'q':
			options->verbosity = -1;
			break;
		case 'h':
			print_help(stdout);
			return OPTIONS_DONE;
		case 'V':
			print_version(stdout);
			return OPTIONS_DONE;
		case ':':
			return bad("option '%s' needs a value", argv[optind - 1]);
		default:
			if (optopt) {
				char short_name[3] = { '-', (char)optopt, 0 };
				return bad("unknown option '%s'", short_name);
			}
			const char *nearest = nearest_option(argv[optind - 1]);
			if (nearest) {
				fprintf(stderr, "wl-record: unknown option '%s': did you mean --%s?"
					" (see wl-record --help)\n", argv[optind - 1], nearest);
				return OPTIONS_BAD;
			}
			return bad("unknown option '%s'", argv[optind - 1]);
		}
	}

	for (int i = optind; i < parse_argc; i++) {
		if (options->output)
			return bad("unexpected argument '%s': only one output file", argv[i]);
		options->output = argv[i];
	}
	if (options->output && path_has_extension(options->output, "png"))
		options->screenshot = true;
	if (options->screenshot && options->output && !path_has_extension(options->output, "png"))
		return bad("--screenshot writes PNG: '%s' does not end in .png", options->output);
	if (options->snap + options->stop + options->toggle > 1)
		return bad("%s", "--snap, --stop and --toggle are separate requests; give one");
	if (options->stats_fd == 1 && options->output && strcmp(options->output, "-") == 0)
		return bad("%s", "--stats-fd 1 and FILE '-': the video is on stdout");
	if (capture_method_copies(options->capture) && (options->command || options->socket_name))
		return bad("%s", "--capture screencopy (ext-image-copy, wlr-screencopy) copies the "
			   "desktop: it hosts no COMMAND and opens no --socket");
	if (options->capture == CAPTURE_PIPEWIRE &&
	    (options->command || options->socket_name || options->output_name || options->region))
		return bad("%s", "--capture pipewire=NODE records a PipeWire node: it hosts no "
			   "COMMAND, opens no --socket and takes no -o or -g");
	if (options->capture == CAPTURE_PORTAL &&
	    (options->command || options->socket_name || options->output_name || options->region))
		return bad("%s", "--capture portal records what is chosen in the desktop's dialog: "
			   "it hosts no COMMAND, opens no --socket and takes no -o or -g");
	if (options->forget_portal &&
	    (options->output || options->command || options->snap || options->stop ||
	     options->toggle || options->screenshot || options->list_outputs ||
	     options->list_encoders || options->capture != CAPTURE_AUTO))
		return bad("%s", "--forget-portal only drops the screen or window remembered for the "
			   "portal: give it alone");
	/* They pick part of the desktop: only a copied desktop has one. */
	if ((options->output_name || options->region) &&
	    (options->capture == CAPTURE_LISTEN || options->command || options->socket_name))
		return bad("%s", "-o and -g pick part of the desktop being copied: they do not "
			   "go with --capture listen, --socket or a COMMAND");
	/* The pointer: a copied desktop's is drawn in unless --no-cursor; a
	 * hosted app's only with --window (wl-record's own seat then) and
	 * --cursor. */
	if (options->cursor && options->no_cursor)
		return bad("%s", "--cursor and --no-cursor contradict each other: give one");
	if (options->no_cursor &&
	    (options->command || options->socket_name || options->capture == CAPTURE_LISTEN))
		return bad("%s", "--no-cursor leaves the pointer out of a copied desktop; a hosted "
			   "app's pointer is left out already (--window --cursor draws it in)");
	if (options->cursor && !options->window)
		return bad("%s", "--cursor draws the pointer of the app --window hosts: add --window "
			   "(a copied desktop's pointer is drawn in unless --no-cursor)");
	/* --app-audio records sound as --audio does, as one more source (the
	 * first track): refused where --audio is. */
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
	if (options->toggle && options->screenshot)
		return bad("%s", "--toggle starts or stops a recording, not a still");
	if (options->window) {
		enum options_result window_check = check_window(options);
		if (window_check != OPTIONS_RUN)
			return window_check;
	}
	/* Binary video would scramble the terminal: almost always a mistake. */
	if (options->output && strcmp(options->output, "-") == 0 && !options->screenshot &&
	    !options->snap && !options->stop && !options->list_encoders && isatty(STDOUT_FILENO))
		return bad("%s", "FILE '-' writes the video to standard output, which is a terminal: "
			   "redirect it (wl-record - > out.mkv, or | a player) or give a file name");
	return OPTIONS_RUN;
}
