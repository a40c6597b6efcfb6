/* png-check: asserts what a PNG written by wl-record shows, reading it with
 * an independent decoder (tests/common/media.c).
 *
 *   png-check FILE --size WxH [--pixel X,Y,RRGGBB[,TOL]]...
 *             [--pattern N | --any-pattern N] [--pattern-rect X,Y,WxH] [--max-diff D]
 *             [--colour-bbox RRGGBB,WxH]...
 *
 * --any-pattern N passes when the image is one of frames 0..N-1.
 * --pattern N compares against frame N of tests/pattern.h, exactly unless
 * --max-diff allows a per-channel difference; by default the pattern covers
 * the whole image, --pattern-rect places a pattern of another size (a
 * centred surface). Negative X/Y in --pixel count from the right/bottom edge
 * (-1 is the last column). --colour-bbox: the pixels of exactly that colour
 * must exist and their bounding box must be WxH (finds a client window whose
 * frame has a known colour wherever the shell placed it). Exit status: 0 all checks passed, 1 a check
 * failed, 2 bad command line or unreadable file. */

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "media.h"
#include "pattern.h"

#define MAX_PIXEL_CHECKS 64
#define MISMATCHES_SHOWN 8

struct pixel_check {
	int x, y;
	uint32_t rgb;
	int tolerance;
};

struct colour_bbox_check {
	uint32_t rgb;
	int width, height;
};

#define MAX_BBOX_CHECKS 8

struct options {
	const char *path;
	struct colour_bbox_check bboxes[MAX_BBOX_CHECKS];
	int bbox_count;
	int width, height;
	struct pixel_check pixels[MAX_PIXEL_CHECKS];
	int pixel_count;
	int pattern_frame; /* -1: no pattern check */
	int any_pattern_frames; /* 0: no check; else one of frames 0..N-1 */
	int rect_x, rect_y, rect_width, rect_height; /* width 0: whole image */
	int max_diff;
};

static bool parse_size(const char *text, int *width, int *height)
{
	char tail;
	return sscanf(text, "%dx%d%c", width, height, &tail) == 2 && *width > 0 && *height > 0;
}

static bool parse_pixel(const char *text, struct pixel_check *check)
{
	char colour[16];
	char tail;
	check->tolerance = 0;
	int fields = sscanf(text, "%d,%d,%15[0-9a-fA-F],%d%c", &check->x, &check->y, colour,
			    &check->tolerance, &tail);
	if (fields != 3 && fields != 4)
		return false;
	if (strlen(colour) != 6 || check->tolerance < 0)
		return false;
	check->rgb = (uint32_t)strtoul(colour, NULL, 16);
	return true;
}

static int channel_diff(uint32_t a, uint32_t b, int shift)
{
	return abs((int)((a >> shift) & 0xff) - (int)((b >> shift) & 0xff));
}

static int max_channel_diff(uint32_t a, uint32_t b)
{
	int diff = channel_diff(a, b, 16);
	int g = channel_diff(a, b, 8);
	int bl = channel_diff(a, b, 0);
	if (g > diff)
		diff = g;
	return bl > diff ? bl : diff;
}

static uint32_t image_pixel(const struct rgb_image *image, int x, int y)
{
	const uint8_t *p = image->rgb + ((size_t)y * (size_t)image->width + (size_t)x) * 3;
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static int check_pixels(const struct options *options, const struct rgb_image *image)
{
	int failures = 0;
	for (int i = 0; i < options->pixel_count; i++) {
		const struct pixel_check *check = &options->pixels[i];
		int x = check->x < 0 ? image->width + check->x : check->x;
		int y = check->y < 0 ? image->height + check->y : check->y;
		if (x < 0 || y < 0 || x >= image->width || y >= image->height) {
			printf("FAIL pixel %d,%d: outside the %dx%d image\n", check->x, check->y,
			       image->width, image->height);
			failures++;
			continue;
		}
		uint32_t seen = image_pixel(image, x, y);
		int diff = max_channel_diff(seen, check->rgb);
		if (diff > check->tolerance) {
			printf("FAIL pixel %d,%d: %06x, expected %06x (+-%d)\n", x, y, seen,
			       check->rgb, check->tolerance);
			failures++;
		} else {
			printf("ok   pixel %d,%d: %06x\n", x, y, seen);
		}
	}
	return failures;
}

static int check_colour_bbox(const struct colour_bbox_check *check,
			     const struct rgb_image *image)
{
	int min_x = image->width, min_y = image->height, max_x = -1, max_y = -1;
	long count = 0;
	for (int y = 0; y < image->height; y++) {
		for (int x = 0; x < image->width; x++) {
			if (image_pixel(image, x, y) != check->rgb)
				continue;
			count++;
			if (x < min_x)
				min_x = x;
			if (x > max_x)
				max_x = x;
			if (y < min_y)
				min_y = y;
			if (y > max_y)
				max_y = y;
		}
	}
	if (count == 0) {
		printf("FAIL no pixel has colour %06x\n", check->rgb);
		return 1;
	}
	int width = max_x - min_x + 1, height = max_y - min_y + 1;
	if (width != check->width || height != check->height) {
		printf("FAIL the %ld pixels of colour %06x span %d,%d %dx%d, expected %dx%d\n", count,
		       check->rgb, min_x, min_y, width, height, check->width, check->height);
		return 1;
	}
	printf("ok   %ld pixels of colour %06x span %d,%d %dx%d\n", count, check->rgb, min_x,
	       min_y, width, height);
	return 0;
}

/* Pixels of the pattern rectangle that differ from pattern frame `frame` by
 * more than --max-diff; -1 when the rectangle does not fit. */
static long pattern_mismatches(const struct options *options, const struct rgb_image *image,
			       int frame, int *worst, bool show)
{
	int rect_x = options->rect_x, rect_y = options->rect_y;
	int rect_width = options->rect_width ? options->rect_width : image->width;
	int rect_height = options->rect_height ? options->rect_height : image->height;
	if (rect_x < 0 || rect_y < 0 || rect_x + rect_width > image->width ||
	    rect_y + rect_height > image->height) {
		printf("FAIL pattern rectangle %d,%d %dx%d does not fit the %dx%d image\n",
		       rect_x, rect_y, rect_width, rect_height, image->width, image->height);
		return -1;
	}
	long mismatches = 0;
	*worst = 0;
	for (int y = 0; y < rect_height; y++) {
		for (int x = 0; x < rect_width; x++) {
			uint32_t expected = pattern_pixel(frame, x, y, rect_width, rect_height);
			uint32_t seen = image_pixel(image, rect_x + x, rect_y + y);
			int diff = max_channel_diff(seen, expected);
			if (diff > *worst)
				*worst = diff;
			if (diff <= options->max_diff)
				continue;
			if (show && mismatches < MISMATCHES_SHOWN)
				printf("  pixel %d,%d: %06x, pattern %06x\n", rect_x + x, rect_y + y,
				       seen, expected);
			mismatches++;
		}
	}
	return mismatches;
}

static int check_pattern(const struct options *options, const struct rgb_image *image)
{
	int worst;
	long mismatches = pattern_mismatches(options, image, options->pattern_frame, &worst, true);
	if (mismatches < 0)
		return 1;
	if (mismatches) {
		printf("FAIL pattern frame %d: %ld pixels differ by more than %d (worst %d)\n",
		       options->pattern_frame, mismatches, options->max_diff, worst);
		return 1;
	}
	printf("ok   pattern frame %d (worst channel difference %d)\n", options->pattern_frame,
	       worst);
	return 0;
}

/* A still taken while recording shows some presented frame, not a known one. */
static int check_any_pattern(const struct options *options, const struct rgb_image *image)
{
	for (int frame = 0; frame < options->any_pattern_frames; frame++) {
		int worst;
		long mismatches = pattern_mismatches(options, image, frame, &worst, false);
		if (mismatches < 0)
			return 1;
		if (mismatches == 0) {
			printf("ok   pattern frame %d (worst channel difference %d)\n", frame, worst);
			return 0;
		}
	}
	printf("FAIL the image is none of pattern frames 0..%d\n", options->any_pattern_frames - 1);
	return 1;
}

static void usage(void)
{
	fprintf(stderr, "usage: png-check FILE --size WxH [--pixel X,Y,RRGGBB[,TOL]]...\n"
			"                 [--pattern N | --any-pattern N] [--pattern-rect X,Y,WxH]\n"
			"                 [--max-diff D]\n"
			"                 [--colour-bbox RRGGBB,WxH]...\n");
}

static int parse_options(int argc, char **argv, struct options *options)
{
	static const struct option long_options[] = {
		{ "size", required_argument, NULL, 's' },
		{ "pixel", required_argument, NULL, 'p' },
		{ "pattern", required_argument, NULL, 'P' },
		{ "pattern-rect", required_argument, NULL, 'r' },
		{ "any-pattern", required_argument, NULL, 'A' },
		{ "max-diff", required_argument, NULL, 'd' },
		{ "colour-bbox", required_argument, NULL, 'b' },
		{ 0 },
	};
	*options = (struct options){ .pattern_frame = -1 };
	int opt;
	while ((opt = getopt_long(argc, argv, "", long_options, NULL)) != -1) {
		bool ok;
		char tail;
		switch (opt) {
		case 's':
			ok = parse_size(optarg, &options->width, &options->height);
			break;
		case 'p':
			ok = options->pixel_count < MAX_PIXEL_CHECKS &&
			     parse_pixel(optarg, &options->pixels[options->pixel_count++]);
			break;
		case 'P':
			ok = sscanf(optarg, "%d%c", &options->pattern_frame, &tail) == 1 &&
			     options->pattern_frame >= 0;
			break;
		case 'A':
			ok = sscanf(optarg, "%d%c", &options->any_pattern_frames, &tail) == 1 &&
			     options->any_pattern_frames > 0;
			break;
		case 'r':
			ok = sscanf(optarg, "%d,%d,%dx%d%c", &options->rect_x, &options->rect_y,
				    &options->rect_width, &options->rect_height, &tail) == 4 &&
			     options->rect_width > 0 && options->rect_height > 0;
			break;
		case 'd':
			ok = sscanf(optarg, "%d%c", &options->max_diff, &tail) == 1 &&
			     options->max_diff >= 0;
			break;
		case 'b': {
			char colour[16];
			struct colour_bbox_check *check = &options->bboxes[options->bbox_count];
			ok = options->bbox_count < MAX_BBOX_CHECKS &&
			     sscanf(optarg, "%15[0-9a-fA-F],%dx%d%c", colour, &check->width,
				    &check->height, &tail) == 3 &&
			     strlen(colour) == 6 && check->width > 0 && check->height > 0;
			if (ok) {
				check->rgb = (uint32_t)strtoul(colour, NULL, 16);
				options->bbox_count++;
			}
			break;
		}
		default:
			usage();
			return -1;
		}
		if (!ok) {
			fprintf(stderr, "png-check: bad value '%s'\n", optarg);
			return -1;
		}
	}
	if (optind != argc - 1 || options->width == 0) {
		usage();
		return -1;
	}
	options->path = argv[optind];
	return 0;
}

int main(int argc, char **argv)
{
	struct options options;
	if (parse_options(argc, argv, &options) < 0)
		return 2;

	struct rgb_image image = { 0 };
	if (media_read_png(options.path, &image) < 0) {
		printf("FAIL cannot read %s\n", options.path);
		return 2;
	}
	printf("%s: %dx%d\n", options.path, image.width, image.height);
	int failures = 0;
	if (image.width != options.width || image.height != options.height) {
		printf("FAIL size %dx%d, expected %dx%d\n", image.width, image.height,
		       options.width, options.height);
		failures++;
	} else {
		failures += check_pixels(&options, &image);
		if (options.pattern_frame >= 0)
			failures += check_pattern(&options, &image);
		if (options.any_pattern_frames > 0)
			failures += check_any_pattern(&options, &image);
		for (int i = 0; i < options.bbox_count; i++)
			failures += check_colour_bbox(&options.bboxes[i], &image);
	}
	media_rgb_image_free(&image);
	if (failures)
		printf("png-check: %d check(s) failed\n", failures);
	return failures ? 1 : 0;
}
