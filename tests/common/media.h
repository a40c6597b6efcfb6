#ifndef WL_RECORD_TEST_MEDIA_H
#define WL_RECORD_TEST_MEDIA_H

/* Test helpers that read what wl-record wrote with independent decoders
 * (libavformat/libavcodec, libpng), so tests never trust the writer. */

#include <stdint.h>

struct rgb_image {
	int width, height;
	uint8_t *rgb; /* packed R,G,B; width*3 bytes per row */
};

struct decoded_frame {
	int64_t pts_us;       /* presentation time, microseconds from the stream start */
	int64_t duration_us;  /* from the packet, 0 when the container gave none */
	struct rgb_image image;
};

struct decoded_video {
	char container[32];   /* AVInputFormat name, e.g. "matroska,webm", "mov,mp4,m4a,3gp,3g2,mj2" */
	char codec[32];       /* e.g. "h264" */
	char pix_fmt[32];     /* of the coded stream, e.g. "yuv420p" */
	char color_range[16]; /* "tv", "pc" or "unknown" */
	char colorspace[16];  /* "bt709", ... */
	int width, height;    /* coded picture size as displayed */
	int64_t duration_us;  /* container duration */
	int frame_count;
	struct decoded_frame *frames;
};

/* Decodes every frame of the first video stream. Returns 0 or a negative
 * value, printing why to stderr. */
int media_decode_video(const char *path, struct decoded_video *out);
void media_decoded_video_free(struct decoded_video *video);

/* The first audio stream, decoded by libavcodec (with the skip of the
 * codec's priming the container states), as interleaved float samples. */
struct decoded_audio {
	char codec[32];       /* e.g. "opus" */
	int sample_rate, channels;
	int64_t frames;       /* sample frames */
	float *samples;       /* frames * channels, interleaved */
};

/* Decodes every frame of the first audio stream (float, float planar or
 * 16-bit). Returns 0 or a negative value, printing why to stderr. */
int media_decode_audio(const char *path, struct decoded_audio *out);
void media_decoded_audio_free(struct decoded_audio *audio);

int media_read_png(const char *path, struct rgb_image *out);
void media_rgb_image_free(struct rgb_image *image);

/* Peak signal-to-noise ratio over the R,G,B samples of two same-sized images;
 * INFINITY when identical. */
double media_psnr(const struct rgb_image *a, const struct rgb_image *b);

#endif
