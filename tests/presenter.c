/* presenter: a test client that presents known frames (tests/pattern.h)
 * through zwp_fullscreen_shell_v1, the way the compositors wl-record serves
 * do, and records when it committed each one.
 *
 * Exit status: 0 all frames committed (the server may close the connection
 * afterwards, as wl-record does after a screenshot), 1 failure or protocol
 * error, 2 bad command line, 3 the server went away before the last frame,
 * 4 the mode switch was refused or cancelled (unless --allow-mode-failed). */

#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <wayland-client.h>

#include "fullscreen-shell-unstable-v1-client-protocol.h"
#include "pattern.h"

#define BUFFER_COUNT 3
#define MAX_COLOUR_STEPS 16
#define WAIT_TIMEOUT_MS 5000

enum present_mode { PRESENT_FOR_MODE, PRESENT_SURFACE };
enum mode_result { MODE_PENDING, MODE_SUCCESSFUL, MODE_FAILED, MODE_CANCELLED };

struct options {
	enum present_mode mode;
	uint32_t method;
	int width, height;
	int stride_pad;
	uint32_t format; /* DRM fourcc (pattern.h) */
	uint32_t shm_format;
	int frames;
	int interval_ms;
	int hold_ms;
	const char *times_path;
	bool allow_mode_failed;
	/* --colour-steps: solid frames instead of the pattern, each committed
	 * at its own time after the first (replaces --frames/--interval-ms). */
	int colour_step_count;
	uint32_t colour_step_rgb[MAX_COLOUR_STEPS];
	int colour_step_ms[MAX_COLOUR_STEPS];
};

struct buffer {
	struct wl_buffer *wl_buffer;
	void *data;
	bool busy;
};

struct presenter {
	struct options options;
	struct wl_display *display;
	struct wl_registry *registry;
	struct wl_compositor *compositor;
	struct wl_shm *shm;
	struct wl_output *output;
	struct zwp_fullscreen_shell_v1 *shell;
	bool shm_has_format;
	uint32_t shell_capabilities;
	int output_width, output_height;
	struct wl_surface *surface;
	struct zwp_fullscreen_shell_mode_feedback_v1 *feedback;
	enum mode_result mode_result;
	void *pool_data;
	size_t pool_size;
	struct buffer buffers[BUFFER_COUNT];
	int stride;
};

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void shm_format(void *data, struct wl_shm *shm, uint32_t format)
{
	struct presenter *presenter = data;
	if (format == presenter->options.shm_format)
		presenter->shm_has_format = true;
}

static const struct wl_shm_listener shm_listener = { .format = shm_format };

static void output_geometry(void *data, struct wl_output *output, int32_t x, int32_t y,
			    int32_t physical_width, int32_t physical_height, int32_t subpixel,
			    const char *make, const char *model, int32_t transform)
{
}

static void output_mode(void *data, struct wl_output *output, uint32_t flags,
			int32_t width, int32_t height, int32_t refresh)
{
	struct presenter *presenter = data;
	if (flags & WL_OUTPUT_MODE_CURRENT) {
		presenter->output_width = width;
		presenter->output_height = height;
	}
}

static void output_done(void *data, struct wl_output *output)
{
}

static void output_scale(void *data, struct wl_output *output, int32_t factor)
{
}

static const struct wl_output_listener output_listener = {
	.geometry = output_geometry,
	.mode = output_mode,
	.done = output_done,
	.scale = output_scale,
};

static void shell_capability(void *data, struct zwp_fullscreen_shell_v1 *shell,
			     uint32_t capability)
{
	struct presenter *presenter = data;
	presenter->shell_capabilities |= capability;
}

static const struct zwp_fullscreen_shell_v1_listener shell_listener = {
	.capability = shell_capability,
};

static void registry_global(void *data, struct wl_registry *registry, uint32_t name,
			    const char *interface, uint32_t version)
{
	struct presenter *presenter = data;
	if (strcmp(interface, wl_compositor_interface.name) == 0 && !presenter->compositor) {
		presenter->compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 1);
	} else if (strcmp(interface, wl_shm_interface.name) == 0 && !presenter->shm) {
		presenter->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
		wl_shm_add_listener(presenter->shm, &shm_listener, presenter);
	} else if (strcmp(interface, wl_output_interface.name) == 0 && !presenter->output) {
		uint32_t bind_version = version < 2 ? version : 2;
		presenter->output = wl_registry_bind(registry, name, &wl_output_interface,
						     bind_version);
		wl_output_add_listener(presenter->output, &output_listener, presenter);
	} else if (strcmp(interface, zwp_fullscreen_shell_v1_interface.name) == 0 &&
		   !presenter->shell) {
		presenter->shell = wl_registry_bind(registry, name,
						    &zwp_fullscreen_shell_v1_interface, 1);
		zwp_fullscreen_shell_v1_add_listener(presenter->shell, &shell_listener, presenter);
	}
}

static void registry_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_global,
	.global_remove = registry_global_remove,
};

static void feedback_finished(struct presenter *presenter, enum mode_result result,
			      const char *name)
{
	presenter->mode_result = result;
	printf("presenter: %s\n", name);
	fflush(stdout);
	zwp_fullscreen_shell_mode_feedback_v1_destroy(presenter->feedback);
	presenter->feedback = NULL;
}

static void feedback_mode_successful(void *data,
				     struct zwp_fullscreen_shell_mode_feedback_v1 *feedback)
{
	feedback_finished(data, MODE_SUCCESSFUL, "mode_successful");
}

static void feedback_mode_failed(void *data,
				 struct zwp_fullscreen_shell_mode_feedback_v1 *feedback)
{
	feedback_finished(data, MODE_FAILED, "mode_failed");
}

static void feedback_present_cancelled(void *data,
				       struct zwp_fullscreen_shell_mode_feedback_v1 *feedback)
{
	feedback_finished(data, MODE_CANCELLED, "present_cancelled");
}

static const struct zwp_fullscreen_shell_mode_feedback_v1_listener feedback_listener = {
	.mode_successful = feedback_mode_successful,
	.mode_failed = feedback_mode_failed,
	.present_cancelled = feedback_present_cancelled,
};

static void buffer_release(void *data, struct wl_buffer *wl_buffer)
{
	struct buffer *buffer = data;
	buffer->busy = false;
}

static const struct wl_buffer_listener buffer_listener = { .release = buffer_release };

/* Reports why the connection failed; returns the exit status to use. */
static int connection_failure(struct presenter *presenter, int frames_committed)
{
	int error = wl_display_get_error(presenter->display);
	if (error == EPROTO) {
		const struct wl_interface *interface = NULL;
		uint32_t id = 0;
		uint32_t code = wl_display_get_protocol_error(presenter->display, &interface, &id);
		fprintf(stderr, "presenter: protocol error %u on %s@%u\n", code,
			interface ? interface->name : "?", id);
		return 1;
	}
	if (frames_committed >= presenter->options.frames) {
		printf("presenter: server closed the connection after the last frame\n");
		return 0;
	}
	fprintf(stderr, "presenter: connection lost after %d of %d frames: %s\n",
		frames_committed, presenter->options.frames, strerror(error ? error : EPIPE));
	return 3;
}

/* Flushes, then waits up to `timeout_ms` (-1: forever) for events and
 * dispatches them. Returns 0, or -1 when the connection is gone. */
static int dispatch_for(struct presenter *presenter, int timeout_ms)
{
	struct wl_display *display = presenter->display;
	while (wl_display_prepare_read(display) != 0) {
		if (wl_display_dispatch_pending(display) < 0)
			return -1;
	}
	if (wl_display_flush(display) < 0 && errno != EAGAIN) {
		wl_display_cancel_read(display);
		return -1;
	}
	struct pollfd pollfd = { .fd = wl_display_get_fd(display), .events = POLLIN };
	int ready = poll(&pollfd, 1, timeout_ms);
	if (ready <= 0) {
		wl_display_cancel_read(display);
		return ready < 0 && errno != EINTR ? -1 : 0;
	}
	if (wl_display_read_events(display) < 0)
		return -1;
	return wl_display_dispatch_pending(display) < 0 ? -1 : 0;
}

static int create_buffers(struct presenter *presenter)
{
	const struct options *options = &presenter->options;
	presenter->stride = options->width * 4 + options->stride_pad;
	size_t buffer_size = (size_t)presenter->stride * (size_t)options->height;
	presenter->pool_size = buffer_size * BUFFER_COUNT;
	int ret = -1;
	struct wl_shm_pool *pool = NULL;

	int fd = memfd_create("presenter", MFD_CLOEXEC);
	if (fd < 0) {
		perror("presenter: memfd_create");
		goto out;
	}
	if (ftruncate(fd, (off_t)presenter->pool_size) < 0) {
		perror("presenter: ftruncate");
		goto out;
	}
	presenter->pool_data = mmap(NULL, presenter->pool_size, PROT_READ | PROT_WRITE,
				    MAP_SHARED, fd, 0);
	if (presenter->pool_data == MAP_FAILED) {
		presenter->pool_data = NULL;
		perror("presenter: mmap");
		goto out;
	}
	/* One pool for all buffers, so that buffers sit at non-zero offsets. */
	pool = wl_shm_create_pool(presenter->shm, fd, (int32_t)presenter->pool_size);
	for (int i = 0; i < BUFFER_COUNT; i++) {
		struct buffer *buffer = &presenter->buffers[i];
		buffer->data = (uint8_t *)presenter->pool_data + buffer_size * (size_t)i;
		buffer->wl_buffer = wl_shm_pool_create_buffer(pool, (int32_t)(buffer_size * (size_t)i),
							      options->width, options->height,
							      presenter->stride, options->shm_format);
		wl_buffer_add_listener(buffer->wl_buffer, &buffer_listener, buffer);
	}
	ret = 0;
out:
	if (pool)
		wl_shm_pool_destroy(pool);
	if (fd >= 0)
		close(fd);
	return ret;
}

/* Returns a buffer the server is not using, waiting for a release. */
static struct buffer *wait_free_buffer(struct presenter *presenter)
{
	int64_t deadline = now_ns() + (int64_t)WAIT_TIMEOUT_MS * 1000000;
	for (;;) {
		for (int i = 0; i < BUFFER_COUNT; i++) {
			if (!presenter->buffers[i].busy)
				return &presenter->buffers[i];
		}
		int64_t left_ms = (deadline - now_ns()) / 1000000;
		if (left_ms <= 0) {
			fprintf(stderr, "presenter: no wl_buffer.release within %d ms\n",
				WAIT_TIMEOUT_MS);
			return NULL;
		}
		if (dispatch_for(presenter, (int)left_ms) < 0)
			return NULL;
	}
}

/* Returns when it committed (CLOCK_MONOTONIC, ns). */
static int64_t commit_frame(struct presenter *presenter, struct buffer *buffer, int index,
			    FILE *times)
{
	const struct options *options = &presenter->options;
	if (options->colour_step_count) {
		/* xrgb or argb only (checked): X 0, alpha opaque. */
		uint32_t alpha = options->format == pattern_format_from_name("argb") ? 0xff : 0;
		uint32_t pixel = alpha << 24 | options->colour_step_rgb[index];
		for (int y = 0; y < options->height; y++) {
			uint32_t *row = (uint32_t *)((uint8_t *)buffer->data +
						     (size_t)y * (size_t)presenter->stride);
			for (int x = 0; x < options->width; x++)
				row[x] = pixel;
		}
	} else {
		pattern_fill_format(buffer->data, presenter->stride, index, options->width,
				    options->height, options->format);
	}
	wl_surface_attach(presenter->surface, buffer->wl_buffer, 0, 0);
	wl_surface_damage(presenter->surface, 0, 0, options->width, options->height);
	buffer->busy = true;
	int64_t commit_ns = now_ns();
	wl_surface_commit(presenter->surface);
	if (times)
		fprintf(times, "%d %lld\n", index, (long long)commit_ns);
	return commit_ns;
}

static int wait_mode_feedback(struct presenter *presenter)
{
	int64_t deadline = now_ns() + (int64_t)WAIT_TIMEOUT_MS * 1000000;
	while (presenter->mode_result == MODE_PENDING) {
		int64_t left_ms = (deadline - now_ns()) / 1000000;
		if (left_ms <= 0) {
			fprintf(stderr, "presenter: no mode feedback within %d ms\n",
				WAIT_TIMEOUT_MS);
			return -1;
		}
		if (dispatch_for(presenter, (int)left_ms) < 0)
			return -2;
	}
	return 0;
}

static int run(struct presenter *presenter)
{
	const struct options *options = &presenter->options;
	FILE *times = NULL;
	int frames_committed = 0;
	int status = 1;

	presenter->display = wl_display_connect(NULL);
	if (!presenter->display) {
		perror("presenter: wl_display_connect");
		goto out;
	}
	presenter->registry = wl_display_get_registry(presenter->display);
	wl_registry_add_listener(presenter->registry, &registry_listener, presenter);
	/* Twice: the globals, then the events of what was bound. */
	if (wl_display_roundtrip(presenter->display) < 0 ||
	    wl_display_roundtrip(presenter->display) < 0) {
		status = connection_failure(presenter, 0);
		goto out;
	}
	if (!presenter->compositor || !presenter->shm || !presenter->shell || !presenter->output) {
		fprintf(stderr, "presenter: missing global:%s%s%s%s\n",
			presenter->compositor ? "" : " wl_compositor",
			presenter->shm ? "" : " wl_shm",
			presenter->shell ? "" : " zwp_fullscreen_shell_v1",
			presenter->output ? "" : " wl_output");
		goto out;
	}
	if (!presenter->shm_has_format) {
		fprintf(stderr, "presenter: wl_shm does not offer format 0x%08x\n",
			options->shm_format);
		goto out;
	}
	printf("presenter: output mode %dx%d, shell capabilities 0x%x\n",
	       presenter->output_width, presenter->output_height,
	       presenter->shell_capabilities);
	fflush(stdout);

	if (options->times_path) {
		times = fopen(options->times_path, "w");
		if (!times) {
			perror(options->times_path);
			goto out;
		}
	}
	if (create_buffers(presenter) < 0)
		goto out;
	presenter->surface = wl_compositor_create_surface(presenter->compositor);

	if (options->mode == PRESENT_FOR_MODE) {
		presenter->feedback = zwp_fullscreen_shell_v1_present_surface_for_mode(
			presenter->shell, presenter->surface, presenter->output, 0);
		zwp_fullscreen_shell_mode_feedback_v1_add_listener(presenter->feedback,
								   &feedback_listener, presenter);
	} else {
		zwp_fullscreen_shell_v1_present_surface(presenter->shell, presenter->surface,
							options->method, presenter->output);
	}

	int64_t start_ns = now_ns(), last_commit_ns = 0;
	int64_t interval_ns = (int64_t)options->interval_ms * 1000000;
	/* One period of wl-record's default 60 fps, rounded up. */
	int64_t min_gap_ns = interval_ns < 17000000 ? interval_ns : 17000000;
	for (int index = 0; index < options->frames; index++) {
		/* On schedule, catching up after a late frame, but never two
		 * commits within one of wl-record's frame periods: there the
		 * newer rightly replaces the older, and a test counting frames
		 * would see one missing. */
		int64_t due_ns = start_ns + (options->colour_step_count
						 ? (int64_t)options->colour_step_ms[index] * 1000000
						 : (int64_t)index * interval_ns);
		if (index > 0 && due_ns < last_commit_ns + min_gap_ns)
			due_ns = last_commit_ns + min_gap_ns;
		for (;;) {
			int64_t left_ms = (due_ns - now_ns() + 999999) / 1000000;
			if (left_ms <= 0)
				break;
			if (dispatch_for(presenter, (int)left_ms) < 0) {
				status = connection_failure(presenter, frames_committed);
				goto out;
			}
		}
		struct buffer *buffer = wait_free_buffer(presenter);
		if (!buffer) {
			if (wl_display_get_error(presenter->display))
				status = connection_failure(presenter, frames_committed);
			goto out;
		}
		last_commit_ns = commit_frame(presenter, buffer, index, times);
		frames_committed++;
		if (wl_display_flush(presenter->display) < 0 && errno != EAGAIN) {
			status = connection_failure(presenter, frames_committed);
			goto out;
		}
		if (index == 0 && options->mode == PRESENT_FOR_MODE) {
			/* Like Weston's wayland backend: block until the mode switch
			 * is answered, and fall back to present_surface on failure. */
			int wait = wait_mode_feedback(presenter);
			if (wait == -2) {
				status = connection_failure(presenter, frames_committed);
				goto out;
			}
			if (wait < 0)
				goto out;
			if (presenter->mode_result != MODE_SUCCESSFUL) {
				zwp_fullscreen_shell_v1_present_surface(
					presenter->shell, presenter->surface,
					ZWP_FULLSCREEN_SHELL_V1_PRESENT_METHOD_CENTER,
					presenter->output);
				wl_surface_commit(presenter->surface);
			}
		}
	}
	if (times && fflush(times) != 0) {
		perror(options->times_path);
		goto out;
	}
	printf("presenter: committed %d frames\n", frames_committed);
	fflush(stdout);

	int64_t hold_end_ns = now_ns() + (int64_t)options->hold_ms * 1000000;
	for (;;) {
		int64_t left_ms = (hold_end_ns - now_ns()) / 1000000;
		if (left_ms <= 0)
			break;
		if (dispatch_for(presenter, (int)left_ms) < 0) {
			status = connection_failure(presenter, frames_committed);
			goto out;
		}
	}
	/* Catch a protocol error raised by the last requests. */
	if (wl_display_roundtrip(presenter->display) < 0) {
		status = connection_failure(presenter, frames_committed);
		goto out;
	}
	status = 0;
out:
	if (status == 0 && options->mode == PRESENT_FOR_MODE &&
	    presenter->mode_result != MODE_SUCCESSFUL && !options->allow_mode_failed) {
		fprintf(stderr, "presenter: the mode switch did not succeed\n");
		status = 4;
	}
	if (times && fclose(times) != 0 && status == 0) {
		perror(options->times_path);
		status = 1;
	}
	for (int i = 0; i < BUFFER_COUNT; i++) {
		if (presenter->buffers[i].wl_buffer)
			wl_buffer_destroy(presenter->buffers[i].wl_buffer);
	}
	if (presenter->pool_data)
		munmap(presenter->pool_data, presenter->pool_size);
	if (presenter->feedback)
		zwp_fullscreen_shell_mode_feedback_v1_destroy(presenter->feedback);
	if (presenter->surface)
		wl_surface_destroy(presenter->surface);
	if (presenter->shell)
		zwp_fullscreen_shell_v1_release(presenter->shell);
	if (presenter->output)
		wl_output_destroy(presenter->output);
	if (presenter->shm)
		wl_shm_destroy(presenter->shm);
	if (presenter->compositor)
		wl_compositor_destroy(presenter->compositor);
	if (presenter->registry)
		wl_registry_destroy(presenter->registry);
	if (presenter->display)
		wl_display_disconnect(presenter->display);
	return status;
}

static void usage(FILE *stream)
{
	fprintf(stream,
		"usage: presenter [--mode for-mode|surface] [--method default|center|zoom|zoom_crop|stretch]\n"
		"                 [--size WxH] [--stride-pad BYTES] [--format FORMAT] [--frames N]\n"
		"                 [--interval-ms M] [--hold-ms H] [--times FILE] [--allow-mode-failed]\n"
		"FORMAT: xrgb (default), argb, xbgr, abgr, xrgb2101010, argb2101010, xbgr2101010,\n"
		"        abgr2101010\n"
		"                 [--colour-steps RRGGBB@MS[,RRGGBB@MS...]] (xrgb, argb only)\n");
}

static bool parse_int(const char *text, int min, int max, int *value)
{
	char *end;
	errno = 0;
	long parsed = strtol(text, &end, 10);
	if (errno || end == text || *end || parsed < min || parsed > max)
		return false;
	*value = (int)parsed;
	return true;
}

/* "000000@0,ff0000@150,00ff00@400": solid colours and when each is
 * committed (ms after the first, increasing); sets the frame count. */
static bool parse_colour_steps(const char *text, struct options *options)
{
	int count = 0;
	const char *at = text;
	for (;;) {
		unsigned int rgb;
		int ms, used = 0;
		if (count == MAX_COLOUR_STEPS ||
		    sscanf(at, "%6x@%d%n", &rgb, &ms, &used) != 2 || used < 8 || ms < 0 ||
		    (count > 0 && ms <= options->colour_step_ms[count - 1]))
			return false;
		options->colour_step_rgb[count] = rgb;
		options->colour_step_ms[count] = ms;
		count++;
		at += used;
		if (*at == '\0')
			break;
		if (*at++ != ',')
			return false;
	}
	options->colour_step_count = count;
	options->frames = count;
	return true;
}

static int parse_options(int argc, char **argv, struct options *options)
{
	static const char *const method_names[] = { "default", "center", "zoom", "zoom_crop",
						    "stretch" };
	static const struct option long_options[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "method", required_argument, NULL, 'M' },
		{ "size", required_argument, NULL, 's' },
		{ "stride-pad", required_argument, NULL, 'p' },
		{ "format", required_argument, NULL, 'f' },
		{ "frames", required_argument, NULL, 'n' },
		{ "interval-ms", required_argument, NULL, 'i' },
		{ "hold-ms", required_argument, NULL, 'H' },
		{ "times", required_argument, NULL, 't' },
		{ "allow-mode-failed", no_argument, NULL, 'a' },
		{ "colour-steps", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	*options = (struct options){
		.mode = PRESENT_FOR_MODE,
		.method = ZWP_FULLSCREEN_SHELL_V1_PRESENT_METHOD_DEFAULT,
		.width = 320, .height = 240,
		.format = pattern_format_from_name("xrgb"),
		.shm_format = WL_SHM_FORMAT_XRGB8888,
		.frames = 1,
		.interval_ms = 33,
	};
	int opt;
	while ((opt = getopt_long(argc, argv, "h", long_options, NULL)) != -1) {
		bool ok = true;
		switch (opt) {
		case 'm':
			if (strcmp(optarg, "for-mode") == 0)
				options->mode = PRESENT_FOR_MODE;
			else if (strcmp(optarg, "surface") == 0)
				options->mode = PRESENT_SURFACE;
			else
				ok = false;
			break;
		case 'M':
			ok = false;
			for (uint32_t i = 0; i < sizeof(method_names) / sizeof(method_names[0]); i++) {
				if (strcmp(optarg, method_names[i]) == 0) {
					options->method = i;
					ok = true;
				}
			}
			break;
		case 's': {
			char tail;
			ok = sscanf(optarg, "%dx%d%c", &options->width, &options->height, &tail) == 2 &&
			     options->width > 0 && options->height > 0 &&
			     options->width <= 8192 && options->height <= 8192;
			break;
		}
		case 'p':
			ok = parse_int(optarg, 0, 4096, &options->stride_pad) &&
			     options->stride_pad % 4 == 0;
			break;
		case 'f':
			/* X bits 0, as Mesa's software path sends: the server
			 * must not read them as alpha (pattern.h). */
			options->format = pattern_format_from_name(optarg);
			options->shm_format = pattern_format_shm_code(options->format);
			ok = options->format != 0;
			break;
		case 'n':
			ok = parse_int(optarg, 1, 1000000, &options->frames);
			break;
		case 'i':
			ok = parse_int(optarg, 0, 60000, &options->interval_ms);
			break;
		case 'H':
			ok = parse_int(optarg, 0, 3600000, &options->hold_ms);
			break;
		case 't':
			options->times_path = optarg;
			break;
		case 'a':
			options->allow_mode_failed = true;
			break;
		case 'c':
			ok = parse_colour_steps(optarg, options);
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			ok = false;
			optarg = NULL;
			break;
		}
		if (!ok) {
			if (optarg)
				fprintf(stderr, "presenter: bad value '%s'\n", optarg);
			usage(stderr);
			return -1;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "presenter: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (options->colour_step_count) {
		options->frames = options->colour_step_count; /* whatever --frames said */
		if (options->format != pattern_format_from_name("xrgb") &&
		    options->format != pattern_format_from_name("argb")) {
			fprintf(stderr, "presenter: --colour-steps draws xrgb or argb only\n");
			return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct presenter presenter = { 0 };
	if (parse_options(argc, argv, &presenter.options) < 0)
		return 2;
	return run(&presenter);
}
