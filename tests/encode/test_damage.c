/* Damage-aware conversion: frames that say what changed are converted only
 * there, and the result still equals the source frame by frame. A frame that
 * lies about its damage proves the shortcut is really taken: its change
 * outside the stated rectangle (and outside what changed in the frames
 * before, which a queue buffer that held an older frame also converts) does
 * not reach the file. */
#include <string.h>
#include <unistd.h>

#include "synth.h"

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
	CHECK(image->rgb);
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++) {
			const uint8_t *p = frame->data + (size_t)y * frame->stride + (size_t)x * 4;
			uint8_t *q = image->rgb + ((size_t)y * W + x) * 3;
			q[0] = p[2], q[1] = p[1], q[2] = p[0];
		}
}

int main(void)
{
	struct recorder_config config = synth_config(synth_path("damage.mkv"));
	config.crf = 10;
	/* At the frames' own rate, so the end one interval after the last frame
	 * is no still picture to repeat (recorder_finish). */
	config.fps = 25;
	struct recorder *recorder = recorder_create(&config, NULL);
	CHECK(recorder);

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
	CHECK(recorder_finish(recorder, FRAMES * 40 * NS_PER_MS, NULL) == 0);

	struct decoded_video video;
	CHECK(media_decode_video(config.path, &video) == 0);
	CHECK(video.frame_count == FRAMES);
	for (int i = 0; i < FRAMES - 1; i++) {
		double psnr = media_psnr(&video.frames[i].image, &expected[i]);
		fprintf(stderr, "frame %d: PSNR %.2f dB\n", i, psnr);
		CHECK(psnr > 38);
	}
	/* The undeclared patch is absent: the last frame still shows the
	 * previous picture, not the pixels submitted with it. */
	double previous = media_psnr(&video.frames[FRAMES - 1].image, &expected[FRAMES - 2]);
	double submitted = media_psnr(&video.frames[FRAMES - 1].image, &expected[FRAMES - 1]);
	fprintf(stderr, "last frame: %.2f dB against the previous picture, %.2f dB against the "
		"submitted one\n", previous, submitted);
	CHECK(previous > 38 && submitted < previous - 8);

	for (int i = 0; i < FRAMES; i++)
		free(expected[i].rgb);
	media_decoded_video_free(&video);
	synth_frame_free(frame);
	return 0;
}
