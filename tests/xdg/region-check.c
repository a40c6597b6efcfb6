/* region-check: asserts what parts of a picture written by wl-record show,
 * read with the independent decoders of tests/common/media.c.
 *
 *   region-check FILE --size WxH [--tolerance T] CHECK...
 *     --ref RRGGBB             reference colour for the checks that follow
 *     --ref-at X,Y             reference: the colour of that pixel
 *     --matches X,Y,WxH        every pixel of the rectangle is the reference
 *     --differs X,Y,WxH,PCT    at least PCT% of its pixels are not
 *     --min-frames N           (video) at least N frames
 *     --min-changes N          (video) at least N frames differ from the one before
 *     --any-frame              (video) later --differs pass when any frame passes
 *
 * A PNG is checked as it is; for a video the checks look at the last frame.
 * "Is" and "is not" allow a per-channel difference of T (default 0; H.264
 * needs ~16). Exit status: 0 all passed, 1 a check failed, 2 bad usage or
 * unreadable file. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "media.h"

static int tolerance;

static bool same(const uint8_t *p, uint32_t rgb)
{
	int r = (int)(rgb >> 16 & 0xff), g = (int)(rgb >> 8 & 0xff), b = (int)(rgb & 0xff);
	return abs(p[0] - r) <= tolerance && abs(p[1] - g) <= tolerance && abs(p[2] - b) <= tolerance;
}

static bool images_differ(const struct rgb_image *a, const struct rgb_image *b)
{
	size_t n = (size_t)a->width * a->height * 3;
	for (size_t i = 0; i < n; i++) {
		if (abs(a->rgb[i] - b->rgb[i]) > tolerance)
			return true;
	}
	return false;
}

/* Pixels of the rectangle that differ from `ref`; -1 if out of the image. */
static long count_differing(const struct rgb_image *image, int x, int y, int w, int h,
			    uint32_t ref)
{
	if (x < 0 || y < 0 || w <= 0 || h <= 0 || x + w > image->width || y + h > image->height)
		return -1;
	long n = 0;
	for (int j = y; j < y + h; j++)
		for (int i = x; i < x + w; i++)
			n += !same(image->rgb + ((size_t)j * image->width + i) * 3, ref);
	return n;
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

int main(int argc, char **argv)
{
	if (argc < 4 || strcmp(argv[2], "--size") != 0) {
		fprintf(stderr, "usage: region-check FILE --size WxH [--tolerance T] CHECK...\n");
		return 2;
	}
	const char *path = argv[1];
	int want_w, want_h;
	if (sscanf(argv[3], "%dx%d", &want_w, &want_h) != 2) {
		fprintf(stderr, "region-check: bad size '%s'\n", argv[3]);
		return 2;
	}

	struct rgb_image png = { 0 };
	struct decoded_video video = { 0 };
	const struct rgb_image *image;
	bool is_video = !has_suffix(path, ".png");
	if (is_video) {
		if (media_decode_video(path, &video) < 0 || video.frame_count < 1) {
			fprintf(stderr, "region-check: cannot decode %s\n", path);
			return 2;
		}
		image = &video.frames[video.frame_count - 1].image;
	} else {
		if (media_read_png(path, &png) < 0) {
			fprintf(stderr, "region-check: cannot read %s\n", path);
			return 2;
		}
		image = &png;
	}

	int failed = 0;
	if (image->width != want_w || image->height != want_h) {
		fprintf(stderr, "region-check: %s is %dx%d, expected %dx%d\n", path, image->width,
			image->height, want_w, want_h);
		failed = 1;
	}
	uint32_t ref = 0;
	bool any_frame = false;
	for (int i = 4; i < argc && !failed; i++) {
		const char *opt = argv[i], *arg = i + 1 < argc ? argv[i + 1] : "";
		int x, y, w, h, pct, n;
		i++;
		if (strcmp(opt, "--any-frame") == 0 && is_video) {
			any_frame = true;
			i--; /* takes no argument */
		} else if (strcmp(opt, "--tolerance") == 0 && sscanf(arg, "%d", &tolerance) == 1) {
		} else if (strcmp(opt, "--ref") == 0 && sscanf(arg, "%x", &ref) == 1) {
		} else if (strcmp(opt, "--ref-at") == 0 && sscanf(arg, "%d,%d", &x, &y) == 2 &&
			   x >= 0 && y >= 0 && x < image->width && y < image->height) {
			const uint8_t *p = image->rgb + ((size_t)y * image->width + x) * 3;
			ref = (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
			printf("region-check: reference %06x from (%d,%d)\n", ref, x, y);
		} else if (strcmp(opt, "--matches") == 0 &&
			   sscanf(arg, "%d,%d,%dx%d", &x, &y, &w, &h) == 4) {
			long d = count_differing(image, x, y, w, h, ref);
			if (d != 0) {
				fprintf(stderr, "region-check: %s: %ld pixels of %dx%d+%d+%d are not %06x\n",
					path, d, w, h, x, y, ref);
				failed = 1;
			}
		} else if (strcmp(opt, "--differs") == 0 &&
			   sscanf(arg, "%d,%d,%dx%d,%d", &x, &y, &w, &h, &pct) == 5) {
			long d = count_differing(image, x, y, w, h, ref);
			for (int f = 0; any_frame && f < video.frame_count; f++) {
				long df = count_differing(&video.frames[f].image, x, y, w, h, ref);
				if (df > d)
					d = df;
			}
			long need = ((long)w * h * pct + 99) / 100;
			printf("region-check: %ld of %d pixels of %dx%d+%d+%d differ from %06x\n", d,
			       w * h, w, h, x, y, ref);
			if (d < need || d < 1) {
				fprintf(stderr, "region-check: %s: only %ld pixels of %dx%d+%d+%d differ "
					"from %06x, expected at least %ld\n", path, d, w, h, x, y, ref, need);
				failed = 1;
			}
		} else if (strcmp(opt, "--min-frames") == 0 && is_video && sscanf(arg, "%d", &n) == 1) {
			printf("region-check: %d frames\n", video.frame_count);
			if (video.frame_count < n) {
				fprintf(stderr, "region-check: %s has %d frames, expected at least %d\n",
					path, video.frame_count, n);
				failed = 1;
			}
		} else if (strcmp(opt, "--min-changes") == 0 && is_video && sscanf(arg, "%d", &n) == 1) {
			int changes = 0;
			for (int f = 1; f < video.frame_count; f++)
				changes += images_differ(&video.frames[f - 1].image, &video.frames[f].image);
			printf("region-check: %d frames differ from the one before\n", changes);
			if (changes < n) {
				fprintf(stderr, "region-check: %s: %d changing frames, expected at least %d\n",
					path, changes, n);
				failed = 1;
			}
		} else {
			fprintf(stderr, "region-check: bad check '%s %s'\n", opt, arg);
			failed = 2;
		}
	}
	media_rgb_image_free(&png);
	if (is_video)
		media_decoded_video_free(&video);
	return failed;
}
