/* fake-screencopy: a compositor that offers only what a screencopy client
 * needs (wl_shm, one wl_output, zwlr_screencopy_manager_v1) and answers
 * copies with the known frames of tests/pattern.h, in the ways sway 1.7
 * does not: another shm format, y-inverted, older protocol versions, a
 * failed copy, an output that goes away.
 *
 *   fake-screencopy --socket NAME --size WxH [--version 1|2|3]
 *                   [--format xrgb|argb|xbgr|abgr] [--y-invert]
 *                   [--frames N] [--fail-at N] [--remove-output-at N] [--dmabuf]
 *                   [--ready-before-copy-at K]
 *
 * Copy k (from 0) gets pattern frame min(k, N-1) (N default 1), answered
 * 20 ms after it is asked; once the last frame has been sent, a
 * copy_with_damage waits for damage that never comes (a still screen),
 * while a plain copy is answered with the same picture again. --fail-at K:
 * copy K is answered with `failed`. --remove-output-at K: when copy K is
 * asked, the output's global goes (and the copy is never answered).
 * --dmabuf (v3): each copy offers a dmabuf XRGB8888 buffer too (linux_dmabuf).
 * --ready-before-copy-at K (hostile): capture K (from 0) is answered with
 * `ready` right after its `buffer` event, before buffer_done and before the
 * client could ask for the copy; prints "early ready K".
 * Prints "copy K" on stdout for each copy answered. Runs until killed. */

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <wayland-server.h>

#include "fake-common.h"
#include "wlr-screencopy-unstable-v1-server-protocol.h"

#define ANSWER_MS 20

struct fake {
	struct wl_display *display;
	struct fake_output output;
	struct fake_args args;
	uint32_t version;
	bool y_invert;
	int remove_output_at;
	int copies; /* asked so far */
	int captures; /* frames made so far */
	int ready_before_copy_at;
};

struct pending_copy {
	struct fake *fake;
	struct wl_resource *frame;
	struct wl_resource *buffer;
	struct wl_listener frame_destroy;
	struct wl_event_source *timer;
	int index;
	bool with_damage;
};

static _Noreturn void die(const char *message)
{
	fake_die("fake-screencopy", message);
}

static void pending_free(struct pending_copy *copy)
{
	wl_list_remove(&copy->frame_destroy.link);
	if (copy->timer)
		wl_event_source_remove(copy->timer);
	free(copy);
}

static void handle_frame_destroy(struct wl_listener *listener, void *data)
{
	struct pending_copy *copy = wl_container_of(listener, copy, frame_destroy);
	pending_free(copy);
}

static int answer(void *data)
{
	struct pending_copy *copy = data;
	struct fake *fake = copy->fake;
	struct wl_resource *frame = copy->frame;
	if (copy->index == fake->args.fail_at) {
		zwlr_screencopy_frame_v1_send_failed(frame);
		pending_free(copy);
		return 0;
	}
	int picture = copy->index < fake->args.frames ? copy->index : fake->args.frames - 1;
	if (!fake_fill(wl_shm_buffer_get(copy->buffer), fake->args.format, fake->args.width, fake->args.height,
		       picture, picture, fake->y_invert, 0, 0, fake->args.width,
		       fake->args.height)) {
		wl_resource_post_error(frame, ZWLR_SCREENCOPY_FRAME_V1_ERROR_INVALID_BUFFER,
				       "not the buffer offered");
		pending_free(copy);
		return 0;
	}
	zwlr_screencopy_frame_v1_send_flags(frame, fake->y_invert
					    ? ZWLR_SCREENCOPY_FRAME_V1_FLAGS_Y_INVERT : 0);
	if (copy->with_damage)
		zwlr_screencopy_frame_v1_send_damage(frame, 0, 0, (uint32_t)fake->args.width,
						     (uint32_t)fake->args.height);
	int64_t now = fake_now_ns();
	uint64_t sec = (uint64_t)(now / 1000000000);
	zwlr_screencopy_frame_v1_send_ready(frame, (uint32_t)(sec >> 32), (uint32_t)sec,
					    (uint32_t)(now % 1000000000));
	printf("copy %d\n", copy->index);
	fflush(stdout);
	pending_free(copy);
	return 0;
}

static void start_copy(struct wl_resource *frame, struct wl_resource *buffer, bool with_damage)
{
	struct fake *fake = wl_resource_get_user_data(frame);
	struct pending_copy *copy = calloc(1, sizeof(*copy));
	if (!copy)
		die("out of memory");
	copy->fake = fake;
	copy->frame = frame;
	copy->buffer = buffer;
	copy->with_damage = with_damage;
	copy->index = fake->copies++;
	copy->frame_destroy.notify = handle_frame_destroy;
	wl_resource_add_destroy_listener(frame, &copy->frame_destroy);
	if (copy->index == fake->remove_output_at && fake->output.global) {
		fake_output_remove(&fake->output);
		return;
	}
	/* A still screen: copy_with_damage waits for a change that never
	 * comes (a failure still comes). */
	if (with_damage && copy->index >= fake->args.frames && copy->index != fake->args.fail_at)
		return;
	copy->timer = wl_event_loop_add_timer(wl_display_get_event_loop(fake->display), answer, copy);
	wl_event_source_timer_update(copy->timer, ANSWER_MS);
}

static void frame_copy(struct wl_client *client, struct wl_resource *frame,
		       struct wl_resource *buffer)
{
	start_copy(frame, buffer, false);
}

static void frame_copy_with_damage(struct wl_client *client, struct wl_resource *frame,
				   struct wl_resource *buffer)
{
	start_copy(frame, buffer, true);
}

static void frame_destroy(struct wl_client *client, struct wl_resource *frame)
{
	wl_resource_destroy(frame);
}

static const struct zwlr_screencopy_frame_v1_interface frame_impl = {
	.copy = frame_copy,
	.destroy = frame_destroy,
	.copy_with_damage = frame_copy_with_damage,
};

static void capture(struct wl_client *client, struct wl_resource *manager, uint32_t id)
{
	struct fake *fake = wl_resource_get_user_data(manager);
	struct wl_resource *frame = wl_resource_create(client, &zwlr_screencopy_frame_v1_interface,
						       wl_resource_get_version(manager), id);
	if (!frame) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(frame, &frame_impl, fake, NULL);
	zwlr_screencopy_frame_v1_send_buffer(frame, fake->args.format, (uint32_t)fake->args.width,
					     (uint32_t)fake->args.height, (uint32_t)fake->args.width * 4);
	if (fake->captures++ == fake->ready_before_copy_at) {
		zwlr_screencopy_frame_v1_send_ready(frame, 0, 0, 0);
		printf("early ready %d\n", fake->captures - 1);
		fflush(stdout);
	}
	if (wl_resource_get_version(frame) >= 3 && fake->args.dmabuf)
		zwlr_screencopy_frame_v1_send_linux_dmabuf(frame, FAKE_DRM_FORMAT_XRGB8888,
							   (uint32_t)fake->args.width,
							   (uint32_t)fake->args.height);
	if (wl_resource_get_version(frame) >= 3)
		zwlr_screencopy_frame_v1_send_buffer_done(frame);
}

static void manager_capture_output(struct wl_client *client, struct wl_resource *manager,
				   uint32_t id, int32_t overlay_cursor, struct wl_resource *output)
{
	/* What was asked for, for the test to check (--no-cursor, -g). */
	printf("capture overlay_cursor %d\n", overlay_cursor);
	fflush(stdout);
	capture(client, manager, id);
}

static void manager_capture_output_region(struct wl_client *client, struct wl_resource *manager,
					  uint32_t id, int32_t overlay_cursor,
					  struct wl_resource *output, int32_t x, int32_t y,
					  int32_t width, int32_t height)
{
	printf("capture overlay_cursor %d region %d,%d %dx%d\n", overlay_cursor, x, y, width,
	       height);
	fflush(stdout);
	capture(client, manager, id);
}

static void manager_destroy(struct wl_client *client, struct wl_resource *manager)
{
	wl_resource_destroy(manager);
}

static const struct zwlr_screencopy_manager_v1_interface manager_impl = {
	.capture_output = manager_capture_output,
	.capture_output_region = manager_capture_output_region,
	.destroy = manager_destroy,
};

static void bind_manager(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct wl_resource *resource = wl_resource_create(client,
							  &zwlr_screencopy_manager_v1_interface,
							  (int)version, id);
	if (!resource) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &manager_impl, data, NULL);
}

int main(int argc, char **argv)
{
	struct fake fake = { .version = 3, .remove_output_at = -1, .ready_before_copy_at = -1 };
	fake_args_init(&fake.args);
	static const struct option options[] = {
		FAKE_COMMON_OPTIONS,
		{ "version", required_argument, NULL, 'v' },
		{ "y-invert", no_argument, NULL, 'y' },
		{ "remove-output-at", required_argument, NULL, 'r' },
		{ "ready-before-copy-at", required_argument, NULL, 'e' },
		{ 0 },
	};
	int opt;
	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		if (fake_common_option("fake-screencopy", opt, optarg, &fake.args))
			continue;
		switch (opt) {
		case 'v': fake.version = (uint32_t)atoi(optarg); break;
		case 'y': fake.y_invert = true; break;
		case 'r': fake.remove_output_at = atoi(optarg); break;
		case 'e': fake.ready_before_copy_at = atoi(optarg); break;
		default: die("bad option (see the comment at the top of fake-screencopy.c)");
		}
	}
	if (fake.version < 1 || fake.version > 3)
		die("--version 1-3");
	fake.display = fake_display_create("fake-screencopy", &fake.args, &fake.output);
	if (!wl_global_create(fake.display, &zwlr_screencopy_manager_v1_interface, (int)fake.version,
			      &fake, bind_manager))
		die("cannot create the globals");
	printf("ready\n");
	fflush(stdout);
	wl_display_run(fake.display);
	return 0;
}
