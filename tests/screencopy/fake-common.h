#ifndef WL_RECORD_FAKE_COMMON_H
#define WL_RECORD_FAKE_COMMON_H

/* What the fake compositors of tests/screencopy/ share: their one output
 * and the pattern frames they copy into the client's shm buffers. */

#include <stdbool.h>
#include <stdint.h>

#include <wayland-server.h>

struct fake_output {
	struct wl_global *global;
	struct wl_list resources;
	int width, height; /* the current mode */
	int scale;         /* 1 unless set before clients bind */
	int32_t transform; /* wl_output.transform, normal unless set before */
};

/* The output at 0,0, scale 1, `width`x`height` (60 Hz). */
bool fake_output_init(struct fake_output *output, struct wl_display *display, int width,
		      int height);

/* A new current mode, told to every client bound to the output. */
void fake_output_set_mode(struct fake_output *output, int width, int height);

/* The output goes away (its global; bound resources stay inert). */
void fake_output_remove(struct fake_output *output);

/* "xrgb", "argb", "xbgr", "abgr" as a wl_shm format (XRGB for anything
 * else). */
uint32_t fake_shm_format(const char *name);

/* Writes rows y1..y2, columns x1..x2 of pattern frame `picture` with the
 * gradient of frame `background` (pattern_pixel_with_background; for a
 * width x height picture) into `shm`, packed in its format, bottom up when
 * `y_invert`. False when the buffer is not width x height in `format`. */
bool fake_fill(struct wl_shm_buffer *shm, uint32_t format, int width, int height, int picture,
	       int background, bool y_invert, int x1, int y1, int x2, int y2);

/* The options both fakes take. */
struct fake_args {
	const char *socket;
	int width, height;
	uint32_t format; /* wl_shm */
	int frames;
	int fail_at;
	/* --dmabuf: offer a dmabuf copy too (XRGB8888; ext-image-copy-capture:
	 * the device 226:128, LINEAR), as sway and wlroots do. No
	 * zwp_linux_dmabuf_v1 is offered, so a client still copies into shm
	 * (which is what the fakes fill): the test is of the client's choice. */
	bool dmabuf;
};

/* drm_fourcc.h's DRM_FORMAT_XRGB8888, what --dmabuf offers. */
#define FAKE_DRM_FORMAT_XRGB8888 0x34325258u

#define FAKE_COMMON_OPTIONS                                      \
	{ "socket", required_argument, NULL, 's' },              \
	{ "size", required_argument, NULL, 'z' },                \
	{ "format", required_argument, NULL, 'f' },              \
	{ "frames", required_argument, NULL, 'n' },              \
	{ "fail-at", required_argument, NULL, 'x' },             \
	{ "dmabuf", no_argument, NULL, 'D' }

/* Defaults: XRGB, 1 frame, no failure, shm only. */
void fake_args_init(struct fake_args *args);

/* Takes getopt's `opt` when it is one of FAKE_COMMON_OPTIONS (true). */
bool fake_common_option(const char *who, int opt, const char *arg, struct fake_args *args);

/* The display on args->socket with wl_shm (XBGR and ABGR too) and the
 * output; dies when it cannot. */
struct wl_display *fake_display_create(const char *who, const struct fake_args *args,
				       struct fake_output *output);

/* CLOCK_MONOTONIC now, in nanoseconds. */
int64_t fake_now_ns(void);

_Noreturn void fake_die(const char *who, const char *message);

#endif
