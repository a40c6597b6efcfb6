#define LOG_MODULE ""
#include "source_setup.h"

#include <stdio.h>
#include <stdlib.h>

#include "app.h"
#include "encoder_sink_caps.h"
#include "log.h"
#include "pipewire_source.h"
#include "portal_screencast.h"
#include "screencopy_source.h"
#include "source_choice.h"
#include "stats.h"

/* Connects to the display; keeps the connection when it can be copied, so
 * that the choice and the capture share one connection. */
static unsigned probe_display(void *data, const char *display, char *why, size_t why_size)
{
	struct app *app = data;
	struct screencopy_source *source = screencopy_source_connect(display, why, why_size);
	if (!source)
		return 0;
	unsigned offered = screencopy_source_protocols(source);
	if (!offered) {
		snprintf(why, why_size, "it offers neither ext-image-copy-capture nor wlr-screencopy");
		screencopy_source_destroy(source);
		return 0;
	}
	app->screencopy = source;
	return offered;
}

static bool probe_portal(void *data, char *why, size_t why_size)
{
	(void)data;
	return portal_screencast_offered(why, why_size);
}

/* The portal's restore token for next time: single use, so the new one
 * replaces the old; none given (the portal keeps no consent), none kept. */
static void remember_choice(const char *path, const char *token)
{
	char why[320];
	if (token[0]) {
		if (!portal_token_store(path, token, why, sizeof(why)))
			LOG_WARN("the choice will be asked for again next time: %s", why);
		else
			LOG_DBG("the portal's choice is remembered in %s", path);
	} else if (portal_token_forget(path, why, sizeof(why)) < 0) {
		LOG_WARN("%s", why);
	}
}

/* Asks the portal (the desktop may show its dialog), then reads its
 * PipeWire stream through the pipewire source. */
static bool portal_setup(struct app *app, const char *reason)
{
	char why[320];
	/* Checked first: xdg-desktop-portal-wlr without PipeWire never
	 * answers Start, and the user would wait for nothing. */
	if (!pipewire_running(why, sizeof(why))) {
		/* No portal either: that is the first thing to say. */
		char portal_why[320];
		if (!portal_screencast_offered(portal_why, sizeof(portal_why)))
			LOG_ERR("%s", portal_why);
		else
			LOG_ERR("the ScreenCast portal sends the screen through PipeWire: %s", why);
		return false;
	}
	char path[4096];
	bool remember = portal_token_path(path, sizeof(path));
	char *token = remember ? portal_token_load(path) : NULL;
	struct portal_request request = {
		.no_cursor = app->options->no_cursor,
		.restore_token = token,
	};
	enum portal_outcome outcome;
	app->portal = portal_cast_start(&request, &outcome, why, sizeof(why));
	free(token);
	if (!app->portal) {
		LOG_ERR("%s", why);
		return false;
	}
	if (remember)
		remember_choice(path, portal_cast_restore_token(app->portal));
	snprintf(app->portal_node, sizeof(app->portal_node), "%u",
		 (unsigned)portal_cast_node(app->portal));
	struct pipewire_selection selection = {
		.node = app->portal_node,
		.no_cursor = app->options->no_cursor,
		.use_remote_fd = true,
		.remote_fd = portal_cast_take_remote(app->portal),
	};
	app->pipewire = pipewire_source_connect(&selection, why, sizeof(why));
	if (!app->pipewire) {
		LOG_ERR("%s", why);
		return false;
	}
	LOG_INFO("recording %s (%s)", portal_cast_describe(app->portal), reason);
	app->source = pipewire_frame_source(app->pipewire);
	return true;
}

bool source_setup(struct app *app)
{
	const struct options *options = app->options;
	struct source_request request = {
		.capture = options->capture,
		.server_socket = getenv("WAYLAND_SERVER_SOCKET") != NULL,
		.command = options->command != NULL,
		.socket_name = options->socket_name != NULL,
		.desktop_part = options->output_name || options->region,
		.wayland_display = getenv("WAYLAND_DISPLAY"),
		.portal_probe = probe_portal,
	};
	struct source_choice choice;
	source_choose(&request, probe_display, app, &choice);
	if (choice.failed) {
		LOG_ERR("%s", choice.reason);
		return false;
	}
	if (choice.kind == SOURCE_PORTAL)
		return portal_setup(app, choice.reason);
	if (choice.kind == SOURCE_PIPEWIRE) {
		struct pipewire_selection selection = {
			.node = options->pipewire_node,
			.no_cursor = options->no_cursor,
		};
		char why[320];
		app->pipewire = pipewire_source_connect(&selection, why, sizeof(why));
		if (!app->pipewire) {
			LOG_ERR("%s", why);
			return false;
		}
		LOG_INFO("recording %s", pipewire_source_describe(app->pipewire));
		app->source = pipewire_frame_source(app->pipewire);
		return true;
	}
	if (choice.kind == SOURCE_SCREENCOPY) {
		struct screencopy_selection selection = {
			.output_name = options->output_name,
			.region = options->region,
			.x = options->region_x, .y = options->region_y,
			.width = options->region_width, .height = options->region_height,
			.no_cursor = options->no_cursor,
		};
		char why[320];
		switch (screencopy_source_select(app->screencopy, &selection, why, sizeof(why))) {
		case SCREENCOPY_SELECT_OK:
			break;
		case SCREENCOPY_SELECT_BAD_REGION:
			/* A -g the desktop cannot have is a bad command line. */
			app->status = EXIT_USAGE;
			/* fallthrough */
		case SCREENCOPY_SELECT_NO_OUTPUT:
			LOG_ERR("%s", why);
			return false;
		}
		screencopy_source_use(app->screencopy, choice.protocol);
		/* dmabufs only where they save a CPU copy: not for a still (it
		 * wants pixels), not for an encoder that reads pixels anyway. */
		struct screencopy_buffers_request buffers = {
			.n_sinks = 1,
			.device = options->device,
		};
		encoder_sink_caps(options->screenshot, options->codec, &buffers.sinks[0]);
		screencopy_source_set_buffers(app->screencopy, &buffers);
		const char *note = screencopy_source_note(app->screencopy);
		LOG_INFO("recording %s of WAYLAND_DISPLAY=%s through %s (%s)%s%s",
			 screencopy_source_describe(app->screencopy), request.wayland_display,
			 screencopy_protocol_name(choice.protocol), choice.reason, note[0] ? "; " : "", note);
		app->source = screencopy_frame_source(app->screencopy);
		return true;
	}
	/* A desktop that cannot be copied is worth a word: the user may have
	 * expected it to be recorded. */
	if (request.wayland_display && request.wayland_display[0] &&
	    options->capture == CAPTURE_AUTO && !request.server_socket && !request.command &&
	    !request.socket_name)
		LOG_INFO("not copying the desktop: %s; hosting a compositor instead%s%s%s",
			 choice.reason, choice.portal_note[0] ? " (the portal: " : "",
			 choice.portal_note, choice.portal_note[0] ? ")" : "");
	else
		LOG_DBG("hosting a compositor: %s", choice.reason);
	return true;
}

int source_list_outputs(void)
{
	const char *display = getenv("WAYLAND_DISPLAY");
	if (!display || !display[0]) {
		LOG_ERR("--list-outputs: WAYLAND_DISPLAY is not set: no desktop to list");
		return EXIT_FAILED;
	}
	char why[256];
	struct screencopy_source *source = screencopy_source_connect(display, why, sizeof(why));
	if (!source) {
		LOG_ERR("--list-outputs: WAYLAND_DISPLAY=%s: %s", display, why);
		return EXIT_FAILED;
	}
	screencopy_source_list_outputs(source, stdout);
	screencopy_source_destroy(source);
	return fflush(stdout) == 0 ? EXIT_OK : EXIT_FAILED;
}

int source_forget_portal(void)
{
	char path[4096], why[320];
	if (!portal_token_path(path, sizeof(path))) {
		LOG_ERR("--forget-portal: neither XDG_STATE_HOME nor HOME is set");
		return EXIT_FAILED;
	}
	switch (portal_token_forget(path, why, sizeof(why))) {
	case 1:
		LOG_INFO("forgot the screen chosen through the portal (%s): the desktop asks again "
			 "next time", path);
		return EXIT_OK;
	case 0:
		LOG_INFO("no portal choice was remembered (%s)", path);
		return EXIT_OK;
	default:
		LOG_ERR("--forget-portal: %s", why);
		return EXIT_FAILED;
	}
}

static void handle_source_ended(void *data, const char *why)
{
	struct app *app = data;
	if (app->stopping)
		return;
	stats_note_stop(why);
	LOG_ERR("%s", why);
	app_stop(app, EXIT_FAILED, NULL);
}

bool source_start(struct app *app)
{
	if (app->portal && !portal_cast_watch(app->portal, app->loop, handle_source_ended, app))
		return false;
	if (app->pipewire)
		return pipewire_source_start(app->pipewire, app->loop, handle_source_ended, app);
	return screencopy_source_start(app->screencopy, app->loop, handle_source_ended, app);
}

void source_teardown(struct app *app)
{
	screencopy_source_destroy(app->screencopy);
	app->screencopy = NULL;
	pipewire_source_destroy(app->pipewire);
	app->pipewire = NULL;
	/* After the stream: the session's end stops the portal's producer. */
	portal_cast_close(app->portal);
	app->portal = NULL;
}
