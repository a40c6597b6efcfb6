#include "source_choice.h"

#include <stdio.h>
#include <string.h>

bool capture_method_parse(const char *name, enum capture_method *method)
{
	static const struct { const char *name; enum capture_method method; } methods[] = {
		{ "auto", CAPTURE_AUTO }, { "screencopy", CAPTURE_SCREENCOPY },
		{ "ext-image-copy", CAPTURE_EXT_COPY }, { "wlr-screencopy", CAPTURE_WLR_SCREENCOPY },
		{ "listen", CAPTURE_LISTEN }, { "portal", CAPTURE_PORTAL },
	};
	for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
		if (strcmp(name, methods[i].name) == 0) {
			*method = methods[i].method;
			return true;
		}
	}
	return false;
}

bool capture_method_copies(enum capture_method method)
{
	return method == CAPTURE_SCREENCOPY || method == CAPTURE_EXT_COPY ||
	       method == CAPTURE_WLR_SCREENCOPY;
}

static void host(struct source_choice *choice, const char *reason)
{
	choice->kind = SOURCE_HOST;
	snprintf(choice->reason, sizeof(choice->reason), "%s", reason);
}

/* The protocols --capture allows. */
static unsigned allowed_protocols(enum capture_method method)
{
	if (method == CAPTURE_EXT_COPY)
		return SCREENCOPY_EXT;
	if (method == CAPTURE_WLR_SCREENCOPY)
		return SCREENCOPY_WLR;
	return SCREENCOPY_EXT | SCREENCOPY_WLR;
}

/* The successor first. */
static enum screencopy_protocol preferred(unsigned protocols)
{
	return protocols & SCREENCOPY_EXT ? SCREENCOPY_EXT : SCREENCOPY_WLR;
}

static const char *forced_name(const struct source_request *request)
{
	switch (request->capture) {
	case CAPTURE_SCREENCOPY: return "--capture screencopy";
	case CAPTURE_EXT_COPY: return "--capture ext-image-copy";
	case CAPTURE_WLR_SCREENCOPY: return "--capture wlr-screencopy";
	default: return "-o or -g (a part of the desktop)";
	}
}

void source_choose(const struct source_request *request, source_probe_fn probe, void *data,
		   struct source_choice *choice)
{
	*choice = (struct source_choice){ .kind = SOURCE_HOST };
	const char *display = request->wayland_display && request->wayland_display[0]
			      ? request->wayland_display : NULL;
	char why[256] = "";

	if (request->capture == CAPTURE_PIPEWIRE) {
		choice->kind = SOURCE_PIPEWIRE;
		snprintf(choice->reason, sizeof(choice->reason), "--capture pipewire=");
		return;
	}
	if (request->capture == CAPTURE_PORTAL) {
		choice->kind = SOURCE_PORTAL;
		snprintf(choice->reason, sizeof(choice->reason), "--capture portal");
		return;
	}
	if (capture_method_copies(request->capture) || request->desktop_part) {
		const char *forced = forced_name(request);
		unsigned allowed = allowed_protocols(request->capture);
		choice->kind = SOURCE_SCREENCOPY;
		unsigned offered = display ? probe(data, display, why, sizeof(why)) : 0;
		if (!display) {
			choice->failed = true;
			snprintf(choice->reason, sizeof(choice->reason),
				 "%s: WAYLAND_DISPLAY is not set", forced);
		} else if (!offered) {
			choice->failed = true;
			snprintf(choice->reason, sizeof(choice->reason), "%s: WAYLAND_DISPLAY=%s: %s",
				 forced, display, why);
		} else if (!(offered & allowed)) {
			choice->failed = true;
			snprintf(choice->reason, sizeof(choice->reason),
				 "%s: WAYLAND_DISPLAY=%s offers %s only", forced, display,
				 screencopy_protocol_name(preferred(offered)));
		} else {
			choice->protocol = preferred(offered & allowed);
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
	unsigned offered = probe(data, display, why, sizeof(why));
	if (offered) {
		choice->kind = SOURCE_SCREENCOPY;
		choice->protocol = preferred(offered);
		snprintf(choice->reason, sizeof(choice->reason), "WAYLAND_DISPLAY=%s offers %s%s",
			 display, screencopy_protocol_name(choice->protocol),
			 offered == (SCREENCOPY_EXT | SCREENCOPY_WLR)
			 ? ", preferred to wlr-screencopy" : "");
		return;
	}
	if (request->portal_probe &&
	    request->portal_probe(data, choice->portal_note, sizeof(choice->portal_note))) {
		choice->portal_note[0] = 0;
		choice->kind = SOURCE_PORTAL;
		snprintf(choice->reason, sizeof(choice->reason),
			 "WAYLAND_DISPLAY=%s: %s; the session bus has a ScreenCast portal", display,
			 why);
		return;
	}
	snprintf(choice->reason, sizeof(choice->reason), "WAYLAND_DISPLAY=%s: %s", display, why);
}
