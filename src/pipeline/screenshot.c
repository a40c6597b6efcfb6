#define LOG_MODULE "screenshot"
#include "screenshot.h"

#include <stdint.h>
#include <stdlib.h>

#include "clock.h"
#include "frame_source.h"
#include "log.h"
#include "png_writer.h"

/* A still is the first picture that has stayed unchanged (no new frame
 * from the source) this long: an app's first frames are often not what it
 * means to show (a terminal's cursor before its prompt). */
#define SETTLE_MS 300
/* Weston's screen-share commits its first buffer before the output has been
 * painted, so an all-black picture is usually not the screen: it must stay
 * unchanged this long instead. */
#define BLACK_SETTLE_MS 1000
/* An animated screen never settles: after this long of waiting for it (from
 * the first picture, or the end of --delay) the newest picture is taken, so
 * that a hotkey still of a moving desktop is not --timeout late. */
#define MAX_SETTLE_WAIT_MS 2000

struct screenshot {
	struct screenshot_config config;
	struct frame_sink sink;  /* on the screen's frame source */
	struct frame newest;     /* kept: the candidate picture */
	int64_t newest_since_ns; /* when it came: unchanged since then */
	uint8_t *dmabuf_pixels;  /* a dmabuf picture read by the CPU */
	struct wl_event_source *timeout;
	struct wl_event_source *delay;
	struct wl_event_source *settle;
	struct wl_event_source *settle_limit; /* MAX_SETTLE_WAIT_MS */
	/* Whether to wait for the picture to settle: an app or a compositor that
	 * presents to us may still be drawing; a copied desktop is already what
	 * the user sees, and a still of it is of the moment asked for (as grim). */
	bool settles;
	bool saw_frame;
	bool delay_over;         /* --delay has passed since the first frame (or is 0) */
	bool timed_out;          /* --timeout passed with a frame but none settled */
	bool done;
};

static void stop(const struct screenshot *screenshot, bool failed, const char *reason)
{
	screenshot->config.events.stop(screenshot->config.events.data, failed, reason);
}

/* Gives a dmabuf frame CPU pixels (read into our own buffer). */
static bool read_pixels(struct screenshot *screenshot, struct frame *frame)
{
	if (frame->data)
		return true;
	if (!frame->buffer)
		return false;
	char why[256] = "";
	int stride = frame->width * 4;
	free(screenshot->dmabuf_pixels);
	screenshot->dmabuf_pixels = malloc((size_t)stride * (size_t)frame->height);
	if (!screenshot->dmabuf_pixels ||
	    !wl_record_buffer_read(frame->buffer, screenshot->dmabuf_pixels, stride, why,
				   sizeof(why))) {
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
		stop(screenshot, true, "the picture could not be read");
		return;
	}
	int64_t start_ns = clock_now_ns();
	const char *path = screenshot->config.path;
	if ((screenshot->config.overwrite ? png_write_frame(path, frame)
					  : png_create_frame(path, frame)) < 0) {
		stop(screenshot, true, "the PNG could not be written");
		return;
	}
	LOG_INFO("wrote %s (%dx%d)", screenshot->config.path, frame->width, frame->height);
	double write_ms = (double)(clock_now_ns() - start_ns) / 1e6;
	screenshot->config.events.still_written(screenshot->config.events.data, write_ms);
	LOG_DBG("the PNG took %.1f ms", write_ms);
	stop(screenshot, false, NULL);
}

static void arm_ms(struct wl_event_source *timer, int64_t ms)
{
	/* 0 would disarm the timer: at once is 1 ms. */
	wl_event_source_timer_update(timer, ms < 1 ? 1 : ms > INT32_MAX ? INT32_MAX : (int)ms);
}

/* Takes the newest picture once it has been unchanged for its settle time,
 * or arms the settle timer for what is left of it. */
static void take_when_settled(struct screenshot *screenshot)
{
	int64_t unchanged_ms = (clock_now_ns() - screenshot->newest_since_ns) / 1000000;
	if (unchanged_ms < SETTLE_MS) {
		arm_ms(screenshot->settle, SETTLE_MS - unchanged_ms);
		return;
	}
	struct frame frame = screenshot->newest;
	if (!read_pixels(screenshot, &frame)) {
		take(screenshot, &screenshot->newest); /* fails, and says why */
		return;
	}
	if (unchanged_ms < BLACK_SETTLE_MS && frame_is_black(&frame)) {
		LOG_DBG("an all-black picture: waiting %d ms for another", BLACK_SETTLE_MS);
		arm_ms(screenshot->settle, BLACK_SETTLE_MS - unchanged_ms);
		return;
	}
	LOG_DBG("the picture stayed unchanged for %lld ms", (long long)unchanged_ms);
	take(screenshot, &frame);
}

static void handle_frame(struct frame_sink *sink, const struct frame *picture)
{
	struct screenshot *screenshot = wl_container_of(sink, screenshot, sink);
	if (screenshot->done)
		return;
	frame_unref(&screenshot->newest);
	frame_ref(&screenshot->newest, picture);
	screenshot->newest_since_ns = clock_now_ns();
	if (!screenshot->saw_frame) {
		screenshot->saw_frame = true;
		double delay_ms = screenshot->config.delay_s * 1000;
		if (delay_ms > 0) {
			arm_ms(screenshot->delay, (int64_t)delay_ms);
		} else {
			screenshot->delay_over = true;
			arm_ms(screenshot->settle_limit, MAX_SETTLE_WAIT_MS);
		}
	}
	if (screenshot->delay_over && !screenshot->settles)
		take(screenshot, &screenshot->newest);
	else if (screenshot->delay_over)
		arm_ms(screenshot->settle, SETTLE_MS); /* a new picture: its settle time starts */
}

static const struct frame_sink_impl screenshot_sink = { .frame = handle_frame };

static int handle_settle(void *data)
{
	struct screenshot *screenshot = data;
	if (!screenshot->done)
		take_when_settled(screenshot);
	return 0;
}

static int handle_delay(void *data)
{
	struct screenshot *screenshot = data;
	if (screenshot->done)
		return 0;
	screenshot->delay_over = true;
	if (screenshot->timed_out || !screenshot->settles) {
		take(screenshot, &screenshot->newest);
	} else {
		arm_ms(screenshot->settle_limit, MAX_SETTLE_WAIT_MS);
		take_when_settled(screenshot);
	}
	return 0;
}

static int handle_settle_limit(void *data)
{
	struct screenshot *screenshot = data;
	if (screenshot->done)
		return 0;
	struct frame frame = screenshot->newest;
	if (!read_pixels(screenshot, &frame)) {
		take(screenshot, &screenshot->newest); /* fails, and says why */
		return 0;
	}
	/* Black is the compositor not having painted yet: worth --timeout. */
	if (frame_is_black(&frame))
		return 0;
	LOG_INFO("the picture kept changing for %d s; taking the newest", MAX_SETTLE_WAIT_MS / 1000);
	take(screenshot, &frame);
	return 0;
}

static int handle_timeout(void *data)
{
	struct screenshot *screenshot = data;
	if (screenshot->done)
		return 0;
	if (!screenshot->saw_frame) {
		LOG_ERR("no frame was presented within %g s (is the compositor connected? see --timeout)",
			screenshot->config.timeout_s);
		stop(screenshot, true, NULL);
		return 0;
	}
	if (!screenshot->delay_over) {
		screenshot->timed_out = true; /* --delay still runs: the newest at its end */
		return 0;
	}
	LOG_INFO("the picture kept changing for %g s (--timeout); taking the newest",
		 screenshot->config.timeout_s);
	take(screenshot, &screenshot->newest);
	return 0;
}

bool screenshot_take_now(struct screenshot *screenshot)
{
	if (screenshot->done)
		return true;
	/* During --delay there is no picture of the moment asked for. */
	if (!screenshot->saw_frame || !screenshot->delay_over)
		return false;
	LOG_DBG("the client went away: taking its last picture");
	take(screenshot, &screenshot->newest);
	return true;
}

struct screenshot *screenshot_create(const struct screenshot_config *config)
{
	struct screenshot *screenshot = calloc(1, sizeof(*screenshot));
	if (!screenshot)
		return NULL;
	screenshot->config = *config;
	screenshot->settles = config->hosting;
	struct wl_event_loop *loop = config->loop;
	screenshot->timeout = wl_event_loop_add_timer(loop, handle_timeout, screenshot);
	screenshot->delay = wl_event_loop_add_timer(loop, handle_delay, screenshot);
	screenshot->settle = wl_event_loop_add_timer(loop, handle_settle, screenshot);
	screenshot->settle_limit = wl_event_loop_add_timer(loop, handle_settle_limit,
							   screenshot);
	if (!screenshot->timeout || !screenshot->delay || !screenshot->settle ||
	    !screenshot->settle_limit) {
		screenshot_destroy(screenshot);
		return NULL;
	}
	double timeout_ms = config->timeout_s * 1000;
	wl_event_source_timer_update(screenshot->timeout, timeout_ms < 1 ? 1 : (int)timeout_ms);
	frame_sink_connect(&screenshot->sink, &screenshot_sink, config->source);
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
	if (screenshot->delay)
		wl_event_source_remove(screenshot->delay);
	if (screenshot->settle)
		wl_event_source_remove(screenshot->settle);
	if (screenshot->settle_limit)
		wl_event_source_remove(screenshot->settle_limit);
	free(screenshot);
}
