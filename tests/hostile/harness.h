#ifndef WL_RECORD_HOSTILE_HARNESS_H
#define WL_RECORD_HOSTILE_HARNESS_H

/* Hostile-client tests: each test starts its own wl-record on a private
 * socket, misbehaves towards it as a client, checks the exact protocol error
 * it got, then proves wl-record is still alive and serving.
 *
 * Cases are TEST()s of tests/common/test-runner.h. Every check that fails
 * prints why, shows wl-record's log, kills and reaps wl-record and exits 1:
 * a case stops at its first failure. Every wait has a time limit, and the
 * runner's watchdog ends the case (killing wl-record) if something hangs. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <wayland-client.h>

#include "fullscreen-shell-unstable-v1-client-protocol.h"
#include "test-protocol.h"
#include "test-runner.h"

/* ---- the wl-record under test: a process of its own ---- */

struct recorder_process {
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
void recorder_start(struct recorder_process *rec, const char *output_name,
		    const char *const *args);
/* Fails the test unless wl-record is still running. */
void recorder_require_alive(struct recorder_process *rec, const char *after);
/* Waits at most timeout_ms for wl-record to exit by itself; fails the test if
 * it does not, if a signal killed it, or if its status is not `status`. */
void recorder_expect_exit(struct recorder_process *rec, int timeout_ms, int status);
/* Stops wl-record (SIGTERM, 10 s, then SIGKILL and failure) if it still runs,
 * fails on sanitizer reports in its log, removes its directory. */
void recorder_finish(struct recorder_process *rec);
bool recorder_log_contains(const struct recorder_process *rec, const char *text);

/* ---- clients ---- */

struct hostile_client {
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
struct hostile_client *client_connect(const struct recorder_process *rec);
void client_disconnect(struct hostile_client *c);

/* wl_display_roundtrip with a time limit: 0 done, -1 the connection failed
 * (protocol error or hang-up), -2 timed out. */
int client_roundtrip(struct hostile_client *c, int timeout_ms);
/* A roundtrip (5 s) must complete with no error. */
void client_expect_no_error(struct hostile_client *c);
/* A roundtrip (5 s) for expect_protocol_error() (test-protocol.h). */
struct test_roundtrip hostile_roundtrip_for_error(struct hostile_client *c);

/* An anonymous file of `size` bytes (memfd, no seals so it can shrink). */
int make_memfd(size_t size);
/* A w x h XRGB8888 buffer filled with `xrgb`, in a pool of its own. */
struct wl_buffer *client_color_buffer(struct hostile_client *c, int width, int height, uint32_t xrgb);
/* A new surface presented with method DEFAULT, showing a w x h frame of
 * `xrgb`; checks with a roundtrip that no error came. */
struct wl_surface *client_present_color(struct hostile_client *c, int width, int height, uint32_t xrgb);

/* ---- proofs that wl-record still serves ---- */

/* wl-record runs in screenshot mode with --size WxH: a new, well-behaved
 * client presents a WxH frame of `xrgb`; wl-record must exit 0 within 20 s
 * and its PNG must be that colour everywhere. */
void prove_screenshot_serves(struct recorder_process *rec, int width, int height, uint32_t xrgb);
/* The PNG at `path` must be width x height and every pixel `xrgb`. */
void check_png_uniform(const char *path, int width, int height, uint32_t xrgb);
/* The recording must decode with ffprobe: width x height, >= min_frames frames. */
void check_recording(const char *path, int width, int height, int min_frames);

int64_t now_ms(void);

#endif
