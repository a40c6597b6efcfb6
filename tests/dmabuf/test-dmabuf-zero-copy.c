/* The zero-copy frame path on a machine without a GPU: everything but the
 * VA-API map itself. A consumer that asks for dmabufs gets frames carrying
 * the client's buffer (no pixels, no CPU copy on the compositor side); the
 * wl_buffer is released only when the last frame holding it is dropped; a
 * non-1:1 presentation falls back to reading the buffer; and the recorder
 * takes such frames and, without VA-API, reads them with the CPU (the
 * fallback), the file holding the right pictures.
 * One case per run: argv[1]. */
#include <drm_fourcc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dmabuf_client.h"
#include "inproc.h"
#include "media.h"
#include "pattern.h"
#include "recorder.h"
#include "screen_source.h"

#define BUFFERS 3

struct zero_copy_test {
	struct inproc t;
	struct dmabuf_client c;
	struct frame_sink sink;
	int frames, dmabuf_frames;
	struct wl_record_buffer *kept; /* a frame's buffer the test locks */
	bool keep_next;
	struct recorder *recorder;
	struct {
		struct wl_buffer *buffer;
		void *pixels;
		int fd;
		size_t size;
		int released;
	} buffers[BUFFERS];
	int width, height;
	uint32_t last_pixel;          /* of a non-dmabuf frame, at (5, 5) */
};

static bool roundtrip(void *data)
{
	return inproc_roundtrip(data);
}

static void handle_frame(struct frame_sink *sink, const struct frame *frame)
{
	struct zero_copy_test *z = wl_container_of(sink, z, sink);
	z->frames++;
	if (frame_in_buffer_only(frame)) {
		test_assert(frame->width == z->width && frame->height == z->height);
		z->dmabuf_frames++;
		if (z->keep_next) {
			z->kept = wl_record_buffer_lock(frame->buffer);
			z->keep_next = false;
		}
	} else {
		test_assert(frame->data);
		z->last_pixel = *(const uint32_t *)(frame->data + 5 * frame->stride + 5 * 4) & 0xffffff;
	}
	if (z->recorder)
		test_assert(recorder_submit(z->recorder, frame));
}

static const struct frame_sink_impl sink_impl = { .frame = handle_frame };

static void buffer_release(void *data, struct wl_buffer *buffer)
{
	(*(int *)data)++;
}

static const struct wl_buffer_listener buffer_listener = { .release = buffer_release };

static void setup(struct zero_copy_test *z, int width, int height)
{
	memset(z, 0, sizeof(*z));
	z->width = width;
	z->height = height;
	inproc_init(&z->t, width, height);
	/* inproc copies every frame's pixels; these frames may have none. */
	wl_list_remove(&z->t.frame_listener.link);
	wl_list_init(&z->t.frame_listener.link);
	frame_sink_connect(&z->sink, &sink_impl, screen_frame_source(&z->t.server->screen));
	test_assert(dmabuf_client_bind(&z->c, z->t.display, 4, roundtrip, &z->t));
	for (int i = 0; i < BUFFERS; i++) {
		bool udmabuf;
		z->buffers[i].size = (size_t)width * 4 * (size_t)height;
		z->buffers[i].fd = dmabuf_client_make_fd(z->buffers[i].size, false,
							 &z->buffers[i].pixels, &udmabuf);
		struct zwp_linux_buffer_params_v1 *params =
			zwp_linux_dmabuf_v1_create_params(z->c.dmabuf);
		zwp_linux_buffer_params_v1_add(params, z->buffers[i].fd, 0, 0, (uint32_t)width * 4,
					       0, 0);
		z->buffers[i].buffer = zwp_linux_buffer_params_v1_create_immed(
			params, width, height, DRM_FORMAT_XRGB8888, 0);
		zwp_linux_buffer_params_v1_destroy(params);
		wl_buffer_add_listener(z->buffers[i].buffer, &buffer_listener,
				       &z->buffers[i].released);
	}
	z->t.surface = wl_compositor_create_surface(z->t.compositor);
	test_assert(inproc_roundtrip(&z->t));
}

static void present(struct zero_copy_test *z, enum zwp_fullscreen_shell_v1_present_method method)
{
	zwp_fullscreen_shell_v1_present_surface(z->t.shell, z->t.surface, method, z->t.output);
	test_assert(inproc_roundtrip(&z->t));
}

static void commit(struct zero_copy_test *z, int buffer, int frame_index)
{
	pattern_fill(z->buffers[buffer].pixels, z->width * 4, frame_index, z->width, z->height, 0);
	wl_surface_attach(z->t.surface, z->buffers[buffer].buffer, 0, 0);
	wl_surface_damage_buffer(z->t.surface, 0, 0, z->width, z->height);
	wl_surface_commit(z->t.surface);
	test_assert(inproc_roundtrip(&z->t));
}

static void teardown(struct zero_copy_test *z)
{
	for (int i = 0; i < BUFFERS; i++) {
		wl_buffer_destroy(z->buffers[i].buffer);
		munmap(z->buffers[i].pixels, z->buffers[i].size);
		close(z->buffers[i].fd);
	}
	dmabuf_client_finish(&z->c);
	frame_sink_disconnect(&z->sink);
	inproc_finish(&z->t);
}

/* Frames carry the buffer; release waits for whoever holds it. */
TEST(release_follows_frames)
{
	struct zero_copy_test z;
	setup(&z, 64, 48);
	present(&z, ZWP_FULLSCREEN_SHELL_V1_PRESENT_METHOD_DEFAULT);
	/* The presentation takes effect with this commit: copied, released. */
	commit(&z, 0, 0);
	test_assert(z.frames == 1 && z.dmabuf_frames == 0 && z.buffers[0].released == 1);
	z.keep_next = true;
	commit(&z, 1, 1);
	test_assert(z.dmabuf_frames == 1 && z.kept);
	test_assert(wl_record_buffer_get_dmabuf(z.kept)->width == 64);
	/* Shown (the surface holds it) and kept (a frame holds it). */
	test_assert(z.buffers[1].released == 0);
	commit(&z, 2, 2);
	test_assert(z.dmabuf_frames == 2);
	/* No longer shown, still held by the kept frame: not released. */
	test_assert(z.buffers[1].released == 0);
	commit(&z, 0, 3);
	/* Buffer 2 was only shown: released once 0 replaced it (through the
	 * release queue: one more turn of the main loop). */
	test_assert(inproc_roundtrip(&z.t));
	test_assert(z.buffers[2].released == 1);
	test_assert(z.buffers[1].released == 0);
	wl_record_buffer_unlock(z.kept);
	test_assert(inproc_roundtrip(&z.t));
	test_assert(z.buffers[1].released == 1);
	printf("buffer released only after the frame holding it was dropped\n");

	teardown(&z);
}

/* Not 1:1 (centred in a bigger output): the screen composes, reading the
 * lent buffer with the CPU; no dmabuf in the frame. */
TEST(composed_reads_buffer)
{
	struct zero_copy_test z;
	setup(&z, 64, 48);
	/* Surface smaller than the output: centred, composed. */
	zwp_fullscreen_shell_v1_present_surface(z.t.shell, z.t.surface,
						ZWP_FULLSCREEN_SHELL_V1_PRESENT_METHOD_CENTER,
						z.t.output);
	server_set_output_size(z.t.server, 128, 96, 60000);
	test_assert(inproc_roundtrip(&z.t));
	commit(&z, 0, 5);
	test_assert(z.frames >= 1 && z.dmabuf_frames == 0);
	/* (5,5) of the output is black border; the surface starts at 32,24. */
	test_assert(z.last_pixel == 0);
	teardown(&z);
	printf("composed frame read from the lent buffer\n");
}

/* The recorder takes dmabuf frames; libx264 cannot map them, so the encoder
 * thread reads them with the CPU: the file must hold the pattern. */
TEST(recorder_cpu_fallback)
{
	struct zero_copy_test z;
	const int w = 160, h = 120, count = 12;
	setup(&z, w, h);
	present(&z, ZWP_FULLSCREEN_SHELL_V1_PRESENT_METHOD_DEFAULT);
	char path[] = "/tmp/wl-record-zero-copy-XXXXXX.mkv";
	int fd = mkstemps(path, 4);
	test_assert(fd >= 0);
	close(fd);
	struct recorder_config config = { .path = path, .codec = "libx264", .crf = -1, .fps = 60,
					 .overwrite = true /* mkstemps made it */ };
	enum recorder_error error;
	z.recorder = recorder_create(&config, &error);
	test_assert(z.recorder);
	int released_at_commit[BUFFERS] = { 0 };
	bool busy[BUFFERS] = { false };
	for (int i = 0; i < count; i++) {
		int b = -1;
		/* Wait for a free buffer: releases come back from the encoder thread. */
		for (int tries = 0; tries < 2000 && b < 0; tries++) {
			for (int k = 0; k < BUFFERS; k++)
				if (busy[k] && z.buffers[k].released > released_at_commit[k])
					busy[k] = false;
			for (int k = 0; k < BUFFERS && b < 0; k++)
				if (!busy[k])
					b = k;
			if (b < 0)
				inproc_run_for(&z.t, 5);
		}
		test_assert(b >= 0);
		busy[b] = true;
		released_at_commit[b] = z.buffers[b].released;
		commit(&z, b, i);
		/* Frames 1/60 s apart at least: the recorder's rate cap. */
		inproc_run_for(&z.t, 20);
	}
	/* All but the first (copied: the presentation starts with it). */
	test_assert(z.dmabuf_frames == count - 1);
	struct recorder_stats stats;
	test_assert(recorder_finish(z.recorder, 0, &stats) == 0);
	z.recorder = NULL;
	printf("recorder: %llu frames encoded, %llu dropped\n",
	       (unsigned long long)stats.frames_encoded, (unsigned long long)stats.frames_dropped);
	struct decoded_video video;
	test_assert(media_decode_video(path, &video) == 0);
	test_assert(video.width == w && video.height == h);
	test_assert(video.frame_count == (int)(stats.frames_encoded));
	test_assert(stats.frames_dropped == 0 && video.frame_count == count);
	struct rgb_image expected = { .width = w, .height = h, .rgb = malloc((size_t)w * h * 3) };
	test_assert(expected.rgb);
	double worst = 1000;
	for (int i = 0; i < video.frame_count; i++) {
		for (int y = 0; y < h; y++)
			for (int x = 0; x < w; x++) {
				uint32_t p = pattern_pixel(i, x, y, w, h);
				uint8_t *rgb = expected.rgb + ((size_t)y * w + x) * 3;
				rgb[0] = p >> 16;
				rgb[1] = p >> 8;
				rgb[2] = p;
			}
		double psnr = media_psnr(&expected, &video.frames[i].image);
		if (psnr < worst)
			worst = psnr;
	}
	printf("frames from dmabufs read by the encoder thread: PSNR min %.2f dB\n", worst);
	test_assert(worst >= 30);
	free(expected.rgb);
	media_decoded_video_free(&video);
	unlink(path);
	/* Everything the encoder held has been let go. */
	test_assert(inproc_roundtrip(&z.t));
	teardown(&z);
}
