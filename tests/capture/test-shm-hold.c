/* Hold, don't copy (issue 29 §1): a hosted client's wl_shm buffer is lent
 * to the frames, not copied. Frames carry the client's buffer itself (no
 * pixels of ours); the wl_buffer goes back only when the last frame holding
 * it is let go (the encoder read it); a client with two buffers whose
 * frames are held for good still gets them back, from a copy, after the
 * hold limit; and the recorder converts straight from the client's memory,
 * the file holding every picture the client drew (which it scribbles over
 * the moment it gets a buffer back: a release sent too early shows).
 * One case per run: argv[1]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "clock.h"
#include "inproc.h"
#include "media.h"
#include "pattern.h"
#include "recorder.h"
#include "screen_source.h"
#include "shm.h"

#define MAX_BUFFERS 3
#define SCRIBBLE 0x00ff00ffu

struct hold_test {
	struct inproc t;
	struct frame_sink sink;
	int frames, lent_frames;
	/* Frames the test keeps (locks), as a stuck consumer would. */
	struct frame kept[64];
	int kept_count;
	bool keep_all, keep_next;
	struct recorder *recorder;
	int buffer_count;
	struct {
		struct test_buffer b;
		int released;
		bool busy;
	} buffers[MAX_BUFFERS];
	int width, height;
};

static void handle_frame(struct frame_sink *sink, const struct frame *frame)
{
	struct hold_test *h = wl_container_of(sink, h, sink);
	h->frames++;
	if (frame_in_buffer_only(frame) && !wl_record_buffer_get_dmabuf(frame->buffer)) {
		test_assert(frame->width == h->width && frame->height == h->height);
		h->lent_frames++;
	}
	if ((h->keep_all || h->keep_next) && h->kept_count < 64) {
		frame_ref(&h->kept[h->kept_count++], frame);
		h->keep_next = false;
	}
	if (h->recorder)
		test_assert(recorder_submit(h->recorder, frame));
}

static const struct frame_sink_impl sink_impl = { .frame = handle_frame };

/* The client scribbles over a buffer as soon as it has it back: if the
 * release came before the frames were done with it, they show this. */
static void buffer_release(void *data, struct wl_buffer *buffer)
{
	struct hold_test *h = data;
	for (int i = 0; i < h->buffer_count; i++) {
		if (h->buffers[i].b.buffer != buffer)
			continue;
		h->buffers[i].released++;
		h->buffers[i].busy = false;
		for (size_t p = 0; p < h->buffers[i].b.size / 4; p++)
			h->buffers[i].b.pixels[p] = SCRIBBLE;
	}
}

static const struct wl_buffer_listener buffer_listener = { .release = buffer_release };

static void setup(struct hold_test *h, int width, int height, int buffer_count)
{
	memset(h, 0, sizeof(*h));
	h->width = width;
	h->height = height;
	h->buffer_count = buffer_count;
	inproc_init(&h->t, width, height);
	/* inproc reads every frame's pixels (into the surface's texture): the
	 * frame path alone here. */
	wl_list_remove(&h->t.frame_listener.link);
	wl_list_init(&h->t.frame_listener.link);
	frame_sink_connect(&h->sink, &sink_impl, screen_frame_source(&h->t.server->screen));
	for (int i = 0; i < buffer_count; i++) {
		test_buffer_init(&h->t, &h->buffers[i].b, width, height, WL_SHM_FORMAT_XRGB8888);
		wl_buffer_add_listener(h->buffers[i].b.buffer, &buffer_listener, h);
	}
	h->t.surface = wl_compositor_create_surface(h->t.compositor);
	zwp_fullscreen_shell_v1_present_surface(h->t.shell, h->t.surface,
						ZWP_FULLSCREEN_SHELL_V1_PRESENT_METHOD_DEFAULT,
						h->t.output);
	test_assert(inproc_roundtrip(&h->t));
}

static void commit(struct hold_test *h, int buffer, int frame_index)
{
	struct test_buffer *b = &h->buffers[buffer].b;
	pattern_fill(b->pixels, b->stride, frame_index, h->width, h->height, 0);
	h->buffers[buffer].busy = true;
	wl_surface_attach(h->t.surface, b->buffer, 0, 0);
	wl_surface_damage_buffer(h->t.surface, 0, 0, h->width, h->height);
	wl_surface_commit(h->t.surface);
	test_assert(inproc_roundtrip(&h->t));
}

/* The first buffer not in use, waiting up to `ms` for one; -1 if none. */
static int wait_free_buffer(struct hold_test *h, int ms)
{
	int64_t end = clock_now_ns() + (int64_t)ms * 1000000;
	for (;;) {
		for (int i = 0; i < h->buffer_count; i++)
			if (!h->buffers[i].busy)
				return i;
		if (clock_now_ns() >= end)
			return -1;
		inproc_run_for(&h->t, 1);
	}
}

static void drop_kept(struct hold_test *h)
{
	for (int i = 0; i < h->kept_count; i++)
		frame_unref(&h->kept[i]);
	h->kept_count = 0;
}

static void teardown(struct hold_test *h)
{
	drop_kept(h);
	for (int i = 0; i < h->buffer_count; i++)
		test_buffer_finish(&h->buffers[i].b);
	frame_sink_disconnect(&h->sink);
	inproc_finish(&h->t);
}

/* The 1:1 frame is the client's buffer, read where it lies: kept by a
 * frame, it is not given back, not even once replaced; let go, it is. */
/* The hold limit (two ticks of the frame clock) well past the test, however
 * slow the machine: releases here come from the frames alone. */
static void hold_long(struct hold_test *h)
{
	h->t.server->frame_clock.grid.period_ns = 500 * 1000000LL;
}

TEST(release_follows_frames)
{
	struct hold_test h;
	setup(&h, 64, 48, 3);
	hold_long(&h);
	/* The presentation takes effect with this commit: copied, released. */
	commit(&h, 0, 0);
	test_assert(h.frames == 1 && h.lent_frames == 0 && h.buffers[0].released == 1);
	h.keep_next = true;
	commit(&h, 1, 1);
	test_assert(h.lent_frames == 1 && h.kept_count == 1, "the frame was copied, not lent");
	struct wl_record_buffer *kept = h.kept[0].buffer;
	test_assert(!shm_lease_is_detached(kept));
	/* Shown (the surface holds it) and kept (a frame holds it). */
	test_assert(h.buffers[1].released == 0);
	commit(&h, 2, 2);
	test_assert(h.lent_frames == 2);
	test_assert(inproc_roundtrip(&h.t));
	/* No longer shown, still held by the kept frame: not released. */
	test_assert(h.buffers[1].released == 0, "released while a frame held it");
	/* Its pixels are still the client's, read in place. */
	const uint8_t *data;
	int stride;
	test_assert(wl_record_buffer_begin_data_ptr_access(kept, &data, &stride));
	uint32_t pixel = *(const uint32_t *)(data + 5 * stride + 5 * 4) & 0xffffff;
	test_assert(wl_record_buffer_end_data_ptr_access(kept));
	test_assert(pixel == (pattern_pixel(1, 5, 5, 64, 48) & 0xffffff));
	commit(&h, 0, 3);
	test_assert(inproc_roundtrip(&h.t));
	/* Buffer 2 was only shown: released once 0 replaced it (through the
	 * release queue: one more turn of the main loop). */
	test_assert(h.buffers[2].released == 1);
	test_assert(h.buffers[1].released == 0);
	drop_kept(&h);
	test_assert(inproc_roundtrip(&h.t));
	test_assert(h.buffers[1].released == 1);
	printf("wl_shm buffer lent to the frames, released after the last one went\n");
	teardown(&h);
}

/* Two buffers, every frame kept for good (a stuck consumer): the client
 * still gets each buffer back, from a copy, once it was held past the limit
 * (two frame periods at 60 fps), and the kept frames keep their picture. */
TEST(two_buffers_never_starve)
{
	struct hold_test h;
	const int count = 12;
	setup(&h, 64, 48, 2);
	commit(&h, 0, 0); /* copied: the presentation starts with it */
	h.keep_all = true;
	int64_t worst_wait_ns = 0;
	for (int i = 1; i < count; i++) {
		int64_t start = clock_now_ns();
		int b = wait_free_buffer(&h, 500);
		test_assert(b >= 0, "frame %d: the client starved (both buffers held)", i);
		if (clock_now_ns() - start > worst_wait_ns)
			worst_wait_ns = clock_now_ns() - start;
		commit(&h, b, i);
	}
	test_assert(h.lent_frames == count - 1 && h.kept_count == count - 1);
	/* The kept frames hold copies of what was shown, not the scribbles
	 * the client wrote once it had its buffer back. */
	for (int k = 0; k < h.kept_count - 2; k++) {
		struct wl_record_buffer *buffer = h.kept[k].buffer;
		test_assert(shm_lease_is_detached(buffer), "frame %d: released without a copy", k);
		uint32_t *pixels = malloc((size_t)h.width * 4 * h.height);
		char why[128];
		test_assert(pixels && wl_record_buffer_read(buffer, (uint8_t *)pixels, h.width * 4,
							     why, sizeof(why)));
		for (int y = 0; y < h.height; y += 7)
			for (int x = 0; x < h.width; x += 5)
				test_assert((pixels[y * h.width + x] & 0xffffff) ==
						    (pattern_pixel(k + 1, x, y, h.width, h.height) &
						     0xffffff),
					    "kept frame %d at (%d,%d)", k, x, y);
		free(pixels);
	}
	printf("two buffers, frames held for good: %d commits, longest wait %.1f ms\n", count,
	       (double)worst_wait_ns / 1e6);
	test_assert(worst_wait_ns < 200 * 1000000LL);
	teardown(&h);
}

/* The recorder converts the lent buffers where they lie (libx264: on its
 * thread); the client redraws a buffer only once it has it back and
 * scribbles over it first: every picture in the file must be the one
 * drawn, none a scribble. */
TEST(recorder_reads_in_place)
{
	struct hold_test h;
	const int w = 160, hgt = 120, count = 24;
	setup(&h, w, hgt, 2);
	char path[] = "/tmp/wl-record-shm-hold-XXXXXX.mkv";
	int fd = mkstemps(path, 4);
	test_assert(fd >= 0);
	close(fd);
	struct recorder_config config = { .path = path, .codec = "libx264", .crf = -1, .fps = 60,
					 .overwrite = true /* mkstemps made it */ };
	enum recorder_error error;
	h.recorder = recorder_create(&config, &error);
	test_assert(h.recorder);
	for (int i = 0; i < count; i++) {
		int b = wait_free_buffer(&h, 2000);
		test_assert(b >= 0, "frame %d: no buffer came back", i);
		commit(&h, b, i);
		/* Frames 1/60 s apart at least: the recorder's rate cap. */
		inproc_run_for(&h.t, 20);
	}
	/* All but the first (copied: the presentation starts with it). */
	test_assert(h.lent_frames == count - 1, "%d of %d frames lent", h.lent_frames, count - 1);
	struct recorder_stats stats;
	test_assert(recorder_finish(h.recorder, 0, &stats) == 0);
	h.recorder = NULL;
	struct decoded_video video;
	test_assert(media_decode_video(path, &video) == 0);
	test_assert(video.width == w && video.height == hgt);
	test_assert(stats.frames_dropped == 0 && video.frame_count == count,
		    "%d frames in the file, %d dropped", video.frame_count,
		    (int)stats.frames_dropped);
	struct rgb_image expected = { .width = w, .height = hgt,
				      .rgb = malloc((size_t)w * hgt * 3) };
	test_assert(expected.rgb);
	double worst = 1000;
	for (int i = 0; i < video.frame_count; i++) {
		for (int y = 0; y < hgt; y++)
			for (int x = 0; x < w; x++) {
				uint32_t p = pattern_pixel(i, x, y, w, hgt);
				uint8_t *rgb = expected.rgb + ((size_t)y * w + x) * 3;
				rgb[0] = p >> 16;
				rgb[1] = p >> 8;
				rgb[2] = p;
			}
		double psnr = media_psnr(&expected, &video.frames[i].image);
		if (psnr < worst)
			worst = psnr;
	}
	printf("wl_shm frames read in place by the encoder thread: PSNR min %.2f dB\n", worst);
	test_assert(worst >= 30);
	free(expected.rgb);
	media_decoded_video_free(&video);
	unlink(path);
	test_assert(inproc_roundtrip(&h.t));
	teardown(&h);
}

/* A pool that grows while a frame reads one of its buffers: the frame's
 * mapping stays where it is (the pool maps the pages again, bigger), and a
 * buffer in the new part is lent from the new mapping. */
TEST(pool_grows_under_lease)
{
	struct hold_test h;
	const int w = 64, hgt = 48;
	setup(&h, w, hgt, 1);
	commit(&h, 0, 0); /* copied: the presentation starts with it */
	size_t size = (size_t)w * 4 * hgt;
	int fd = memfd_create("grow", MFD_CLOEXEC);
	test_assert(fd >= 0 && ftruncate(fd, (off_t)size) == 0);
	struct wl_shm_pool *pool = wl_shm_create_pool(h.t.shm, fd, (int32_t)size);
	struct wl_buffer *first = wl_shm_pool_create_buffer(pool, 0, w, hgt, w * 4,
							    WL_SHM_FORMAT_XRGB8888);
	uint8_t *map = mmap(NULL, size * 2, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	test_assert(map != MAP_FAILED);
	test_assert(ftruncate(fd, (off_t)(size * 2)) == 0);
	pattern_fill(map, w * 4, 1, w, hgt, 0);
	h.keep_next = true;
	wl_surface_attach(h.t.surface, first, 0, 0);
	wl_surface_damage_buffer(h.t.surface, 0, 0, w, hgt);
	wl_surface_commit(h.t.surface);
	test_assert(inproc_roundtrip(&h.t));
	test_assert(h.kept_count == 1 && h.lent_frames == 1);
	wl_shm_pool_resize(pool, (int32_t)(size * 2));
	struct wl_buffer *second = wl_shm_pool_create_buffer(pool, (int32_t)size, w, hgt, w * 4,
							     WL_SHM_FORMAT_XRGB8888);
	pattern_fill(map + size, w * 4, 2, w, hgt, 0);
	h.keep_next = true;
	wl_surface_attach(h.t.surface, second, 0, 0);
	wl_surface_damage_buffer(h.t.surface, 0, 0, w, hgt);
	wl_surface_commit(h.t.surface);
	test_assert(inproc_roundtrip(&h.t), "the pool could not grow");
	test_assert(h.kept_count == 2 && h.lent_frames == 2);
	for (int k = 0; k < 2; k++) {
		uint32_t pixels[64 * 48];
		char why[128];
		test_assert(wl_record_buffer_read(h.kept[k].buffer, (uint8_t *)pixels, w * 4, why,
						  sizeof(why)));
		for (int y = 0; y < hgt; y += 5)
			for (int x = 0; x < w; x += 3)
				test_assert((pixels[y * w + x] & 0xffffff) ==
					    (pattern_pixel(k + 1, x, y, w, hgt) & 0xffffff));
	}
	drop_kept(&h);
	wl_buffer_destroy(first);
	wl_buffer_destroy(second);
	wl_shm_pool_destroy(pool);
	test_assert(inproc_roundtrip(&h.t));
	munmap(map, size * 2);
	close(fd);
	printf("pool grown under a lent buffer: both pictures intact\n");
	teardown(&h);
}

/* Weston's screen-share sends each picture once per buffer it rotates
 * through: a commit whose damaged pixels are those of the buffer shown
 * makes no frame, and the client is copied from then on (as before the
 * lease, its buffers come back at once); a picture that changes a pixel
 * makes one. */
TEST(same_picture_again_no_frame)
{
	struct hold_test h;
	setup(&h, 64, 48, 3);
	hold_long(&h);
	commit(&h, 0, 0); /* copied: the presentation starts with it */
	commit(&h, 1, 1);
	test_assert(h.frames == 2 && h.lent_frames == 1);
	commit(&h, 2, 1); /* the same picture in another buffer */
	test_assert(h.frames == 2, "a picture already shown made a frame");
	test_assert(inproc_roundtrip(&h.t));
	test_assert(h.buffers[1].released == 1); /* no longer shown nor held */
	struct test_buffer *b = &h.buffers[1].b;
	pattern_fill(b->pixels, b->stride, 1, h.width, h.height, 0);
	b->pixels[47 * 64 + 63] ^= 0x10; /* the last pixel differs */
	h.buffers[1].busy = true;
	wl_surface_attach(h.t.surface, b->buffer, 0, 0);
	wl_surface_damage_buffer(h.t.surface, 0, 0, h.width, h.height);
	wl_surface_commit(h.t.surface);
	test_assert(inproc_roundtrip(&h.t));
	test_assert(h.frames == 3, "a changed picture made no frame");
	/* Such a client is copied from then on: released at once, it keeps
	 * drawing into one buffer. */
	test_assert(h.lent_frames == 1 && h.buffers[1].released == 2,
		    "a client sending pictures again is still lent to");
	printf("a picture sent again in another buffer makes no frame; then copied\n");
	teardown(&h);
}
