/* video-check: asserts what a recording written by wl-record holds, decoding
 * it with an independent reader (tests/common/media.c).
 *
 *   video-check FILE [--size WxH] [--frames N | --min-frames N] [--max-frames N]
 *               [--times FILE [--pts-median-late-ms T]] [--pattern [--min-psnr DB]]
 *               [--pixel X,Y,RRGGBB,TOL]... [--expect-tags] [--container NAME]
 *               [--min-duration-ms D] [--cfr-ms STEP] [--commits N]
 *               [--end-repeat] [--stats FILE [--max-held-ms T]]
 *               [--fixed-background]
 *
 * Always checked: the file decodes, has at least one frame, and presentation
 * times strictly increase. --times reads the presenter's commit times
 * ("INDEX NANOSECONDS" per line): frame i must be presenter frame i, and its
 * PTS must follow its commit time: wl-record stamps a frame when it reads
 * the commit, never before the presenter made it. Against the frame read
 * most promptly, each frame may be later, but not past the next commit, and
 * the median lateness must be at most --pts-median-late-ms (default 1): a
 * loaded machine delays a few reads, a wrong clock shifts most frames.
 * --pattern compares each
 * frame i with frame INDEX(i) of tests/pattern.h by PSNR (without --times,
 * frame i is pattern frame i or, where commits were replaced before they
 * were recorded, a later one, in increasing order). --commits N (with
 * --pattern): the presenter committed N frames and every one is accounted
 * for: recorded, or replaced by a newer one that is (a loaded machine may
 * make wl-record read two commits at once; that is by design), and the
 * last frame is the last commit. A frame lost for another reason, or an
 * end cut short, fails.
 * --stats FILE (wl-record's --stats-fd summary; with --times or --pattern):
 * a commit missing from the file must be one wl-record says it replaced
 * (frames_replaced: outrun by a newer picture in the same --fps period, or
 * while the encoder's queue was full) or could not read
 * (frames_unreadable): the file alone cannot tell a replaced commit from a
 * lost one, so the count must be exactly the commits missing, or the test
 * fails. With --times, each replaced commit says how long wl-record was held
 * up (from that commit to the time of the next recorded frame); more than
 * --max-held-ms (default 500) fails.
 * --pattern also compares each frame's outermost columns and rows with the
 * pattern's (the median along each of the absolute difference averaged over
 * the three channels, at most EDGE_MAX_MEDIAN_DIFF): the pattern changes at every pixel from frame
 * to frame, so an edge that was not updated (damage one pixel short) fails
 * here even when the PSNR of the whole frame is fine. --fixed-background:
 * the pattern of tests/screencopy/fake-ext-copy, whose gradient is frame
 * 0's in every frame (only the box moves).
 * --pixel checks a pixel of the last frame, the picture the recording ends
 * on (negative X/Y count from the far edge; the first frames of a desktop
 * may still be black). --end-repeat: a last frame that is the same picture
 * as the one before (wl-record repeats a still last picture one frame period
 * before the stop) is set aside before the other checks, which then see
 * the frames the client sent. --cfr-ms: frame i at i * STEP ms. --expect-tags: H.264, yuv420p, colour range and matrix tagged.
 * Exit status: 0 all checks passed, 1 a check failed, 2 bad command line or
 * the file cannot be decoded. */

#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "media.h"
#include "pattern.h"

#define MAX_PIXEL_CHECKS 16
#define MAX_TIMES 100000
/* How long wl-record may be held up before a replaced commit fails (see
 * --stats). A replacement by design costs under one --fps period (17-40 ms
 * in the tests); a busy machine keeps wl-record off the CPU for longer:
 * 170 ms once in a 5x run of record-presenter with -j2 builds. 500 ms is
 * three times that, and still a stall a user would see as a frozen video. */
#define DEFAULT_MAX_HELD_MS 500.0

struct pixel_check {
	int x, y;
	uint32_t rgb;
	int tolerance;
};

struct options {
	const char *path;
	int width, height;
	int exact_frames, min_frames, max_frames; /* -1: not checked */
	const char *times_path;
	double pts_median_late_ms;
	bool pattern;
	double min_psnr;
	struct pixel_check pixels[MAX_PIXEL_CHECKS];
	int pixel_count;
	bool expect_tags;
	const char *container;
	int64_t min_duration_ms;
	double cfr_ms; /* 0: no constant-rate check */
	int commits;   /* -1: not checked */
	bool end_repeat;
	const char *stats_path;
	double max_held_ms;
	bool fixed_background;
};

/* What wl-record's --stats-fd summary says it left out of the file. */
struct recorder_counts {
	long long replaced, unreadable;
};

struct commit_times {
	int count;
	int indices[MAX_TIMES];
	int64_t ns[MAX_TIMES];
};

static int read_times(const char *path, struct commit_times *times)
{
	FILE *file = fopen(path, "r");
	if (!file) {
		perror(path);
		return -1;
	}
	int ret = 0;
	int index;
	long long ns;
	times->count = 0;
	while (fscanf(file, "%d %lld", &index, &ns) == 2) {
		if (times->count == MAX_TIMES) {
			fprintf(stderr, "video-check: more than %d lines in %s\n", MAX_TIMES, path);
			ret = -1;
			break;
		}
		times->indices[times->count] = index;
		times->ns[times->count] = ns;
		times->count++;
	}
	if (ret == 0 && !feof(file)) {
		fprintf(stderr, "video-check: %s: bad line after %d entries\n", path, times->count);
		ret = -1;
	}
	fclose(file);
	return ret;
}

/* One count of the summary's single JSON line: "KEY":NUMBER. */
static int read_count(const char *text, const char *path, const char *key, long long *value)
{
	char quoted[64];
	snprintf(quoted, sizeof(quoted), "\"%s\":", key);
	const char *at = strstr(text, quoted);
	if (!at || sscanf(at + strlen(quoted), "%lld", value) != 1 || *value < 0) {
		fprintf(stderr, "video-check: %s: no count \"%s\"\n", path, key);
		return -1;
	}
	return 0;
}

static int read_stats(const char *path, struct recorder_counts *counts)
{
	FILE *file = fopen(path, "r");
	if (!file) {
		perror(path);
		return -1;
	}
	char text[8192];
	size_t size = fread(text, 1, sizeof(text) - 1, file);
	fclose(file);
	text[size] = '\0';
	if (read_count(text, path, "frames_replaced", &counts->replaced) < 0 ||
	    read_count(text, path, "frames_unreadable", &counts->unreadable) < 0)
		return -1;
	return 0;
}

/* Every commit missing from the file is one wl-record accounted for. */
static int check_accounted(const struct recorder_counts *counts, int missing, int commits)
{
	long long reported = counts->replaced + counts->unreadable;
	if (missing != reported) {
		printf("FAIL %d of %d commits are not in the file, but wl-record replaced %lld and "
		       "could not read %lld: %lld lost\n", missing, commits, counts->replaced,
		       counts->unreadable, (long long)missing - reported);
		return 1;
	}
	printf("ok   every commit is in the file or reported by wl-record (%lld replaced, %lld "
	       "unreadable)\n", counts->replaced, counts->unreadable);
	return 0;
}

static uint32_t image_pixel(const struct rgb_image *image, int x, int y)
{
	const uint8_t *p = image->rgb + ((size_t)y * (size_t)image->width + (size_t)x) * 3;
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static int max_channel_diff(uint32_t a, uint32_t b)
{
	int worst = 0;
	for (int shift = 0; shift <= 16; shift += 8) {
		int diff = abs((int)((a >> shift) & 0xff) - (int)((b >> shift) & 0xff));
		if (diff > worst)
			worst = diff;
	}
	return worst;
}

static int check_tags(const struct options *options, const struct decoded_video *video)
{
	int failures = 0;
	if (strcmp(video->codec, "h264") != 0) {
		printf("FAIL codec %s, expected h264\n", video->codec);
		failures++;
	}
	if (strcmp(video->pix_fmt, "yuv420p") != 0) {
		printf("FAIL pixel format %s, expected yuv420p (players refuse 4:4:4)\n",
		       video->pix_fmt);
		failures++;
	}
	if (strcmp(video->color_range, "tv") != 0 && strcmp(video->color_range, "pc") != 0) {
		printf("FAIL colour range '%s' is not tagged\n", video->color_range);
		failures++;
	}
	if (video->colorspace[0] == '\0' || strcmp(video->colorspace, "unknown") == 0 ||
	    strcmp(video->colorspace, "unspecified") == 0 ||
	    strcmp(video->colorspace, "reserved") == 0) {
		printf("FAIL colour matrix '%s' is not tagged\n", video->colorspace);
		failures++;
	}
	if (!failures)
		printf("ok   tags: h264 yuv420p range=%s matrix=%s\n", video->color_range,
		       video->colorspace);
	return failures;
}

static int check_count(const struct options *options, const struct decoded_video *video)
{
	int count = video->frame_count;
	if (options->exact_frames >= 0 && count != options->exact_frames) {
		printf("FAIL %d frames, expected %d\n", count, options->exact_frames);
		return 1;
	}
	if (options->min_frames >= 0 && count < options->min_frames) {
		printf("FAIL %d frames, expected at least %d\n", count, options->min_frames);
		return 1;
	}
	if (options->max_frames >= 0 && count > options->max_frames) {
		printf("FAIL %d frames, expected at most %d\n", count, options->max_frames);
		return 1;
	}
	printf("ok   %d frames\n", count);
	return 0;
}

static int check_pts_increasing(const struct decoded_video *video)
{
	for (int i = 1; i < video->frame_count; i++) {
		if (video->frames[i].pts_us <= video->frames[i - 1].pts_us) {
			printf("FAIL frame %d pts %lld us does not follow frame %d pts %lld us\n", i,
			       (long long)video->frames[i].pts_us, i - 1,
			       (long long)video->frames[i - 1].pts_us);
			return 1;
		}
	}
	return 0;
}

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int check_times(const struct options *options, const struct decoded_video *video,
		       const struct commit_times *times, const int *commit_of,
		       const struct recorder_counts *counts)
{
	int failures = 0;
	int count = video->frame_count;
	if (!options->pattern && times->count != video->frame_count) {
		printf("FAIL %d frames decoded, the presenter committed %d\n", video->frame_count,
		       times->count);
		failures++;
		if (count > times->count)
			count = times->count;
	}
	if (options->pattern && count > 0) {
		/* Replaced commits are allowed (wl-record reads the newest when
		 * a loaded machine kept it from reading each); lost ones are not,
		 * nor an end cut short. */
		int replaced = times->count - count;
		if (commit_of[count - 1] != times->count - 1 || replaced < 0) {
			printf("FAIL %d commits, %d frames: the last frame is commit %d\n", times->count,
			       count, commit_of[count - 1]);
			failures++;
		} else if (replaced > 0) {
			printf("note %d of %d commits were replaced by a newer one before they were "
			       "read\n", replaced, times->count);
		}
	}
	/* Both clocks are CLOCK_MONOTONIC, but the file starts at its first
	 * frame, so only differences can be compared: offset i is how much later
	 * than its commit frame i was stamped, up to a constant. The frame read
	 * most promptly (the smallest offset) is the reference: scheduling only
	 * ever delays a read, so every other frame is 0..T ms later than it. A
	 * late frame 0 does not shift the others, as it would with frame 0 as
	 * the reference. */
	double *offsets = calloc((size_t)(count > 0 ? count : 1), sizeof(*offsets));
	if (!offsets)
		return 1;
	int64_t first_commit_ns = count ? times->ns[commit_of[0]] : 0;
	for (int i = 0; i < count; i++)
		offsets[i] = (double)(video->frames[i].pts_us - video->frames[0].pts_us) / 1e3 -
			     (double)(times->ns[commit_of[i]] - first_commit_ns) / 1e6;
	qsort(offsets, (size_t)count, sizeof(*offsets), compare_doubles);
	double reference_ms = count ? offsets[0] : 0;
	free(offsets);
	double worst_ms = 0;
	int stalled = 0;
	double *lateness = calloc((size_t)(count > 0 ? count : 1), sizeof(*lateness));
	if (!lateness)
		return 1;
	for (int i = 0; i < count; i++) {
		int k = commit_of[i];
		double commit_ms = (double)(times->ns[k] - first_commit_ns) / 1e6 + reference_ms;
		double seen_ms = (double)(video->frames[i].pts_us - video->frames[0].pts_us) / 1e3;
		double late_ms = seen_ms - commit_ms; /* >= 0 by the choice of reference */
		lateness[i] = late_ms;
		if (late_ms > worst_ms)
			worst_ms = late_ms;
		/* Read after the next commit was made: a machine too busy to run
		 * wl-record for a while does that, and is told apart from a
		 * wrong clock by the median below, not per frame. */
		int j = k + 1 < times->count ? k : k - 1;
		double interval_ms = j >= 0 ? (double)(times->ns[j + 1] - times->ns[j]) / 1e6 : 1e9;
		if (late_ms > interval_ms - 1.0)
			stalled++;
	}
	if (stalled)
		printf("note %d frames were read after the next commit (latest %.3f ms late): "
		       "wl-record was kept waiting\n", stalled, worst_ms);
	qsort(lateness, (size_t)count, sizeof(*lateness), compare_doubles);
	double median_ms = count ? lateness[count / 2] : 0;
	free(lateness);
	if (median_ms > options->pts_median_late_ms) {
		printf("FAIL frames are stamped %.3f ms after their commits on median, more than "
		       "%.3f ms\n", median_ms, options->pts_median_late_ms);
		failures++;
	}
	if (!failures)
		printf("ok   pts of %d frames follow their commits (median %.3f ms late, bound "
		       "%.3f ms; latest %.3f ms)\n", count, median_ms, options->pts_median_late_ms,
		       worst_ms);
	if (counts && count > 0) {
		/* Commits before the last recorded one that are not in the file:
		 * wl-record must have reported each. Later ones fail above. */
		int missing = commit_of[count - 1] + 1 - count;
		failures += check_accounted(counts, missing, times->count);
		/* How long wl-record was held up: from a replaced commit to the
		 * time of the frame recorded next (the one that replaced it),
		 * on the same reference as above. */
		double held_ms = 0;
		int held_commit = -1;
		for (int i = 1; i < count; i++) {
			double seen_ms = (double)(video->frames[i].pts_us - video->frames[0].pts_us) / 1e3;
			for (int k = commit_of[i - 1] + 1; k < commit_of[i]; k++) {
				double commit_ms = (double)(times->ns[k] - first_commit_ns) / 1e6 +
						   reference_ms;
				if (seen_ms - commit_ms > held_ms) {
					held_ms = seen_ms - commit_ms;
					held_commit = k;
				}
			}
		}
		if (held_commit >= 0 && held_ms > options->max_held_ms) {
			printf("FAIL commit %d was replaced: the next frame was recorded %.3f ms after "
			       "it was drawn, more than %.3f ms\n", held_commit, held_ms,
			       options->max_held_ms);
			failures++;
		} else if (held_commit >= 0) {
			printf("ok   wl-record was held up at most %.3f ms (commit %d; bound %.3f ms)\n",
			       held_ms, held_commit, options->max_held_ms);
		}
	}
	return failures ? 1 : 0;
}

/* Without --times: how many commits in a row may have been replaced. */
#define MAX_SKIPPED_COMMITS 8

/* The pattern's gradient: frame 0's in every frame, or the frame's own. */
static bool fixed_background;

static void pattern_image(struct rgb_image *image, int index)
{
	for (int y = 0; y < image->height; y++) {
		for (int x = 0; x < image->width; x++) {
			uint32_t rgb = pattern_pixel_with_background(index, fixed_background ? 0 : index,
								     x, y, image->width,
								     image->height);
			uint8_t *p = image->rgb + ((size_t)y * (size_t)image->width + (size_t)x) * 3;
			p[0] = (uint8_t)(rgb >> 16);
			p[1] = (uint8_t)(rgb >> 8);
			p[2] = (uint8_t)rgb;
		}
	}
}

/* With --times and --pattern: which commit each frame shows. Frame i shows
 * commit commit_of[i], in increasing order; a commit may have been replaced
 * by a newer one before wl-record read it (up to MAX_SKIPPED_COMMITS in a
 * row). A frame matching none is mapped to the next commit (and fails the
 * pattern check). Without --pattern, frame i is commit i. */
static void map_commits(const struct options *options, const struct decoded_video *video,
			const struct commit_times *times, int *commit_of)
{
	struct rgb_image expected = { .width = video->width, .height = video->height };
	expected.rgb = options->pattern ? malloc((size_t)video->width * (size_t)video->height * 3)
					: NULL;
	int next = 0;
	for (int i = 0; i < video->frame_count; i++) {
		commit_of[i] = next < times->count ? next : times->count - 1;
		const struct rgb_image *image = &video->frames[i].image;
		if (!expected.rgb || image->width != video->width || image->height != video->height) {
			next++;
			continue;
		}
		for (int k = next; k < times->count && k <= next + MAX_SKIPPED_COMMITS; k++) {
			pattern_image(&expected, times->indices[k]);
			if (media_psnr(image, &expected) >= options->min_psnr) {
				commit_of[i] = k;
				break;
			}
		}
		next = commit_of[i] + 1;
	}
	free(expected.rgb);
}

/* The outermost columns and rows, pixel by pixel (the absolute difference
 * averaged over the three channels), by the median along each: the moving
 * box, saturated magenta, may pass a few pixels from an edge, and H.264 in
 * 4:2:0 smears it into the edge's pixels next to it (measured: a mean of
 * 7.4 over a 320-pixel last row, where the median stays under 3). Measured
 * medians: H.264 up to 3.33 with both cores busy, VP9 4.67 (user-manners'
 * 160x120 clip.webm, the same on every run). A stale edge shows the
 * gradient of an older frame: GREEN_STEP (37) levels of green a frame
 * apart, 12 on the mean of three channels after one frame and more after a
 * few, along the whole edge (measured with damage one pixel short: 15-18
 * at frame 1, 33-37 at frame 2). */
#define EDGE_MAX_MEDIAN_DIFF 6.0

static int compare_ints(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* In thirds of a level: the sum of the three channels' differences. */
static double edge_median_diff(const struct rgb_image *image, const struct rgb_image *expected,
			       int edge)
{
	int count = edge < 2 ? image->height : image->width;
	int diffs[8192];
	if (count > (int)(sizeof(diffs) / sizeof(diffs[0])))
		count = (int)(sizeof(diffs) / sizeof(diffs[0]));
	for (int i = 0; i < count; i++) {
		int x = edge == 0 ? 0 : edge == 1 ? image->width - 1 : i;
		int y = edge < 2 ? i : edge == 2 ? 0 : image->height - 1;
		size_t at = ((size_t)y * (size_t)image->width + (size_t)x) * 3;
		diffs[i] = 0;
		for (int c = 0; c < 3; c++)
			diffs[i] += abs((int)image->rgb[at + c] - (int)expected->rgb[at + c]);
	}
	qsort(diffs, (size_t)count, sizeof(diffs[0]), compare_ints);
	return count ? diffs[count / 2] / 3.0 : 0;
}

static int check_pattern(const struct options *options, const struct decoded_video *video,
			 const struct commit_times *times, const int *commit_of,
			 const struct recorder_counts *counts)
{
	struct rgb_image expected = { .width = video->width, .height = video->height };
	expected.rgb = malloc((size_t)video->width * (size_t)video->height * 3);
	if (!expected.rgb) {
		printf("FAIL out of memory\n");
		return 1;
	}
	int failures = 0, skipped = 0, edge_failures = 0;
	double worst = INFINITY, sum = 0, worst_edge = 0;
	int compared = 0;
	int next_index = 0; /* without --times: the pattern frame expected next */
	for (int i = 0; i < video->frame_count; i++) {
		if (times && i >= times->count)
			break;
		const struct rgb_image *image = &video->frames[i].image;
		if (image->width != video->width || image->height != video->height) {
			printf("FAIL frame %d is %dx%d\n", i, image->width, image->height);
			failures++;
			continue;
		}
		/* A commit may have been replaced by the next before it was
		 * taken (wl-record keeps the newest picture when it could not
		 * read each, as on a loaded machine): frame i may be a later
		 * pattern frame than expected, never an earlier one. With --times
		 * map_commits() found which commit; without, the frame count is
		 * checked on its own (--frames, --commits). */
		int first = times ? times->indices[commit_of[i]] : next_index;
		int last = times ? first : first + MAX_SKIPPED_COMMITS;
		int index = first;
		double psnr = -INFINITY;
		for (int candidate = first; candidate <= last; candidate++) {
			pattern_image(&expected, candidate);
			double candidate_psnr = media_psnr(image, &expected);
			if (candidate == first || candidate_psnr >= options->min_psnr) {
				index = candidate;
				psnr = candidate_psnr;
			}
			if (candidate_psnr >= options->min_psnr)
				break;
		}
		if (psnr >= options->min_psnr) {
			skipped += index - first;
			next_index = index + 1;
		} else {
			next_index = first + 1;
		}
		/* The edges, against the frame matched (the last candidate tried
		 * may be another). */
		pattern_image(&expected, index);
		for (int edge = 0; edge < 4; edge++) {
			static const char *const names[] = { "first column", "last column",
							     "first row", "last row" };
			double diff = edge_median_diff(image, &expected, edge);
			if (diff > worst_edge)
				worst_edge = diff;
			if (diff > EDGE_MAX_MEDIAN_DIFF) {
				if (edge_failures < 8)
					printf("FAIL frame %d vs pattern %d: the %s differs by %.2f on "
					       "median, more than %.2f (not updated?)\n", i, index,
					       names[edge], diff, EDGE_MAX_MEDIAN_DIFF);
				edge_failures++;
			}
		}
		compared++;
		sum += isinf(psnr) ? 99 : psnr;
		if (psnr < worst)
			worst = psnr;
		if (psnr < options->min_psnr) {
			if (failures < 8)
				printf("FAIL frame %d vs pattern %d: PSNR %.2f dB < %.2f dB\n", i, index,
				       psnr, options->min_psnr);
			failures++;
		}
	}
	if (skipped)
		printf("note %d commits were replaced by a newer one before they were recorded\n",
		       skipped);
	if (edge_failures)
		failures++;
	else if (compared)
		printf("ok   the outermost columns and rows match the pattern (median difference at "
		       "most %.2f, bound %.2f)\n", worst_edge, EDGE_MAX_MEDIAN_DIFF);
	if (!times && options->commits >= 0) {
		if (next_index != options->commits || compared + skipped != options->commits) {
			printf("FAIL %d commits, but %d frames recorded + %d replaced, the last "
			       "being commit %d\n", options->commits, compared, skipped,
			       next_index - 1);
			failures++;
		} else {
			printf("ok   all %d commits accounted for\n", options->commits);
		}
	}
	/* Without --times, the commits skipped between recorded frames are the
	 * ones missing (with --commits, the end is checked above). */
	if (!times && counts)
		failures += check_accounted(counts, skipped, compared + skipped);
	free(expected.rgb);
	if (!failures)
		printf("ok   %d frames match the pattern: PSNR min %.2f dB, mean %.2f dB\n",
		       compared, worst, compared ? sum / compared : 0);
	return failures ? 1 : 0;
}

static int check_pixels(const struct options *options, const struct decoded_video *video)
{
	if (video->frame_count == 0)
		return 0;
	int last = video->frame_count - 1;
	const struct rgb_image *image = &video->frames[last].image;
	int failures = 0;
	for (int c = 0; c < options->pixel_count; c++) {
		const struct pixel_check *check = &options->pixels[c];
		int x = check->x < 0 ? image->width + check->x : check->x;
		int y = check->y < 0 ? image->height + check->y : check->y;
		if (x < 0 || y < 0 || x >= image->width || y >= image->height) {
			printf("FAIL pixel %d,%d outside the %dx%d frame\n", check->x, check->y,
			       image->width, image->height);
			failures++;
			continue;
		}
		uint32_t seen = image_pixel(image, x, y);
		if (max_channel_diff(seen, check->rgb) > check->tolerance) {
			printf("FAIL last frame (%d) pixel %d,%d: %06x, expected %06x (+-%d)\n", last, x,
			       y, seen, check->rgb, check->tolerance);
			failures++;
		} else {
			printf("ok   last frame pixel %d,%d: %06x\n", x, y, seen);
		}
	}
	return failures;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: video-check FILE [--size WxH] [--frames N | --min-frames N] [--max-frames N]\n"
		"                   [--times FILE [--pts-median-late-ms T]] [--pattern [--min-psnr DB]]\n"
		"                   [--pixel X,Y,RRGGBB,TOL]... [--expect-tags] [--container NAME]\n"
		"                   [--min-duration-ms D] [--cfr-ms STEP] [--commits N]\n"
		"                   [--end-repeat] [--stats FILE [--max-held-ms T]]\n"
		"                   [--fixed-background]\n");
}

/* Every frame i at i * step (the container's rounding aside: 0.5 ms). */
static int check_constant_rate(const struct decoded_video *video, double step_ms)
{
	int failures = 0;
	for (int i = 0; i < video->frame_count; i++) {
		double expected = i * step_ms;
		double seen = (double)(video->frames[i].pts_us - video->frames[0].pts_us) / 1e3;
		if (fabs(seen - expected) > 0.5) {
			if (failures < 8)
				printf("FAIL frame %d at %.3f ms, expected %.3f ms\n", i, seen, expected);
			failures++;
		}
	}
	if (failures)
		return 1;
	printf("ok   %d frames at a constant %.3f ms\n", video->frame_count, step_ms);
	return 0;
}

static int parse_options(int argc, char **argv, struct options *options)
{
	static const struct option long_options[] = {
		{ "size", required_argument, NULL, 's' },
		{ "frames", required_argument, NULL, 'n' },
		{ "min-frames", required_argument, NULL, 'm' },
		{ "max-frames", required_argument, NULL, 'M' },
		{ "times", required_argument, NULL, 't' },
		{ "pts-median-late-ms", required_argument, NULL, 'T' },
		{ "pattern", no_argument, NULL, 'P' },
		{ "min-psnr", required_argument, NULL, 'q' },
		{ "pixel", required_argument, NULL, 'p' },
		{ "expect-tags", no_argument, NULL, 'g' },
		{ "container", required_argument, NULL, 'c' },
		{ "min-duration-ms", required_argument, NULL, 'd' },
		{ "cfr-ms", required_argument, NULL, 'C' },
		{ "commits", required_argument, NULL, 'K' },
		{ "end-repeat", no_argument, NULL, 'r' },
		{ "stats", required_argument, NULL, 'S' },
		{ "max-held-ms", required_argument, NULL, 'H' },
		{ "fixed-background", no_argument, NULL, 'B' },
		{ 0 },
	};
	*options = (struct options){
		.exact_frames = -1, .min_frames = -1, .max_frames = -1,
		.pts_median_late_ms = 1.0, .min_psnr = 30.0, .min_duration_ms = -1, .commits = -1,
		.max_held_ms = DEFAULT_MAX_HELD_MS,
	};
	int opt;
	while ((opt = getopt_long(argc, argv, "", long_options, NULL)) != -1) {
		bool ok = true;
		char tail;
		char colour[16];
		long long value;
		switch (opt) {
		case 's':
			ok = sscanf(optarg, "%dx%d%c", &options->width, &options->height, &tail) == 2;
			break;
		case 'n':
			ok = sscanf(optarg, "%d%c", &options->exact_frames, &tail) == 1;
			break;
		case 'm':
			ok = sscanf(optarg, "%d%c", &options->min_frames, &tail) == 1;
			break;
		case 'M':
			ok = sscanf(optarg, "%d%c", &options->max_frames, &tail) == 1;
			break;
		case 't':
			options->times_path = optarg;
			break;
		case 'T':
			ok = sscanf(optarg, "%lf%c", &options->pts_median_late_ms, &tail) == 1;
			break;
		case 'P':
			options->pattern = true;
			break;
		case 'q':
			ok = sscanf(optarg, "%lf%c", &options->min_psnr, &tail) == 1;
			break;
		case 'p': {
			struct pixel_check *check = &options->pixels[options->pixel_count];
			ok = options->pixel_count < MAX_PIXEL_CHECKS &&
			     sscanf(optarg, "%d,%d,%15[0-9a-fA-F],%d%c", &check->x, &check->y, colour,
				    &check->tolerance, &tail) == 4 &&
			     strlen(colour) == 6;
			if (ok) {
				check->rgb = (uint32_t)strtoul(colour, NULL, 16);
				options->pixel_count++;
			}
			break;
		}
		case 'g':
			options->expect_tags = true;
			break;
		case 'c':
			options->container = optarg;
			break;
		case 'd':
			ok = sscanf(optarg, "%lld%c", &value, &tail) == 1;
			options->min_duration_ms = value;
			break;
		case 'K':
			ok = sscanf(optarg, "%d%c", &options->commits, &tail) == 1 &&
			     options->commits > 0;
			break;
		case 'r':
			options->end_repeat = true;
			break;
		case 'S':
			options->stats_path = optarg;
			break;
		case 'B':
			options->fixed_background = true;
			break;
		case 'H':
			ok = sscanf(optarg, "%lf%c", &options->max_held_ms, &tail) == 1 &&
			     options->max_held_ms > 0;
			break;
		case 'C':
			ok = sscanf(optarg, "%lf%c", &options->cfr_ms, &tail) == 1 &&
			     options->cfr_ms > 0;
			break;
		default:
			usage();
			return -1;
		}
		if (!ok) {
			fprintf(stderr, "video-check: bad value '%s'\n", optarg);
			return -1;
		}
	}
	if (optind != argc - 1) {
		usage();
		return -1;
	}
	options->path = argv[optind];
	if (options->stats_path && !options->times_path && !options->pattern) {
		fprintf(stderr, "video-check: --stats needs --times or --pattern\n");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct commit_times times;
	struct options options;
	if (parse_options(argc, argv, &options) < 0)
		return 2;
	if (options.times_path && read_times(options.times_path, &times) < 0)
		return 2;
	struct recorder_counts counts;
	if (options.stats_path && read_stats(options.stats_path, &counts) < 0)
		return 2;
	const struct recorder_counts *reported = options.stats_path ? &counts : NULL;
	fixed_background = options.fixed_background;

	struct decoded_video video = { 0 };
	if (media_decode_video(options.path, &video) < 0) {
		printf("FAIL cannot decode %s\n", options.path);
		return 2;
	}
	printf("%s: container %s, codec %s, %s, range %s, matrix %s, %dx%d, %d frames, "
	       "duration %.3f s\n", options.path, video.container, video.codec, video.pix_fmt,
	       video.color_range, video.colorspace, video.width, video.height, video.frame_count,
	       (double)video.duration_us / 1e6);
	if (video.frame_count > 0)
		printf("     first pts %.3f ms, last pts %.3f ms\n",
		       (double)video.frames[0].pts_us / 1e3,
		       (double)video.frames[video.frame_count - 1].pts_us / 1e3);

	/* Two codings of one picture: about 50 dB with H.264, 38 dB with VP9
	 * at 160x120 (user-manners' clip.webm); two consecutive pattern frames,
	 * which differ at every pixel: under 20 dB (19.6 measured). With
	 * --fixed-background only the box moves: under 30 dB, so the bound
	 * stays where it was for that pattern. */
	double repeat_psnr = options.fixed_background ? 40.0 : 30.0;
	if (options.end_repeat && video.frame_count >= 2 &&
	    media_psnr(&video.frames[video.frame_count - 1].image,
		       &video.frames[video.frame_count - 2].image) >= repeat_psnr) {
		printf("     the last frame repeats the one before: set aside\n");
		media_rgb_image_free(&video.frames[--video.frame_count].image);
	}

	int failures = 0;
	if (video.frame_count == 0) {
		printf("FAIL no frames\n");
		failures++;
	}
	if (options.container && !strstr(video.container, options.container)) {
		printf("FAIL container %s, expected %s\n", video.container, options.container);
		failures++;
	}
	if (options.width && (video.width != options.width || video.height != options.height)) {
		printf("FAIL size %dx%d, expected %dx%d\n", video.width, video.height,
		       options.width, options.height);
		failures++;
	}
	if (options.cfr_ms > 0)
		failures += check_constant_rate(&video, options.cfr_ms);
	if (options.min_duration_ms >= 0 && video.duration_us < options.min_duration_ms * 1000) {
		printf("FAIL duration %.3f s, expected at least %.3f s\n",
		       (double)video.duration_us / 1e6, (double)options.min_duration_ms / 1e3);
		failures++;
	}
	failures += check_count(&options, &video);
	failures += check_pts_increasing(&video);
	if (options.expect_tags)
		failures += check_tags(&options, &video);
	int *commit_of = calloc((size_t)(video.frame_count > 0 ? video.frame_count : 1),
				sizeof(*commit_of));
	if (!commit_of) {
		printf("FAIL out of memory\n");
		return 1;
	}
	if (options.times_path) {
		map_commits(&options, &video, &times, commit_of);
		failures += check_times(&options, &video, &times, commit_of, reported);
	}
	if (options.pattern && video.frame_count > 0)
		failures += check_pattern(&options, &video, options.times_path ? &times : NULL,
					  commit_of, reported);
	free(commit_of);
	failures += check_pixels(&options, &video);

	media_decoded_video_free(&video);
	if (failures)
		printf("video-check: %d check(s) failed\n", failures);
	return failures ? 1 : 0;
}
