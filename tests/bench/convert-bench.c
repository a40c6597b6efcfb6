/* Not a test: how much one BGRX -> yuv420p conversion costs, swscale (as
 * wl-record used it: sws_scale_frame, bilinear, 1 and 2 threads) against
 * libyuv (what wl-record uses: yuv_convert_rect), for a whole frame and for
 * a 256x256 damaged box. Sources rotate over several buffers so that they
 * come from memory, not from the cache, as queue buffers do.
 *
 *   convert-bench [WIDTHxHEIGHT] [FRAMES]      (scripts/bench-convert) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <libavutil/frame.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>

#include "frame.h"
#include "yuv_convert.h"

#define SOURCES 8

static double now_ms(clockid_t clock)
{
	struct timespec t;
	clock_gettime(clock, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

struct timing {
	double cpu, wall;
};

static void timing_start(struct timing *t)
{
	t->cpu = now_ms(CLOCK_PROCESS_CPUTIME_ID);
	t->wall = now_ms(CLOCK_MONOTONIC);
}

static void timing_print(const struct timing *t, const char *what, int frames)
{
	printf("%-34s cpu %7.3f ms  wall %7.3f ms per frame\n", what,
	       (now_ms(CLOCK_PROCESS_CPUTIME_ID) - t->cpu) / frames,
	       (now_ms(CLOCK_MONOTONIC) - t->wall) / frames);
}

static void noop_free(void *opaque, uint8_t *data)
{
}

static int run_swscale(struct frame *sources, AVFrame *out, int threads, int frames)
{
	int width = sources[0].width, height = sources[0].height;
	struct SwsContext *sws = sws_alloc_context();
	if (!sws)
		return -1;
	av_opt_set_int(sws, "srcw", width, 0);
	av_opt_set_int(sws, "srch", height, 0);
	av_opt_set_pixel_fmt(sws, "src_format", AV_PIX_FMT_BGR0, 0);
	av_opt_set_int(sws, "dstw", width, 0);
	av_opt_set_int(sws, "dsth", height, 0);
	av_opt_set_pixel_fmt(sws, "dst_format", AV_PIX_FMT_YUV420P, 0);
	av_opt_set(sws, "sws_flags", "bilinear", 0);
	av_opt_set_int(sws, "threads", threads, 0);
	if (sws_init_context(sws, NULL, NULL) < 0) {
		sws_freeContext(sws);
		return -1;
	}
	AVFrame *source = av_frame_alloc();
	int ret = source ? 0 : -1;
	struct timing t;
	for (int i = -1; i < frames && ret >= 0; i++) {
		if (i == 0)
			timing_start(&t);
		struct frame *f = &sources[(i + SOURCES) % SOURCES];
		av_frame_unref(source);
		source->buf[0] = av_buffer_create(f->data, (size_t)f->stride * (size_t)height,
						  noop_free, NULL, AV_BUFFER_FLAG_READONLY);
		source->data[0] = f->data;
		source->linesize[0] = f->stride;
		source->format = AV_PIX_FMT_BGR0;
		source->width = width;
		source->height = height;
		ret = source->buf[0] ? sws_scale_frame(sws, out, source) : -1;
	}
	if (ret >= 0) {
		char what[64];
		snprintf(what, sizeof(what), "swscale, threads=%d, whole frame", threads);
		timing_print(&t, what, frames);
	}
	av_frame_free(&source);
	sws_freeContext(sws);
	return ret < 0 ? -1 : 0;
}

static int run_libyuv(struct frame *sources, AVFrame *out, struct frame_damage rect,
		      const char *what, int frames)
{
	struct timing t;
	for (int i = -1; i < frames; i++) {
		if (i == 0)
			timing_start(&t);
		if (yuv_convert_rect(&sources[(i + SOURCES) % SOURCES], out->data, out->linesize,
				     out->width, out->height, rect) < 0)
			return -1;
	}
	timing_print(&t, what, frames);
	return 0;
}

int main(int argc, char **argv)
{
	int width = 1920, height = 1080, frames = 300;
	if (argc > 1 && sscanf(argv[1], "%dx%d", &width, &height) != 2) {
		fprintf(stderr, "usage: convert-bench [WIDTHxHEIGHT] [FRAMES]\n");
		return 2;
	}
	if (argc > 2)
		frames = atoi(argv[2]);
	if (width < 256 || height < 256 || width % 2 || height % 2 || frames < 1) {
		fprintf(stderr, "convert-bench: need an even size of at least 256x256\n");
		return 2;
	}
	struct frame sources[SOURCES];
	for (int s = 0; s < SOURCES; s++) {
		sources[s] = (struct frame){.width = width, .height = height, .stride = width * 4};
		sources[s].data = malloc((size_t)width * 4 * (size_t)height);
		if (!sources[s].data)
			return 1;
		for (int y = 0; y < height; y++)
			for (int x = 0; x < width; x++) {
				uint8_t *p = sources[s].data + (size_t)y * (size_t)width * 4 + (size_t)x * 4;
				p[0] = (uint8_t)(x + s * 7);
				p[1] = (uint8_t)(y * 3 + s);
				p[2] = (uint8_t)((x ^ y) + s * 13);
				p[3] = 255;
			}
	}
	AVFrame *out = av_frame_alloc();
	if (!out)
		return 1;
	out->format = AV_PIX_FMT_YUV420P;
	out->width = width;
	out->height = height;
	if (av_frame_get_buffer(out, 0) < 0)
		return 1;
	printf("BGRX %dx%d -> yuv420p, %d frames, %d source buffers\n", width, height, frames,
	       SOURCES);
	int status = 0;
	if (run_swscale(sources, out, 1, frames) < 0 || run_swscale(sources, out, 2, frames) < 0)
		status = 1;
	struct frame_damage all = {0, 0, width, height};
	struct frame_damage box = {width / 3, height / 3, width / 3 + 256, height / 3 + 256};
	if (run_libyuv(sources, out, all, "libyuv, whole frame", frames) < 0 ||
	    run_libyuv(sources, out, box, "libyuv, a 256x256 damaged box", frames) < 0)
		status = 1;
	av_frame_free(&out);
	for (int s = 0; s < SOURCES; s++)
		free(sources[s].data);
	return status;
}
