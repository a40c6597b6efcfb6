#define LOG_MODULE ""
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <wayland-client-core.h>

#include "app.h"
#include "app_sink.h"
#include "child.h"
#include "child_output.h"
#include "control.h"
#include "copy_server.h"
#include "log.h"
#include "options.h"
#include "output_name.h"
#include "preflight.h"
#include "recorder.h"
#include "recording.h"
#include "screen_capture.h"
#include "screenshot.h"
#include "server.h"
#include "shm.h"
#include "source_select.h"
#include "stats.h"
#include "window_setup.h"
#include "xdg_shell.h"

/* After xdg_toplevel.close, how long COMMAND has to exit before SIGTERM. */
#define CLOSE_GRACE_MS 3000

void app_stop(struct app *app, int status, const char *reason)
{
	if (app->stopping)
		return;
	app->stopping = true;
	app->status = status;
	stats_note_stop(reason);
	if (reason)
		LOG_INFO("stopping: %s", reason);
}

/* libwayland's own messages concern a peer, not this recording: warnings,
 * hidden by -q. The server side speaks of a hosted client (a protocol
 * error, a broken connection), the client side of the desktop wl-record
 * records or shows its window on (screencopy, --window). */
static void log_from_libwayland(const char *fmt, va_list args)
{
	log_vpiece(LOG_LEVEL_WARN, "wayland", NULL, fmt, args);
}

static void log_from_libwayland_client(const char *fmt, va_list args)
{
	log_vpiece(LOG_LEVEL_WARN, "wayland-client", NULL, fmt, args);
}

static int handle_signal(int sig, void *data)
{
	struct app *app = data;
	switch (sig) {
	case SIGUSR1:
		if (app->recording)
			recording_snap(app->recording);
		else
			LOG_WARN("SIGUSR1 asks for a still while recording; not recording");
		break;
	case SIGCHLD: {
		int status;
		if (app->child > 0 && waitpid(app->child, &status, WNOHANG) == app->child) {
			if (app->stopping) {
				/* Ended as asked (or with us): not a failure of its own. */
				LOG_DBG("the command exited by itself with status %d after the "
					"recording stopped", child_exit_status(status));
				app->child = 0;
				break;
			}
			app->child_exited = true;
			app->child_status = child_exit_status(status);
			app->child = 0;
			if (app->screenshot && !screenshot_take_now(app->screenshot))
				app_stop(app, EXIT_FAILED, "the command exited before a picture was taken");
			else
				app_stop(app, EXIT_OK, "the command exited");
		}
		break;
	}
	default: {
		/* Later signals only repeat the request: finalisation goes on;
		 * during COMMAND's grace period they end it. */
		if (app->closing_command)
			app->close_grace_over = true;
		char reason[64];
		snprintf(reason, sizeof(reason), "received %s", strsignal(sig));
		app_stop(app, app->screenshot ? EXIT_FAILED : EXIT_OK, reason);
		break;
	}
	}
	return 0;
}

static bool install_signals(struct app *app)
{
	/* Through the event loop (signalfd), before any thread exists, so every
	 * thread inherits the blocked mask and no handler ever runs in the
	 * middle of finalisation. */
	int signals[] = { SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGCHLD };
	for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++) {
		app->signal_sources[i] = wl_event_loop_add_signal(app->loop, signals[i],
								  handle_signal, app);
		if (!app->signal_sources[i]) {
			LOG_ERR("cannot watch signal %d", signals[i]);
			return false;
		}
	}
	/* A closed stdout or pipe, or a file-size limit (ulimit -f), must be a
	 * write error that finalises the file, not a silent death. */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
	return true;
}

static void handle_presenter_gone(struct wl_listener *listener, void *data)
{
	struct app *app = wl_container_of(listener, app, presenter_gone);
	if (app->options->command) {
		/* COMMAND decides when it is over: it may run several clients
		 * one after another. */
		LOG_DBG("the presenting client disconnected; waiting for the command");
		return;
	}
	if (app->screenshot && !screenshot_take_now(app->screenshot))
		app_stop(app, EXIT_FAILED, "the client disconnected before a picture was taken");
	else
		app_stop(app, EXIT_OK, "the presenting client disconnected");
}

static void handle_client_destroy(struct wl_listener *listener, void *data)
{
	struct app *app = wl_container_of(listener, app, client_destroy);
	wl_list_remove(&app->client_destroy.link);
	wl_list_init(&app->client_destroy.link);
	if (app->screenshot && !screenshot_take_now(app->screenshot))
		app_stop(app, EXIT_FAILED, "the client disconnected before a picture was taken");
	else
		app_stop(app, EXIT_OK, "the client disconnected");
}

/* Weston's screen-share hands its end of a socketpair over in
 * WAYLAND_SERVER_SOCKET: that client is the only one, and no socket is
 * opened. */
static bool connect_clients(struct app *app)
{
	const char *fd_text = getenv("WAYLAND_SERVER_SOCKET");
	if (fd_text) {
		char *end;
		errno = 0;
		long fd = strtol(fd_text, &end, 10);
		if (errno || end == fd_text || *end || fd < 0 || fd > 65535 ||
		    fcntl((int)fd, F_SETFD, FD_CLOEXEC) < 0) {
			LOG_ERR("WAYLAND_SERVER_SOCKET='%s' is not an open file descriptor", fd_text);
			return false;
		}
		unsetenv("WAYLAND_SERVER_SOCKET");
		struct wl_client *client = server_adopt_client_fd(app->server, (int)fd);
		if (!client)
			return false;
		app->client_destroy.notify = handle_client_destroy;
		wl_client_add_destroy_listener(client, &app->client_destroy);
		LOG_DBG("serving the client on fd %ld", fd);
		return true;
	}
	if (!server_listen(app->server, app->options->socket_name))
		return false;
	LOG_INFO("listening on WAYLAND_DISPLAY=%s", app->server->socket_name);
	return true;
}

static int handle_close_grace(void *data)
{
	struct app *app = data;
	app->close_grace_over = true;
	return 0;
}

/* Once the file is finished: COMMAND is asked to close the way a desktop
 * asks an app (xdg_toplevel.close to each of its toplevels) and given
 * CLOSE_GRACE_MS to exit, the event loop serving it meanwhile (an app may
 * still talk to the compositor as it closes); then SIGTERM, then SIGKILL.
 * Without a toplevel to ask (a nested compositor), SIGTERM at once. */
static void end_command(struct app *app)
{
	int asked = app->server ? xdg_shell_close_toplevels(app->server->xdg_shell) : 0;
	struct wl_event_source *grace =
		asked ? wl_event_loop_add_timer(app->loop, handle_close_grace, app) : NULL;
	if (grace) {
		LOG_DBG("asking the command to close (%d %s)", asked, asked == 1 ? "window" : "windows");
		app->closing_command = true;
		wl_event_source_timer_update(grace, CLOSE_GRACE_MS);
		while (app->child > 0 && !app->close_grace_over) {
			wl_display_flush_clients(app->server->display);
			if (wl_event_loop_dispatch(app->loop, -1) < 0 && errno != EINTR)
				break;
		}
		wl_event_source_remove(grace);
		app->closing_command = false;
	}
	if (app->child <= 0)
		return;
	if (grace)
		LOG_INFO("the command did not close within %d s; terminating it",
			 CLOSE_GRACE_MS / 1000);
	int status = child_terminate(app->child, 3000);
	app->child = 0;
	LOG_DBG("the command ended with status %d", status < 0 ? -1 : child_exit_status(status));
}

/* Plain `wl-record` in a desktop session records nothing until something
 * presents to it: after a while, say what is expected instead of waiting
 * in silence. */
#define LISTEN_HINT_MS 5000

static int handle_listen_hint(void *data)
{
	struct app *app = data;
	if (app->server->screen.presenter || app->stopping)
		return 0;
	const char *name = app->server->socket_name;
	LOG_INFO("nothing is presenting to wl-record yet; run a nested compositor on "
		 "WAYLAND_DISPLAY=%s (e.g. WAYLAND_DISPLAY=%s weston -Bwayland-backend.so), "
		 "or record an app: wl-record FILE -- APP", name, name);
	return 0;
}

static const char *pid_file_path(const struct options *options, char *buf, unsigned size)
{
	return options->pid_file ? options->pid_file : control_default_pid_file(buf, size);
}

/* FILE with its strftime patterns expanded, or the default name; false
 * (with `*status` set) when there is none. A default name or a pattern's
 * name is created here, empty, so that recordings started at once never
 * share one (output_reserve); a name given as it is is created by the
 * writer, which refuses an existing file without -y. */
static bool choose_output_path(struct app *app, char *buf, size_t size, int *status)
{
	const struct options *options = app->options;
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	if (options->output && !output_expand_name(options->output, &tm, buf, size)) {
		LOG_ERR("the file name '%s' expands to nothing or too much", options->output);
		*status = EXIT_USAGE;
		return false;
	}
	if (!options->output &&
	    !output_default_path(options->screenshot ? OUTPUT_PICTURE : OUTPUT_VIDEO, &tm, buf, size)) {
		LOG_ERR("cannot make a default file name: give FILE");
		*status = EXIT_FAILED;
		return false;
	}
	if (options->output && !strchr(options->output, '%'))
		return true;
	int error = output_reserve(buf, size);
	if (error) {
		LOG_ERR("cannot create %s: %s", buf, strerror(error));
		*status = EXIT_FAILED;
		return false;
	}
	app->output_reserved = true;
	return true;
}

/* A name created by choose_output_path() that nothing was written to goes
 * again: a failed start leaves no empty file behind. */
static void drop_unused_reservation(const struct app *app)
{
	struct stat st;
	if (app->output_reserved && stat(app->output_path, &st) == 0 && st.st_size == 0)
		unlink(app->output_path);
}

/* One line on stdout that scripts and hotkey wrappers can take: the file
 * that is now complete. Not when the video itself went to stdout. */
static void print_output_path(const char *path)
{
	if (strcmp(path, "-") == 0 || access(path, F_OK) != 0)
		return;
	if (!log_output_line(stdout, path))
		LOG_WARN("cannot print the file name on stdout");
}

/* What the sinks report (pipeline_events.h): the run's end, the pid file
 * and the summary are the program's. */
static void handle_sink_stop(void *data, bool failed, const char *reason)
{
	app_stop(data, failed ? EXIT_FAILED : EXIT_OK, reason);
}

static bool handle_sink_stopping(void *data)
{
	const struct app *app = data;
	return app->stopping;
}

static bool handle_sink_running(void *data)
{
	const struct app *app = data;
	return app->running;
}

static void handle_first_frame(void *data, int64_t pts_ns)
{
	stats_note_first_frame(pts_ns);
}

static void handle_recorded(void *data, const struct recorder_stats *stats, double duration_s)
{
	stats_note_recording(stats, duration_s);
}

static void handle_snapped(void *data, const char *path)
{
	const struct app *app = data;
	control_note_still(app->pid_file, path);
}

static void handle_still_written(void *data, double write_ms)
{
	stats_note_still(write_ms);
}

static struct pipeline_events sink_events(struct app *app)
{
	return (struct pipeline_events){
		.data = app,
		.stop = handle_sink_stop,
		.stopping = handle_sink_stopping,
		.running = handle_sink_running,
		.first_frame = handle_first_frame,
		.recorded = handle_recorded,
		.snapped = handle_snapped,
		.still_written = handle_still_written,
	};
}

static bool create_screenshot(struct app *app)
{
	const struct options *options = app->options;
	struct screenshot_config config = {
		.path = app->output_path,
		.overwrite = app_may_replace_output(app),
		.loop = app->loop,
		.source = capture_source_frames(app->source),
		.hosting = app_is_hosting(app),
		.timeout_s = options->timeout_s,
		.delay_s = options->delay_s,
		.events = sink_events(app),
	};
	app->screenshot = screenshot_create(&config);
	return app->screenshot != NULL;
}

/* --snap of a recording without a name of the user's: a still is a
 * picture, so it goes where pictures go. */
static void pictures_folder(char *out, size_t size)
{
	output_default_dir(OUTPUT_PICTURE, out, size);
}

/* A status line is drawn on stderr (log_status_line says when it shows);
 * the hosted command's lines are then printed around it too. */
static bool wants_status_line(const struct options *options)
{
	return options->verbosity >= 0 && isatty(STDERR_FILENO);
}

/* Starts the encoder thread; NULL with `bad_config` as recording_create. */
static struct recording *create_recording(struct app *app, bool *bad_config)
{
	const struct options *options = app->options;
	struct recording_config config = {
		.recorder = {
			.path = app->output_path,
			.overwrite = app_may_replace_output(app),
			.codec = options->codec,
			.device = options->device,
			.bitrate = options->bitrate,
			.crf = options->crf,
			.fps = options->fps,
			.cfr = options->cfr,
			.codec_params = options->codec_params,
			.audio_mix = options->audio_mix,
			.audio_codec = options->audio_codec,
			.audio_bitrate = options->audio_bitrate,
		},
		.app_sink = app->app_sink,
		.audio_sources = options->audio_sources,
		.audio_source_count = options->audio_source_count,
		.loop = app->loop,
		.grid = &app->server->frame_clock.grid,
		.source = capture_source_frames(app->source),
		.hosting = app_is_hosting(app),
		.max_frames = options->max_frames,
		.duration_s = options->duration_s,
		.status_line = wants_status_line(options),
		.still_folder = !options->output || strcmp(options->output, "-") == 0
				? pictures_folder : NULL,
		.events = sink_events(app),
	};
	return recording_create(&config, bad_config);
}

/* Chooses where frames come from and says so; false (logged) when a
 * forced source cannot be had, with EXIT_USAGE for a -g no output holds. */
static bool choose_source(struct app *app)
{
	const struct options *options = app->options;
	struct source_select_request request = {
		.capture = options->capture,
		.pipewire_node = options->pipewire_node,
		.output_name = options->output_name,
		.region = options->region,
		.region_x = options->region_x, .region_y = options->region_y,
		.region_width = options->region_width, .region_height = options->region_height,
		.no_cursor = options->no_cursor,
		.still = options->screenshot,
		.codec = options->codec,
		.device = options->device,
		.server_socket = getenv("WAYLAND_SERVER_SOCKET") != NULL,
		.command = options->command != NULL,
		.socket_name = options->socket_name != NULL,
		.wayland_display = getenv("WAYLAND_DISPLAY"),
		.host = screen_capture_create,
	};
	bool bad_usage;
	app->source = source_select(&request, &bad_usage);
	if (bad_usage)
		app->status = EXIT_USAGE;
	return app->source != NULL;
}

/* The source ended by itself (its compositor, node or portal session went
 * away): a failure, said once. */
static void handle_source_ended(void *data, const char *why)
{
	struct app *app = data;
	if (app->stopping)
		return;
	stats_note_stop(why);
	LOG_ERR("%s", why);
	app_stop(app, EXIT_FAILED, NULL);
}

/* The sink first: a bad setting is refused before anything listens. A
 * recording writes the pid file (`previous`: the entry it replaced). */
static bool create_sink(struct app *app, const char *pid_file,
			struct control_entry *previous)
{
	const struct options *options = app->options;
	if (options->screenshot)
		return create_screenshot(app);
	if (options->app_audio) {
		/* Before the recording, which records its monitor, and the
		 * command, which plays into it. Shown in mixers by the
		 * command's name. */
		const char *slash = strrchr(options->command[0], '/');
		app->app_sink = app_sink_create(slash ? slash + 1 : options->command[0],
						!options->mute_app);
		if (!app->app_sink)
			return false;
	}
	bool bad_config;
	app->recording = create_recording(app, &bad_config); /* starts the encoder thread */
	if (!app->recording) {
		if (bad_config)
			app->status = EXIT_USAGE;
		return false;
	}
	if (pid_file && control_write_pid_file(pid_file, app->output_path, previous))
		app->pid_file = pid_file;
	return true;
}

/* What run() made, undone in order, then its one line on stdout: the
 * status wl-record exits with. */
static int finish(struct app *app, const struct control_entry *previous)
{
	if (app->recording && recording_finish(app->recording) < 0)
		app->status = EXIT_FAILED;
	app->recording = NULL;
	screenshot_destroy(app->screenshot);
	app->screenshot = NULL;
	capture_source_destroy(app->source);
	app->source = NULL;
	window_setup_teardown(app);
	/* Before the display: its clients' capture objects become inert. */
	copy_server_destroy(app->copy_server);
	app->copy_server = NULL;
	if (app->pid_file)
		control_remove_pid_file(app->pid_file, previous);
	wl_list_remove(&app->presenter_gone.link);
	wl_list_remove(&app->client_destroy.link);
	if (app->child > 0)
		end_command(app);
	/* After the command: what it wrote to the end is printed. */
	child_output_destroy(app->child_output);
	app->child_output = NULL;
	/* After the command: its streams never fall back to the speakers. */
	app_sink_destroy(app->app_sink);
	app->app_sink = NULL;
	if (app->listen_hint)
		wl_event_source_remove(app->listen_hint);
	for (size_t i = 0; i < sizeof(app->signal_sources) / sizeof(app->signal_sources[0]); i++) {
		if (app->signal_sources[i])
			wl_event_source_remove(app->signal_sources[i]);
	}
	server_destroy(app->server);
	if (app->output_path)
		drop_unused_reservation(app);
	stats_write(app);
	if (app->status == EXIT_OK && app->output_path)
		print_output_path(app->output_path);
	/* With a COMMAND its own failure comes first: `wl-record out.mkv -- make
	 * test` must fail when the tests fail, recorded or not. */
	if (app->child_exited && (app->child_status != 0 || app->status == EXIT_OK))
		return app->child_status;
	return app->status;
}

static int run(const struct options *options)
{
	struct app app = { .options = options, .status = EXIT_FAILED };
	wl_list_init(&app.client_destroy.link);
	wl_list_init(&app.presenter_gone.link);
	char path_buf[4096], pid_buf[4096];
	const char *pid_file = pid_file_path(options, pid_buf, sizeof(pid_buf));
	struct control_entry previous_recording = { 0 };

	if (!choose_output_path(&app, path_buf, sizeof(path_buf), &app.status))
		goto out;
	app.output_path = path_buf;
	app.status = preflight_check(&app);
	if (app.status != EXIT_OK)
		goto out;
	app.status = EXIT_FAILED;

	/* The desktop first, while WAYLAND_DISPLAY is still its name. */
	if (!window_setup_connect(&app))
		goto out;
	/* Before the server: a forced source that cannot be had is one line. */
	if (!choose_source(&app))
		goto out;
	struct server_config config = {
		.width = options->width, .height = options->height, .fps = options->fps,
		.no_fullscreen_shell = options->no_fullscreen_shell,
		.background = options->background, .compose_all = options->compose_all,
		.draw_cursor = options->cursor,
	};
	app.server = server_create(&config);
	if (!app.server)
		goto out;
	app.loop = app.server->loop;
	if (!install_signals(&app))
		goto out;
	if (app_is_hosting(&app))
		screen_capture_set_screen(app.source, &app.server->screen);

	if (!create_sink(&app, pid_file, &previous_recording))
		goto out;

	/* A hosted session can be captured by other tools too, beside the
	 * sink above (connected after it: the recording gets each frame first). */
	if (app_is_hosting(&app)) {
		app.copy_server = copy_server_create(app.server->display, shm_buffer_writer(),
						     app.server->screen.width,
						     app.server->screen.height);
		if (!app.copy_server)
			goto out;
		copy_server_connect(app.copy_server, capture_source_frames(app.source));
	}

	if (!capture_source_start(app.source, app.loop, handle_source_ended, &app))
		goto out;
	if (app_is_hosting(&app)) {
		if (!connect_clients(&app))
			goto out;
		app.presenter_gone.notify = handle_presenter_gone;
		wl_signal_add(&app.server->screen.events.presenter_gone, &app.presenter_gone);
	}

	if (!window_setup_open(&app))
		goto out;

	if (options->command) {
		/* Where a status line is drawn, the command's lines are printed
		 * around it, as ours are. */
		if (wants_status_line(options))
			app.child_output = child_output_create(app.loop);
		app.child = child_spawn(options->command, app.server->socket_name,
					app.child_output ? child_output_fd(app.child_output) : -1,
					strcmp(app.output_path, "-") == 0,
					app.app_sink ? app_sink_name(app.app_sink) : NULL);
		child_output_started(app.child_output);
		if (app.child < 0) {
			/* As a shell says it: 127 not found, 126 found but not run. */
			app.child_status = errno == ENOENT ? 127 : 126;
			app.child_exited = true;
			app.child = 0;
			goto out;
		}
	}

	if (!options->command && app.server->socket_name[0]) {
		app.listen_hint = wl_event_loop_add_timer(app.loop, handle_listen_hint, &app);
		if (app.listen_hint)
			wl_event_source_timer_update(app.listen_hint, LISTEN_HINT_MS);
	}

	app.status = EXIT_OK;
	app.running = true;
	while (!app.stopping) {
		wl_display_flush_clients(app.server->display);
		if (wl_event_loop_dispatch(app.loop, -1) < 0 && errno != EINTR) {
			LOG_ERRNO("the event loop failed");
			app_stop(&app, EXIT_FAILED, NULL);
		}
	}

out:
	return finish(&app, &previous_recording);
}

/* A hotkey bound to `wl-record --toggle`: the first press records, the
 * second stops that recording as --stop does (waits until its file is
 * complete, prints its path). */
static int toggle(const char *pid_file, const struct options *options)
{
	struct control_entry running;
	if (!control_running(pid_file, &running))
		return run(options);
	LOG_INFO("stopping the running recording (pid %d)", (int)running.pid);
	return control_stop_entry(&running);
}

int main(int argc, char **argv)
{
	struct options options;
	switch (options_parse(argc, argv, &options)) {
	case OPTIONS_DONE:
		return EXIT_OK;
	case OPTIONS_BAD:
		return EXIT_USAGE;
	case OPTIONS_RUN:
		break;
	}
	log_set_level(options.verbosity < 0 ? LOG_LEVEL_QUIET
		      : options.verbosity > 0 ? LOG_LEVEL_DEBUG : LOG_LEVEL_INFO);
	wl_log_set_handler_server(log_from_libwayland);
	wl_log_set_handler_client(log_from_libwayland_client);
	/* The summary is for our caller, not for COMMAND's processes, which
	 * could keep a pipe open after wl-record has gone. */
	if (options.stats_fd > STDERR_FILENO)
		fcntl(options.stats_fd, F_SETFD, FD_CLOEXEC);

	if (options.list_encoders) {
		return recorder_list_encoders() ? EXIT_OK : EXIT_FAILED;
	}
	if (options.list_outputs)
		return source_list_outputs(getenv("WAYLAND_DISPLAY")) ? EXIT_OK : EXIT_FAILED;
	if (options.forget_portal)
		return source_forget_portal() ? EXIT_OK : EXIT_FAILED;
	char buf[4096];
	const char *pid_file = pid_file_path(&options, buf, sizeof(buf));
	if (options.snap)
		return control_snap(pid_file);
	if (options.stop)
		return control_stop(pid_file);
	if (options.toggle)
		return toggle(pid_file, &options);
	return run(&options);
}
