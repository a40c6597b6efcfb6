#ifndef WL_RECORD_DESKTOP_CONNECTION_H
#define WL_RECORD_DESKTOP_CONNECTION_H

#include <stdbool.h>

struct wl_display;
struct wl_event_loop;
struct wl_event_source;

/* A client connection to the user's desktop compositor (screencopy/,
 * window/), pumped by wl-record's event loop: readable, it reads what is
 * there without waiting (prepare_read, read_events) and dispatches it;
 * then it sends what was queued, watching for the socket to take the rest
 * when it was full. Flushing or reading never blocks the loop. */

enum desktop_connection_failure {
	/* Reading or dispatching failed: wl_display_get_error() says why
	 * (EPROTO: the compositor sent a protocol error). */
	DESKTOP_CONNECTION_READ_FAILED,
	/* The compositor closed the socket. */
	DESKTOP_CONNECTION_HUNG_UP,
	/* Sending failed; `error` is its errno value. */
	DESKTOP_CONNECTION_FLUSH_FAILED,
};

struct desktop_connection {
	struct wl_display *display;
	struct wl_event_source *watch; /* NULL: not watched (not yet, or failed) */
	/* Called once when the connection fails; the watch is gone by then
	 * (a closed connection stays readable). */
	void (*failed)(void *data, enum desktop_connection_failure failure, int error);
	void *data;
};

/* Starts watching display's fd on loop. False when it cannot (logged). */
bool desktop_connection_watch(struct desktop_connection *connection, struct wl_event_loop *loop,
			      struct wl_display *display,
			      void (*failed)(void *data, enum desktop_connection_failure failure,
					     int error),
			      void *data);

/* Sends what is queued; what does not fit goes when the socket takes it.
 * False when the connection is not watched or failed (`failed` called). */
bool desktop_connection_flush(struct desktop_connection *connection);

/* Stops watching (also after a failure; accepts a zeroed connection). */
void desktop_connection_unwatch(struct desktop_connection *connection);

#endif
