#include "harness.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <png.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Whole-test limit: every wait below is shorter, this catches what is not. */
#define WATCHDOG_SECONDS 100

/* The instance the failure and watchdog paths must kill. */
static struct wlr *live;

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

static void print_log(const struct wlr *w)
{
	FILE *f = fopen(w->log, "r");
	if (!f)
		return;
	fprintf(stderr, "---- wl-record log (%s) ----\n", w->log);
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

void harness_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
	fprintf(stderr, "FAIL %s:%d: ", file, line);
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n  (check: %s)\n", cond);
	if (live) {
		struct wlr *w = live;
		live = NULL;
		if (!w->reaped) {
			kill(w->pid, SIGKILL);
			waitpid(w->pid, NULL, 0);
		}
		print_log(w);
		remove_dir(w->dir);
	}
	exit(1);
}

static void handle_watchdog(int sig)
{
	static const char msg[] = "FAIL: watchdog: the test hung or was told to stop\n";
	ssize_t unused = write(STDERR_FILENO, msg, sizeof(msg) - 1);
	(void)unused;
	if (live && !live->reaped)
		kill(live->pid, SIGKILL);
	_exit(1);
}

/* The test clients abandon protocol objects on purpose (a client that got a
 * protocol error cannot destroy them cleanly): their leaks are not under
 * test. __lsan_disable() exists only in sanitized builds, and unlike default
 * options it holds whatever ASAN_OPTIONS says; wl-record itself runs with
 * the environment's options, leak detection included. */
void __lsan_disable(void) __attribute__((weak));

int harness_main(int argc, char **argv, const struct hostile_case *cases, int count)
{
	if (__lsan_disable)
		__lsan_disable();
	if (argc != 2) {
		fprintf(stderr, "usage: %s CASE\n", argv[0]);
		return 2;
	}
	signal(SIGALRM, handle_watchdog);
	signal(SIGTERM, handle_watchdog);
	signal(SIGINT, handle_watchdog);
	/* wl-record dying under us must show as a failed check, not kill us. */
	signal(SIGPIPE, SIG_IGN);
	alarm(WATCHDOG_SECONDS);
	for (int i = 0; i < count; i++) {
		if (strcmp(cases[i].name, argv[1]) == 0) {
			cases[i].run();
			printf("PASS %s\n", argv[1]);
			return 0;
		}
	}
	fprintf(stderr, "unknown case '%s'\n", argv[1]);
	return 2;
}

/* ---- wl-record ---- */

void wlr_start(struct wlr *w, const char *output_name, const char *const *args)
{
	const char *program = getenv("WL_RECORD");
	REQUIRE(program && *program, "WL_RECORD must name the wl-record executable");

	*w = (struct wlr){ 0 };
	snprintf(w->dir, sizeof(w->dir), "/tmp/wlr-hostile-XXXXXX");
	REQUIRE(mkdtemp(w->dir), "mkdtemp: %s", strerror(errno));
	REQUIRE(chmod(w->dir, 0700) == 0, "chmod: %s", strerror(errno));
	REQUIRE(setenv("XDG_RUNTIME_DIR", w->dir, 1) == 0, "setenv failed");
	unsetenv("WAYLAND_DISPLAY");
	unsetenv("WAYLAND_SERVER_SOCKET");
	snprintf(w->socket, sizeof(w->socket), "hostile-%d", (int)getpid());
	snprintf(w->output, sizeof(w->output), "%s/%s", w->dir, output_name);
	snprintf(w->log, sizeof(w->log), "%s/wl-record.log", w->dir);

	const char *argv[32];
	int n = 0;
	argv[n++] = program;
	argv[n++] = "--socket";
	argv[n++] = w->socket;
	for (int i = 0; args && args[i]; i++) {
		REQUIRE(n < 30, "too many arguments");
		argv[n++] = args[i];
	}
	argv[n++] = w->output;
	argv[n] = NULL;

	fflush(NULL);
	w->pid = fork();
	REQUIRE(w->pid >= 0, "fork: %s", strerror(errno));
	if (w->pid == 0) {
		int fd = open(w->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
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
	live = w;

	fprintf(stderr, "started wl-record (pid %d):", (int)w->pid);
	for (int i = 0; argv[i]; i++)
		fprintf(stderr, " %s", argv[i]);
	fprintf(stderr, "\n");

	/* Ready once a connection succeeds: the socket file exists slightly
	 * before listen() has been called. */
	int64_t deadline = now_ms() + 10000;
	for (;;) {
		wlr_require_alive(w, "starting up");
		struct wl_display *display = wl_display_connect(w->socket);
		if (display) {
			wl_display_disconnect(display);
			return;
		}
		REQUIRE(now_ms() < deadline, "wl-record did not listen on %s/%s within 10 s", w->dir,
			w->socket);
		sleep_ms(10);
	}
}

void wlr_require_alive(struct wlr *w, const char *after)
{
	REQUIRE(!w->reaped, "wl-record is no longer running (%s)", after);
	int status;
	pid_t r = waitpid(w->pid, &status, WNOHANG);
	if (r == w->pid) {
		w->reaped = true;
		w->wait_status = status;
		char text[128];
		describe_status(status, text, sizeof(text));
		REQUIRE(false, "wl-record %s (%s)", text, after);
	}
	REQUIRE(r == 0, "waitpid: %s", strerror(errno));
}

static bool wait_exit(struct wlr *w, int timeout_ms)
{
	if (w->reaped)
		return true;
	int64_t deadline = now_ms() + timeout_ms;
	for (;;) {
		int status;
		pid_t r = waitpid(w->pid, &status, WNOHANG);
		REQUIRE(r >= 0, "waitpid: %s", strerror(errno));
		if (r == w->pid) {
			w->reaped = true;
			w->wait_status = status;
			return true;
		}
		if (now_ms() >= deadline)
			return false;
		sleep_ms(10);
	}
}

void wlr_expect_exit(struct wlr *w, int timeout_ms, int status)
{
	REQUIRE(wait_exit(w, timeout_ms), "wl-record did not exit within %d ms", timeout_ms);
	char text[128];
	describe_status(w->wait_status, text, sizeof(text));
	REQUIRE(WIFEXITED(w->wait_status) && WEXITSTATUS(w->wait_status) == status,
		"wl-record %s; expected exit status %d", text, status);
}

bool wlr_log_contains(const struct wlr *w, const char *text)
{
	FILE *f = fopen(w->log, "r");
	if (!f)
		return false;
	bool found = false;
	char line[1024];
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, text) != NULL;
	fclose(f);
	return found;
}

void wlr_finish(struct wlr *w)
{
	if (!w->reaped) {
		REQUIRE(kill(w->pid, SIGTERM) == 0, "kill: %s", strerror(errno));
		if (!wait_exit(w, 10000)) {
			kill(w->pid, SIGKILL);
			wait_exit(w, 5000);
			REQUIRE(false, "wl-record did not stop within 10 s of SIGTERM");
		}
		char text[128];
		describe_status(w->wait_status, text, sizeof(text));
		REQUIRE(!WIFSIGNALED(w->wait_status), "wl-record %s after SIGTERM", text);
	}
	static const char *const sanitizer_marks[] = {
		"AddressSanitizer", "LeakSanitizer", "runtime error:", "UndefinedBehaviorSanitizer",
	};
	for (size_t i = 0; i < sizeof(sanitizer_marks) / sizeof(sanitizer_marks[0]); i++)
		REQUIRE(!wlr_log_contains(w, sanitizer_marks[i]), "sanitizer report in wl-record's log");
	print_log(w);
	live = NULL;
	remove_dir(w->dir);
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
	struct client *c = data;
	if (format == WL_SHM_FORMAT_XRGB8888)
		c->has_xrgb8888 = true;
}

static const struct wl_shm_listener shm_listener = { .format = shm_format };

static void registry_global(void *data, struct wl_registry *registry, uint32_t name,
			    const char *interface, uint32_t version)
{
	struct client *c = data;
	if (strcmp(interface, wl_compositor_interface.name) == 0) {
		REQUIRE(version >= 4, "wl_compositor v%u has no damage_buffer", version);
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

struct client *client_connect(const struct wlr *w)
{
	struct client *c = calloc(1, sizeof(*c));
	REQUIRE(c, "out of memory");
	int64_t deadline = now_ms() + 10000;
	while (!(c->display = wl_display_connect(w->socket))) {
		REQUIRE(now_ms() < deadline, "cannot connect to %s: %s", w->socket, strerror(errno));
		sleep_ms(10);
	}
	c->registry = wl_display_get_registry(c->display);
	wl_registry_add_listener(c->registry, &registry_listener, c);
	REQUIRE(client_roundtrip(c, 5000) == 0, "registry roundtrip failed");
	REQUIRE(client_roundtrip(c, 5000) == 0, "format roundtrip failed");
	REQUIRE(c->compositor && c->shm && c->shell && c->output,
		"wl_compositor, wl_shm, wl_output or the shell is missing");
	REQUIRE(c->has_xrgb8888, "wl_shm did not announce XRGB8888");
	return c;
}

void client_disconnect(struct client *c)
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

int client_roundtrip(struct client *c, int timeout_ms)
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

void client_expect_no_error(struct client *c)
{
	int r = client_roundtrip(c, 5000);
	if (r == -1) {
		const struct wl_interface *iface = NULL;
		uint32_t id = 0;
		int err = wl_display_get_error(c->display);
		uint32_t code = err == EPROTO ? wl_display_get_protocol_error(c->display, &iface, &id)
					      : 0;
		REQUIRE(false, "unexpected connection error %d (%s): %s@%u code %u; %s", err,
			strerror(err), iface ? iface->name : "?", id, code, server_state());
	}
	REQUIRE(r == 0, "roundtrip timed out: wl-record did not answer within 5 s");
}

void client_expect_protocol_error(struct client *c, void *object, const struct wl_interface *iface,
				  uint32_t code)
{
	uint32_t expected_id = wl_proxy_get_id(object);
	int r = client_roundtrip(c, 5000);
	REQUIRE(r != -2, "no answer within 5 s; expected %s@%u error %u", iface->name, expected_id,
		code);
	REQUIRE(r == -1, "the request was accepted; expected %s@%u error %u", iface->name,
		expected_id, code);
	int err = wl_display_get_error(c->display);
	REQUIRE(err == EPROTO, "connection error %d (%s), not a protocol error; expected %s "
		"error %u; %s", err, strerror(err), iface->name, code, server_state());
	const struct wl_interface *got_iface = NULL;
	uint32_t got_id = 0;
	uint32_t got_code = wl_display_get_protocol_error(c->display, &got_iface, &got_id);
	const char *got_name = got_iface ? got_iface->name : "(none)";
	fprintf(stderr, "got protocol error: %s@%u code %u\n", got_name, got_id, got_code);
	REQUIRE(got_iface && strcmp(got_name, iface->name) == 0 && got_id == expected_id &&
		got_code == code, "protocol error %s@%u code %u; expected %s@%u code %u", got_name,
		got_id, got_code, iface->name, expected_id, code);
}

int make_memfd(size_t size)
{
	int fd = memfd_create("wlr-hostile", MFD_CLOEXEC);
	REQUIRE(fd >= 0, "memfd_create: %s", strerror(errno));
	REQUIRE(ftruncate(fd, (off_t)size) == 0, "ftruncate: %s", strerror(errno));
	return fd;
}

struct wl_buffer *client_color_buffer(struct client *c, int width, int height, uint32_t xrgb)
{
	size_t stride = (size_t)width * 4, size = stride * (size_t)height;
	int fd = make_memfd(size);
	uint32_t *pixels = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	REQUIRE(pixels != MAP_FAILED, "mmap: %s", strerror(errno));
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

struct wl_surface *client_present_color(struct client *c, int width, int height, uint32_t xrgb)
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

void prove_screenshot_serves(struct wlr *w, int width, int height, uint32_t xrgb)
{
	wlr_require_alive(w, "before the well-behaved client");
	struct client *good = client_connect(w);
	client_present_color(good, width, height, xrgb);
	wlr_expect_exit(w, 20000, 0);
	client_disconnect(good);
	check_png_uniform(w->output, width, height, xrgb);
}

void check_png_uniform(const char *path, int width, int height, uint32_t xrgb)
{
	png_image image = { .version = PNG_IMAGE_VERSION };
	REQUIRE(png_image_begin_read_from_file(&image, path), "cannot read %s: %s", path,
		image.message);
	image.format = PNG_FORMAT_RGB;
	REQUIRE((int)image.width == width && (int)image.height == height,
		"%s is %ux%u, expected %dx%d", path, image.width, image.height, width, height);
	size_t size = PNG_IMAGE_SIZE(image);
	uint8_t *rgb = malloc(size);
	REQUIRE(rgb, "out of memory");
	REQUIRE(png_image_finish_read(&image, NULL, rgb, 0, NULL), "cannot decode %s: %s", path,
		image.message);
	uint8_t r = (uint8_t)(xrgb >> 16), g = (uint8_t)(xrgb >> 8), b = (uint8_t)xrgb;
	for (size_t i = 0; i < size; i += 3) {
		if (rgb[i] != r || rgb[i + 1] != g || rgb[i + 2] != b) {
			size_t px = i / 3;
			uint8_t got[3] = { rgb[i], rgb[i + 1], rgb[i + 2] };
			free(rgb);
			REQUIRE(false, "%s pixel (%zu,%zu) is %02x%02x%02x, expected %06x", path,
				px % (size_t)width, px / (size_t)width, got[0], got[1], got[2],
				xrgb & 0xffffff);
		}
	}
	free(rgb);
}

void check_recording(const char *path, int width, int height, int min_frames)
{
	char command[512];
	snprintf(command, sizeof(command),
		 "ffprobe -v error -count_frames -select_streams v:0 -show_entries "
		 "stream=width,height,nb_read_frames -of default=noprint_wrappers=1 '%s'", path);
	FILE *p = popen(command, "r");
	REQUIRE(p, "popen ffprobe: %s", strerror(errno));
	int got_w = -1, got_h = -1, frames = -1;
	char line[256];
	while (fgets(line, sizeof(line), p)) {
		fprintf(stderr, "ffprobe: %s", line);
		sscanf(line, "width=%d", &got_w);
		sscanf(line, "height=%d", &got_h);
		sscanf(line, "nb_read_frames=%d", &frames);
	}
	int status = pclose(p);
	REQUIRE(status == 0, "ffprobe failed on %s (status 0x%x)", path, status);
	REQUIRE(got_w == width && got_h == height, "%s is %dx%d, expected %dx%d", path, got_w, got_h,
		width, height);
	REQUIRE(frames >= min_frames, "%s decodes to %d frames, expected at least %d", path, frames,
		min_frames);
}


