#include "harness.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <png.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The instance the failure and watchdog paths must kill. */
static struct recorder_process *live;

int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
	nanosleep(&ts, NULL);
}

static void print_log(const struct recorder_process *rec)
{
	FILE *f = fopen(rec->log, "r");
	if (!f)
		return;
	fprintf(stderr, "---- wl-record log (%s) ----\n", rec->log);
	char line[1024];
	while (fgets(line, sizeof(line), f))
		fputs(line, stderr);
	fprintf(stderr, "---- end of wl-record log ----\n");
	fclose(f);
}

static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *entry;
	while ((entry = readdir(d))) {
		if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
			continue;
		char path[512];
		snprintf(path, sizeof(path), "%s/%s", dir, entry->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

static void describe_status(int status, char *out, size_t size)
{
	if (WIFSIGNALED(status))
		snprintf(out, size, "killed by signal %d (%s)%s", WTERMSIG(status),
			 strsignal(WTERMSIG(status)), WCOREDUMP(status) ? ", core dumped" : "");
	else if (WIFEXITED(status))
		snprintf(out, size, "exited with status %d", WEXITSTATUS(status));
	else
		snprintf(out, size, "wait status 0x%x", status);
}

/* A failed check: kill and reap wl-record, show its log, remove its folder. */
static void stop_on_failure(void)
{
	if (!live)
		return;
	struct recorder_process *rec = live;
	live = NULL;
	if (!rec->reaped) {
		kill(rec->pid, SIGKILL);
		waitpid(rec->pid, NULL, 0);
	}
	print_log(rec);
	remove_dir(rec->dir);
}

/* From the watchdog's signal handler: only what is async-signal-safe. */
static void stop_on_watchdog(void)
{
	if (live && !live->reaped)
		kill(live->pid, SIGKILL);
}

/* The test clients abandon protocol objects on purpose (a client that got a
 * protocol error cannot destroy them cleanly): their leaks are not under
 * test. __lsan_disable() exists only in sanitized builds, and unlike default
 * options it holds whatever ASAN_OPTIONS says; wl-record itself runs with
 * the environment's options, leak detection included. */
void __lsan_disable(void) __attribute__((weak));

__attribute__((constructor)) static void hostile_setup(void)
{
	if (__lsan_disable)
		__lsan_disable();
	test_set_hooks(stop_on_failure, stop_on_watchdog);
}

/* ---- wl-record ---- */

void recorder_start(struct recorder_process *rec, const char *output_name,
		    const char *const *args)
{
	const char *program = getenv("WL_RECORD");
	test_assert(program && *program, "WL_RECORD must name the wl-record executable");

	*rec = (struct recorder_process){ 0 };
	snprintf(rec->dir, sizeof(rec->dir), "/tmp/wl-record-hostile-XXXXXX");
	test_assert(mkdtemp(rec->dir), "mkdtemp: %s", strerror(errno));
	test_assert(chmod(rec->dir, 0700) == 0, "chmod: %s", strerror(errno));
	test_assert(setenv("XDG_RUNTIME_DIR", rec->dir, 1) == 0, "setenv failed");
	unsetenv("WAYLAND_DISPLAY");
	unsetenv("WAYLAND_SERVER_SOCKET");
	snprintf(rec->socket, sizeof(rec->socket), "hostile-%d", (int)getpid());
	snprintf(rec->output, sizeof(rec->output), "%s/%s", rec->dir, output_name);
	snprintf(rec->log, sizeof(rec->log), "%s/wl-record.log", rec->dir);

	const char *argv[32];
	int n = 0;
	argv[n++] = program;
	argv[n++] = "--socket";
	argv[n++] = rec->socket;
	for (int i = 0; args && args[i]; i++) {
		test_assert(n < 30, "too many arguments");
		argv[n++] = args[i];
	}
	argv[n++] = rec->output;
	argv[n] = NULL;

	fflush(NULL);
	rec->pid = fork();
	test_assert(rec->pid >= 0, "fork: %s", strerror(errno));
	if (rec->pid == 0) {
		int fd = open(rec->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0)
			_exit(127);
		signal(SIGALRM, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		alarm(0);
		execv(program, (char *const *)argv);
		_exit(127);
	}
	live = rec;

	fprintf(stderr, "started wl-record (pid %d):", (int)rec->pid);
	for (int i = 0; argv[i]; i++)
		fprintf(stderr, " %s", argv[i]);
	fprintf(stderr, "\n");

	/* Ready once a connection succeeds: the socket file exists slightly
	 * before listen() has been called. */
	int64_t deadline = now_ms() + 10000;
	for (;;) {
		recorder_require_alive(rec, "starting up");
		struct wl_display *display = wl_display_connect(rec->socket);
		if (display) {
			wl_display_disconnect(display);
			return;
		}
		test_assert(now_ms() < deadline, "wl-record did not listen on %s/%s within 10 s", rec->dir,
			rec->socket);
		sleep_ms(10);
	}
}

void recorder_require_alive(struct recorder_process *rec, const char *after)
{
	test_assert(!rec->reaped, "wl-record is no longer running (%s)", after);
	int status;
	pid_t r = waitpid(rec->pid, &status, WNOHANG);
	if (r == rec->pid) {
		rec->reaped = true;
		rec->wait_status = status;
		char text[128];
		describe_status(status, text, sizeof(text));
		test_assert(false, "wl-record %s (%s)", text, after);
	}
	test_assert(r == 0, "waitpid: %s", strerror(errno));
}

static bool wait_exit(struct recorder_process *rec, int timeout_ms)
{
	if (rec->reaped)
		return true;
	int64_t deadline = now_ms() + timeout_ms;
	for (;;) {
		int status;
		pid_t r = waitpid(rec->pid, &status, WNOHANG);
		test_assert(r >= 0, "waitpid: %s", strerror(errno));
		if (r == rec->pid) {
			rec->reaped = true;
			rec->wait_status = status;
			return true;
		}
		if (now_ms() >= deadline)
			return false;
		sleep_ms(10);
	}
}

void recorder_expect_exit(struct recorder_process *rec, int timeout_ms, int status)
{
	test_assert(wait_exit(rec, timeout_ms), "wl-record did not exit within %d ms", timeout_ms);
	char text[128];
	describe_status(rec->wait_status, text, sizeof(text));
	test_assert(WIFEXITED(rec->wait_status) && WEXITSTATUS(rec->wait_status) == status,
		"wl-record %s; expected exit status %d", text, status);
}

bool recorder_log_contains(const struct recorder_process *rec, const char *text)
{
	FILE *f = fopen(rec->log, "r");
	if (!f)
		return false;
	bool found = false;
	char line[1024];
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, text) != NULL;
	fclose(f);
	return found;
}

void recorder_finish(struct recorder_process *rec)
{
	if (!rec->reaped) {
		test_assert(kill(rec->pid, SIGTERM) == 0, "kill: %s", strerror(errno));
		if (!wait_exit(rec, 10000)) {
			kill(rec->pid, SIGKILL);
			wait_exit(rec, 5000);
			test_assert(false, "wl-record did not stop within 10 s of SIGTERM");
		}
		char text[128];
		describe_status(rec->wait_status, text, sizeof(text));
		test_assert(!WIFSIGNALED(rec->wait_status), "wl-record %s after SIGTERM", text);
	}
	static const char *const sanitizer_marks[] = {
		"AddressSanitizer", "LeakSanitizer", "runtime error:", "UndefinedBehaviorSanitizer",
	};
	for (size_t i = 0; i < sizeof(sanitizer_marks) / sizeof(sanitizer_marks[0]); i++)
		test_assert(!recorder_log_contains(rec, sanitizer_marks[i]), "sanitizer report in wl-record's log");
	print_log(rec);
	live = NULL;
	remove_dir(rec->dir);
}

/* ---- clients ---- */

/* When a connection breaks, says whether wl-record died (waiting up to 1 s
 * for the exit to show): "killed by signal 7 (Bus error)" is the diagnosis a
 * broken pipe alone hides. */
static const char *server_state(void)
{
	static char text[160];
	if (!live)
		return "no wl-record";
	if (!live->reaped && !wait_exit(live, 1000))
		return "wl-record still running";
	char status[128];
	describe_status(live->wait_status, status, sizeof(status));
	snprintf(text, sizeof(text), "wl-record %s", status);
	return text;
}

static void shm_format(void *data, struct wl_shm *shm, uint32_t format)
{
	struct hostile_client *c = data;
	if (format == WL_SHM_FORMAT_XRGB8888)
		c->has_xrgb8888 = true;
}

static const struct wl_shm_listener shm_listener = { .format = shm_format };

static void registry_global(void *data, struct wl_registry *registry, uint32_t name,
			    const char *interface, uint32_t version)
{
	struct hostile_client *c = data;
	if (strcmp(interface, wl_compositor_interface.name) == 0) {
		test_assert(version >= 4, "wl_compositor v%u has no damage_buffer", version);
		c->compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 4);
	} else if (strcmp(interface, wl_shm_interface.name) == 0) {
		c->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
		wl_shm_add_listener(c->shm, &shm_listener, c);
	} else if (strcmp(interface, zwp_fullscreen_shell_v1_interface.name) == 0) {
		c->shell_name = name;
		c->shell = wl_registry_bind(registry, name, &zwp_fullscreen_shell_v1_interface, 1);
	} else if (strcmp(interface, wl_output_interface.name) == 0 && !c->output) {
		c->output = wl_registry_bind(registry, name, &wl_output_interface, 1);
	}
}

static void registry_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_global,
	.global_remove = registry_global_remove,
};

struct hostile_client *client_connect(const struct recorder_process *rec)
{
	struct hostile_client *c = calloc(1, sizeof(*c));
	test_assert(c, "out of memory");
	int64_t deadline = now_ms() + 10000;
	while (!(c->display = wl_display_connect(rec->socket))) {
		test_assert(now_ms() < deadline, "cannot connect to %s: %s", rec->socket, strerror(errno));
		sleep_ms(10);
	}
	c->registry = wl_display_get_registry(c->display);
	wl_registry_add_listener(c->registry, &registry_listener, c);
	test_assert(client_roundtrip(c, 5000) == 0, "registry roundtrip failed");
	test_assert(client_roundtrip(c, 5000) == 0, "format roundtrip failed");
	test_assert(c->compositor && c->shm && c->shell && c->output,
		"wl_compositor, wl_shm, wl_output or the shell is missing");
	test_assert(c->has_xrgb8888, "wl_shm did not announce XRGB8888");
	return c;
}

void client_disconnect(struct hostile_client *c)
{
	if (!c)
		return;
	/* Proxies go with the display: the server frees their resources when
	 * the connection closes. */
	wl_display_disconnect(c->display);
	free(c);
}

static void sync_done(void *data, struct wl_callback *callback, uint32_t serial)
{
	*(bool *)data = true;
}

static const struct wl_callback_listener sync_listener = { .done = sync_done };

int client_roundtrip(struct hostile_client *c, int timeout_ms)
{
	struct wl_display *d = c->display;
	if (wl_display_get_error(d))
		return -1;
	bool done = false;
	struct wl_callback *callback = wl_display_sync(d);
	wl_callback_add_listener(callback, &sync_listener, &done);
	int64_t deadline = now_ms() + timeout_ms;
	int ret = 0;
	while (!done) {
		while (wl_display_prepare_read(d) != 0) {
			if (wl_display_dispatch_pending(d) < 0) {
				ret = -1;
				goto out;
			}
		}
		if (done) {
			wl_display_cancel_read(d);
			break;
		}
		/* Flush everything, waiting for room when the socket is full. */
		while (wl_display_flush(d) < 0) {
			if (errno != EAGAIN) {
				wl_display_cancel_read(d);
				ret = -1;
				goto out;
			}
			struct pollfd out = { wl_display_get_fd(d), POLLOUT, 0 };
			int64_t left = deadline - now_ms();
			if (left <= 0 || poll(&out, 1, (int)left) < 0) {
				wl_display_cancel_read(d);
				ret = -2;
				goto out;
			}
		}
		struct pollfd in = { wl_display_get_fd(d), POLLIN, 0 };
		int64_t left = deadline - now_ms();
		int r = left > 0 ? poll(&in, 1, (int)left) : 0;
		if (r <= 0) {
			wl_display_cancel_read(d);
			if (r < 0 && errno == EINTR)
				continue;
			ret = -2;
			goto out;
		}
		if (wl_display_read_events(d) < 0 || wl_display_dispatch_pending(d) < 0) {
			ret = -1;
			goto out;
		}
	}
out:
	if (wl_display_get_error(d))
		ret = -1;
	/* The callback belongs to the display either way; destroying it is
	 * local and safe after an error too. */
	wl_callback_destroy(callback);
	return ret;
}

void client_expect_no_error(struct hostile_client *c)
{
	int r = client_roundtrip(c, 5000);
	if (r == -1) {
		const struct wl_interface *iface = NULL;
		uint32_t id = 0;
		int err = wl_display_get_error(c->display);
		uint32_t code = err == EPROTO ? wl_display_get_protocol_error(c->display, &iface, &id)
					      : 0;
		test_assert(false, "unexpected connection error %d (%s): %s@%u code %u; %s", err,
			strerror(err), iface ? iface->name : "?", id, code, server_state());
	}
	test_assert(r == 0, "roundtrip timed out: wl-record did not answer within 5 s");
}

struct test_roundtrip hostile_roundtrip_for_error(struct hostile_client *c)
{
	return (struct test_roundtrip){
		.display = c->display,
		.result = client_roundtrip(c, 5000),
		.describe_server = server_state,
	};
}

int make_memfd(size_t size)
{
	int fd = memfd_create("wl-record-hostile", MFD_CLOEXEC);
	test_assert(fd >= 0, "memfd_create: %s", strerror(errno));
	test_assert(ftruncate(fd, (off_t)size) == 0, "ftruncate: %s", strerror(errno));
	return fd;
}

struct wl_buffer *client_color_buffer(struct hostile_client *c, int width, int height, uint32_t xrgb)
{
	size_t stride = (size_t)width * 4, size = stride * (size_t)height;
	int fd = make_memfd(size);
	uint32_t *pixels = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	test_assert(pixels != MAP_FAILED, "mmap: %s", strerror(errno));
	for (size_t i = 0; i < size / 4; i++)
		pixels[i] = xrgb;
	munmap(pixels, size);
	struct wl_shm_pool *pool = wl_shm_create_pool(c->shm, fd, (int32_t)size);
	struct wl_buffer *buffer = wl_shm_pool_create_buffer(pool, 0, width, height, (int32_t)stride,
							     WL_SHM_FORMAT_XRGB8888);
	wl_shm_pool_destroy(pool);
	close(fd);
	return buffer;
}

struct wl_surface *client_present_color(struct hostile_client *c, int width, int height, uint32_t xrgb)
{
	struct wl_surface *surface = wl_compositor_create_surface(c->compositor);
	zwp_fullscreen_shell_v1_present_surface(c->shell, surface,
						ZWP_FULLSCREEN_SHELL_V1_PRESENT_METHOD_DEFAULT, NULL);
	wl_surface_attach(surface, client_color_buffer(c, width, height, xrgb), 0, 0);
	wl_surface_damage(surface, 0, 0, width, height);
	wl_surface_commit(surface);
	client_expect_no_error(c);
	return surface;
}

/* ---- proofs ---- */

void prove_screenshot_serves(struct recorder_process *rec, int width, int height, uint32_t xrgb)
{
	recorder_require_alive(rec, "before the well-behaved client");
	struct hostile_client *good = client_connect(rec);
	client_present_color(good, width, height, xrgb);
	recorder_expect_exit(rec, 20000, 0);
	client_disconnect(good);
	check_png_uniform(rec->output, width, height, xrgb);
}

void check_png_uniform(const char *path, int width, int height, uint32_t xrgb)
{
	png_image image = { .version = PNG_IMAGE_VERSION };
	test_assert(png_image_begin_read_from_file(&image, path), "cannot read %s: %s", path,
		image.message);
	image.format = PNG_FORMAT_RGB;
	test_assert((int)image.width == width && (int)image.height == height,
		"%s is %ux%u, expected %dx%d", path, image.width, image.height, width, height);
	size_t size = PNG_IMAGE_SIZE(image);
	uint8_t *rgb = malloc(size);
	test_assert(rgb, "out of memory");
	test_assert(png_image_finish_read(&image, NULL, rgb, 0, NULL), "cannot decode %s: %s", path,
		image.message);
	uint8_t r = (uint8_t)(xrgb >> 16), g = (uint8_t)(xrgb >> 8), b = (uint8_t)xrgb;
	for (size_t i = 0; i < size; i += 3) {
		if (rgb[i] != r || rgb[i + 1] != g || rgb[i + 2] != b) {
			size_t px = i / 3;
			uint8_t got[3] = { rgb[i], rgb[i + 1], rgb[i + 2] };
			free(rgb);
			test_assert(false, "%s pixel (%zu,%zu) is %02x%02x%02x, expected %06x", path,
				px % (size_t)width, px / (size_t)width, got[0], got[1], got[2],
				xrgb & 0xffffff);
		}
	}
	free(rgb);
}

void check_recording(const char *path, int width, int height, int min_frames)
{
	/* Everything before was checked; only the reader is missing. */
	if (system("command -v ffprobe >/dev/null 2>&1") != 0)
		test_skip("ffprobe is not installed: %s cannot be decoded", path);
	char command[512];
	snprintf(command, sizeof(command),
		 "ffprobe -v error -count_frames -select_streams v:0 -show_entries "
		 "stream=width,height,nb_read_frames -of default=noprint_wrappers=1 '%s'", path);
	FILE *p = popen(command, "r");
	test_assert(p, "popen ffprobe: %s", strerror(errno));
	int got_w = -1, got_h = -1, frames = -1;
	char line[256];
	while (fgets(line, sizeof(line), p)) {
		fprintf(stderr, "ffprobe: %s", line);
		sscanf(line, "width=%d", &got_w);
		sscanf(line, "height=%d", &got_h);
		sscanf(line, "nb_read_frames=%d", &frames);
	}
	int status = pclose(p);
	test_assert(status == 0, "ffprobe failed on %s (status 0x%x)", path, status);
	test_assert(got_w == width && got_h == height, "%s is %dx%d, expected %dx%d", path, got_w, got_h,
		width, height);
	test_assert(frames >= min_frames, "%s decodes to %d frames, expected at least %d", path, frames,
		min_frames);
}


