#define LOG_MODULE "screenshot"
#include "screenshot.h"

#include <stdlib.h>

#include "app.h"
#include "clock.h"
#include "dmabuf_lease.h"
#include "frame_source.h"
#include "log.h"
#include "png_writer.h"
#include "stats.h"
#include "server.h"

/* Weston's screen-share commits its first buffer before the output has been
 * painted, so an all-black first picture is usually not the screen. Such
 * pictures are passed over for this long, then taken as they are. */
#define BLACK_GRACE_MS 1000

struct screenshot {
	struct app *app;
	struct frame_sink sink;  /* on the screen's frame source */
	struct frame newest;     /* kept: what the grace or delay timer takes */
	uint8_t *dmabuf_pixels;  /* a dmabuf picture read by the CPU */
	struct wl_event_source *timeout;
	struct wl_event_source *grace;
	bool saw_frame;
	bool done;
};

/* Gives a dmabuf frame CPU pixels (read into our own buffer). */
static bool read_pixels(struct screenshot *screenshot, struct frame *frame)
{
	if (frame->data)
		return true;
	if (!frame->dmabuf)
		return false;
	char why[256] = "";
	int stride = frame->width * 4;
	free(screenshot->dmabuf_pixels);
	screenshot->dmabuf_pixels = malloc((size_t)stride * (size_t)frame->height);
	if (!screenshot->dmabuf_pixels ||
	    !dmabuf_lease_read(frame->dmabuf, screenshot->dmabuf_pixels, stride, why, sizeof(why))) {
		LOG_WARN("cannot read the presented dmabuf: %s",
			 screenshot->dmabuf_pixels ? why : "out of memory");
		return false;
	}
	frame->data = screenshot->dmabuf_pixels;
	frame->stride = stride;
	return true;
}

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

static void take(struct screenshot *screenshot, const struct frame *picture)
{
	screenshot->done = true;
	struct frame copy = *picture;
	const struct frame *frame = &copy;
	if (!read_pixels(screenshot, &copy)) {
		app_stop(screenshot->app, EXIT_FAILED, "the picture could not be read");
		return;
	}
	int64_t start_ns = clock_now_ns();
	const char *path = screenshot->app->output_path;
	if ((app_may_replace_output(screenshot->app) ? png_write_frame(path, frame)
						   : png_create_frame(path, frame)) < 0) {
		app_stop(screenshot->app, EXIT_FAILED, "the PNG could not be written");
		return;
	}
	LOG_INFO("wrote %s (%dx%d)", screenshot->app->output_path, frame->width, frame->height);
	double write_ms = (double)(clock_now_ns() - start_ns) / 1e6;
	stats_note_still(write_ms);
	LOG_DBG("the PNG took %.1f ms", write_ms);
	app_stop(screenshot->app, EXIT_OK, NULL);
}

static void handle_frame(struct frame_sink *sink, const struct frame *picture)
{
	struct screenshot *screenshot = wl_container_of(sink, screenshot, sink);
	if (screenshot->done)
		return;
	frame_unref(&screenshot->newest);
	frame_ref(&screenshot->newest, picture);
	if (!screenshot->saw_frame) {
		screenshot->saw_frame = true;
		double delay_ms = screenshot->app->options->delay_s * 1000;
		wl_event_source_timer_update(screenshot->grace,
					     delay_ms > 0 ? (delay_ms < 1 ? 1 : (int)delay_ms)
							  : BLACK_GRACE_MS);
	}
	if (screenshot->app->options->delay_s > 0)
		return; /* the timer takes whatever is newest when it fires */
	struct frame frame = *picture;
	if (!read_pixels(screenshot, &frame) || frame_is_black(&frame)) {
		LOG_DBG("passing over an all-black (or unreadable) picture");
		return;
	}
	take(screenshot, &frame);
}

static const struct frame_sink_impl screenshot_sink = { .frame = handle_frame };

static int handle_grace(void *data)
{
	struct screenshot *screenshot = data;
	if (screenshot->done)
		return 0;
	if (screenshot->app->options->delay_s <= 0)
		LOG_INFO("the screen stayed black for %d ms; taking it as it is", BLACK_GRACE_MS);
	take(screenshot, &screenshot->newest);
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
	frame_sink_connect(&screenshot->sink, &screenshot_sink, app->source);
	return screenshot;
}

void screenshot_destroy(struct screenshot *screenshot)
{
	if (!screenshot)
		return;
	frame_sink_disconnect(&screenshot->sink);
	frame_unref(&screenshot->newest);
	free(screenshot->dmabuf_pixels);
	if (screenshot->timeout)
		wl_event_source_remove(screenshot->timeout);
	if (screenshot->grace)
		wl_event_source_remove(screenshot->grace);
	free(screenshot);
}
