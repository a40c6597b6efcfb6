#define LOG_MODULE "screenshot"
#include "screenshot.h"

#include <stdlib.h>

#include "app.h"
#include "clock.h"
#include "log.h"
#include "png_writer.h"
#include "server.h"

/* Weston's screen-share commits its first buffer before the output has been
 * painted, so an all-black first picture is usually not the screen. Such
 * pictures are passed over for this long, then taken as they are. */
#define BLACK_GRACE_MS 1000

struct screenshot {
	struct app *app;
	struct wl_listener frame;
	struct wl_event_source *timeout;
	struct wl_event_source *grace;
	bool saw_frame;
	bool done;
};

static bool frame_is_black(const struct frame *frame)
{
	for (int y = 0; y < frame->height; y++) {
		const uint32_t *row = (const uint32_t *)(frame->data + (size_t)y * frame->stride);
		for (int x = 0; x < frame->width; x++) {
			if (row[x] & 0x00ffffff)
				return false;
		}
	}
	return true;
}

static void take(struct screenshot *screenshot, const struct frame *frame)
{
	screenshot->done = true;
	int64_t start_ns = clock_now_ns();
	const char *path = screenshot->app->output_path;
	if ((screenshot->app->options->overwrite ? png_write_frame(path, frame)
						   : png_create_frame(path, frame)) < 0) {
		app_stop(screenshot->app, EXIT_FAILED, "the PNG could not be written");
		return;
	}
	LOG_INFO("wrote %s (%dx%d)", screenshot->app->output_path, frame->width, frame->height);
	LOG_DBG("the PNG took %.1f ms", (double)(clock_now_ns() - start_ns) / 1e6);
	app_stop(screenshot->app, EXIT_OK, NULL);
}

static void handle_frame(struct wl_listener *listener, void *data)
{
	struct screenshot *screenshot = wl_container_of(listener, screenshot, frame);
	const struct frame *frame = data;
	if (screenshot->done)
		return;
	if (!screenshot->saw_frame) {
		screenshot->saw_frame = true;
		double delay_ms = screenshot->app->options->delay_s * 1000;
		wl_event_source_timer_update(screenshot->grace,
					     delay_ms > 0 ? (delay_ms < 1 ? 1 : (int)delay_ms)
							  : BLACK_GRACE_MS);
	}
	if (screenshot->app->options->delay_s > 0)
		return; /* the timer takes whatever is newest when it fires */
	if (frame_is_black(frame)) {
		LOG_DBG("passing over an all-black picture");
		return;
	}
	take(screenshot, frame);
}

static int handle_grace(void *data)
{
	struct screenshot *screenshot = data;
	if (screenshot->done)
		return 0;
	if (screenshot->app->options->delay_s <= 0)
		LOG_INFO("the screen stayed black for %d ms; taking it as it is", BLACK_GRACE_MS);
	struct frame frame;
	screen_get_frame(&screenshot->app->server->screen, &frame, clock_now_ns());
	take(screenshot, &frame);
	return 0;
}

static int handle_timeout(void *data)
{
	struct screenshot *screenshot = data;
	if (screenshot->done || screenshot->saw_frame)
		return 0; /* a picture is coming: the grace or delay timer takes it */
	LOG_ERR("no frame was presented within %g s (is the compositor connected? see --timeout)",
		screenshot->app->options->timeout_s);
	app_stop(screenshot->app, EXIT_FAILED, NULL);
	return 0;
}

struct screenshot *screenshot_create(struct app *app)
{
	struct screenshot *screenshot = calloc(1, sizeof(*screenshot));
	if (!screenshot)
		return NULL;
	screenshot->app = app;
	screenshot->timeout = wl_event_loop_add_timer(app->loop, handle_timeout, screenshot);
	screenshot->grace = wl_event_loop_add_timer(app->loop, handle_grace, screenshot);
	if (!screenshot->timeout || !screenshot->grace) {
		screenshot_destroy(screenshot);
		return NULL;
	}
	double timeout_ms = app->options->timeout_s * 1000;
	wl_event_source_timer_update(screenshot->timeout, timeout_ms < 1 ? 1 : (int)timeout_ms);
	screenshot->frame.notify = handle_frame;
	wl_signal_add(&app->server->screen.events.frame, &screenshot->frame);
	return screenshot;
}

void screenshot_destroy(struct screenshot *screenshot)
{
	if (!screenshot)
		return;
	if (screenshot->frame.notify)
		wl_list_remove(&screenshot->frame.link);
	if (screenshot->timeout)
		wl_event_source_remove(screenshot->timeout);
	if (screenshot->grace)
		wl_event_source_remove(screenshot->grace);
	free(screenshot);
}
