/* A client floods wl-record with commits while it records: another client's
 * roundtrip must still come back within 1 s each time, and the recording
 * must end properly when the flooder leaves. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

#define SIDE 64
#define COMMITS 5000
#define BURST 100                /* commits sent back to back */
#define BURST_PERIOD_MS 40       /* 50 bursts: about 2 s */
#define PROBE_LIMIT_MS 1000

/* Sends what is queued, waiting (5 s at most) for room in the socket: a full
 * socket must slow the flooder, not kill it. Reads what wl-record sent. */
static void flush_and_drain(struct hostile_client *c)
{
	struct wl_display *d = c->display;
	int64_t deadline = now_ms() + 5000;
	while (wl_display_flush(d) < 0) {
		test_assert(errno == EAGAIN, "flush: %s", strerror(errno));
		struct pollfd out = { wl_display_get_fd(d), POLLOUT, 0 };
		int64_t left = deadline - now_ms();
		test_assert(left > 0, "wl-record stopped reading the flood for 5 s");
		poll(&out, 1, (int)left);
	}
	while (wl_display_prepare_read(d) != 0)
		test_assert(wl_display_dispatch_pending(d) >= 0, "dispatch failed");
	struct pollfd in = { wl_display_get_fd(d), POLLIN, 0 };
	if (poll(&in, 1, 0) > 0) {
		test_assert(wl_display_read_events(d) == 0, "read failed: %s", strerror(errno));
		test_assert(wl_display_dispatch_pending(d) >= 0, "dispatch failed");
	} else {
		wl_display_cancel_read(d);
	}
	test_assert(wl_display_get_error(d) == 0, "the flooding client got error %d",
		wl_display_get_error(d));
}

TEST(flood_while_recording)
{
	static const char *const args[] = { "--size", "64x64", NULL };
	struct recorder_process rec;
	recorder_start(&rec, "out.mkv", args);
	struct hostile_client *flooder = client_connect(&rec);
	struct hostile_client *probe = client_connect(&rec);
	struct wl_surface *surface = client_present_color(flooder, SIDE, SIDE, 0x808080);
	struct wl_buffer *buffers[2] = {
		client_color_buffer(flooder, SIDE, SIDE, 0xff2020),
		client_color_buffer(flooder, SIDE, SIDE, 0x2020ff),
	};
	client_expect_no_error(flooder);

	int64_t start = now_ms(), worst = 0;
	int sent = 0, probes = 0;
	while (sent < COMMITS) {
		for (int i = 0; i < BURST && sent < COMMITS; i++, sent++) {
			wl_surface_attach(surface, buffers[sent % 2], 0, 0);
			wl_surface_damage(surface, 0, 0, SIDE, SIDE);
			wl_surface_commit(surface);
		}
		flush_and_drain(flooder);
		/* Probe while wl-record still chews on the burst. */
		int64_t t0 = now_ms();
		int r = client_roundtrip(probe, PROBE_LIMIT_MS);
		int64_t took = now_ms() - t0;
		test_assert(r == 0, "probe roundtrip after %d commits %s (%lld ms)", sent,
			r == -2 ? "did not complete within 1 s" : "failed", (long long)took);
		if (took > worst)
			worst = took;
		probes++;
		int64_t next = start + (int64_t)probes * BURST_PERIOD_MS;
		int64_t wait = next - now_ms();
		if (wait > 0)
			usleep((useconds_t)wait * 1000);
	}
	client_expect_no_error(flooder);
	fprintf(stderr, "%d commits in %lld ms; %d probes, slowest %lld ms\n", sent,
		(long long)(now_ms() - start), probes, (long long)worst);
	recorder_require_alive(&rec, "after the flood");
	client_disconnect(probe);
	client_disconnect(flooder);
	recorder_expect_exit(&rec, 30000, 0);
	check_recording(rec.output, SIDE, SIDE, 2);
	recorder_finish(&rec);
}
