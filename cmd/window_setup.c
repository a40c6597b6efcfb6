#define LOG_MODULE ""
#include "window_setup.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "desktop_window.h"
#include "log.h"
#include "seat.h"
#include "selection.h"
#include "server.h"
#include "stats.h"
#include "xdg_shell.h"

bool window_setup_connect(struct app *app)
{
	if (!app->options->window)
		return true;
	const char *display = getenv("WAYLAND_DISPLAY");
	if (!display || !display[0]) {
		LOG_ERR("--window: WAYLAND_DISPLAY is not set: no desktop to open the window on");
		return false;
	}
	char why[256];
	app->window = desktop_window_connect(display, why, sizeof(why));
	if (!app->window) {
		LOG_ERR("--window: WAYLAND_DISPLAY=%s: %s", display, why);
		return false;
	}
	const char *limits = desktop_window_limits(app->window);
	if (limits[0])
		LOG_DBG("--window: %s", limits);
	return true;
}

static void handle_window_closed(void *data)
{
	app_stop(data, EXIT_OK, "the window was closed");
}

static void handle_window_gone(void *data, const char *why)
{
	struct app *app = data;
	if (app->stopping)
		return;
	stats_note_stop(why);
	LOG_ERR("%s: the recording stops", why);
	app_stop(app, EXIT_FAILED, NULL);
}

static void handle_window_input(void *data, const struct wl_record_input_event *event)
{
	struct app *app = data;
	seat_handle_input(app->server->seat, event);
}

static void handle_seat_cursor(void *data, const struct wl_record_cursor_image *image)
{
	struct app *app = data;
	if (app->window)
		desktop_window_set_cursor(app->window, image);
}

/* The clipboard and the primary selection: each side's selection and
 * pastes go to the other. Towards the app, the peer's data is the nested
 * compositor's selection of that kind. */
static void handle_desktop_selection(void *data, const char *const *mime_types, size_t count)
{
	selection_set_desktop(data, mime_types, count);
}

static void handle_desktop_paste(void *data, const char *mime_type, int fd)
{
	selection_desktop_receive(data, mime_type, fd);
}

static void handle_app_selection(void *data, const char *const *mime_types, size_t count)
{
	struct app *app = data;
	desktop_window_clipboard_selection(app->window, WL_RECORD_SELECTION_CLIPBOARD, mime_types,
					   count);
}

static void handle_app_paste(void *data, const char *mime_type, int fd)
{
	struct app *app = data;
	desktop_window_clipboard_receive(app->window, WL_RECORD_SELECTION_CLIPBOARD, mime_type, fd);
}

static void handle_app_primary(void *data, const char *const *mime_types, size_t count)
{
	struct app *app = data;
	desktop_window_clipboard_selection(app->window, WL_RECORD_SELECTION_PRIMARY, mime_types,
					   count);
}

static void handle_app_primary_paste(void *data, const char *mime_type, int fd)
{
	struct app *app = data;
	desktop_window_clipboard_receive(app->window, WL_RECORD_SELECTION_PRIMARY, mime_type, fd);
}

/* "● REC — " and the hosted app's title, else the command's name. */
static void window_title(const struct app *app, const char *app_title, char *out, size_t size)
{
	const char *command = app->options->command[0];
	const char *slash = strrchr(command, '/');
	const char *name = app_title && app_title[0] ? app_title : slash ? slash + 1 : command;
	snprintf(out, size, "\u25cf REC \u2014 %s", name);
}

static void handle_app_title(void *data, const char *app_title)
{
	struct app *app = data;
	char title[512];
	window_title(app, app_title, title, sizeof(title));
	LOG_DBG("--window: titled '%s'", title);
	desktop_window_set_title(app->window, title);
}

bool window_setup_open(struct app *app)
{
	if (!app->window)
		return true;
	char title[512];
	window_title(app, NULL, title, sizeof(title));
	struct desktop_window_events events = {
		.closed = handle_window_closed,
		.gone = handle_window_gone,
		.data = app,
	};
	/* The user drives the hosted app through the window. */
	struct wl_record_input_sink input = { .event = handle_window_input, .data = app };
	desktop_window_set_input_sink(app->window, &input);
	seat_set_cursor_handler(app->server->seat, handle_seat_cursor, app);
	seat_enable_input(app->server->seat);
	struct wl_record_clipboard_peer to_app = {
		.selection = handle_desktop_selection,
		.receive = handle_desktop_paste,
		.data = app->server->data_device,
	};
	struct wl_record_clipboard_peer to_desktop = {
		.selection = handle_app_selection,
		.receive = handle_app_paste,
		.data = app,
	};
	struct wl_record_clipboard_peer primary_to_app = to_app;
	primary_to_app.data = app->server->primary_selection;
	struct wl_record_clipboard_peer primary_to_desktop = {
		.selection = handle_app_primary,
		.receive = handle_app_primary_paste,
		.data = app,
	};
	desktop_window_set_clipboard_peer(app->window, WL_RECORD_SELECTION_CLIPBOARD, &to_app);
	desktop_window_set_clipboard_peer(app->window, WL_RECORD_SELECTION_PRIMARY,
					  &primary_to_app);
	selection_set_peer(app->server->data_device, &to_desktop);
	selection_set_peer(app->server->primary_selection, &primary_to_desktop);
	selection_enable(app->server->data_device);
	selection_enable(app->server->primary_selection);
	if (!desktop_window_open(app->window, app->loop, title, app->server->screen.width,
				 app->server->screen.height, &events))
		return false;
	desktop_window_connect_source(app->window, capture_source_frames(app->source));
	/* The window is named after what the user sees in it. */
	xdg_shell_set_title_handler(app->server->xdg_shell, handle_app_title, app);
	return true;
}

void window_setup_teardown(struct app *app)
{
	if (!app->window)
		return;
	struct desktop_window_stats stats;
	desktop_window_get_stats(app->window, &stats);
	LOG_DBG("--window: %" PRIu64 " frames, %" PRIu64 " pictures shown (%" PRIu64
		" as the frame's dmabuf, %" PRIu64 " copied), %" PRIu64
		" frames replaced before the desktop took them, %" PRIu64
		" draws put off for want of a free buffer", stats.frames_received,
		stats.pictures_shown, stats.pictures_dmabuf, stats.pictures_copied,
		stats.frames_not_shown, stats.waits_for_buffer);
	if (app->server) {
		seat_set_cursor_handler(app->server->seat, NULL, NULL);
		xdg_shell_set_title_handler(app->server->xdg_shell, NULL, NULL);
		selection_set_peer(app->server->data_device, NULL);
		selection_set_peer(app->server->primary_selection, NULL);
	}
	desktop_window_destroy(app->window);
	app->window = NULL;
}
