#define LOG_MODULE ""
#include "source_select.h"

#include <stdio.h>
#include <stdlib.h>

#include "encoder_sink_caps.h"
#include "log.h"
#include "pipewire_capture.h"
#include "pipewire_source.h"
#include "portal_capture.h"
#include "portal_screencast.h"
#include "screencopy_capture.h"
#include "screencopy_source.h"

/* The capture source made, or "out of memory" said: its parts were
 * connected, only the wrapper could not be had. */
/* How the start line begins: a --screenshot is no recording. */
static const char *start_verb(const struct source_select_request *request)
{
	return request->still ? "taking a still of" : "recording";
}

static struct capture_source *made(struct capture_source *source)
{
	if (!source)
		LOG_ERR("out of memory");
	return source;
}

/* Connects to the display; keeps the connection when it can be copied, so
 * that the choice and the capture share one connection. */
static unsigned probe_display(void *data, const char *display, char *why, size_t why_size)
{
	struct screencopy_source **copy = data;
	struct screencopy_source *source = screencopy_source_connect(display, why, why_size);
	if (!source)
		return 0;
	unsigned offered = screencopy_source_protocols(source);
	if (!offered) {
		snprintf(why, why_size, "it offers neither ext-image-copy-capture nor wlr-screencopy");
		screencopy_source_destroy(source);
		return 0;
	}
	*copy = source;
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
static struct capture_source *portal_setup(const struct source_select_request *source_request,
					   const char *reason)
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
		return NULL;
	}
	char path[4096];
	bool remember = portal_token_path(path, sizeof(path));
	char *token = remember ? portal_token_load(path) : NULL;
	struct portal_request request = {
		.no_cursor = source_request->no_cursor,
		.restore_token = token,
	};
	enum portal_outcome outcome;
	struct portal_cast *portal = portal_cast_start(&request, &outcome, why, sizeof(why));
	free(token);
	if (!portal) {
		LOG_ERR("%s", why);
		return NULL;
	}
	if (remember)
		remember_choice(path, portal_cast_restore_token(portal));
	/* Read during the connection only. */
	char node[16];
	snprintf(node, sizeof(node), "%u", (unsigned)portal_cast_node(portal));
	struct pipewire_selection selection = {
		.node = node,
		.no_cursor = source_request->no_cursor,
		.use_remote_fd = true,
		.remote_fd = portal_cast_take_remote(portal),
	};
	struct pipewire_source *pipewire = pipewire_source_connect(&selection, why, sizeof(why));
	if (!pipewire) {
		LOG_ERR("%s", why);
		portal_cast_close(portal);
		return NULL;
	}
	LOG_INFO("%s %s (%s)", start_verb(source_request), portal_cast_describe(portal), reason);
	struct capture_source *stream = made(pipewire_capture_create(pipewire));
	if (!stream) {
		portal_cast_close(portal);
		return NULL;
	}
	return made(portal_capture_create(portal, stream));
}

static struct capture_source *pipewire_setup(const struct source_select_request *request)
{
	struct pipewire_selection selection = {
		.node = request->pipewire_node,
		.no_cursor = request->no_cursor,
	};
	char why[320];
	struct pipewire_source *pipewire = pipewire_source_connect(&selection, why, sizeof(why));
	if (!pipewire) {
		LOG_ERR("%s", why);
		return NULL;
	}
	LOG_INFO("%s %s", start_verb(request), pipewire_source_describe(pipewire));
	return made(pipewire_capture_create(pipewire));
}

/* `copy`, connected by the choice, set up to copy what was asked for;
 * destroyed when that cannot be. */
static struct capture_source *screencopy_setup(const struct source_select_request *request,
					       const struct source_choice *choice,
					       struct screencopy_source *copy, bool *bad_usage)
{
	struct screencopy_selection selection = {
		.output_name = request->output_name,
		.region = request->region,
		.x = request->region_x, .y = request->region_y,
		.width = request->region_width, .height = request->region_height,
		.no_cursor = request->no_cursor,
	};
	char why[320];
	switch (screencopy_source_select(copy, &selection, why, sizeof(why))) {
	case SCREENCOPY_SELECT_OK:
		break;
	case SCREENCOPY_SELECT_BAD_REGION:
		/* A -g the desktop cannot have is a bad command line. */
		*bad_usage = true;
		/* fallthrough */
	case SCREENCOPY_SELECT_NO_OUTPUT:
		LOG_ERR("%s", why);
		screencopy_source_destroy(copy);
		return NULL;
	}
	screencopy_source_use(copy, choice->protocol);
	/* dmabufs only where they save a CPU copy: not for a still (it
	 * wants pixels), not for an encoder that reads pixels anyway. */
	struct screencopy_buffers_request buffers = {
		.n_sinks = 1,
		.device = request->device,
	};
	encoder_sink_caps(request->still, request->codec, &buffers.sinks[0]);
	screencopy_source_set_buffers(copy, &buffers);
	/* One short line; why this protocol is for -v, the note its own line. */
	const char *note = screencopy_source_note(copy);
	LOG_INFO("%s %s on WAYLAND_DISPLAY=%s via %s", start_verb(request),
		 screencopy_source_describe(copy), request->wayland_display,
		 screencopy_protocol_name(choice->protocol));
	LOG_DBG("copied that way: %s", choice->reason);
	if (note[0])
		LOG_INFO("%s", note);
	return made(screencopy_capture_create(copy));
}

struct capture_source *source_select(const struct source_select_request *select,
				     bool *bad_usage)
{
	*bad_usage = false;
	struct source_request request = {
		.capture = select->capture,
		.server_socket = select->server_socket,
		.command = select->command,
		.socket_name = select->socket_name,
		.desktop_part = select->output_name || select->region,
		.wayland_display = select->wayland_display,
		.portal_probe = probe_portal,
	};
	struct screencopy_source *copy = NULL; /* the display probed, when it can be copied */
	struct source_choice choice;
	source_choose(&request, probe_display, &copy, &choice);
	if (choice.failed) {
		LOG_ERR("%s", choice.reason);
		screencopy_source_destroy(copy);
		return NULL;
	}
	if (choice.kind == SOURCE_SCREENCOPY)
		return screencopy_setup(select, &choice, copy, bad_usage);
	/* Not copied after all: the portal or hosting. */
	screencopy_source_destroy(copy);
	if (choice.kind == SOURCE_PORTAL)
		return portal_setup(select, choice.reason);
	if (choice.kind == SOURCE_PIPEWIRE)
		return pipewire_setup(select);
	/* A desktop that cannot be copied is worth a word: the user may have
	 * expected it to be recorded. */
	if (request.wayland_display && request.wayland_display[0] &&
	    request.capture == CAPTURE_AUTO && !request.server_socket && !request.command &&
	    !request.socket_name)
		LOG_INFO("not copying the desktop: %s; hosting a compositor instead%s%s%s",
			 choice.reason, choice.portal_note[0] ? " (the portal: " : "",
			 choice.portal_note, choice.portal_note[0] ? ")" : "");
	else
		LOG_DBG("hosting a compositor: %s", choice.reason);
	return made(select->host());
}

bool source_list_outputs(const char *display)
{
	if (!display || !display[0]) {
		LOG_ERR("--list-outputs: WAYLAND_DISPLAY is not set: no desktop to list");
		return false;
	}
	char why[256];
	struct screencopy_source *copy = screencopy_source_connect(display, why, sizeof(why));
	if (!copy) {
		LOG_ERR("--list-outputs: WAYLAND_DISPLAY=%s: %s", display, why);
		return false;
	}
	struct capture_source *source = made(screencopy_capture_create(copy));
	if (!source)
		return false;
	capture_source_list_outputs(source, stdout);
	capture_source_destroy(source);
	return fflush(stdout) == 0;
}

bool source_forget_portal(void)
{
	char path[4096], why[320];
	if (!portal_token_path(path, sizeof(path))) {
		LOG_ERR("--forget-portal: neither XDG_STATE_HOME nor HOME is set");
		return false;
	}
	switch (portal_token_forget(path, why, sizeof(why))) {
	case 1:
		LOG_INFO("forgot the screen chosen through the portal (%s): the desktop asks again "
			 "next time", path);
		return true;
	case 0:
		LOG_INFO("no portal choice was remembered (%s)", path);
		return true;
	default:
		LOG_ERR("--forget-portal: %s", why);
		return false;
	}
}
