#include "synth.h"

#include <errno.h>
#include <ftw.h>
#include <string.h>
#include <time.h>
#include <math.h>

void synth_pixel(int index, int width, int height, int x, int y, uint8_t rgb[3])
{
	int box_x = (index * 7) % (width > 60 ? width - 48 : 1);
	int box_y = (index * 5) % (height > 60 ? height - 48 : 1);
	if (x >= box_x && x < box_x + 48 && y >= box_y && y < box_y + 48) {
		rgb[0] = 200;
		rgb[1] = (uint8_t)(60 + (index * 3) % 100);
		rgb[2] = 90;
		return;
	}
	rgb[0] = (uint8_t)(x * 255 / (width > 1 ? width - 1 : 1));
	rgb[1] = (uint8_t)(y * 255 / (height > 1 ? height - 1 : 1));
	rgb[2] = (uint8_t)(64 + abs((x + y + index * 2) % 256 - 128));
}

struct frame *synth_frame(int index, int width, int height, int stride, int64_t pts_ns)
{
	struct frame *frame = calloc(1, sizeof(*frame));
	test_assert(frame);
	frame->width = width;
	frame->height = height;
	frame->stride = stride ? stride : width * 4;
	frame->pts_ns = pts_ns;
	frame->data = malloc((size_t)frame->stride * (size_t)height);
	test_assert(frame->data);
	for (int y = 0; y < height; y++) {
		uint8_t *row = frame->data + (size_t)y * (size_t)frame->stride;
		for (int x = 0; x < width; x++) {
			uint8_t rgb[3];
			synth_pixel(index, width, height, x, y, rgb);
			row[x * 4 + 0] = rgb[2];
			row[x * 4 + 1] = rgb[1];
			row[x * 4 + 2] = rgb[0];
			row[x * 4 + 3] = (uint8_t)(x * 13 + y); /* X byte: garbage */
		}
	}
	return frame;
}

void synth_frame_free(struct frame *frame)
{
	if (!frame)
		return;
	free(frame->data);
	free(frame);
}

void synth_expected(int index, int width, int height, int crop_width, int crop_height,
		    struct rgb_image *out)
{
	out->width = crop_width;
	out->height = crop_height;
	out->rgb = malloc((size_t)crop_width * (size_t)crop_height * 3);
	test_assert(out->rgb);
	for (int y = 0; y < crop_height; y++)
		for (int x = 0; x < crop_width; x++)
			synth_pixel(index, width, height, x, y,
				    out->rgb + ((size_t)y * (size_t)crop_width + (size_t)x) * 3);
}

static char tmpdir[256];
static bool keep_tmpdir;

void synth_keep_tmpdir(void)
{
	keep_tmpdir = true;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st, (void)type, (void)ftw;
	if (remove(path) != 0)
		fprintf(stderr, "cannot remove %s: %s\n", path, strerror(errno));
	return 0;
}

static void remove_tmpdir(void)
{
	if (keep_tmpdir)
		fprintf(stderr, "test files kept in %s\n", tmpdir);
	else
		nftw(tmpdir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
}

const char *synth_tmpdir(void)
{
	if (!tmpdir[0]) {
		const char *base = getenv("TMPDIR");
		snprintf(tmpdir, sizeof(tmpdir), "%s/wl-record-encode-XXXXXX", base ? base : "/tmp");
		test_assert(mkdtemp(tmpdir));
		atexit(remove_tmpdir);
		/* A failed test_assert() keeps the files of the case. */
		test_set_hooks(synth_keep_tmpdir, NULL);
	}
	return tmpdir;
}

static char *paths[128];
static int path_count;

static void free_paths(void)
{
	for (int i = 0; i < path_count; i++)
		free(paths[i]);
}

const char *synth_path(const char *name)
{
	test_assert(path_count < (int)(sizeof(paths) / sizeof(paths[0])));
	if (path_count == 0)
		atexit(free_paths);
	test_assert(asprintf(&paths[path_count], "%s/%s", synth_tmpdir(), name) > 0);
	return paths[path_count++];
}

struct recorder_config synth_config(const char *path)
{
	return (struct recorder_config){
		.path = path,
		.codec = "libx264",
		.crf = 18,
		.fps = 60,
	};
}

void synth_submit(struct recorder *recorder, int index, int width, int height, int64_t pts_ns)
{
	struct frame *frame = synth_frame(index, width, height, 0, pts_ns);
	/* The recorder never waits; the test does, so no frame is lost. */
	while (!recorder_submit(recorder, frame)) {
		test_assert(!recorder_failed(recorder));
		nanosleep(&(struct timespec){0, 2000000}, NULL);
	}
	synth_frame_free(frame);
}

int synth_record(const struct recorder_config *config, int width, int height, int count,
		 const int64_t *pts_ns, int64_t end_ns, struct recorder_stats *stats)
{
	struct recorder *recorder = recorder_create(config, NULL);
	if (!recorder)
		return -100;
	for (int i = 0; i < count; i++)
		synth_submit(recorder, i, width, height, pts_ns[i]);
	return recorder_finish(recorder, end_ns, stats);
}

double synth_min_psnr(const struct decoded_video *video, int width, int height)
{
	double lowest = INFINITY;
	for (int i = 0; i < video->frame_count; i++) {
		struct rgb_image expected;
		synth_expected(i, width, height, video->frames[i].image.width,
			       video->frames[i].image.height, &expected);
		double psnr = media_psnr(&video->frames[i].image, &expected);
		if (psnr < lowest)
			lowest = psnr;
		media_rgb_image_free(&expected);
	}
	return lowest;
}
