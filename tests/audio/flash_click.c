/* flash_click: a test client for A/V sync. At instants scheduled on
 * CLOCK_MONOTONIC it commits an all-white frame (black otherwise) and makes a
 * click sound at the same instant on the default audio sink.
 *
 * Video: one wl_surface through zwp_fullscreen_shell_v1 (as tests/presenter),
 * committed black at the start, white at each flash, black again
 * --flash-ms later.
 *
 * Audio: a libpulse playback stream fed with silence all along (so that its
 * latency is known and steady), on its own thread. Before each block is
 * written the stream's latency says when the block's first sample will be
 * played (pa_simple_get_latency: now + latency; the median of such readings
 * over the last 2.5 s, as one jitters); a click whose instant falls in the
 * block is placed at the sample for that instant, once, and stays at that
 * sample position.
 *
 * --tone-db DB: under the clicks, a 440 Hz tone all along at DB dBFS peak
 * (below a quarter of the clicks' peak, where a checker sees an onset): a
 * lost piece of the recorded sound is a hole in it, where the clicks alone
 * (10 ms in each period) would let most losses pass. On the same stream as
 * the clicks: another player's stream would change the server's timing.
 *
 * --times FILE gets a line per flash: "k planned_ns commit_ns onset_ns",
 * the instant planned, when the white frame was committed and when the
 * click was placed to start: checkers allow for a late commit or a late
 * click (a busy machine) from these, and no more.
 *
 * Exit status: 0 done, 1 failure, 2 bad command line. */

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <pulse/error.h>
#include <pulse/simple.h>
#include <wayland-client.h>

#include "fullscreen-shell-unstable-v1-client-protocol.h"

#define BUFFERS 4 /* two black, two white */
#define RATE 48000
#define CHANNELS 2
#define BLOCK_FRAMES 240        /* 5 ms */
/* Played this long after it is written: slack for a busy machine (60 ms
 * underran 9 times in the hour's soak on a loaded one, each click then late). */
#define TARGET_LATENCY_MS 150
#define CLICK_FRAMES (RATE / 100) /* 10 ms */
#define CLICK_HZ 1000.0
#define TONE_HZ 440.0
#define MAX_FLASHES 10000
/* 2.5 s of blocks: the server's latency reports swing by some ms over about a
 * second (pipewire-pulse's interpolation between timing updates). */
#define ESTIMATES 512

struct options {
	int flashes;
	int period_ms;
	int lead_ms;
	int flash_ms;
	int tone_db;      /* 0: no tone */
	const char *times_path;
};

struct flash {
	int64_t planned_ns;
	int64_t commit_ns;
	_Atomic int64_t onset_ns; /* 0 until the audio thread placed the click */
};

struct client {
	struct options options;
	struct wl_display *display;
	struct wl_registry *registry;
	struct wl_compositor *compositor;
	struct wl_shm *shm;
	struct wl_output *output;
	struct zwp_fullscreen_shell_v1 *shell;
	int width, height; /* the output's: the whole frame flashes */
	struct wl_surface *surface;
	struct wl_buffer *buffers[BUFFERS];
	bool busy[BUFFERS];

	struct flash *flashes;
	pa_simple *audio;
	pthread_t audio_thread;
	bool audio_started;
	atomic_bool audio_ready;
	atomic_bool audio_stop;
	atomic_bool audio_failed;
	int64_t written_frames; /* audio thread only */
};

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void output_geometry(void *data, struct wl_output *output, int32_t x, int32_t y,
			    int32_t physical_width, int32_t physical_height, int32_t subpixel,
			    const char *make, const char *model, int32_t transform)
{
	(void)data, (void)output, (void)x, (void)y, (void)physical_width;
	(void)physical_height, (void)subpixel, (void)make, (void)model, (void)transform;
}

static void output_mode(void *data, struct wl_output *output, uint32_t flags, int32_t width,
			int32_t height, int32_t refresh)
{
	(void)output, (void)refresh;
	struct client *client = data;
	if (flags & WL_OUTPUT_MODE_CURRENT) {
		client->width = width;
		client->height = height;
	}
}

static const struct wl_output_listener output_listener = {
	.geometry = output_geometry,
	.mode = output_mode,
};

static void registry_global(void *data, struct wl_registry *registry, uint32_t name,
			    const char *interface, uint32_t version)
{
	(void)version;
	struct client *client = data;
	if (strcmp(interface, wl_compositor_interface.name) == 0 && !client->compositor)
		client->compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 1);
	else if (strcmp(interface, wl_shm_interface.name) == 0 && !client->shm)
		client->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	else if (strcmp(interface, wl_output_interface.name) == 0 && !client->output) {
		client->output = wl_registry_bind(registry, name, &wl_output_interface, 1);
		wl_output_add_listener(client->output, &output_listener, client);
	}
	else if (strcmp(interface, zwp_fullscreen_shell_v1_interface.name) == 0 && !client->shell)
		client->shell = wl_registry_bind(registry, name, &zwp_fullscreen_shell_v1_interface, 1);
}

static void registry_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
	(void)data;
	(void)registry;
	(void)name;
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_global,
	.global_remove = registry_global_remove,
};

static void buffer_release(void *data, struct wl_buffer *buffer)
{
	(void)buffer;
	*(bool *)data = false;
}

static const struct wl_buffer_listener buffer_listener = { .release = buffer_release };

static int create_buffers(struct client *client)
{
	size_t size = (size_t)client->width * (size_t)client->height * 4;
	int fd = memfd_create("flash_click", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)(size * BUFFERS)) < 0) {
		perror("flash_click: memfd");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	uint8_t *data = mmap(NULL, size * BUFFERS, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (data == MAP_FAILED) {
		perror("flash_click: mmap");
		close(fd);
		return -1;
	}
	struct wl_shm_pool *pool = wl_shm_create_pool(client->shm, fd, (int32_t)(size * BUFFERS));
	for (int i = 0; i < BUFFERS; i++) {
		uint32_t *pixels = (uint32_t *)(data + size * (size_t)i);
		uint32_t colour = i < BUFFERS / 2 ? 0x000000 : 0xffffff;
		for (size_t p = 0; p < size / 4; p++)
			pixels[p] = colour;
		client->buffers[i] = wl_shm_pool_create_buffer(pool, (int32_t)(size * (size_t)i),
							       client->width, client->height,
							       client->width * 4,
							       WL_SHM_FORMAT_XRGB8888);
		wl_buffer_add_listener(client->buffers[i], &buffer_listener, &client->busy[i]);
	}
	wl_shm_pool_destroy(pool);
	close(fd);
	return 0;
}

/* Dispatches what comes for up to `timeout_ms`. -1: the connection is gone. */
static int dispatch_for(struct client *client, int timeout_ms)
{
	struct wl_display *display = client->display;
	while (wl_display_prepare_read(display) != 0)
		if (wl_display_dispatch_pending(display) < 0)
			return -1;
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

/* Waits for `at_ns`: Wayland events until 2 ms before, then a precise sleep. */
static int wait_until(struct client *client, int64_t at_ns)
{
	for (;;) {
		int64_t left_ms = (at_ns - now_ns()) / 1000000 - 2;
		if (left_ms <= 0)
			break;
		/* poll() may wake 0.1% of its timeout late (the kernel's slack):
		 * 10 ms of a 10 s wait. */
		if (left_ms > 500)
			left_ms = 500;
		if (dispatch_for(client, (int)left_ms) < 0)
			return -1;
	}
	struct timespec ts = { .tv_sec = at_ns / 1000000000, .tv_nsec = at_ns % 1000000000 };
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
	return 0;
}

/* Commits a free buffer of the colour; returns the commit time, or -1. */
static int64_t commit_colour(struct client *client, bool white)
{
	int first = white ? BUFFERS / 2 : 0;
	int64_t deadline = now_ns() + 2000000000;
	int chosen = -1;
	while (chosen < 0) {
		for (int i = first; i < first + BUFFERS / 2 && chosen < 0; i++)
			if (!client->busy[i])
				chosen = i;
		if (chosen >= 0)
			break;
		if (now_ns() > deadline || dispatch_for(client, 10) < 0) {
			fprintf(stderr, "flash_click: no buffer released\n");
			return -1;
		}
	}
	wl_surface_attach(client->surface, client->buffers[chosen], 0, 0);
	wl_surface_damage(client->surface, 0, 0, client->width, client->height);
	client->busy[chosen] = true;
	int64_t commit_ns = now_ns();
	wl_surface_commit(client->surface);
	if (wl_display_flush(client->display) < 0 && errno != EAGAIN)
		return -1;
	return commit_ns;
}

/* The click: a 1 kHz burst, full in 1 ms, -6 dBFS. */
static float click_sample(int64_t i)
{
	double t = (double)i / RATE;
	double ramp = i < RATE / 1000 ? (double)i / (RATE / 1000) : 1.0;
	return (float)(0.5 * ramp * sin(2 * M_PI * CLICK_HZ * t));
}

static int compare_ns(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static int64_t median(const int64_t *values, int count)
{
	int64_t sorted[ESTIMATES];
	memcpy(sorted, values, (size_t)count * sizeof(*values));
	qsort(sorted, (size_t)count, sizeof(*sorted), compare_ns);
	return sorted[count / 2];
}

static void *audio_main(void *data)
{
	struct client *client = data;
	const struct options *options = &client->options;
	float block[BLOCK_FRAMES * CHANNELS];
	int64_t *onset_frames = calloc((size_t)options->flashes, sizeof(*onset_frames));
	if (!onset_frames) {
		atomic_store(&client->audio_failed, true);
		return NULL;
	}
	int next = 0; /* the first flash whose click is not placed yet */
	int64_t estimates[ESTIMATES];
	int estimate_count = 0;
	while (!atomic_load(&client->audio_stop)) {
		int error;
		pa_usec_t latency = pa_simple_get_latency(client->audio, &error);
		if (latency == (pa_usec_t)-1) {
			fprintf(stderr, "flash_click: latency: %s\n", pa_strerror(error));
			atomic_store(&client->audio_failed, true);
			break;
		}
		/* When the stream's first sample was (or will be) played: one
		 * reading jitters by a few ms (this thread may run late between the
		 * two clocks read) and swings over a second, their median over the
		 * last ESTIMATES blocks does not. */
		int64_t written_ns = client->written_frames * 1000000000 / RATE;
		estimates[estimate_count++ % ESTIMATES] = now_ns() + (int64_t)latency * 1000 - written_ns;
		int64_t zero_ns = median(estimates, estimate_count < ESTIMATES ? estimate_count
									 : ESTIMATES);
		int64_t block_ns = zero_ns + written_ns;
		int64_t block_end_ns = block_ns + (int64_t)BLOCK_FRAMES * 1000000000 / RATE;
		while (next < options->flashes && client->flashes[next].planned_ns < block_end_ns) {
			int64_t ahead = client->flashes[next].planned_ns - block_ns;
			int64_t offset = ahead > 0 ? ahead * RATE / 1000000000 : 0; /* late: at once */
			onset_frames[next] = client->written_frames + offset;
			atomic_store(&client->flashes[next].onset_ns,
				     block_ns + offset * 1000000000 / RATE);
			next++;
		}
		double tone = options->tone_db ? pow(10.0, options->tone_db / 20.0) : 0.0;
		for (int i = 0; i < BLOCK_FRAMES; i++) {
			int64_t frame = client->written_frames + i;
			float value = (float)(tone * sin(2 * M_PI * TONE_HZ * (double)(frame % RATE) / RATE));
			for (int k = next - 1; k >= 0 && k >= next - 2; k--)
				if (frame >= onset_frames[k] && frame < onset_frames[k] + CLICK_FRAMES)
					value += click_sample(frame - onset_frames[k]);
			for (int c = 0; c < CHANNELS; c++)
				block[i * CHANNELS + c] = value;
		}
		if (pa_simple_write(client->audio, block, sizeof(block), &error) < 0) {
			fprintf(stderr, "flash_click: write: %s\n", pa_strerror(error));
			atomic_store(&client->audio_failed, true);
			break;
		}
		client->written_frames += BLOCK_FRAMES;
		if (client->written_frames >= RATE / 5)
			atomic_store(&client->audio_ready, true); /* playing steadily */
	}
	free(onset_frames);
	return NULL;
}

static int start_audio(struct client *client)
{
	const pa_sample_spec spec = { .format = PA_SAMPLE_FLOAT32LE, .rate = RATE,
				      .channels = CHANNELS };
	uint32_t frame_bytes = CHANNELS * sizeof(float);
	const pa_buffer_attr attr = {
		.maxlength = (uint32_t)-1,
		.tlength = RATE * TARGET_LATENCY_MS / 1000 * frame_bytes,
		.prebuf = (uint32_t)-1,
		.minreq = BLOCK_FRAMES * frame_bytes,
		.fragsize = (uint32_t)-1,
	};
	int error;
	client->audio = pa_simple_new(NULL, "flash_click", PA_STREAM_PLAYBACK, NULL, "clicks",
				      &spec, NULL, &attr, &error);
	if (!client->audio) {
		fprintf(stderr, "flash_click: no audio: %s\n", pa_strerror(error));
		return -1;
	}
	if (pthread_create(&client->audio_thread, NULL, audio_main, client) != 0) {
		fprintf(stderr, "flash_click: cannot start the audio thread\n");
		return -1;
	}
	client->audio_started = true;
	int64_t deadline = now_ns() + 5000000000;
	while (!atomic_load(&client->audio_ready)) {
		if (atomic_load(&client->audio_failed) || now_ns() > deadline) {
			fprintf(stderr, "flash_click: the audio stream does not play\n");
			return -1;
		}
		usleep(5000);
	}
	return 0;
}

/* What run() made (a leak checker sees the rest). */
static void destroy(struct client *client)
{
	if (client->audio_started) {
		atomic_store(&client->audio_stop, true);
		pthread_join(client->audio_thread, NULL);
	}
	if (client->audio)
		pa_simple_free(client->audio);
	free(client->flashes);
	for (int i = 0; i < BUFFERS; i++)
		if (client->buffers[i])
			wl_buffer_destroy(client->buffers[i]);
	if (client->surface)
		wl_surface_destroy(client->surface);
	if (client->shell)
		zwp_fullscreen_shell_v1_release(client->shell);
	if (client->output)
		wl_output_destroy(client->output);
	if (client->shm)
		wl_shm_destroy(client->shm);
	if (client->compositor)
		wl_compositor_destroy(client->compositor);
	if (client->registry)
		wl_registry_destroy(client->registry);
	if (client->display)
		wl_display_disconnect(client->display);
}

static int run(struct client *client)
{
	const struct options *options = &client->options;
	client->display = wl_display_connect(NULL);
	if (!client->display) {
		perror("flash_click: wl_display_connect");
		return 1;
	}
	client->registry = wl_display_get_registry(client->display);
	wl_registry_add_listener(client->registry, &registry_listener, client);
	/* Twice: the globals, then the output's mode. */
	if (wl_display_roundtrip(client->display) < 0 ||
	    wl_display_roundtrip(client->display) < 0) {
		fprintf(stderr, "flash_click: the server went away\n");
		return 1;
	}
	if (!client->compositor || !client->shm || !client->output || !client->shell) {
		fprintf(stderr, "flash_click: missing wl_compositor, wl_shm, wl_output or zwp_fullscreen_shell_v1\n");
		return 1;
	}
	if (client->width <= 0 || client->height <= 0) {
		client->width = 320; /* no mode said: any size will do */
		client->height = 240;
	}
	if (create_buffers(client) < 0)
		return 1;
	client->surface = wl_compositor_create_surface(client->compositor);
	zwp_fullscreen_shell_v1_present_surface(client->shell, client->surface,
						ZWP_FULLSCREEN_SHELL_V1_PRESENT_METHOD_DEFAULT,
						client->output);
	if (commit_colour(client, false) < 0)
		return 1;
	client->flashes = calloc((size_t)options->flashes, sizeof(*client->flashes));
	if (!client->flashes)
		return 1;
	/* Planned before the audio starts: its thread reads them. */
	int64_t start_ns = now_ns() + (int64_t)options->lead_ms * 1000000;
	for (int k = 0; k < options->flashes; k++)
		client->flashes[k].planned_ns = start_ns + (int64_t)k * options->period_ms * 1000000;
	if (start_audio(client) < 0)
		return 1;
	printf("flash_click: %d flashes every %d ms from %lld\n", options->flashes,
	       options->period_ms, (long long)start_ns);
	fflush(stdout);
	int status = 0;
	for (int k = 0; k < options->flashes && status == 0; k++) {
		struct flash *flash = &client->flashes[k];
		if (wait_until(client, flash->planned_ns) < 0 ||
		    (flash->commit_ns = commit_colour(client, true)) < 0 ||
		    wait_until(client, flash->planned_ns + (int64_t)options->flash_ms * 1000000) < 0 ||
		    commit_colour(client, false) < 0)
			status = 1;
		if (atomic_load(&client->audio_failed))
			status = 1;
	}
	/* The last click played out and recorded. */
	if (status == 0 && wait_until(client, now_ns() + 500000000) < 0)
		status = 1;
	atomic_store(&client->audio_stop, true);
	pthread_join(client->audio_thread, NULL);
	client->audio_started = false;
	if (status == 0 && options->times_path) {
		FILE *times = fopen(options->times_path, "w");
		if (!times) {
			perror(options->times_path);
			return 1;
		}
		for (int k = 0; k < options->flashes; k++)
			fprintf(times, "%d %lld %lld %lld\n", k,
				(long long)client->flashes[k].planned_ns,
				(long long)client->flashes[k].commit_ns,
				(long long)atomic_load(&client->flashes[k].onset_ns));
		if (fclose(times) != 0) {
			perror(options->times_path);
			return 1;
		}
	}
	if (status == 0)
		printf("flash_click: done\n");
	return status;
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

int main(int argc, char **argv)
{
	static const struct option long_options[] = {
		{ "flashes", required_argument, NULL, 'n' },
		{ "period-ms", required_argument, NULL, 'p' },
		{ "lead-ms", required_argument, NULL, 'l' },
		{ "flash-ms", required_argument, NULL, 'f' },
		{ "times", required_argument, NULL, 't' },
		{ "tone-db", required_argument, NULL, 'd' },
		{ 0 },
	};
	struct client client = { .options = { .flashes = 5, .period_ms = 1000, .lead_ms = 1000,
					       .flash_ms = 200 } };
	struct options *options = &client.options;
	int opt;
	while ((opt = getopt_long(argc, argv, "", long_options, NULL)) != -1) {
		bool ok;
		switch (opt) {
		case 'n': ok = parse_int(optarg, 1, MAX_FLASHES, &options->flashes); break;
		case 'p': ok = parse_int(optarg, 100, 3600000, &options->period_ms); break;
		case 'l': ok = parse_int(optarg, 300, 60000, &options->lead_ms); break;
		case 'f': ok = parse_int(optarg, 20, 10000, &options->flash_ms); break;
		case 't': options->times_path = optarg; ok = true; break;
		case 'd': ok = parse_int(optarg, -90, -20, &options->tone_db); break;
		default: ok = false; break;
		}
		if (!ok) {
			fprintf(stderr, "usage: flash_click [--flashes N] [--period-ms MS] [--lead-ms MS] "
					"[--flash-ms MS] [--tone-db DB] [--times FILE]\n");
			return 2;
		}
	}
	if (options->flash_ms >= options->period_ms) {
		fprintf(stderr, "flash_click: --flash-ms must be shorter than --period-ms\n");
		return 2;
	}
	int status = run(&client);
	destroy(&client);
	return status;
}
