#ifndef WL_RECORD_SOURCE_CHOICE_H
#define WL_RECORD_SOURCE_CHOICE_H

#include <stdbool.h>
#include <stddef.h>

#include "screencopy_protocol.h"

/* --capture METHOD. */
enum capture_method {
	CAPTURE_AUTO = 0,        /* the order below */
	CAPTURE_SCREENCOPY,      /* the desktop on WAYLAND_DISPLAY, by either protocol, or fail */
	CAPTURE_EXT_COPY,        /* the same through ext-image-copy-capture only */
	CAPTURE_WLR_SCREENCOPY,  /* the same through wlr-screencopy only */
	CAPTURE_LISTEN,          /* host: wait for a compositor to present to us */
	CAPTURE_PIPEWIRE,        /* a PipeWire video node (pipewire=NODE, parsed by options.c) */
	CAPTURE_PORTAL,          /* the ScreenCast portal (the desktop asks the user) */
};

/* "screencopy", "ext-image-copy", "wlr-screencopy", "listen" (or "auto");
 * false for anything else. */
bool capture_method_parse(const char *name, enum capture_method *method);

/* Whether `method` copies the desktop (a forced screencopy of some kind). */
bool capture_method_copies(enum capture_method method);

/* Where frames come from: the nested compositor wl-record hosts (Weston's
 * screen-share on WAYLAND_SERVER_SOCKET, a COMMAND, or whatever connects to
 * its socket), or the desktop it runs in, copied through a protocol. */
enum source_kind {
	SOURCE_HOST,
	SOURCE_SCREENCOPY,
	SOURCE_PIPEWIRE,   /* --capture pipewire=NODE */
	SOURCE_PORTAL,     /* the ScreenCast portal's PipeWire stream */
};

/* Whether a ScreenCast portal answers on the session bus (false: the
 * reason in `why`). */
typedef bool (*source_portal_probe_fn)(void *data, char *why, size_t why_size);

struct source_request {
	enum capture_method capture;
	bool server_socket;          /* WAYLAND_SERVER_SOCKET is set */
	bool command;                /* -- COMMAND given */
	bool socket_name;            /* --socket given */
	bool desktop_part;           /* -o or -g given: only a copied desktop has monitors */
	const char *wayland_display; /* $WAYLAND_DISPLAY; NULL or "" when unset */
	/* Asked when the desktop offers no copy protocol; NULL: no portal. */
	source_portal_probe_fn portal_probe;
};

/* Which screencopy_protocol bits `display` offers (0: it cannot be copied,
 * the reason in `why`). */
typedef unsigned (*source_probe_fn)(void *data, const char *display, char *why,
				    size_t why_size);


struct source_choice {
	enum source_kind kind;
	enum screencopy_protocol protocol; /* SOURCE_SCREENCOPY: the one to copy through */
	bool failed;      /* a forced copy (--capture, -o or -g) cannot be done */
	char reason[320]; /* why this source, or why it failed */
	char portal_note[256]; /* hosting after the portal was asked: why not the portal */
};

/* Chooses in this order: --capture screencopy / ext-image-copy /
 * wlr-screencopy, -o or -g (each a copy of the desktop, or a failure);
 * WAYLAND_SERVER_SOCKET (a screen-share launched us: the inherited
 * WAYLAND_DISPLAY is the compositor sharing, not a desktop to copy); --
 * COMMAND; --capture listen or --socket; WAYLAND_DISPLAY when `probe` says
 * it offers a copy protocol; the ScreenCast portal when it does not but the
 * request's portal_probe finds one (GNOME, KDE: they offer no copy
 * protocol); else host and listen (the default before
 * there was screencopy). Of the protocols offered (and allowed by
 * --capture), ext-image-copy-capture is preferred. `probe` is called at
 * most once, only when its answer decides. */
void source_choose(const struct source_request *request, source_probe_fn probe, void *data,
		   struct source_choice *choice);

#endif
