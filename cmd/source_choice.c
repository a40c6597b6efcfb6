#include "source_choice.h"

#include <stdio.h>
#include <string.h>

bool capture_method_parse(const char *name, enum capture_method *method)
{
	static const struct { const char *name; enum capture_method method; } methods[] = {
		{ "auto", CAPTURE_AUTO }, { "screencopy", CAPTURE_SCREENCOPY },
		{ "listen", CAPTURE_LISTEN },
	};
	for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
		if (strcmp(name, methods[i].name) == 0) {
			*method = methods[i].method;
			return true;
		}
	}
	return false;
}

static void host(struct source_choice *choice, const char *reason)
{
	choice->kind = SOURCE_HOST;
	snprintf(choice->reason, sizeof(choice->reason), "%s", reason);
}

void source_choose(const struct source_request *request, source_probe_fn probe, void *data,
		   struct source_choice *choice)
{
	*choice = (struct source_choice){ .kind = SOURCE_HOST };
	const char *display = request->wayland_display && request->wayland_display[0]
			      ? request->wayland_display : NULL;
	char why[256] = "";

	if (request->capture == CAPTURE_SCREENCOPY || request->desktop_part) {
		const char *forced = request->capture == CAPTURE_SCREENCOPY ? "--capture screencopy"
				     : "-o or -g (a part of the desktop)";
		choice->kind = SOURCE_SCREENCOPY;
		if (!display) {
			choice->failed = true;
			snprintf(choice->reason, sizeof(choice->reason),
				 "%s: WAYLAND_DISPLAY is not set", forced);
		} else if (!probe(data, display, why, sizeof(why))) {
			choice->failed = true;
			snprintf(choice->reason, sizeof(choice->reason), "%s: WAYLAND_DISPLAY=%s: %s",
				 forced, display, why);
		} else {
			snprintf(choice->reason, sizeof(choice->reason), "%s", forced);
		}
		return;
	}
	if (request->server_socket)
		return host(choice, "WAYLAND_SERVER_SOCKET is set (a compositor's screen-share started us)");
	if (request->command)
		return host(choice, "a COMMAND to host was given");
	if (request->capture == CAPTURE_LISTEN)
		return host(choice, "--capture listen");
	if (request->socket_name)
		return host(choice, "--socket was given");
	if (!display)
		return host(choice, "WAYLAND_DISPLAY is not set: no desktop to copy");
	if (probe(data, display, why, sizeof(why))) {
		choice->kind = SOURCE_SCREENCOPY;
		snprintf(choice->reason, sizeof(choice->reason),
			 "WAYLAND_DISPLAY=%s offers wlr-screencopy", display);
		return;
	}
	snprintf(choice->reason, sizeof(choice->reason), "WAYLAND_DISPLAY=%s: %s", display, why);
}
