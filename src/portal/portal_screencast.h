#ifndef WL_RECORD_PORTAL_SCREENCAST_H
#define WL_RECORD_PORTAL_SCREENCAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <wayland-server-core.h>

#include "ended.h"

/* The desktop's screen or window through the xdg-desktop-portal ScreenCast
 * interface (GNOME, KDE, wlroots through xdg-desktop-portal-wlr, ...):
 * CreateSession, SelectSources, Start (the desktop may ask the user), then
 * OpenPipeWireRemote. What comes back is a PipeWire connection and a node
 * id; reading it is the pipewire/ source's work.
 *
 * Every call is synchronous with a timeout, run before the recording
 * starts. The session is closed (Session.Close) by portal_cast_close on
 * every path; should wl-record die, the portal closes it when our bus name
 * goes. */
struct portal_cast;

enum portal_outcome {
	PORTAL_STARTED,
	PORTAL_ABSENT,   /* no session bus, or no ScreenCast portal on it */
	PORTAL_REFUSED,  /* the user said no (response 1) */
	PORTAL_FAILED,   /* anything else, the reason in `why` */
};

struct portal_request {
	bool no_cursor;
	/* The restore token to offer (NULL: none); the new one is returned by
	 * portal_cast_restore_token. */
	const char *restore_token;
};

/* Whether a ScreenCast portal answers on the session bus (it may be
 * started by D-Bus activation); false with the reason in `why`. */
bool portal_screencast_offered(char *why, size_t why_size);

struct portal_cast *portal_cast_start(const struct portal_request *request,
				      enum portal_outcome *outcome, char *why, size_t why_size);

/* The PipeWire node of the chosen stream. */
uint32_t portal_cast_node(const struct portal_cast *cast);

/* The PipeWire connection the portal opened for us; the caller owns it
 * (-1 after the first call). */
int portal_cast_take_remote(struct portal_cast *cast);

/* The token to remember for next time ("" when the portal gave none). */
const char *portal_cast_restore_token(const struct portal_cast *cast);

/* "a monitor (1280x720) chosen through the portal" */
const char *portal_cast_describe(const struct portal_cast *cast);

/* Watches for the portal closing the session, on `loop`: `closed` says how
 * it ended from the portal's side (the user stopped sharing). */
bool portal_cast_watch(struct portal_cast *cast, struct wl_event_loop *loop,
		       ended_fn closed, void *data);

/* Closes the session (when still open) and the bus connection. NULL is a
 * no-op. */
void portal_cast_close(struct portal_cast *cast);

/* --- the remembered consent --- */

/* $XDG_STATE_HOME/wl-record/portal-token (default ~/.local/state/...);
 * false when neither it nor $HOME is set. */
bool portal_token_path(char *path, size_t size);

/* The stored token (malloc'd), or NULL when there is none. */
char *portal_token_load(const char *path);

/* Replaces the stored token (mode 0600; the folder made 0700 as needed). */
bool portal_token_store(const char *path, const char *token, char *why, size_t why_size);

/* 1: removed, 0: there was none, -1: cannot (the reason in `why`). */
int portal_token_forget(const char *path, char *why, size_t why_size);

#endif
