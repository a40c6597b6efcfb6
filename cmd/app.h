#ifndef WL_RECORD_APP_H
#define WL_RECORD_APP_H

#include <stdbool.h>
#include <sys/types.h>
#include <wayland-server-core.h>

#include "capture_source.h"
#include "options.h"

struct server;
struct screenshot;
struct recording;
struct copy_server;
struct app_sink;
struct desktop_window;

/* Exit statuses. */
#define EXIT_OK 0
#define EXIT_FAILED 1
#define EXIT_USAGE 2

/* The running program: one compositor feeding one sink (a screenshot or a
 * recording), stopped by exactly one path, app_stop(). */
struct app {
	const struct options *options;
	const char *output_path;
	const char *pid_file; /* written by this recording, for --snap; NULL if none */
	bool output_reserved; /* output_path was created empty for us (output_reserve) */
	struct server *server;
	struct wl_event_loop *loop;

	bool running;         /* start-up succeeded: the main loop was entered */
	bool stopping;
	int status;
	struct wl_event_source *signal_sources[5];
	struct wl_event_source *listen_hint; /* "nothing is presenting…" */

	pid_t child;          /* COMMAND after "--", 0 when none */
	struct child_output *child_output; /* its output around our status line; NULL: none */
	bool child_exited;
	int child_status;     /* as an exit status */
	bool closing_command; /* COMMAND was asked to close; its grace period runs */
	bool close_grace_over;

	struct wl_listener client_destroy;   /* the WAYLAND_SERVER_SOCKET client */
	struct wl_listener presenter_gone;

	struct screenshot *screenshot;
	struct recording *recording;
	/* --app-audio: COMMAND's own output; it outlives the recording and
	 * the command (unloaded last, so the command never plays elsewhere). */
	struct app_sink *app_sink;

	/* Where frames come from (source_select.h): the hosted screen, the
	 * desktop copied, a PipeWire node or the portal's; the sinks connect
	 * to its capture_source_frames(). */
	struct capture_source *source;
	/* ext-image-copy-capture on the hosted display (NULL when copying). */
	struct copy_server *copy_server;
	/* --window: the recording shown on the desktop (NULL without). */
	struct desktop_window *window;
};

/* Whether the writer may replace output_path: -y, or the file is the empty
 * one reserved for this run. */
static inline bool app_may_replace_output(const struct app *app)
{
	return app->options->overwrite || app->output_reserved;
}

/* Whether frames come from the hosted screen, not from the desktop copied
 * or a PipeWire node (nothing is copied before the choice or after the
 * source is gone). */
static inline bool app_is_hosting(const struct app *app)
{
	return !app->source || capture_source_is_hosting(app->source);
}

/* Ends the main loop; the first call decides the reason and status. */
void app_stop(struct app *app, int status, const char *reason);

#endif
