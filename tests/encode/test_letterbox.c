/* Frames of another aspect mid-recording keep their aspect: scaled to fit,
 * centred, with black bars (letterbox or pillarbox); a size within 2 px of
 * the fitted stream fills it. Checked by decoding the file. */
#include "synth.h"

/* Four flat areas, so that orientation and placement both show: the top
 * half is red on the left and blue on the right, the bottom half green. */
static void pattern_rgb(int width, int height, int x, int y, uint8_t rgb[3])
{
	rgb[0] = rgb[1] = rgb[2] = 0;
	if (y >= height / 2)
		rgb[1] = 255;
	else if (x < width / 2)
		rgb[0] = 255;
	else
		rgb[2] = 255;
}

static struct frame *pattern_frame(int width, int height, int64_t pts_ns)
{
	struct frame *frame = synth_frame(0, width, height, 0, pts_ns);
	for (int y = 0; y < height; y++)
		for (int x = 0; x < width; x++) {
			uint8_t rgb[3];
			pattern_rgb(width, height, x, y, rgb);
			uint8_t *p = frame->data + (size_t)y * frame->stride + (size_t)x * 4;
			p[0] = rgb[2];
			p[1] = rgb[1];
			p[2] = rgb[0];
			p[3] = 0xff;
		}
	return frame;
}

struct area {
	int x1, y1, x2, y2; /* x2, y2 exclusive */
};

/* The mean R, G, B of an area of a decoded picture. */
static void mean_rgb(const struct rgb_image *image, struct area a, double mean[3])
{
	double sum[3] = {0, 0, 0};
	for (int y = a.y1; y < a.y2; y++)
		for (int x = a.x1; x < a.x2; x++)
			for (int c = 0; c < 3; c++)
				sum[c] += image->rgb[((size_t)y * image->width + x) * 3 + c];
	double n = (double)(a.x2 - a.x1) * (a.y2 - a.y1);
	for (int c = 0; c < 3; c++)
		mean[c] = sum[c] / n;
}

/* Every channel's mean within 24 of the expected value: far from what a
 * stretched picture puts there (a full 255 off), tolerant of compression. */
static bool area_is(const struct rgb_image *image, struct area a, const uint8_t rgb[3],
		    const char *what)
{
	double mean[3];
	mean_rgb(image, a, mean);
	bool ok = true;
	for (int c = 0; c < 3; c++)
		ok = ok && mean[c] >= rgb[c] - 24.0 && mean[c] <= rgb[c] + 24.0;
	printf("  %-14s [%d,%d)-[%d,%d): mean %.0f,%.0f,%.0f, expected %d,%d,%d%s\n", what,
	       a.x1, a.y1, a.x2, a.y2, mean[0], mean[1], mean[2], rgb[0], rgb[1], rgb[2],
	       ok ? "" : "  <- wrong");
	return ok;
}

static const uint8_t black[3] = {0, 0, 0}, red[3] = {255, 0, 0}, green[3] = {0, 255, 0},
		     blue[3] = {0, 0, 255};

/* The pattern drawn into the picture rectangle `p` of the stream: each of
 * its areas, checked 8 px inside its edges (scaling and 4:2:0 chroma blur
 * the edges). */
static bool picture_is_pattern(const struct rgb_image *image, struct area p)
{
	int mx = (p.x1 + p.x2) / 2, my = (p.y1 + p.y2) / 2;
	bool ok = area_is(image, (struct area){p.x1 + 8, p.y1 + 8, mx - 8, my - 8}, red, "red");
	ok = area_is(image, (struct area){mx + 8, p.y1 + 8, p.x2 - 8, my - 8}, blue, "blue") && ok;
	ok = area_is(image, (struct area){p.x1 + 8, my + 8, p.x2 - 8, p.y2 - 8}, green, "green") &&
	     ok;
	return ok;
}

struct fit {
	const char *name;
	int stream_w, stream_h, frame_w, frame_h;
	struct area picture;
	struct area bars[2];
	int bar_count;
};

static const struct fit fits[] = {
	/* 16:9 into 4:3: 640x360 at y 60, bars above and below. */
	{ .name = "letterbox", 640, 480, 960, 540, { 0, 60, 640, 420 },
	  { { 0, 0, 640, 54 }, { 0, 426, 640, 480 } }, 2 },
	/* 16:9 into 12:5: 356x200 at x 62, bars left and right. */
	{ .name = "pillarbox", 480, 200, 960, 540, { 62, 0, 418, 200 },
	  { { 0, 0, 56, 200 }, { 424, 0, 480, 200 } }, 2 },
	/* 12:5 into 4:3, scaled up: 640x266 at y 106. */
	{ .name = "wide-up", 640, 480, 480, 200, { 0, 106, 640, 372 },
	  { { 0, 0, 640, 100 }, { 0, 378, 640, 480 } }, 2 },
	/* Within 2 px of the stream: filled, no bars. */
	{ .name = "near-size", 640, 480, 642, 481, { 0, 0, 640, 480 }, { { 0 } }, 0 },
};

/* Records a stream_w x stream_h first frame, then two frames of
 * frame_w x frame_h, and checks those two: the pattern in `picture`, black
 * in each of the bars (none when bar_count is 0). */
TEST_P(fitted, fits, const struct fit *f)
{
	const char *name = f->name;
	int stream_w = f->stream_w, stream_h = f->stream_h;
	int frame_w = f->frame_w, frame_h = f->frame_h;
	struct area picture = f->picture;
	const struct area *bars = f->bars;
	int bar_count = f->bar_count;
	printf("%s: %dx%d frames into a %dx%d stream\n", name, frame_w, frame_h, stream_w,
	       stream_h);
	char file[64];
	snprintf(file, sizeof(file), "%s.mkv", name);
	struct recorder_config config = synth_config(synth_path(file));
	/* At the frames' own rate, so the end one interval after the last frame
	 * is no still picture to repeat (recorder_finish). */
	config.fps = 25;
	struct recorder *recorder = recorder_create(&config, NULL);
	test_assert(recorder);
	for (int i = 0; i < 3; i++) {
		struct frame *frame = i == 0 ? pattern_frame(stream_w, stream_h, 0)
					     : pattern_frame(frame_w, frame_h, i * 40 * NS_PER_MS);
		while (!recorder_submit(recorder, frame))
			;
		synth_frame_free(frame);
	}
	test_assert(recorder_finish(recorder, 120 * NS_PER_MS, NULL) == 0);
	struct decoded_video video;
	test_assert(media_decode_video(config.path, &video) == 0);
	test_assert(video.frame_count == 3);
	test_assert(video.width == stream_w && video.height == stream_h);
	bool ok = true;
	for (int i = 1; i < 3; i++) {
		const struct rgb_image *image = &video.frames[i].image;
		ok = picture_is_pattern(image, picture) && ok;
		for (int b = 0; b < bar_count; b++)
			ok = area_is(image, bars[b], black, "bar") && ok;
	}
	test_assert(ok);
	media_decoded_video_free(&video);
}

