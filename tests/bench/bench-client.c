/* bench-client: the same deterministic content for every recorder in the
 * benchmark (scripts/bench). It presents through zwp_fullscreen_shell_v1
 * (wl-record) or as a fullscreen xdg toplevel (sway, for wf-recorder), paced
 * by frame callbacks like a real application, or writes raw BGRA frames to
 * stdout for the ffmpeg CLI (the "encode only" floor).
 *
 * Workloads: full (every pixel changes each frame: a scrolling image),
 * desktop (a static background and a 256x256 box that moves, only its damage
 * reported), idle (one frame, then nothing).
 *
 *   bench-client --shell fullscreen|xdg|raw --size WxH --workload W
 *                --seconds S [--fps N (raw only)]
 * Prints "commits N seconds S fps F" on stderr at the end, and on each
 * SIGUSR1 a line "mark commits N seconds S" (commits and seconds so far), so
 * that scripts/bench can count what was committed between two marks (the
 * window a recorder was recording). SIGUSR1 is blocked and read from a
 * signalfd in the poll loop: no work in a signal handler. */

#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include <wayland-client.h>

#include "fullscreen-shell-unstable-v1-client-protocol.h"
#include "xdg-shell-client-protocol.h"

#define BUFFERS 4
#define BOX 256

enum shell { SHELL_FULLSCREEN, SHELL_XDG, SHELL_RAW };
enum workload { WORK_FULL, WORK_DESKTOP, WORK_IDLE };

struct rect {
	int x, y, w, h;
};

struct buffer {
	struct wl_buffer *wl_buffer;
	uint32_t *pixels;
	bool busy;
	bool drawn;         /* holds the background at least once */
	struct rect box;    /* where its box was drawn (desktop) */
};

struct client {
	enum shell shell;
	enum workload workload;
	int width, height;
	double seconds, fps;

	uint32_t *background;  /* width x height */
	uint32_t *scroll;      /* (2 * width) x height: source of the full workload */

	struct wl_display *display;
	struct wl_compositor *compositor;
	struct wl_shm *shm;
	struct wl_output *output;
	struct zwp_fullscreen_shell_v1 *fullscreen;
	struct xdg_wm_base *wm_base;
	struct wl_surface *surface;
	struct xdg_surface *xdg_surface;
	struct xdg_toplevel *toplevel;
	bool configured;
	int configured_width, configured_height;
	struct buffer buffers[BUFFERS];
	struct wl_callback *frame_callback;
	bool frame_due;

	long frame_index;
	struct rect last_box;
	long commits;
	int signal_fd;  /* SIGUSR1: print a mark line; -1 when unavailable */
};

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "bench-client: %s\n", what);
	exit(1);
}

static void make_content(struct client *c)
{
	size_t n = (size_t)c->width * c->height;
	c->background = malloc(n * 4);
	c->scroll = malloc(n * 8);
	if (!c->background || !c->scroll)
		die("out of memory");
	for (int y = 0; y < c->height; y++) {
		for (int x = 0; x < c->width; x++) {
			/* A soft desktop-like gradient with some structure. */
			uint32_t r = (uint32_t)(40 + x * 100 / c->width + ((x / 64 + y / 64) % 2) * 20);
			uint32_t g = (uint32_t)(60 + y * 120 / c->height);
			uint32_t b = (uint32_t)(140 + ((x ^ y) & 31));
			c->background[(size_t)y * c->width + x] = 0xff000000u | r << 16 | g << 8 | b;
		}
		for (int x = 0; x < 2 * c->width; x++) {
			uint32_t v = (uint32_t)((x * 255 / (2 * c->width)) ^ (y & 0x3f));
			c->scroll[(size_t)y * 2 * c->width + x] =
				0xff000000u | v << 16 | (uint32_t)((y * 255 / c->height) ^ (x & 0x1f)) << 8 |
				(uint32_t)((x + y) & 0xff);
		}
	}
}

/* Frame `index` of the full workload: the scroll image moved by 7 px a frame. */
static void draw_full(const struct client *c, uint32_t *dst, long index)
{
	int offset = (int)(index * 7 % c->width);
	for (int y = 0; y < c->height; y++)
		memcpy(dst + (size_t)y * c->width, c->scroll + (size_t)y * 2 * c->width + offset,
		       (size_t)c->width * 4);
}

static struct rect box_at(const struct client *c, long index)
{
	/* Bounces around the screen, 5 px a frame in x, 3 in y. */
	int span_x = c->width - BOX, span_y = c->height - BOX;
	long px = index * 5 % (2 * span_x), py = index * 3 % (2 * span_y);
	return (struct rect){ (int)(px < span_x ? px : 2 * span_x - px),
			      (int)(py < span_y ? py : 2 * span_y - py), BOX, BOX };
}

static void fill_rect(const struct client *c, uint32_t *dst, struct rect r, const uint32_t *src,
		      uint32_t colour)
{
	for (int y = r.y; y < r.y + r.h; y++) {
		uint32_t *row = dst + (size_t)y * c->width + r.x;
		if (src) {
			memcpy(row, src + (size_t)y * c->width + r.x, (size_t)r.w * 4);
		} else {
			for (int x = 0; x < r.w; x++)
				row[x] = colour;
		}
	}
}

/* Brings `b` to frame `index`; returns the damage against the previous frame. */
static struct rect draw_desktop(struct client *c, struct buffer *b, long index)
{
	struct rect box = box_at(c, index);
	if (!b->drawn) {
		memcpy(b->pixels, c->background, (size_t)c->width * c->height * 4);
		b->drawn = true;
	} else {
		fill_rect(c, b->pixels, b->box, c->background, 0);
	}
	uint32_t colour = 0xff000000u | (uint32_t)((index * 3) & 0xff) << 16 | 0xc000u | 0x40u;
	fill_rect(c, b->pixels, box, NULL, colour);
	b->box = box;
	struct rect damage = box;
	if (index > 0) {
		struct rect last = c->last_box;
		int x1 = last.x < box.x ? last.x : box.x, y1 = last.y < box.y ? last.y : box.y;
		int x2 = last.x + last.w > box.x + box.w ? last.x + last.w : box.x + box.w;
		int y2 = last.y + last.h > box.y + box.h ? last.y + last.h : box.y + box.h;
		damage = (struct rect){ x1, y1, x2 - x1, y2 - y1 };
	}
	c->last_box = box;
	return damage;
}

static void buffer_release(void *data, struct wl_buffer *wl_buffer)
{
	((struct buffer *)data)->busy = false;
}

static const struct wl_buffer_listener buffer_listener = { .release = buffer_release };

static void create_buffers(struct client *c)
{
	size_t size = (size_t)c->width * c->height * 4;
	int fd = memfd_create("bench-client", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)(size * BUFFERS)) < 0)
		die("cannot create the shm pool");
	uint8_t *data = mmap(NULL, size * BUFFERS, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (data == MAP_FAILED)
		die("cannot map the shm pool");
	struct wl_shm_pool *pool = wl_shm_create_pool(c->shm, fd, (int32_t)(size * BUFFERS));
	for (int i = 0; i < BUFFERS; i++) {
		struct buffer *b = &c->buffers[i];
		b->pixels = (uint32_t *)(data + size * i);
		b->wl_buffer = wl_shm_pool_create_buffer(pool, (int32_t)(size * i), c->width,
							 c->height, c->width * 4,
							 WL_SHM_FORMAT_XRGB8888);
		wl_buffer_add_listener(b->wl_buffer, &buffer_listener, b);
	}
	wl_shm_pool_destroy(pool);
	close(fd);
}

static void frame_done(void *data, struct wl_callback *callback, uint32_t time)
{
	struct client *c = data;
	wl_callback_destroy(callback);
	c->frame_callback = NULL;
	c->frame_due = true;
}

static const struct wl_callback_listener frame_listener = { .done = frame_done };

static bool present_next(struct client *c)
{
	struct buffer *b = NULL;
	for (int i = 0; i < BUFFERS && !b; i++) {
		if (!c->buffers[i].busy)
			b = &c->buffers[i];
	}
	if (!b)
		return false; /* every buffer still held: wait for a release */

	long index = c->frame_index++;
	struct rect damage = { 0, 0, c->width, c->height };
	if (c->workload == WORK_DESKTOP)
		damage = draw_desktop(c, b, index);
	else if (c->workload == WORK_FULL || index == 0)
		draw_full(c, b->pixels, index);

	wl_surface_attach(c->surface, b->wl_buffer, 0, 0);
	wl_surface_damage_buffer(c->surface, damage.x, damage.y, damage.w, damage.h);
	c->frame_callback = wl_surface_frame(c->surface);
	wl_callback_add_listener(c->frame_callback, &frame_listener, c);
	wl_surface_commit(c->surface);
	b->busy = true;
	c->frame_due = false;
	c->commits++;
	return true;
}

static void wm_ping(void *data, struct xdg_wm_base *wm_base, uint32_t serial)
{
	xdg_wm_base_pong(wm_base, serial);
}

static const struct xdg_wm_base_listener wm_base_listener = { .ping = wm_ping };

static void xdg_surface_configure(void *data, struct xdg_surface *surface, uint32_t serial)
{
	struct client *c = data;
	xdg_surface_ack_configure(surface, serial);
	c->configured = true;
}

static const struct xdg_surface_listener xdg_surface_listener = {
	.configure = xdg_surface_configure,
};

static void toplevel_configure(void *data, struct xdg_toplevel *toplevel, int32_t width,
			       int32_t height, struct wl_array *states)
{
	struct client *c = data;
	c->configured_width = width;
	c->configured_height = height;
}

static void toplevel_close(void *data, struct xdg_toplevel *toplevel)
{
	/* Asked as a desktop asks when the recording stops: done. */
	exit(0);
}

static const struct xdg_toplevel_listener toplevel_listener = {
	.configure = toplevel_configure,
	.close = toplevel_close,
};

static void registry_global(void *data, struct wl_registry *registry, uint32_t name,
			    const char *interface, uint32_t version)
{
	struct client *c = data;
	if (strcmp(interface, "wl_compositor") == 0)
		c->compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 4);
	else if (strcmp(interface, "wl_shm") == 0)
		c->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	else if (strcmp(interface, "wl_output") == 0 && !c->output)
		c->output = wl_registry_bind(registry, name, &wl_output_interface, 1);
	else if (strcmp(interface, "zwp_fullscreen_shell_v1") == 0)
		c->fullscreen = wl_registry_bind(registry, name,
						 &zwp_fullscreen_shell_v1_interface, 1);
	else if (strcmp(interface, "xdg_wm_base") == 0) {
		c->wm_base = wl_registry_bind(registry, name, &xdg_wm_base_interface, 1);
		xdg_wm_base_add_listener(c->wm_base, &wm_base_listener, c);
	}
}

static void registry_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_global, .global_remove = registry_global_remove,
};

static void run_raw(struct client *c)
{
	uint32_t *frame = malloc((size_t)c->width * c->height * 4);
	if (!frame)
		die("out of memory");
	long frames = (long)(c->seconds * c->fps);
	struct buffer b = { .pixels = frame };
	for (long i = 0; i < frames; i++) {
		if (c->workload == WORK_DESKTOP)
			draw_desktop(c, &b, i);
		else
			draw_full(c, frame, c->workload == WORK_FULL ? i : 0);
		size_t left = (size_t)c->width * c->height * 4;
		const uint8_t *p = (const uint8_t *)frame;
		while (left) {
			ssize_t n = write(STDOUT_FILENO, p, left);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				die("cannot write to stdout");
			p += n;
			left -= (size_t)n;
		}
		c->commits++;
	}
	free(frame);
}

static void run_wayland(struct client *c)
{
	c->display = wl_display_connect(NULL);
	if (!c->display)
		die("cannot connect to the Wayland display");
	struct wl_registry *registry = wl_display_get_registry(c->display);
	wl_registry_add_listener(registry, &registry_listener, c);
	wl_display_roundtrip(c->display);
	if (!c->compositor || !c->shm)
		die("the compositor lacks wl_compositor or wl_shm");
	c->surface = wl_compositor_create_surface(c->compositor);

	if (c->shell == SHELL_FULLSCREEN) {
		if (!c->fullscreen)
			die("no zwp_fullscreen_shell_v1");
		zwp_fullscreen_shell_v1_present_surface_for_mode(c->fullscreen, c->surface,
								 c->output, 0);
	} else {
		if (!c->wm_base)
			die("no xdg_wm_base");
		c->xdg_surface = xdg_wm_base_get_xdg_surface(c->wm_base, c->surface);
		xdg_surface_add_listener(c->xdg_surface, &xdg_surface_listener, c);
		c->toplevel = xdg_surface_get_toplevel(c->xdg_surface);
		xdg_toplevel_add_listener(c->toplevel, &toplevel_listener, c);
		xdg_toplevel_set_fullscreen(c->toplevel, NULL);
		wl_surface_commit(c->surface);
		while (!c->configured)
			if (wl_display_dispatch(c->display) < 0)
				die("the compositor went away");
		if (c->configured_width != c->width || c->configured_height != c->height)
			fprintf(stderr, "bench-client: configured %dx%d, drawing %dx%d\n",
				c->configured_width, c->configured_height, c->width, c->height);
	}
	create_buffers(c);

	int64_t start = now_ns(), end = start + (int64_t)(c->seconds * 1e9);
	c->frame_due = true;
	while (now_ns() < end) {
		/* A mark requested by SIGUSR1 (see the top of the file). */
		struct signalfd_siginfo info;
		while (c->signal_fd >= 0 && read(c->signal_fd, &info, sizeof(info)) == sizeof(info))
			fprintf(stderr, "mark commits %ld seconds %.3f\n", c->commits,
				(double)(now_ns() - start) / 1e9);
		if (c->frame_due && (c->workload != WORK_IDLE || c->frame_index == 0))
			present_next(c);
		wl_display_flush(c->display);
		struct pollfd pfd[2] = {
			{ .fd = wl_display_get_fd(c->display), .events = POLLIN },
			{ .fd = c->signal_fd, .events = POLLIN }, /* ignored by poll when -1 */
		};
		int left_ms = (int)((end - now_ns()) / 1000000);
		if (left_ms < 1)
			left_ms = 1;
		if (wl_display_prepare_read(c->display) != 0) {
			wl_display_dispatch_pending(c->display);
			continue;
		}
		if (poll(pfd, 2, left_ms) > 0 && (pfd[0].revents & (POLLIN | POLLERR | POLLHUP))) {
			if (wl_display_read_events(c->display) < 0)
				die("the compositor went away");
		} else {
			wl_display_cancel_read(c->display);
		}
		if (wl_display_dispatch_pending(c->display) < 0)
			die("protocol error");
	}
	c->seconds = (double)(now_ns() - start) / 1e9;
	wl_display_disconnect(c->display);
}

int main(int argc, char **argv)
{
	struct client c = { .width = 1920, .height = 1080, .seconds = 10, .fps = 60 };
	static const struct option options[] = {
		{ "shell", required_argument, NULL, 's' },
		{ "size", required_argument, NULL, 'z' },
		{ "workload", required_argument, NULL, 'w' },
		{ "seconds", required_argument, NULL, 't' },
		{ "fps", required_argument, NULL, 'f' },
		{ 0 },
	};
	int opt;
	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (opt) {
		case 's':
			c.shell = strcmp(optarg, "xdg") == 0 ? SHELL_XDG
				  : strcmp(optarg, "raw") == 0 ? SHELL_RAW : SHELL_FULLSCREEN;
			break;
		case 'z':
			if (sscanf(optarg, "%dx%d", &c.width, &c.height) != 2 || c.width <= BOX ||
			    c.height <= BOX)
				die("bad --size");
			break;
		case 'w':
			c.workload = strcmp(optarg, "desktop") == 0 ? WORK_DESKTOP
				     : strcmp(optarg, "idle") == 0 ? WORK_IDLE : WORK_FULL;
			break;
		case 't':
			c.seconds = atof(optarg);
			break;
		case 'f':
			c.fps = atof(optarg);
			break;
		default:
			die("usage: bench-client --shell fullscreen|xdg|raw --size WxH "
			    "--workload full|desktop|idle --seconds S [--fps N]");
		}
	}
	make_content(&c);
	c.signal_fd = -1;
	if (c.shell != SHELL_RAW) {
		sigset_t set;
		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		if (sigprocmask(SIG_BLOCK, &set, NULL) == 0)
			c.signal_fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
		if (c.signal_fd < 0)
			fprintf(stderr, "bench-client: no signalfd, SIGUSR1 marks unavailable\n");
	}
	if (c.shell == SHELL_RAW)
		run_raw(&c);
	else
		run_wayland(&c);
	fprintf(stderr, "commits %ld seconds %.3f fps %.2f\n", c.commits, c.seconds,
		(double)c.commits / c.seconds);
	return 0;
}
