/* fake-ext-copy: a compositor that offers only what an
 * ext-image-copy-capture client needs (wl_shm, one wl_output,
 * ext_output_image_capture_source_manager_v1,
 * ext_image_copy_capture_manager_v1) and answers copies with the known
 * frames of tests/pattern.h, reporting damage and presentation times, in
 * the ways a client must follow: a failed copy, buffer constraints that
 * change mid-session (a mode change), a session that stops.
 *
 *   fake-ext-copy --socket NAME --size WxH [--format xrgb|argb|xbgr|abgr]
 *                 [--frames N] [--times FILE] [--fail-at K] [--fail-from K]
 *                 [--resize-at K --resize WxH] [--stop-at K] [--also-wlr]
 *                 [--scale N] [--transform T] [--dmabuf] [--no-copy]
 *                 [--bad-modifiers] [--huge-damage-at K] [--buffer-size WxH]
 *
 * The copies answered show pattern frames 0, 1, ... N-1 (N default 1),
 * each 20 ms after it is asked; then a copy waits for a change that never
 * comes (a still screen). The first copy of a session, and the first after
 * a mode change, carries full damage; later ones the old and new places of
 * the pattern's moving box, and only those and what the client's
 * damage_buffer names are written: a client that reuses a buffer without
 * naming what it lacks records stale pixels. So that only the box changes,
 * every frame has frame 0's gradient (pattern_pixel_with_background; check
 * with video-check --fixed-background). Presentation times are 0, 8
 * or 16 ms before the answer, by turns, so that a client stamping frames
 * with its own clock is caught; --times FILE gets "FRAME NANOSECONDS" for
 * each (video-check --times). Copy requests are counted from 0: --fail-at
 * K fails copy K (reason unknown), --fail-from K every copy from K on,
 * --resize-at K changes the output's size to --resize when copy K is asked
 * (new constraints, and copy K fails with buffer_constraints), --stop-at K
 * stops the session. --also-wlr offers zwlr_screencopy_manager_v1 as well,
 * whose every copy fails. --scale N: the output's scale (its logical size
 * is the mode over N). --transform T (a wl_output.transform, 0-7): the
 * output is turned; its copies hold the pattern of the logical (upright)
 * picture turned as a compositor renders it for the panel (the inverse of
 * T applied), always whole, and say T in their transform event. --dmabuf:
 * the constraints offer a dmabuf too (the device 226:128, XRGB8888 LINEAR;
 * no zwp_linux_dmabuf_v1). --no-copy offers neither copy protocol (only
 * wl_shm and the output): a desktop that cannot be copied, now that
 * wl-record's own display can (choice.sh). Prints "ready", "session
 * options N", "capture K WxH" for each copy answered and "wlr capture" for
 * wlr-screencopy on stdout. Runs until killed.
 * Hostile modes, for hostile.sh: --bad-modifiers (with --dmabuf) sends the
 * dmabuf format's modifiers as an array of 12 bytes, not whole 64-bit
 * values; --huge-damage-at K adds to copy K's damage a rectangle at
 * (INT32_MAX - 1, INT32_MAX - 1) of INT32_MAX x INT32_MAX, whose ends
 * overflow an int; --buffer-size WxH announces buffers of that size
 * (buffer_size) whatever the output's. */

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include <wayland-server.h>

#include "ext-image-capture-source-v1-server-protocol.h"
#include "ext-image-copy-capture-v1-server-protocol.h"
#include "fake-common.h"
#include "pattern.h"
#include "wlr-screencopy-unstable-v1-server-protocol.h"

#define ANSWER_MS 20
#define MAX_RECTS 16

struct fake {
	struct wl_display *display;
	struct fake_output output;
	struct fake_args args;
	int fail_from, resize_at, stop_at;
	int resize_width, resize_height;
	FILE *times;
	int copies; /* asked so far */
	int shown;  /* answered so far: the next pattern frame */
	bool full_next; /* the next answer damages everything */
	bool bad_modifiers;
	int huge_damage_at;
	uint32_t buffer_width, buffer_height; /* 0: the output's */
	struct wl_resource *session;
};

struct rect {
	int x1, y1, x2, y2;
};

struct fake_frame {
	struct fake *fake;
	struct wl_resource *resource;
	struct wl_resource *buffer;
	struct wl_event_source *timer;
	struct rect damage[MAX_RECTS];
	int damage_count;
	bool captured;
	int index;
};

static _Noreturn void die(const char *message)
{
	fake_die("fake-ext-copy", message);
}

static void send_constraints(struct fake *fake)
{
	if (!fake->session)
		return;
	ext_image_copy_capture_session_v1_send_buffer_size(
		fake->session, fake->buffer_width ? fake->buffer_width : (uint32_t)fake->output.width,
		fake->buffer_height ? fake->buffer_height : (uint32_t)fake->output.height);
	ext_image_copy_capture_session_v1_send_shm_format(fake->session, fake->args.format);
	if (fake->args.dmabuf) {
		dev_t device = makedev(226, 128);
		uint64_t linear[2] = { 0, 0 };
		struct wl_array array = { .size = sizeof(device), .alloc = 0, .data = &device };
		ext_image_copy_capture_session_v1_send_dmabuf_device(fake->session, &array);
		array = (struct wl_array){ .size = fake->bad_modifiers ? 12 : sizeof(linear[0]),
					   .alloc = 0, .data = linear };
		ext_image_copy_capture_session_v1_send_dmabuf_format(fake->session,
								     FAKE_DRM_FORMAT_XRGB8888, &array);
	}
	ext_image_copy_capture_session_v1_send_done(fake->session);
}

/* The gradient of every frame: only the box moves (see above). */
#define FIXED_BACKGROUND 0

static void box_of(int picture, const struct fake *fake, struct rect *rect)
{
	int x, y, w, h;
	pattern_box(picture, fake->output.width, fake->output.height, &x, &y, &w, &h);
	*rect = (struct rect){ x, y, x + w, y + h };
}

/* Where pixel (x, y) of a buffer turned by `transform` shows in the upright
 * picture: the same mapping as a wlroots compositor's (written out here on
 * purpose, not taken from src/). */
static void upright_pixel(int transform, int w, int h, int x, int y, int *u, int *v)
{
	switch (transform) {
	case WL_OUTPUT_TRANSFORM_90: *u = h - 1 - y, *v = x; break;
	case WL_OUTPUT_TRANSFORM_180: *u = w - 1 - x, *v = h - 1 - y; break;
	case WL_OUTPUT_TRANSFORM_270: *u = y, *v = w - 1 - x; break;
	case WL_OUTPUT_TRANSFORM_FLIPPED: *u = w - 1 - x, *v = y; break;
	case WL_OUTPUT_TRANSFORM_FLIPPED_90: *u = y, *v = x; break;
	case WL_OUTPUT_TRANSFORM_FLIPPED_180: *u = x, *v = h - 1 - y; break;
	case WL_OUTPUT_TRANSFORM_FLIPPED_270: *u = h - 1 - y, *v = w - 1 - x; break;
	default: *u = x, *v = y; break;
	}
}

/* The whole buffer: pattern frame `picture` of the upright picture, turned
 * for the panel (XRGB8888 only). */
static void turn_copy(struct wl_shm_buffer *shm, const struct fake *fake, int picture)
{
	int w = fake->output.width, h = fake->output.height;
	bool turned = fake->output.transform & 1;
	int uw = turned ? h : w, uh = turned ? w : h;
	uint32_t *upright = malloc((size_t)uw * (size_t)uh * 4);
	if (!upright)
		die("out of memory");
	pattern_fill_with_background(upright, uw * 4, picture, FIXED_BACKGROUND, uw, uh, 0);
	wl_shm_buffer_begin_access(shm);
	uint8_t *data = wl_shm_buffer_get_data(shm);
	int stride = wl_shm_buffer_get_stride(shm);
	for (int y = 0; y < h; y++) {
		uint32_t *row = (uint32_t *)(data + (size_t)stride * (size_t)y);
		for (int x = 0; x < w; x++) {
			int u, v;
			upright_pixel(fake->output.transform, w, h, x, y, &u, &v);
			row[x] = upright[(size_t)v * (size_t)uw + (size_t)u];
		}
	}
	wl_shm_buffer_end_access(shm);
	free(upright);
}

static int answer(void *data)
{
	struct fake_frame *frame = data;
	struct fake *fake = frame->fake;
	wl_event_source_remove(frame->timer);
	frame->timer = NULL;
	if (frame->index == fake->args.fail_at || (fake->fail_from >= 0 && frame->index >= fake->fail_from)) {
		ext_image_copy_capture_frame_v1_send_failed(
			frame->resource, EXT_IMAGE_COPY_CAPTURE_FRAME_V1_FAILURE_REASON_UNKNOWN);
		return 0;
	}
	struct wl_shm_buffer *shm = wl_shm_buffer_get(frame->buffer);
	int width = fake->output.width, height = fake->output.height;
	if (!shm || wl_shm_buffer_get_width(shm) != width ||
	    wl_shm_buffer_get_height(shm) != height || wl_shm_buffer_get_format(shm) != fake->args.format) {
		ext_image_copy_capture_frame_v1_send_failed(
			frame->resource,
			EXT_IMAGE_COPY_CAPTURE_FRAME_V1_FAILURE_REASON_BUFFER_CONSTRAINTS);
		return 0;
	}
	int picture = fake->shown < fake->args.frames ? fake->shown : fake->args.frames - 1;
	/* What changed since the last answer. */
	struct rect changed[2] = { { 0, 0, width, height } };
	int changed_count = 1;
	if (!fake->full_next) {
		box_of(picture - 1, fake, &changed[0]);
		box_of(picture, fake, &changed[1]);
		changed_count = 2;
	}
	for (int i = 0; i < changed_count; i++)
		fake_fill(shm, fake->args.format, width, height, picture, FIXED_BACKGROUND, false,
			  changed[i].x1, changed[i].y1, changed[i].x2, changed[i].y2);
	for (int i = 0; i < frame->damage_count; i++)
		fake_fill(shm, fake->args.format, width, height, picture, FIXED_BACKGROUND, false,
			  frame->damage[i].x1, frame->damage[i].y1, frame->damage[i].x2,
			  frame->damage[i].y2);
	if (fake->output.transform) {
		turn_copy(shm, fake, picture);
		changed[0] = (struct rect){ 0, 0, width, height };
		changed_count = 1;
	}
	ext_image_copy_capture_frame_v1_send_transform(frame->resource,
						       (uint32_t)fake->output.transform);
	for (int i = 0; i < changed_count; i++)
		ext_image_copy_capture_frame_v1_send_damage(frame->resource, changed[i].x1,
							    changed[i].y1,
							    changed[i].x2 - changed[i].x1,
							    changed[i].y2 - changed[i].y1);
	if (frame->index == fake->huge_damage_at)
		ext_image_copy_capture_frame_v1_send_damage(frame->resource, INT32_MAX - 1,
							    INT32_MAX - 1, INT32_MAX, INT32_MAX);
	int64_t presented = fake_now_ns() - (int64_t)(fake->shown % 3) * 8000000;
	uint64_t sec = (uint64_t)(presented / 1000000000);
	ext_image_copy_capture_frame_v1_send_presentation_time(frame->resource,
							       (uint32_t)(sec >> 32), (uint32_t)sec,
							       (uint32_t)(presented % 1000000000));
	ext_image_copy_capture_frame_v1_send_ready(frame->resource);
	if (fake->times) {
		fprintf(fake->times, "%d %lld\n", picture, (long long)presented);
		fflush(fake->times);
	}
	printf("capture %d %dx%d\n", frame->index, width, height);
	fflush(stdout);
	fake->shown++;
	fake->full_next = false;
	return 0;
}

static void frame_destroy_resource(struct wl_resource *resource)
{
	struct fake_frame *frame = wl_resource_get_user_data(resource);
	if (frame->timer)
		wl_event_source_remove(frame->timer);
	free(frame);
}

static void frame_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static void frame_attach_buffer(struct wl_client *client, struct wl_resource *resource,
				struct wl_resource *buffer)
{
	struct fake_frame *frame = wl_resource_get_user_data(resource);
	if (frame->captured) {
		wl_resource_post_error(resource, EXT_IMAGE_COPY_CAPTURE_FRAME_V1_ERROR_ALREADY_CAPTURED,
				       "attach_buffer after capture");
		return;
	}
	frame->buffer = buffer;
}

static void frame_damage_buffer(struct wl_client *client, struct wl_resource *resource, int32_t x,
				int32_t y, int32_t width, int32_t height)
{
	struct fake_frame *frame = wl_resource_get_user_data(resource);
	if (frame->captured || x < 0 || y < 0 || width <= 0 || height <= 0) {
		wl_resource_post_error(resource,
				       frame->captured
				       ? EXT_IMAGE_COPY_CAPTURE_FRAME_V1_ERROR_ALREADY_CAPTURED
				       : EXT_IMAGE_COPY_CAPTURE_FRAME_V1_ERROR_INVALID_BUFFER_DAMAGE,
				       "bad damage_buffer");
		return;
	}
	/* Too many: all of it (fake_fill clips to the buffer). */
	if (frame->damage_count == MAX_RECTS) {
		frame->damage[0] = (struct rect){ 0, 0, INT32_MAX / 2, INT32_MAX / 2 };
		return;
	}
	frame->damage[frame->damage_count++] = (struct rect){ x, y, x + width, y + height };
}

static void frame_capture(struct wl_client *client, struct wl_resource *resource)
{
	struct fake_frame *frame = wl_resource_get_user_data(resource);
	struct fake *fake = frame->fake;
	if (frame->captured || !frame->buffer) {
		wl_resource_post_error(resource, frame->captured
				       ? EXT_IMAGE_COPY_CAPTURE_FRAME_V1_ERROR_ALREADY_CAPTURED
				       : EXT_IMAGE_COPY_CAPTURE_FRAME_V1_ERROR_NO_BUFFER,
				       "bad capture");
		return;
	}
	frame->captured = true;
	frame->index = fake->copies++;
	if (frame->index == fake->stop_at) {
		ext_image_copy_capture_session_v1_send_stopped(fake->session);
		ext_image_copy_capture_frame_v1_send_failed(
			resource, EXT_IMAGE_COPY_CAPTURE_FRAME_V1_FAILURE_REASON_STOPPED);
		return;
	}
	if (frame->index == fake->resize_at) {
		fake_output_set_mode(&fake->output, fake->resize_width, fake->resize_height);
		send_constraints(fake);
		fake->full_next = true;
		ext_image_copy_capture_frame_v1_send_failed(
			resource, EXT_IMAGE_COPY_CAPTURE_FRAME_V1_FAILURE_REASON_BUFFER_CONSTRAINTS);
		return;
	}
	/* A still screen: no answer until a change that never comes (a
	 * failure still comes). */
	bool failing = frame->index == fake->args.fail_at ||
		       (fake->fail_from >= 0 && frame->index >= fake->fail_from);
	if (fake->shown >= fake->args.frames && !failing)
		return;
	frame->timer = wl_event_loop_add_timer(wl_display_get_event_loop(fake->display), answer, frame);
	if (!frame->timer)
		die("out of memory");
	wl_event_source_timer_update(frame->timer, ANSWER_MS);
}

static const struct ext_image_copy_capture_frame_v1_interface frame_impl = {
	.destroy = frame_destroy,
	.attach_buffer = frame_attach_buffer,
	.damage_buffer = frame_damage_buffer,
	.capture = frame_capture,
};

static void session_create_frame(struct wl_client *client, struct wl_resource *session,
				 uint32_t id)
{
	struct fake *fake = wl_resource_get_user_data(session);
	struct fake_frame *frame = calloc(1, sizeof(*frame));
	struct wl_resource *resource = wl_resource_create(client,
							  &ext_image_copy_capture_frame_v1_interface,
							  1, id);
	if (!frame || !resource) {
		free(frame);
		wl_client_post_no_memory(client);
		return;
	}
	frame->fake = fake;
	frame->resource = resource;
	wl_resource_set_implementation(resource, &frame_impl, frame, frame_destroy_resource);
}

static void session_destroy(struct wl_client *client, struct wl_resource *session)
{
	wl_resource_destroy(session);
}

static void session_destroy_resource(struct wl_resource *session)
{
	struct fake *fake = wl_resource_get_user_data(session);
	if (fake->session == session)
		fake->session = NULL;
}

static const struct ext_image_copy_capture_session_v1_interface session_impl = {
	.create_frame = session_create_frame,
	.destroy = session_destroy,
};

static void manager_create_session(struct wl_client *client, struct wl_resource *manager,
				   uint32_t id, struct wl_resource *source, uint32_t options)
{
	struct fake *fake = wl_resource_get_user_data(manager);
	struct wl_resource *session = wl_resource_create(
		client, &ext_image_copy_capture_session_v1_interface, 1, id);
	if (!session) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(session, &session_impl, fake, session_destroy_resource);
	/* What was asked for, for the test to check (--no-cursor). */
	printf("session options %u\n", options);
	fflush(stdout);
	fake->session = session;
	fake->full_next = true;
	send_constraints(fake);
}

static void manager_create_pointer_cursor_session(struct wl_client *client,
						  struct wl_resource *manager, uint32_t id,
						  struct wl_resource *source,
						  struct wl_resource *pointer)
{
	wl_resource_post_error(manager, 0, "no cursor sessions here");
}

static void resource_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static const struct ext_image_copy_capture_manager_v1_interface manager_impl = {
	.create_session = manager_create_session,
	.create_pointer_cursor_session = manager_create_pointer_cursor_session,
	.destroy = resource_destroy,
};

static const struct ext_image_capture_source_v1_interface capture_source_impl = {
	.destroy = resource_destroy,
};

static void source_manager_create_source(struct wl_client *client, struct wl_resource *manager,
					 uint32_t id, struct wl_resource *output)
{
	struct wl_resource *source = wl_resource_create(client, &ext_image_capture_source_v1_interface,
							1, id);
	if (!source) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(source, &capture_source_impl, NULL, NULL);
}

static const struct ext_output_image_capture_source_manager_v1_interface source_manager_impl = {
	.create_source = source_manager_create_source,
	.destroy = resource_destroy,
};

/* --also-wlr: a wlr-screencopy whose every copy fails, to show which
 * protocol the client chose. */
static const struct zwlr_screencopy_frame_v1_interface wlr_frame_impl = {
	.destroy = resource_destroy,
};

static void wlr_capture(struct wl_client *client, struct wl_resource *manager, uint32_t id)
{
	struct wl_resource *frame = wl_resource_create(client, &zwlr_screencopy_frame_v1_interface,
						       wl_resource_get_version(manager), id);
	if (!frame) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(frame, &wlr_frame_impl, NULL, NULL);
	printf("wlr capture\n");
	fflush(stdout);
	zwlr_screencopy_frame_v1_send_failed(frame);
}

static void wlr_capture_output(struct wl_client *client, struct wl_resource *manager, uint32_t id,
			       int32_t overlay_cursor, struct wl_resource *output)
{
	wlr_capture(client, manager, id);
}

static void wlr_capture_output_region(struct wl_client *client, struct wl_resource *manager,
				      uint32_t id, int32_t overlay_cursor,
				      struct wl_resource *output, int32_t x, int32_t y,
				      int32_t width, int32_t height)
{
	wlr_capture(client, manager, id);
}

static const struct zwlr_screencopy_manager_v1_interface wlr_manager_impl = {
	.capture_output = wlr_capture_output,
	.capture_output_region = wlr_capture_output_region,
	.destroy = resource_destroy,
};

/* Binds any of the managers above: `data` is the implementation, the
 * interface is the global's. */
struct manager_kind {
	const struct wl_interface *interface;
	const void *impl;
	struct fake *fake;
};

static void bind_manager(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	const struct manager_kind *kind = data;
	struct wl_resource *resource = wl_resource_create(client, kind->interface, (int)version, id);
	if (!resource) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, kind->impl, kind->fake, NULL);
}

int main(int argc, char **argv)
{
	struct fake fake = { .fail_from = -1, .resize_at = -1, .stop_at = -1, .huge_damage_at = -1 };
	fake_args_init(&fake.args);
	bool also_wlr = false, no_copy = false;
	int scale = 1, transform = WL_OUTPUT_TRANSFORM_NORMAL;
	static const struct option options[] = {
		FAKE_COMMON_OPTIONS,
		{ "times", required_argument, NULL, 't' },
		{ "fail-from", required_argument, NULL, 'X' },
		{ "resize-at", required_argument, NULL, 'r' },
		{ "resize", required_argument, NULL, 'R' },
		{ "stop-at", required_argument, NULL, 'p' },
		{ "also-wlr", no_argument, NULL, 'w' },
		{ "scale", required_argument, NULL, 'S' },
		{ "transform", required_argument, NULL, 'T' },
		{ "no-copy", no_argument, NULL, 'C' },
		{ "bad-modifiers", no_argument, NULL, 'M' },
		{ "huge-damage-at", required_argument, NULL, 'H' },
		{ "buffer-size", required_argument, NULL, 'B' },
		{ 0 },
	};
	int opt;
	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		if (fake_common_option("fake-ext-copy", opt, optarg, &fake.args))
			continue;
		switch (opt) {
		case 't':
			fake.times = fopen(optarg, "w");
			if (!fake.times)
				die("cannot write --times");
			break;
		case 'X': fake.fail_from = atoi(optarg); break;
		case 'r': fake.resize_at = atoi(optarg); break;
		case 'R':
			if (sscanf(optarg, "%dx%d", &fake.resize_width, &fake.resize_height) != 2)
				die("bad --resize");
			break;
		case 'p': fake.stop_at = atoi(optarg); break;
		case 'w': also_wlr = true; break;
		case 'S': scale = atoi(optarg); break;
		case 'T': transform = atoi(optarg); break;
		case 'C': no_copy = true; break;
		case 'M': fake.bad_modifiers = true; break;
		case 'H': fake.huge_damage_at = atoi(optarg); break;
		case 'B':
			if (sscanf(optarg, "%ux%u", &fake.buffer_width, &fake.buffer_height) != 2)
				die("bad --buffer-size");
			break;
		default: die("bad option (see the comment at the top of fake-ext-copy.c)");
		}
	}
	if (fake.resize_at >= 0 && (fake.resize_width < 1 || fake.resize_height < 1))
		die("give --resize WxH with --resize-at");
	fake.display = fake_display_create("fake-ext-copy", &fake.args, &fake.output);
	fake.output.scale = scale;
	fake.output.transform = transform;
	if (transform && fake.args.format != WL_SHM_FORMAT_XRGB8888)
		die("--transform copies XRGB8888 only");
	struct manager_kind copy_manager = { &ext_image_copy_capture_manager_v1_interface,
					     &manager_impl, &fake };
	struct manager_kind source_manager = { &ext_output_image_capture_source_manager_v1_interface,
					       &source_manager_impl, &fake };
	struct manager_kind wlr_manager = { &zwlr_screencopy_manager_v1_interface,
					    &wlr_manager_impl, &fake };
	if ((!no_copy && (!wl_global_create(fake.display, copy_manager.interface, 1, &copy_manager,
					    bind_manager) ||
			  !wl_global_create(fake.display, source_manager.interface, 1,
					    &source_manager, bind_manager))) ||
	    (also_wlr &&
	     !wl_global_create(fake.display, wlr_manager.interface, 3, &wlr_manager, bind_manager)))
		die("cannot create the globals");
	printf("ready\n");
	fflush(stdout);
	wl_display_run(fake.display);
	return 0;
}
