/* The command line: values land where they should, and every bad input is
 * refused (the program turns OPTIONS_BAD into exit status 2). */
#include <stdio.h>
#include <string.h>

#include "options.h"
#include "test-runner.h"


static enum options_result parse(int argc, char **argv, struct options *options)
{
	return options_parse(argc, argv, options);
}

#define PARSE(opts, ...)                                                                  \
	({                                                                                 \
		char *argv_[] = { "wl-record", __VA_ARGS__, NULL };                        \
		parse((int)(sizeof(argv_) / sizeof(argv_[0])) - 1, argv_, (opts));          \
	})

TEST(defaults)
{
	struct options o;
	test_assert(PARSE(&o, "out.mkv") == OPTIONS_RUN);
	test_assert(strcmp(o.output, "out.mkv") == 0);
	test_assert(!o.screenshot);
	test_assert(o.width == 1920 && o.height == 1080);
	test_assert(o.fps == 60);
	test_assert(o.crf == -1 && o.bitrate == 0);
	test_assert(o.command == NULL);
	test_assert(o.codec_params[0] == NULL);
}

TEST(values)
{
	struct options o;
	test_assert(PARSE(&o, "--size", "641x479", "--fps", "30", "--socket", "rec", "-p", "preset=slow",
		     "-p", "tune=film", "--bitrate", "2500k", "--crf", "18", "--cfr", "--duration",
		     "1.5", "--frames", "42", "--codec", "libx264", "-f", "a.mp4") == OPTIONS_RUN);
	test_assert(o.width == 641 && o.height == 479);
	test_assert(o.fps == 30);
	test_assert(strcmp(o.socket_name, "rec") == 0);
	test_assert(strcmp(o.codec_params[0], "preset=slow") == 0);
	test_assert(strcmp(o.codec_params[1], "tune=film") == 0 && o.codec_params[2] == NULL);
	test_assert(o.bitrate == 2500000);
	test_assert(o.crf == 18 && o.cfr);
	test_assert(o.duration_s == 1.5 && o.max_frames == 42);
	test_assert(strcmp(o.codec, "libx264") == 0 && strcmp(o.output, "a.mp4") == 0);

	test_assert(PARSE(&o, "--bitrate", "8M", "x.mkv") == OPTIONS_RUN && o.bitrate == 8000000);
}

TEST(screenshot_by_extension)
{
	struct options o;
	test_assert(PARSE(&o, "shot.PNG") == OPTIONS_RUN && o.screenshot);
	test_assert(PARSE(&o, "--file", "dir.png/x.mkv") == OPTIONS_RUN && !o.screenshot);
	test_assert(PARSE(&o, "--screenshot") == OPTIONS_RUN && o.screenshot && !o.output);
	test_assert(PARSE(&o, "--screenshot", "--delay", "2", "--timeout", "3", "s.png") == OPTIONS_RUN);
	test_assert(o.delay_s == 2 && o.timeout_s == 3);
}

TEST(command)
{
	struct options o;
	/* getopt must not take the command's own options. The command points
	 * into argv, so argv must outlive the checks. */
	char *argv[] = { "wl-record", "out.mkv", "--", "weston", "--backend=wayland-backend.so",
			 "-x", NULL };
	test_assert(options_parse(6, argv, &o) == OPTIONS_RUN);
	test_assert(strcmp(o.output, "out.mkv") == 0);
	test_assert(o.command && strcmp(o.command[0], "weston") == 0);
	test_assert(strcmp(o.command[1], "--backend=wayland-backend.so") == 0);
	test_assert(strcmp(o.command[2], "-x") == 0 && o.command[3] == NULL);
}

TEST(bad)
{
	struct options o;
	/* Each of these must be refused with one line on stderr. */
	test_assert(PARSE(&o, "--nope") == OPTIONS_BAD);
	test_assert(PARSE(&o, "-Z") == OPTIONS_BAD);
	test_assert(PARSE(&o, "--size", "0x10") == OPTIONS_BAD);
	test_assert(PARSE(&o, "--size", "640") == OPTIONS_BAD);
	test_assert(PARSE(&o, "--size", "20000x10") == OPTIONS_BAD);
	test_assert(PARSE(&o, "--size", "64x48junk") == OPTIONS_BAD);
	test_assert(PARSE(&o, "--fps", "0") == OPTIONS_BAD);
	test_assert(PARSE(&o, "--fps", "abc") == OPTIONS_BAD);
	test_assert(PARSE(&o, "--fps", "nan") == OPTIONS_BAD);
	test_assert(PARSE(&o, "--crf", "-1") == OPTIONS_BAD);
	test_assert(PARSE(&o, "--crf", "99") == OPTIONS_BAD);
	test_assert(PARSE(&o, "--bitrate", "fast") == OPTIONS_BAD);
	test_assert(PARSE(&o, "--bitrate", "-5M") == OPTIONS_BAD);
	test_assert(PARSE(&o, "--duration", "0") == OPTIONS_BAD);
	test_assert(PARSE(&o, "--frames", "1.5") == OPTIONS_BAD);
	test_assert(PARSE(&o, "-p", "novalue") == OPTIONS_BAD);
	test_assert(PARSE(&o, "-p", "=x") == OPTIONS_BAD);
	test_assert(PARSE(&o, "--socket", "a/b") == OPTIONS_BAD);
	test_assert(PARSE(&o, "a.mkv", "b.mkv") == OPTIONS_BAD);
	test_assert(PARSE(&o, "--screenshot", "a.mkv") == OPTIONS_BAD);
	test_assert(PARSE(&o, "a.mkv", "--") == OPTIONS_BAD);
	test_assert(PARSE(&o, "--snap", "--stop") == OPTIONS_BAD);
	test_assert(PARSE(&o, "--fps") == OPTIONS_BAD);
}

/* -o is the monitor, as in grim and wf-recorder; the file is FILE or -f. */
TEST(output_is_a_monitor)
{
	struct options o;
	test_assert(PARSE(&o, "-o", "HDMI-A-1", "out.mkv") == OPTIONS_RUN);
	test_assert(strcmp(o.output_name, "HDMI-A-1") == 0 && strcmp(o.output, "out.mkv") == 0);
	test_assert(PARSE(&o, "--output", "DP-2") == OPTIONS_RUN && !o.output);
	test_assert(strcmp(o.output_name, "DP-2") == 0);
	test_assert(PARSE(&o, "-f", "x.mkv") == OPTIONS_RUN && strcmp(o.output, "x.mkv") == 0);
	test_assert(!o.output_name);
	test_assert(PARSE(&o, "--file", "shot.png") == OPTIONS_RUN && o.screenshot);
	/* Yesterday's -o FILE gets a hint, not a monitor named "out.mkv". */
	test_assert(PARSE(&o, "-o", "out.mkv") == OPTIONS_BAD);
	test_assert(PARSE(&o, "--output", "shot.PNG") == OPTIONS_BAD);
	test_assert(PARSE(&o, "--output=a.webm") == OPTIONS_BAD);
	test_assert(PARSE(&o, "-o", "videos/today") == OPTIONS_BAD);
	test_assert(PARSE(&o, "-o", "-") == OPTIONS_BAD);
	test_assert(PARSE(&o, "-f", "a.mkv", "b.mkv") == OPTIONS_BAD);
	test_assert(PARSE(&o, "-f", "a.mkv", "-f", "b.mkv") == OPTIONS_BAD);
	test_assert(PARSE(&o, "-o", "DP-1", "--", "weston") == OPTIONS_BAD);
	test_assert(PARSE(&o, "-o", "DP-1", "--capture", "listen") == OPTIONS_BAD);
	test_assert(PARSE(&o, "--list-outputs") == OPTIONS_RUN && o.list_outputs);
}

TEST(region)
{
	struct options o;
	test_assert(PARSE(&o, "out.mkv") == OPTIONS_RUN && !o.region);
	test_assert(PARSE(&o, "-g", "10,20 300x200", "out.mkv") == OPTIONS_RUN && o.region);
	test_assert(o.region_x == 10 && o.region_y == 20);
	test_assert(o.region_width == 300 && o.region_height == 200);
	/* An output left of or above the origin. */
	test_assert(PARSE(&o, "--geometry", "-1920,-5 1x1") == OPTIONS_RUN);
	test_assert(o.region_x == -1920 && o.region_y == -5 && o.region_width == 1);
	test_assert(PARSE(&o, "-g", "10,20") == OPTIONS_BAD);
	test_assert(PARSE(&o, "-g", "10,20 300") == OPTIONS_BAD);
	test_assert(PARSE(&o, "-g", "10,20 0x200") == OPTIONS_BAD);
	test_assert(PARSE(&o, "-g", "10,20 -3x200") == OPTIONS_BAD);
	test_assert(PARSE(&o, "-g", "10,20 300x200 ") == OPTIONS_BAD);
	test_assert(PARSE(&o, "-g", "10 20 300x200") == OPTIONS_BAD);
	test_assert(PARSE(&o, "-g", "10,20 300x200", "-s", "--socket", "x") == OPTIONS_BAD);
}

TEST(cursor)
{
	struct options o;
	test_assert(PARSE(&o, "out.mkv") == OPTIONS_RUN && !o.no_cursor);
	test_assert(PARSE(&o, "--no-cursor", "out.mkv") == OPTIONS_RUN && o.no_cursor);
	/* --cursor: the pointer of the app --window hosts, drawn in. */
	test_assert(PARSE(&o, "--window", "--cursor", "out.mkv", "--", "app") == OPTIONS_RUN &&
		    o.cursor && o.window && !o.no_cursor);
	test_assert(PARSE(&o, "--window", "out.mkv", "--", "app") == OPTIONS_RUN && !o.cursor);
	/* Without --window there is no pointer of wl-record's own to draw. */
	test_assert(PARSE(&o, "--cursor", "out.mkv", "--", "app") == OPTIONS_BAD);
	test_assert(PARSE(&o, "--cursor", "out.mkv") == OPTIONS_BAD);
	test_assert(PARSE(&o, "--cursor", "--capture", "listen", "out.mkv") == OPTIONS_BAD);
	test_assert(PARSE(&o, "--cursor", "--capture", "screencopy", "out.mkv") == OPTIONS_BAD);
	test_assert(PARSE(&o, "--cursor", "--window", "--screenshot", "--", "app") == OPTIONS_BAD);
	/* The two contradict each other. */
	test_assert(PARSE(&o, "--cursor", "--no-cursor", "--window", "out.mkv", "--", "app") ==
		    OPTIONS_BAD);
	/* A hosted app's pointer is left out already: --no-cursor is for a copy. */
	test_assert(PARSE(&o, "--no-cursor", "out.mkv", "--", "app") == OPTIONS_BAD);
	test_assert(PARSE(&o, "--no-cursor", "--socket", "s", "out.mkv") == OPTIONS_BAD);
	test_assert(PARSE(&o, "--no-cursor", "--capture", "listen", "out.mkv") == OPTIONS_BAD);
	test_assert(PARSE(&o, "--no-cursor", "--capture", "portal", "out.mkv") == OPTIONS_RUN);
}

TEST(extension)
{
	test_assert(path_has_extension("a.mkv", "mkv"));
	test_assert(path_has_extension("/x.y/a.MKV", "mkv"));
	test_assert(!path_has_extension("a.mkv.tmp", "mkv"));
	test_assert(!path_has_extension("dir.mkv/file", "mkv"));
	test_assert(!path_has_extension("mkv", "mkv"));
}

/* Found by fuzz/fuzz_options.c (fuzz/regressions/options): a parse that
 * stopped inside "-Zpx=1" left getopt pointing into that argv, and the next
 * parse took "-p x=1" from it (freed memory in the fuzzer) instead of its
 * own arguments. */
TEST(reparse_after_error_mid_cluster)
{
	struct options o;
	test_assert(PARSE(&o, "-Zpx=1") == OPTIONS_BAD);
	test_assert(PARSE(&o, "out.mkv") == OPTIONS_RUN);
	test_assert(o.output && strcmp(o.output, "out.mkv") == 0);
	test_assert(o.codec_params[0] == NULL);
}
