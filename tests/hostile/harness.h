#ifndef WL_RECORD_HOSTILE_HARNESS_H
#define WL_RECORD_HOSTILE_HARNESS_H

/* Hostile-client tests: each test starts its own wl-record on a private
 * socket, misbehaves towards it as a client, checks the exact protocol error
 * it got, then proves wl-record is still alive and serving.
 *
 * Every check that fails prints why, shows wl-record's log, kills and reaps
 * wl-record and exits 1: a test stops at its first failure. Every wait has a
 * time limit, and a watchdog ends the whole test if something hangs. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <wayland-client.h>

#include "fullscreen-shell-unstable-v1-client-protocol.h"

#define REQUIRE(cond, ...)                                                                 \
	do {                                                                               \
		if (!(cond))                                                               \
			harness_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);              \
	} while (0)

_Noreturn void harness_fail(const char *file, int line, const char *cond, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* One case of an executable: argv[1] names it. */
struct hostile_case {
	const char *name;
	void (*run)(void);
};

/* Runs the case argv[1] names, under a watchdog; returns the exit status. */
int harness_main(int argc, char **argv, const struct hostile_case *cases, int count);

/* ---- the wl-record under test ---- */

struct wlr {
	pid_t pid;
	bool reaped;
	int wait_status;
	char dir[64];      /* private XDG_RUNTIME_DIR, mode 0700 */
	char socket[32];
	char output[128];
	char log[128];     /* wl-record's stdout and stderr */
};

/* Starts $WL_RECORD --socket NAME ARGS... DIR/OUTPUT_NAME (args NULL-terminated)
 * and waits (10 s at most) until a client can connect. */
void wlr_start(struct wlr *w, const char *output_name, const char *const *args);
/* Fails the test unless wl-record is still running. */
void wlr_require_alive(struct wlr *w, const char *after);
/* Waits at most timeout_ms for wl-record to exit by itself; fails the test if
 * it does not, if a signal killed it, or if its status is not `status`. */
void wlr_expect_exit(struct wlr *w, int timeout_ms, int status);
/* Stops wl-record (SIGTERM, 10 s, then SIGKILL and failure) if it still runs,
 * fails on sanitizer reports in its log, removes its directory. */
void wlr_finish(struct wlr *w);
bool wlr_log_contains(const struct wlr *w, const char *text);

/* ---- clients ---- */

struct client {
	struct wl_display *display;
	struct wl_registry *registry;
	struct wl_compositor *compositor;
	struct wl_shm *shm;
	struct zwp_fullscreen_shell_v1 *shell;
	struct wl_output *output;
	uint32_t shell_name;
	bool has_xrgb8888;
};

/* Connects (retrying for 10 s at most), binds the globals, checks they exist. */
struct client *client_connect(const struct wlr *w);
void client_disconnect(struct client *c);

/* wl_display_roundtrip with a time limit: 0 done, -1 the connection failed
 * (protocol error or hang-up), -2 timed out. */
int client_roundtrip(struct client *c, int timeout_ms);
/* A roundtrip (5 s) must complete with no error. */
void client_expect_no_error(struct client *c);
/* The connection must fail with EPROTO, the error posted on `object` (whose
 * id and interface name are compared) with exactly `code`. */
void client_expect_protocol_error(struct client *c, void *object, const struct wl_interface *iface,
				  uint32_t code);

/* An anonymous file of `size` bytes (memfd, no seals so it can shrink). */
int make_memfd(size_t size);
/* A w x h XRGB8888 buffer filled with `xrgb`, in a pool of its own. */
struct wl_buffer *client_color_buffer(struct client *c, int width, int height, uint32_t xrgb);
/* A new surface presented with method DEFAULT, showing a w x h frame of
 * `xrgb`; checks with a roundtrip that no error came. */
struct wl_surface *client_present_color(struct client *c, int width, int height, uint32_t xrgb);

/* ---- proofs that wl-record still serves ---- */

/* wl-record runs in screenshot mode with --size WxH: a new, well-behaved
 * client presents a WxH frame of `xrgb`; wl-record must exit 0 within 20 s
 * and its PNG must be that colour everywhere. */
void prove_screenshot_serves(struct wlr *w, int width, int height, uint32_t xrgb);
/* The PNG at `path` must be width x height and every pixel `xrgb`. */
void check_png_uniform(const char *path, int width, int height, uint32_t xrgb);
/* The recording must decode with ffprobe: width x height, >= min_frames frames. */
void check_recording(const char *path, int width, int height, int min_frames);

int64_t now_ms(void);

#endif
