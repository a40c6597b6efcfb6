#include "roundtrip.h"
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <wayland-client.h>
#include "clock.h"

static void handle_sync_done(void *data, struct wl_callback *callback, uint32_t serial)
{
	(void)serial;
	bool *done = data;
	*done = true;
	wl_callback_destroy(callback);
}

static const struct wl_callback_listener sync_listener = { .done = handle_sync_done };

int wl_record_roundtrip_until(struct wl_display *display, int64_t deadline_ns)
{
	bool done = false;
	struct wl_callback *callback = wl_display_sync(display);
	if (!callback)
		return -1;
	wl_callback_add_listener(callback, &sync_listener, &done);
	int result = 1;
	while (!done) {
		if (wl_display_dispatch_pending(display) < 0) {
			result = -1;
			break;
		}
		if (done)
			break;
		if (wl_display_prepare_read(display) != 0)
			continue; /* events queued meanwhile: dispatch them first */
		if (wl_display_flush(display) < 0 && errno != EAGAIN) {
			wl_display_cancel_read(display);
			result = -1;
			break;
		}
		int64_t left_ms = (deadline_ns - clock_now_ns()) / 1000000;
		struct pollfd pfd = { .fd = wl_display_get_fd(display), .events = POLLIN };
		int ready = left_ms > 0 ? poll(&pfd, 1, (int)left_ms) : 0;
		if (ready <= 0) {
			wl_display_cancel_read(display);
			if (ready < 0 && errno == EINTR)
				continue;
			result = ready < 0 ? -1 : 0;
			break;
		}
		if (wl_display_read_events(display) < 0) {
			result = -1;
			break;
		}
	}
	/* Unanswered: nothing may write into this stack frame later. */
	if (!done)
		wl_callback_destroy(callback);
	return result;
}
