/* Damage-aware conversion: frames that say what changed are converted only
 * there, and the result still equals the source frame by frame. A frame that
 * lies about its damage proves the shortcut is really taken: its change
 * outside the stated rectangle (and outside what changed in the frames
 * before, which a queue buffer that held an older frame also converts) does
 * not reach the file.
 *
 * Before that, the odd-edges cases: yuv_convert_rect() widens a damage
 * rectangle to even edges (4:2:0 shares a chroma sample between a 2x2
 * block); with odd edges, 1-pixel rectangles and odd-sized pictures, the
 * planes after converting only the damage must equal, byte for byte, a
 * full conversion of the same picture. */
#include <string.h>
#include <unistd.h>

#include "synth.h"
#include "yuv_convert.h"

#define W 320
#define H 240

/* Background gradient; a 40x40 white box at (x, y) when x >= 0, and a
 * 40x32 white patch at the bottom left with `patch`. */
static void paint(struct frame *frame, int box_x, int box_y, bool patch)
{
	for (int y = 0; y < H; y++) {
		for (int x = 0; x < W; x++) {
			uint8_t *p = frame->data + (size_t)y * frame->stride + (size_t)x * 4;
			bool in_box = (box_x >= 0 && x >= box_x && x < box_x + 40 && y >= box_y &&
				       y < box_y + 40) ||
				      (patch && x < 40 && y >= H - 32);
			p[0] = in_box ? 255 : (uint8_t)(x * 255 / W);
			p[1] = in_box ? 255 : (uint8_t)(y * 255 / H);
			p[2] = in_box ? 255 : 96;
			p[3] = 0;
		}
	}
}

static void to_rgb(const struct frame *frame, struct rgb_image *image)
{
	image->width = W;
	image->height = H;
	image->rgb = malloc((size_t)W * H * 3);
	test_assert(image->rgb);
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++) {
			const uint8_t *p = frame->data + (size_t)y * frame->stride + (size_t)x * 4;
			uint8_t *q = image->rgb + ((size_t)y * W + x) * 3;
			q[0] = p[2], q[1] = p[1], q[2] = p[0];
		}
}

/* A BGRX picture of noise (every pixel, and so every 2x2 block's chroma,
 * differs from its neighbours'): a chroma sample computed from part of its
 * block, or a pixel left out, shows. */
static void noise(uint8_t *bgrx, int width, int height, uint32_t seed)
{
	uint32_t state = seed * 2654435761u + 1;
	for (int i = 0; i < width * height * 4; i++) {
		state = state * 1664525u + 1013904223u;
		bgrx[i] = (uint8_t)(state >> 24);
	}
}

struct yuv {
	uint8_t *planes[3];
	int strides[3];
	size_t sizes[3];
};

static void yuv_alloc(struct yuv *yuv, int width, int height)
{
	int cw = (width + 1) / 2, ch = (height + 1) / 2;
	yuv->strides[0] = width, yuv->strides[1] = yuv->strides[2] = cw;
	yuv->sizes[0] = (size_t)width * height;
	yuv->sizes[1] = yuv->sizes[2] = (size_t)cw * ch;
	for (int i = 0; i < 3; i++) {
		yuv->planes[i] = malloc(yuv->sizes[i]);
		test_assert(yuv->planes[i]);
	}
}

static void yuv_free(struct yuv *yuv)
{
	for (int i = 0; i < 3; i++)
		free(yuv->planes[i]);
}

static void yuv_copy(struct yuv *to, const struct yuv *from)
{
	for (int i = 0; i < 3; i++)
		memcpy(to->planes[i], from->planes[i], from->sizes[i]);
}

/* The first differing plane (0 Y, 1 U, 2 V), or -1. */
static int yuv_differs(const struct yuv *a, const struct yuv *b)
{
	for (int i = 0; i < 3; i++)
		if (memcmp(a->planes[i], b->planes[i], a->sizes[i]) != 0)
			return i;
	return -1;
}

struct odd_edges {
	int width, height;
	struct frame before, after; /* after: before with the damage replaced */
	uint8_t *changed;           /* noise for the damage */
	struct yuv before_yuv, full, partial;
};

static void odd_edges_init(struct odd_edges *t, int width, int height)
{
	*t = (struct odd_edges){ .width = width, .height = height };
	size_t size = (size_t)width * height * 4;
	uint8_t *before = malloc(size), *after = malloc(size);
	t->changed = malloc(size);
	test_assert(before && after && t->changed);
	noise(before, width, height, 1);
	noise(t->changed, width, height, 2);
	struct frame frame = { .format = FRAME_XRGB8888, .width = width, .height = height,
			       .stride = width * 4 };
	t->before = frame, t->before.data = before;
	t->after = frame, t->after.data = after;
	yuv_alloc(&t->before_yuv, width, height);
	yuv_alloc(&t->full, width, height);
	yuv_alloc(&t->partial, width, height);
	struct frame_damage all = { 0, 0, width, height };
	test_assert(yuv_convert_rect(&t->before, t->before_yuv.planes, t->before_yuv.strides, width,
			       height, all) == 0);
}

static void odd_edges_free(struct odd_edges *t)
{
	free(t->before.data);
	free(t->after.data);
	free(t->changed);
	yuv_free(&t->before_yuv);
	yuv_free(&t->full);
	yuv_free(&t->partial);
}

/* The picture changes inside `rect` (clipped to it) only; the planes of the
 * picture before, converted again inside `rect` only, must be those of a
 * full conversion of the new picture. */
static void odd_edges_check(struct odd_edges *t, struct frame_damage rect)
{
	int width = t->width, height = t->height;
	memcpy(t->after.data, t->before.data, (size_t)width * height * 4);
	for (int y = rect.y1 < 0 ? 0 : rect.y1; y < rect.y2 && y < height; y++) {
		int x1 = rect.x1 < 0 ? 0 : rect.x1, x2 = rect.x2 > width ? width : rect.x2;
		if (x2 > x1) {
			size_t at = ((size_t)y * width + x1) * 4;
			memcpy(t->after.data + at, t->changed + at, (size_t)(x2 - x1) * 4);
		}
	}
	struct frame_damage all = { 0, 0, width, height };
	test_assert(yuv_convert_rect(&t->after, t->full.planes, t->full.strides, width, height, all) ==
	      0);
	yuv_copy(&t->partial, &t->before_yuv);
	test_assert(yuv_convert_rect(&t->after, t->partial.planes, t->partial.strides, width, height,
			       rect) == 0);
	int plane = yuv_differs(&t->partial, &t->full);
	test_assert(plane < 0, "%dx%d picture, damage (%d,%d)-(%d,%d): plane %c differs from a "
		    "full conversion", width, height, rect.x1, rect.y1, rect.x2, rect.y2,
		    "YUV"[plane]);
}

struct picture_size {
	const char *name;
	int width, height;
};

/* Small pictures, even and odd sized. */
static const struct picture_size small_sizes[] = {
	{ .name = "10x8", .width = 10, .height = 8 },
	{ .name = "11x9", .width = 11, .height = 9 },
	{ .name = "9x6", .width = 9, .height = 6 },
	{ .name = "6x7", .width = 6, .height = 7 },
};

/* Every rectangle of a small picture, edges from one outside the picture to
 * one beyond it: odd and even starts and ends, 1-pixel rectangles at each
 * position, the right and bottom edges of odd sizes. libyuv's tail code
 * handles these widths. */
TEST_P(odd_edges_every_rect, small_sizes, const struct picture_size *size)
{
	int rects = 0;
	struct odd_edges t;
	int width = size->width, height = size->height;
	odd_edges_init(&t, width, height);
	for (int y1 = -1; y1 < height; y1++)
		for (int y2 = y1 + 1; y2 <= height + 1; y2++)
			for (int x1 = -1; x1 < width; x1++)
				for (int x2 = x1 + 1; x2 <= width + 1; x2++, rects++)
					odd_edges_check(&t, (struct frame_damage){ x1, y1, x2, y2 });
	odd_edges_free(&t);
	fprintf(stderr, "odd edges: %d damage rectangles converted as a full conversion\n",
		rects);
}

/* Pictures of a real size, where libyuv's SIMD rows run too. */
static const struct picture_size real_sizes[] = {
	{ .name = "320x240", .width = 320, .height = 240 },
	{ .name = "321x241", .width = 321, .height = 241 },
};

/* Odd rectangles inside, 1-pixel ones at odd places, and at the right,
 * bottom and bottom-right edges of the odd-sized picture. */
TEST_P(odd_edges_real_size, real_sizes, const struct picture_size *size)
{
	int rects = 0;
	int width = size->width, height = size->height;
	struct odd_edges t;
	odd_edges_init(&t, width, height);
	const struct frame_damage cases[] = {
		{ 37, 21, 37 + 101, 21 + 77 },  /* odd x, y, width, height */
		{ 37, 21, 37 + 100, 21 + 76 },  /* odd x, y; even sizes: odd ends */
		{ 36, 20, 36 + 101, 20 + 77 },  /* even x, y; odd ends */
		{ 33, 17, 34, 18 },             /* 1 pixel, odd x and y */
		{ 34, 18, 35, 19 },             /* 1 pixel, even x and y */
		{ 33, 18, 34, 19 },             /* 1 pixel, odd x, even y */
		{ 34, 17, 35, 18 },             /* 1 pixel, even x, odd y */
		{ width - 1, 101, width, 102 }, /* 1 pixel at the right edge */
		{ 101, height - 1, 102, height }, /* at the bottom edge */
		{ width - 1, height - 1, width, height }, /* the bottom-right pixel */
		{ width - 2, height - 2, width, height },
		{ width - 3, height - 3, width - 1, height - 1 },
		{ 1, 1, width - 1, height - 1 },
		{ 0, 0, 1, height },            /* the first column */
		{ 0, 0, width, 1 },             /* the first row */
		{ 19, 0, 20, height },          /* one odd column */
		{ 0, 19, width, 20 },           /* one odd row */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++, rects++)
		odd_edges_check(&t, cases[i]);
	odd_edges_free(&t);
	fprintf(stderr, "odd edges: %d damage rectangles converted as a full conversion\n",
		rects);
}

/* The file equals the frames, converted only where damaged; a frame's
 * change outside its damage does not reach the file. */
TEST(lying_damage_not_converted)
{
	struct recorder_config config = synth_config(synth_path("damage.mkv"));
	config.crf = 10;
	/* At the frames' own rate, so the end one interval after the last frame
	 * is no still picture to repeat (recorder_finish). */
	config.fps = 25;
	struct recorder *recorder = recorder_create(&config, NULL);
	test_assert(recorder);

	enum { FRAMES = 12 };
	struct frame *frame = synth_frame(0, W, H, W * 4, 0);
	struct rgb_image expected[FRAMES];
	int last_x = -1, last_y = 0;
	for (int i = 0; i < FRAMES; i++) {
		bool lie = i == FRAMES - 1;
		/* The box moves down-right: no frame before the lie touches the
		 * bottom left. The lying frame leaves the box where it was. */
		int x = lie ? last_x : 10 + i * 20, y = lie ? last_y : 30 + i * 12;
		paint(frame, x, y, lie);
		frame->pts_ns = (int64_t)i * 40 * NS_PER_MS;
		/* Rows of the old and the new box; the first frame is all new. */
		frame->damage_known = i > 0;
		frame->damage = (struct frame_damage){ last_x < x ? last_x : x, last_y,
						       x + 40, y + 40 };
		if (lie) {
			/* A patch appeared at the bottom left, but only rows 0-1
			 * (where nothing changed) are said to have changed. The
			 * file must keep the previous picture. */
			frame->damage = (struct frame_damage){ 0, 0, W, 2 };
		}
		to_rgb(frame, &expected[i]);
		while (!recorder_submit(recorder, frame))
			usleep(2000); /* the test wants every frame */
		last_x = x;
		last_y = y;
	}
	test_assert(recorder_finish(recorder, FRAMES * 40 * NS_PER_MS, NULL) == 0);

	struct decoded_video video;
	test_assert(media_decode_video(config.path, &video) == 0);
	test_assert(video.frame_count == FRAMES);
	for (int i = 0; i < FRAMES - 1; i++) {
		double psnr = media_psnr(&video.frames[i].image, &expected[i]);
		fprintf(stderr, "frame %d: PSNR %.2f dB\n", i, psnr);
		test_assert(psnr > 38);
	}
	/* The undeclared patch is absent: the last frame still shows the
	 * previous picture, not the pixels submitted with it. */
	double previous = media_psnr(&video.frames[FRAMES - 1].image, &expected[FRAMES - 2]);
	double submitted = media_psnr(&video.frames[FRAMES - 1].image, &expected[FRAMES - 1]);
	fprintf(stderr, "last frame: %.2f dB against the previous picture, %.2f dB against the "
		"submitted one\n", previous, submitted);
	test_assert(previous > 38 && submitted < previous - 8);

	for (int i = 0; i < FRAMES; i++)
		free(expected[i].rgb);
	media_decoded_video_free(&video);
	synth_frame_free(frame);
}
