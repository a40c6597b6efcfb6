#ifndef WL_RECORD_SOURCE_CHOICE_H
#define WL_RECORD_SOURCE_CHOICE_H

#include <stdbool.h>
#include <stddef.h>

/* --capture METHOD. */
enum capture_method {
	CAPTURE_AUTO = 0,   /* the order below */
	CAPTURE_SCREENCOPY, /* the desktop on WAYLAND_DISPLAY, or fail */
	CAPTURE_LISTEN,     /* host: wait for a compositor to present to us */
};

/* "screencopy", "listen" (or "auto"); false for anything else. */
bool capture_method_parse(const char *name, enum capture_method *method);

/* Where frames come from: the nested compositor wl-record hosts (Weston's
 * screen-share on WAYLAND_SERVER_SOCKET, a COMMAND, or whatever connects to
 * its socket), or the desktop it runs in, copied through wlr-screencopy. */
enum source_kind {
	SOURCE_HOST,
	SOURCE_SCREENCOPY,
};

struct source_request {
	enum capture_method capture;
	bool server_socket;          /* WAYLAND_SERVER_SOCKET is set */
	bool command;                /* -- COMMAND given */
	bool socket_name;            /* --socket given */
	bool desktop_part;           /* -o or -g given: only a copied desktop has monitors */
	const char *wayland_display; /* $WAYLAND_DISPLAY; NULL or "" when unset */
};

/* Whether `display` can be captured; the reason in `why` when not. */
typedef bool (*source_probe_fn)(void *data, const char *display, char *why, size_t why_size);

struct source_choice {
	enum source_kind kind;
	bool failed;      /* --capture screencopy, -o or -g, and it cannot be done */
	char reason[320]; /* why this source, or why it failed */
};

/* Chooses in this order: --capture screencopy, -o or -g (each a copy of
 * the desktop, or a failure); WAYLAND_SERVER_SOCKET (a
 * screen-share launched us: the inherited WAYLAND_DISPLAY is the compositor
 * sharing, not a desktop to copy); -- COMMAND; --capture listen or --socket;
 * WAYLAND_DISPLAY when `probe` says it offers wlr-screencopy; else host and
 * listen (the default before there was screencopy). `probe` is called at
 * most once, only when its answer decides. */
void source_choose(const struct source_request *request, source_probe_fn probe, void *data,
		   struct source_choice *choice);

#endif
