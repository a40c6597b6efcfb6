#ifndef WL_RECORD_TEST_INPROC_H
#define WL_RECORD_TEST_INPROC_H

/* wl-record's compositor and a client in one process, joined by a
 * socketpair: requests go through the real protocol code on both sides, and
 * the test sees every frame the screen emits. */

#include <stdbool.h>
#include <stdint.h>
#include <wayland-client.h>

#include "fullscreen-shell-unstable-v1-client-protocol.h"
#include "server.h"
#include "test-protocol.h"
#include "test-runner.h"

struct inproc {
	struct server *server;
	struct wl_display *display;
	struct wl_registry *registry;
	struct wl_compositor *compositor;
	uint32_t compositor_version;
	struct wl_shm *shm;
	uint32_t shm_formats; /* bit per format below 32 */
	struct wl_output *output;
	uint32_t output_version;
	int mode_width, mode_height, mode_refresh;
	struct zwp_fullscreen_shell_v1 *shell;
	uint32_t shell_capabilities;

	struct wl_surface *surface; /* a test's surface, destroyed by inproc_finish */

	struct wl_listener frame_listener;
	int frames;                /* frames the screen emitted */
	int frame_width, frame_height;
	uint32_t *frame;           /* copy of the last one, tightly packed */
};

struct test_buffer {
	struct wl_buffer *buffer;
	uint32_t *pixels;
	int width, height, stride;
	size_t size;
	int fd;
	bool released;
};

void inproc_init(struct inproc *t, int width, int height);
void inproc_finish(struct inproc *t);

/* Lets both sides run until the server answered everything sent so far.
 * Returns false when the client got a protocol error. */
bool inproc_roundtrip(struct inproc *t);

/* Runs both sides for about `ms` milliseconds (timers fire). */
void inproc_run_for(struct inproc *t, int ms);

void test_buffer_init(struct inproc *t, struct test_buffer *b, int width, int height,
		      uint32_t format);
void test_buffer_fill(struct test_buffer *b, uint32_t (*pixel)(int x, int y));
void test_buffer_finish(struct test_buffer *b);

/* Pixel of the last frame, X byte masked off. */
uint32_t inproc_frame_pixel(const struct inproc *t, int x, int y);

/* The interface and code of the protocol error the client got; false if
 * none. New tests use expect_protocol_error() (test-protocol.h). */
bool inproc_protocol_error(struct inproc *t, const char **interface, uint32_t *code);

/* The pixel at (x, y) of the last frame must be `expected` (X byte ignored). */
#define test_assert_pixel(t, x, y, expected)                                               \
	do {                                                                               \
		uint32_t got_ = inproc_frame_pixel((t), (x), (y));                         \
		test_assert(got_ == ((expected) & 0xffffff), "pixel (%d,%d) is %06x, expected %06x", \
			    (x), (y), got_, (unsigned)((expected) & 0xffffff));            \
	} while (0)

#endif
