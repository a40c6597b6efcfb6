#define LOG_MODULE "client"
#include "desktop_connection.h"

#include <errno.h>
#include <wayland-client-core.h>
#include <wayland-server-core.h>

#include "log.h"

static void fail(struct desktop_connection *connection, enum desktop_connection_failure failure,
		 int error)
{
	desktop_connection_unwatch(connection);
	if (connection->failed)
		connection->failed(connection->data, failure, error);
}

static bool read_and_dispatch(struct wl_display *display)
{
	/* Events already queued go first; then the fd is readable, so
	 * read_events takes what is there and does not wait. */
	while (wl_display_prepare_read(display) != 0) {
		if (wl_display_dispatch_pending(display) < 0)
			return false;
	}
	return wl_display_read_events(display) >= 0 && wl_display_dispatch_pending(display) >= 0;
}

static int handle_readable(int fd, uint32_t mask, void *data)
{
	(void)fd;
	struct desktop_connection *connection = data;
	if (mask & WL_EVENT_READABLE) {
		if (!read_and_dispatch(connection->display)) {
			fail(connection, DESKTOP_CONNECTION_READ_FAILED,
			     wl_display_get_error(connection->display));
			return 0;
		}
	} else if (mask & (WL_EVENT_HANGUP | WL_EVENT_ERROR)) {
		fail(connection, DESKTOP_CONNECTION_HUNG_UP, 0);
		return 0;
	}
	/* The handlers may have ended the connection (watch gone). */
	desktop_connection_flush(connection);
	return 0;
}

bool desktop_connection_watch(struct desktop_connection *connection, struct wl_event_loop *loop,
			      struct wl_display *display,
			      void (*failed)(void *data, enum desktop_connection_failure failure,
					     int error),
			      void *data)
{
	*connection = (struct desktop_connection){
		.display = display,
		.failed = failed,
		.data = data,
	};
	connection->watch = wl_event_loop_add_fd(loop, wl_display_get_fd(display), WL_EVENT_READABLE,
						 handle_readable, connection);
	if (!connection->watch) {
		LOG_ERR("cannot watch the desktop's connection");
		return false;
	}
	return true;
}

bool desktop_connection_flush(struct desktop_connection *connection)
{
	if (!connection->watch)
		return false;
	int sent = wl_display_flush(connection->display);
	bool again = sent < 0 && errno == EAGAIN;
	if (sent < 0 && !again) {
		fail(connection, DESKTOP_CONNECTION_FLUSH_FAILED, errno);
		return false;
	}
	wl_event_source_fd_update(connection->watch,
				  again ? WL_EVENT_READABLE | WL_EVENT_WRITABLE : WL_EVENT_READABLE);
	return true;
}

void desktop_connection_unwatch(struct desktop_connection *connection)
{
	if (connection->watch) {
		wl_event_source_remove(connection->watch);
		connection->watch = NULL;
	}
}
