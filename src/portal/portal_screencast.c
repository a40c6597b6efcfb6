#define LOG_MODULE "portal"
#include "portal_screencast.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <gio/gio.h>
#include <gio/gunixfdlist.h>

#include "log.h"
#include "portal_reply.h"

#define PORTAL_NAME "org.freedesktop.portal.Desktop"
#define PORTAL_PATH "/org/freedesktop/portal/desktop"
#define SCREENCAST_INTERFACE "org.freedesktop.portal.ScreenCast"
#define REQUEST_INTERFACE "org.freedesktop.portal.Request"
#define SESSION_INTERFACE "org.freedesktop.portal.Session"

/* A method call's answer; and a Request's Response, except Start's, which
 * may wait for the user to choose in the desktop's dialog. */
#define CALL_TIMEOUT_MS 10000
#define RESPONSE_TIMEOUT_MS 10000
#define DIALOG_TIMEOUT_MS 180000
#define CLOSE_TIMEOUT_MS 2000

/* SelectSources' bits. */
#define SOURCE_MONITOR 1u
#define SOURCE_WINDOW 2u
#define CURSOR_HIDDEN 1u
#define CURSOR_EMBEDDED 2u
#define CURSOR_METADATA 4u
#define PERSIST_UNTIL_REVOKED 2u

struct portal_cast {
	GDBusConnection *bus;
	GMainContext *context;
	char *sender;          /* our unique name as a path element */
	char *session_path;    /* NULL until CreateSession answered */
	char *portal_owner;    /* the portal's unique name: only it may close the session */
	unsigned request_count;
	uint32_t version;      /* the ScreenCast interface's */

	uint32_t node;
	uint32_t source_type;
	uint32_t requested_types;
	int width, height;
	int remote_fd;
	char *restore_token;
	char description[160];

	/* The portal's Closed signal, seen on GDBus's own thread. */
	guint filter_id;
	guint closed_subscription;
	atomic_bool closed;
	atomic_int closed_event; /* eventfd, -1 until watched */
	struct wl_event_source *closed_source;
	ended_fn closed_callback;
	void *closed_data;
};

/* Opens a connection of our own to the session bus. GDBus starts a thread
 * for it: that thread must take none of the program's signals (the main
 * thread reads them from a signalfd), so it starts with all blocked. */
static GDBusConnection *connect_session_bus(char *why, size_t why_size)
{
	/* Without an address GLib would fall back to X11 autolaunch (a
	 * dbus-launch of its own): no session bus is the answer then. */
	const char *address_set = getenv("DBUS_SESSION_BUS_ADDRESS");
	const char *runtime = getenv("XDG_RUNTIME_DIR");
	char *bus_socket = runtime ? g_build_filename(runtime, "bus", NULL) : NULL;
	bool bus_socket_exists = bus_socket && g_file_test(bus_socket, G_FILE_TEST_EXISTS);
	g_free(bus_socket);
	if ((!address_set || !address_set[0]) && !bus_socket_exists) {
		snprintf(why, why_size, "no session D-Bus (DBUS_SESSION_BUS_ADDRESS is not set, "
			 "and there is no $XDG_RUNTIME_DIR/bus)");
		return NULL;
	}
	GError *error = NULL;
	char *address = g_dbus_address_get_for_bus_sync(G_BUS_TYPE_SESSION, NULL, &error);
	if (!address) {
		snprintf(why, why_size, "no session D-Bus (%s)", error->message);
		g_error_free(error);
		return NULL;
	}
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	GDBusConnection *bus = g_dbus_connection_new_for_address_sync(
		address, G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
		G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION, NULL, NULL, &error);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!bus) {
		snprintf(why, why_size, "cannot connect to the session D-Bus at %s (%s)", address,
			 error->message);
		g_error_free(error);
	}
	g_free(address);
	return bus;
}

static bool error_is(const GError *error, const char *name)
{
	char *remote = g_dbus_error_get_remote_error(error);
	bool same = remote && strcmp(remote, name) == 0;
	g_free(remote);
	return same;
}

/* The portal's message without GDBus's "GDBus.Error:name: " prefix. */
static const char *error_text(GError *error)
{
	g_dbus_error_strip_remote_error(error);
	return error->message;
}

/* A ScreenCast property (a uint32); false with `why` (and `absent` when
 * there is no portal, or no ScreenCast in it). */
static bool read_property(GDBusConnection *bus, const char *name, uint32_t *value,
			  bool *absent, char *why, size_t why_size)
{
	GError *error = NULL;
	GVariant *reply = g_dbus_connection_call_sync(bus, PORTAL_NAME, PORTAL_PATH,
		"org.freedesktop.DBus.Properties", "Get",
		g_variant_new("(ss)", SCREENCAST_INTERFACE, name), G_VARIANT_TYPE("(v)"),
		G_DBUS_CALL_FLAGS_NONE, CALL_TIMEOUT_MS, NULL, &error);
	if (!reply) {
		*absent = error_is(error, "org.freedesktop.DBus.Error.ServiceUnknown") ||
			  error_is(error, "org.freedesktop.DBus.Error.NameHasNoOwner") ||
			  error_is(error, "org.freedesktop.DBus.Error.UnknownInterface") ||
			  error_is(error, "org.freedesktop.DBus.Error.InvalidArgs") ||
			  error_is(error, "org.freedesktop.DBus.Error.UnknownProperty");
		if (*absent)
			snprintf(why, why_size, "no ScreenCast portal on the session D-Bus "
				 "(xdg-desktop-portal with a backend for this desktop: %s)",
				 error_text(error));
		else
			snprintf(why, why_size, "the portal does not answer (%s)", error_text(error));
		g_error_free(error);
		return false;
	}
	GVariant *boxed;
	g_variant_get(reply, "(v)", &boxed);
	bool typed = g_variant_is_of_type(boxed, G_VARIANT_TYPE_UINT32);
	if (typed)
		*value = g_variant_get_uint32(boxed);
	else
		snprintf(why, why_size, "the portal's %s is not a number", name);
	g_variant_unref(boxed);
	g_variant_unref(reply);
	*absent = false;
	return typed;
}

bool portal_screencast_offered(char *why, size_t why_size)
{
	GDBusConnection *bus = connect_session_bus(why, why_size);
	if (!bus)
		return false;
	uint32_t version = 0;
	bool absent;
	bool offered = read_property(bus, "version", &version, &absent, why, why_size);
	g_dbus_connection_close_sync(bus, NULL, NULL);
	g_object_unref(bus);
	return offered;
}

/* --- requests and their Response --- */

struct response {
	const char *portal_owner;
	bool answered;
	bool timed_out;
	uint32_t code;
	GVariant *results;
};

static void handle_response(GDBusConnection *bus, const char *sender, const char *path,
			    const char *interface, const char *signal, GVariant *parameters,
			    void *data)
{
	(void)bus;
	(void)path;
	(void)interface;
	(void)signal;
	struct response *response = data;
	/* Anyone on the bus may send us a Response; GLib before 2.80.1 (CVE-
	 * 2024-34397) does not check a well-known sender name, so the portal's
	 * unique name is checked here, whatever GLib does. */
	if (g_strcmp0(sender, response->portal_owner) != 0) {
		LOG_DBG("ignored a Response on %s from %s, not the portal (%s)", path,
			sender ? sender : "(nobody)", response->portal_owner);
		return;
	}
	if (response->answered)
		return;
	response->answered = wl_record_portal_read_response(parameters, &response->code,
							    &response->results);
}

bool wl_record_portal_read_response(GVariant *parameters, uint32_t *code, GVariant **results)
{
	if (!parameters || !g_variant_is_of_type(parameters, G_VARIANT_TYPE("(ua{sv})")))
		return false;
	g_variant_get(parameters, "(u@a{sv})", code, results);
	return true;
}

char *wl_record_portal_session_handle(GVariant *results)
{
	const char *session = NULL;
	if (!g_variant_is_of_type(results, G_VARIANT_TYPE_VARDICT))
		return NULL;
	if (!g_variant_lookup(results, "session_handle", "&s", &session) &&
	    !g_variant_lookup(results, "session_handle", "&o", &session))
		return NULL;
	return strdup(session);
}

bool wl_record_portal_read_start(GVariant *results, struct wl_record_portal_stream *stream)
{
	stream->restore_token = NULL;
	if (!g_variant_is_of_type(results, G_VARIANT_TYPE_VARDICT))
		return false;
	const char *token = NULL;
	if (g_variant_lookup(results, "restore_token", "&s", &token))
		stream->restore_token = strdup(token);
	GVariant *streams = g_variant_lookup_value(results, "streams", G_VARIANT_TYPE("a(ua{sv})"));
	bool found = false;
	if (streams && g_variant_n_children(streams) > 0) {
		GVariant *properties;
		g_variant_get_child(streams, 0, "(u@a{sv})", &stream->node, &properties);
		g_variant_lookup(properties, "source_type", "u", &stream->source_type);
		g_variant_lookup(properties, "size", "(ii)", &stream->width, &stream->height);
		g_variant_unref(properties);
		found = true;
	}
	if (streams)
		g_variant_unref(streams);
	return found;
}

int wl_record_portal_remote_index(GVariant *reply, int count)
{
	if (!g_variant_is_of_type(reply, G_VARIANT_TYPE("(h)")))
		return -1;
	gint32 index;
	g_variant_get(reply, "(h)", &index);
	/* The handle is the portal's word: GLib 2.74 reads the list at any
	 * index (a negative one before its start), so it is checked here. */
	return index >= 0 && index < count ? index : -1;
}

static gboolean handle_timeout(void *data)
{
	struct response *response = data;
	response->timed_out = true;
	return G_SOURCE_REMOVE;
}

/* Calls a ScreenCast method that answers through a Request: `options` gets
 * our handle_token (the Request's path is known before the call, so its
 * Response cannot be missed). PORTAL_STARTED with `results` (to unref). */
static enum portal_outcome request(struct portal_cast *cast, const char *method,
				   const char *session, GVariantBuilder *options,
				   int timeout_ms, GVariant **results, char *why, size_t why_size)
{
	char token[32], path[256];
	snprintf(token, sizeof(token), "wl_record_%u_%u", (unsigned)getpid(),
		 ++cast->request_count);
	snprintf(path, sizeof(path), PORTAL_PATH "/request/%s/%s", cast->sender, token);
	g_variant_builder_add(options, "{sv}", "handle_token", g_variant_new_string(token));

	/* From the portal's unique name only: GLib filters on a unique name. */
	struct response response = { .portal_owner = cast->portal_owner };
	guint subscription = g_dbus_connection_signal_subscribe(cast->bus, cast->portal_owner,
		REQUEST_INTERFACE, "Response", path, NULL, G_DBUS_SIGNAL_FLAGS_NO_MATCH_RULE,
		handle_response, &response, NULL);
	/* The match rule by hand: synchronously, so it is in place before the call. */
	char rule[512];
	snprintf(rule, sizeof(rule), "type='signal',sender='%s',interface='" REQUEST_INTERFACE
		 "',member='Response',path='%s'", cast->portal_owner, path);
	GVariant *added = g_dbus_connection_call_sync(cast->bus, "org.freedesktop.DBus",
		"/org/freedesktop/DBus", "org.freedesktop.DBus", "AddMatch",
		g_variant_new("(s)", rule), NULL, G_DBUS_CALL_FLAGS_NONE, CALL_TIMEOUT_MS, NULL,
		NULL);
	if (added)
		g_variant_unref(added);

	GVariant *arguments;
	if (!session)
		arguments = g_variant_new("(@a{sv})", g_variant_builder_end(options));
	else if (strcmp(method, "Start") == 0) /* and its parent window: none */
		arguments = g_variant_new("(os@a{sv})", session, "", g_variant_builder_end(options));
	else
		arguments = g_variant_new("(o@a{sv})", session, g_variant_builder_end(options));
	GError *error = NULL;
	GVariant *reply = g_dbus_connection_call_sync(cast->bus, PORTAL_NAME, PORTAL_PATH,
		SCREENCAST_INTERFACE, method, arguments, G_VARIANT_TYPE("(o)"),
		G_DBUS_CALL_FLAGS_NONE, CALL_TIMEOUT_MS, NULL, &error);
	enum portal_outcome outcome = PORTAL_FAILED;
	if (!reply) {
		snprintf(why, why_size, "the portal's ScreenCast.%s failed: %s", method,
			 error_text(error));
		g_error_free(error);
		goto out;
	}
	const char *returned;
	g_variant_get(reply, "(&o)", &returned);
	if (strcmp(returned, path) != 0)
		LOG_DBG("%s: the portal's request is %s, not %s", method, returned, path);
	g_variant_unref(reply);

	GSource *timer = g_timeout_source_new((guint)timeout_ms);
	g_source_set_callback(timer, handle_timeout, &response, NULL);
	g_source_attach(timer, cast->context);
	while (!response.answered && !response.timed_out)
		g_main_context_iteration(cast->context, TRUE);
	g_source_destroy(timer);
	g_source_unref(timer);
	if (!response.answered) {
		snprintf(why, why_size, "the portal did not answer ScreenCast.%s in %d s%s", method,
			 timeout_ms / 1000, timeout_ms > RESPONSE_TIMEOUT_MS
			 ? " (no choice made in its dialog, or the portal is stuck)" : "");
	} else if (response.code == 0) {
		*results = response.results;
		response.results = NULL;
		outcome = PORTAL_STARTED;
	} else if (response.code == 1) {
		snprintf(why, why_size, "the screen cast was refused in the desktop's dialog "
			 "(ScreenCast.%s: cancelled)", method);
		outcome = PORTAL_REFUSED;
	} else {
		snprintf(why, why_size, "the portal could not do ScreenCast.%s (response %" PRIu32
			 "; its log may say why)", method, response.code);
	}
	if (response.results)
		g_variant_unref(response.results);
out:
	g_dbus_connection_signal_unsubscribe(cast->bus, subscription);
	return outcome;
}

/* --- the session --- */

static void note_closed(GDBusConnection *bus, const char *sender, const char *path,
			const char *interface, const char *signal, GVariant *parameters, void *data)
{
	(void)bus;
	(void)sender;
	(void)path;
	(void)interface;
	(void)signal;
	(void)parameters;
	(void)data;
	/* Seen by the filter below already; subscribed for its match rule. */
}

/* On GDBus's thread, for every message that arrives. */
static GDBusMessage *filter_closed(GDBusConnection *bus, GDBusMessage *message, gboolean incoming,
				   void *data)
{
	(void)bus;
	struct portal_cast *cast = data;
	if (incoming && g_dbus_message_get_message_type(message) == G_DBUS_MESSAGE_TYPE_SIGNAL &&
	    g_strcmp0(g_dbus_message_get_interface(message), SESSION_INTERFACE) == 0 &&
	    g_strcmp0(g_dbus_message_get_member(message), "Closed") == 0 &&
	    g_strcmp0(g_dbus_message_get_path(message), cast->session_path) == 0 &&
	    g_strcmp0(g_dbus_message_get_sender(message), cast->portal_owner) == 0) {
		atomic_store(&cast->closed, true);
		int event = atomic_load(&cast->closed_event);
		if (event >= 0) {
			uint64_t one = 1;
			if (write(event, &one, sizeof(one)) < 0)
				LOG_DBG("cannot signal the session's end: %s", strerror(errno));
		}
	}
	return message;
}

/* Who the portal is on the bus now: its Responses and the Closed signal are
 * believed from it only. */
static char *name_owner(GDBusConnection *bus, const char *name)
{
	GVariant *reply = g_dbus_connection_call_sync(bus, "org.freedesktop.DBus",
		"/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner",
		g_variant_new("(s)", name), G_VARIANT_TYPE("(s)"), G_DBUS_CALL_FLAGS_NONE,
		CALL_TIMEOUT_MS, NULL, NULL);
	if (!reply)
		return NULL;
	const char *owner;
	g_variant_get(reply, "(&s)", &owner);
	char *copy = strdup(owner);
	g_variant_unref(reply);
	return copy;
}

static enum portal_outcome create_session(struct portal_cast *cast, char *why, size_t why_size)
{
	cast->portal_owner = name_owner(cast->bus, PORTAL_NAME);
	if (!cast->portal_owner) {
		snprintf(why, why_size, "the portal does not answer (%s has no owner on the bus)",
			 PORTAL_NAME);
		return PORTAL_FAILED;
	}
	GVariantBuilder options;
	g_variant_builder_init(&options, G_VARIANT_TYPE_VARDICT);
	char token[32];
	snprintf(token, sizeof(token), "wl_record_%u", (unsigned)getpid());
	g_variant_builder_add(&options, "{sv}", "session_handle_token", g_variant_new_string(token));
	GVariant *results = NULL;
	enum portal_outcome outcome = request(cast, "CreateSession", NULL, &options,
					      RESPONSE_TIMEOUT_MS, &results, why, why_size);
	if (outcome != PORTAL_STARTED)
		return outcome;
	cast->session_path = wl_record_portal_session_handle(results);
	g_variant_unref(results);
	if (!cast->session_path) {
		snprintf(why, why_size, "the portal's CreateSession gave no session");
		return PORTAL_FAILED;
	}
	/* Added once what it reads is set: it runs on GDBus's thread. */
	cast->filter_id = g_dbus_connection_add_filter(cast->bus, filter_closed, cast, NULL);
	cast->closed_subscription = g_dbus_connection_signal_subscribe(cast->bus, PORTAL_NAME,
		SESSION_INTERFACE, "Closed", cast->session_path, NULL, G_DBUS_SIGNAL_FLAGS_NONE,
		note_closed, NULL, NULL);
	return PORTAL_STARTED;
}

/* The cursor mode to ask for among those the portal offers: drawn in
 * (embedded), else as metadata (the pipewire source draws it); with
 * --no-cursor hidden, else metadata (left out by the pipewire source). */
static uint32_t choose_cursor_mode(uint32_t available, bool no_cursor)
{
	const uint32_t *order = no_cursor
		? (const uint32_t[]){ CURSOR_HIDDEN, CURSOR_METADATA, CURSOR_EMBEDDED }
		: (const uint32_t[]){ CURSOR_EMBEDDED, CURSOR_METADATA, CURSOR_HIDDEN };
	for (int i = 0; i < 3; i++)
		if (available & order[i])
			return order[i];
	return 0;
}

static enum portal_outcome select_sources(struct portal_cast *cast,
					  const struct portal_request *portal_request,
					  char *why, size_t why_size)
{
	uint32_t types = SOURCE_MONITOR, cursor_modes = 0;
	bool absent;
	char ignored[160];
	if (read_property(cast->bus, "AvailableSourceTypes", &types, &absent, ignored,
			  sizeof(ignored)))
		types &= SOURCE_MONITOR | SOURCE_WINDOW;
	if (!types)
		types = SOURCE_MONITOR;
	cast->requested_types = types;
	if (cast->version >= 2)
		read_property(cast->bus, "AvailableCursorModes", &cursor_modes, &absent, ignored,
			      sizeof(ignored));
	GVariantBuilder options;
	g_variant_builder_init(&options, G_VARIANT_TYPE_VARDICT);
	g_variant_builder_add(&options, "{sv}", "types", g_variant_new_uint32(types));
	g_variant_builder_add(&options, "{sv}", "multiple", g_variant_new_boolean(FALSE));
	uint32_t cursor_mode = choose_cursor_mode(cursor_modes, portal_request->no_cursor);
	if (cursor_mode)
		g_variant_builder_add(&options, "{sv}", "cursor_mode",
				      g_variant_new_uint32(cursor_mode));
	if (cast->version >= 4) {
		g_variant_builder_add(&options, "{sv}", "persist_mode",
				      g_variant_new_uint32(PERSIST_UNTIL_REVOKED));
		if (portal_request->restore_token && portal_request->restore_token[0])
			g_variant_builder_add(&options, "{sv}", "restore_token",
					      g_variant_new_string(portal_request->restore_token));
	}
	LOG_DBG("SelectSources: types %" PRIu32 ", cursor mode %" PRIu32 " (of %" PRIu32 ")%s",
		types, cursor_mode, cursor_modes,
		portal_request->restore_token ? ", with the restore token" : "");
	GVariant *results = NULL;
	enum portal_outcome outcome = request(cast, "SelectSources",
					      cast->session_path,
					      &options, RESPONSE_TIMEOUT_MS, &results, why, why_size);
	if (results)
		g_variant_unref(results);
	return outcome;
}

static enum portal_outcome start(struct portal_cast *cast, char *why, size_t why_size)
{
	GVariantBuilder options;
	g_variant_builder_init(&options, G_VARIANT_TYPE_VARDICT);
	GVariant *results = NULL;
	enum portal_outcome outcome = request(cast, "Start",
					      cast->session_path,
					      &options, DIALOG_TIMEOUT_MS, &results, why, why_size);
	if (outcome != PORTAL_STARTED)
		return outcome;
	struct wl_record_portal_stream stream = {
		.node = cast->node, .source_type = cast->source_type,
		.width = cast->width, .height = cast->height,
	};
	bool found = wl_record_portal_read_start(results, &stream);
	cast->node = stream.node;
	cast->source_type = stream.source_type;
	cast->width = stream.width;
	cast->height = stream.height;
	cast->restore_token = stream.restore_token;
	g_variant_unref(results);
	if (!found) {
		snprintf(why, why_size, "the portal started the screen cast with no stream");
		return PORTAL_FAILED;
	}
	return PORTAL_STARTED;
}

static enum portal_outcome open_pipewire_remote(struct portal_cast *cast, char *why,
						size_t why_size)
{
	GUnixFDList *fds = NULL;
	GError *error = NULL;
	GVariant *reply = g_dbus_connection_call_with_unix_fd_list_sync(cast->bus, PORTAL_NAME,
		PORTAL_PATH, SCREENCAST_INTERFACE, "OpenPipeWireRemote",
		g_variant_new("(oa{sv})", cast->session_path, NULL), G_VARIANT_TYPE("(h)"),
		G_DBUS_CALL_FLAGS_NONE, CALL_TIMEOUT_MS, NULL, &fds, NULL, &error);
	if (!reply) {
		snprintf(why, why_size, "the portal cannot open PipeWire (is PipeWire running?): %s",
			 error_text(error));
		g_error_free(error);
		return PORTAL_FAILED;
	}
	gint32 index;
	g_variant_get(reply, "(h)", &index);
	int count = fds ? g_unix_fd_list_get_length(fds) : 0;
	int checked = wl_record_portal_remote_index(reply, count);
	g_variant_unref(reply);
	if (checked < 0) {
		snprintf(why, why_size, "the portal's OpenPipeWireRemote answer names descriptor %"
			 PRId32 ", but it sent %d", index, count);
		if (fds)
			g_object_unref(fds);
		return PORTAL_FAILED;
	}
	cast->remote_fd = g_unix_fd_list_get(fds, index, &error);
	g_object_unref(fds);
	if (cast->remote_fd < 0) {
		snprintf(why, why_size, "the portal gave no PipeWire connection%s%s",
			 error ? ": " : "", error ? error->message : "");
		if (error)
			g_error_free(error);
		return PORTAL_FAILED;
	}
	return PORTAL_STARTED;
}

/* GLib's and GIO's own messages (a D-Bus warning) through our log, not
 * GLib's stderr writer: warnings, hidden by -q; the rest under -v. */
static GLogWriterOutput log_from_glib(GLogLevelFlags level, const GLogField *fields,
				      gsize field_count, gpointer data)
{
	(void)data;
	const char *message = NULL, *domain = NULL;
	for (gsize i = 0; i < field_count; i++) {
		/* Both are text: GLib gives them NUL-terminated (length -1). */
		if (fields[i].length >= 0)
			continue;
		if (strcmp(fields[i].key, "MESSAGE") == 0)
			message = fields[i].value;
		else if (strcmp(fields[i].key, "GLIB_DOMAIN") == 0)
			domain = fields[i].value;
	}
	enum log_level ours = level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING)
				      ? LOG_LEVEL_WARN
				      : LOG_LEVEL_DEBUG;
	log_msg(ours, "glib", NULL, 0, 0, "%s%s%s", domain ? domain : "", domain ? ": " : "",
		message ? message : "(no message)");
	return G_LOG_WRITER_HANDLED;
}

static void route_glib_logs(void)
{
	/* GLib takes one writer per process, set before anything logs. */
	static gsize routed;
	if (g_once_init_enter(&routed)) {
		g_log_set_writer_func(log_from_glib, NULL, NULL);
		g_once_init_leave(&routed, 1);
	}
}

struct portal_cast *portal_cast_start(const struct portal_request *portal_request,
				      enum portal_outcome *outcome, char *why, size_t why_size)
{
	route_glib_logs();
	struct portal_cast *cast = calloc(1, sizeof(*cast));
	*outcome = PORTAL_FAILED;
	if (!cast) {
		snprintf(why, why_size, "out of memory");
		return NULL;
	}
	cast->remote_fd = -1;
	cast->closed_event = -1;
	cast->bus = connect_session_bus(why, why_size);
	if (!cast->bus) {
		*outcome = PORTAL_ABSENT;
		portal_cast_close(cast);
		return NULL;
	}
	/* The Responses are dispatched here, by request(); nothing else runs it. */
	cast->context = g_main_context_new();
	g_main_context_push_thread_default(cast->context);
	cast->sender = g_strdup(g_dbus_connection_get_unique_name(cast->bus) + 1);
	for (char *c = cast->sender; *c; c++)
		if (*c == '.')
			*c = '_';
	bool absent = false;
	if (!read_property(cast->bus, "version", &cast->version, &absent, why, why_size)) {
		*outcome = absent ? PORTAL_ABSENT : PORTAL_FAILED;
	} else {
		*outcome = create_session(cast, why, why_size);
		if (*outcome == PORTAL_STARTED)
			*outcome = select_sources(cast, portal_request, why, why_size);
		if (*outcome == PORTAL_STARTED)
			*outcome = start(cast, why, why_size);
		if (*outcome == PORTAL_STARTED)
			*outcome = open_pipewire_remote(cast, why, why_size);
	}
	g_main_context_pop_thread_default(cast->context);
	if (*outcome != PORTAL_STARTED) {
		portal_cast_close(cast);
		return NULL;
	}
	snprintf(cast->description, sizeof(cast->description),
		 "%s (%dx%d, PipeWire node %" PRIu32 ") chosen through the ScreenCast portal",
		 /* Only if asked for: xdpw 0.7 says window (1 << MONITOR) for a monitor. */
		 cast->source_type == SOURCE_WINDOW && (cast->requested_types & SOURCE_WINDOW)
		 ? "a window" : "a monitor", cast->width,
		 cast->height, cast->node);
	return cast;
}

uint32_t portal_cast_node(const struct portal_cast *cast)
{
	return cast->node;
}

int portal_cast_take_remote(struct portal_cast *cast)
{
	int fd = cast->remote_fd;
	cast->remote_fd = -1;
	return fd;
}

const char *portal_cast_restore_token(const struct portal_cast *cast)
{
	return cast->restore_token ? cast->restore_token : "";
}

const char *portal_cast_describe(const struct portal_cast *cast)
{
	return cast->description;
}

static int handle_closed(int fd, uint32_t mask, void *data)
{
	(void)mask;
	struct portal_cast *cast = data;
	uint64_t count;
	if (read(fd, &count, sizeof(count)) < 0 && errno != EAGAIN)
		LOG_DBG("reading the session's end: %s", strerror(errno));
	if (atomic_load(&cast->closed) && cast->closed_callback) {
		ended_fn closed = cast->closed_callback;
		cast->closed_callback = NULL;
		closed(cast->closed_data, "the screen cast was stopped from the desktop (the "
		       "portal closed the session): the recording ends here");
	}
	return 0;
}

bool portal_cast_watch(struct portal_cast *cast, struct wl_event_loop *loop,
		       ended_fn closed, void *data)
{
	cast->closed_callback = closed;
	cast->closed_data = data;
	atomic_store(&cast->closed_event, eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
	if (cast->closed_event < 0) {
		LOG_ERRNO("cannot make an eventfd");
		return false;
	}
	cast->closed_source = wl_event_loop_add_fd(loop, cast->closed_event, WL_EVENT_READABLE,
						   handle_closed, cast);
	if (!cast->closed_source) {
		LOG_ERRNO("cannot watch the portal session");
		return false;
	}
	/* Closed before we watched. */
	if (atomic_load(&cast->closed)) {
		uint64_t one = 1;
		if (write(cast->closed_event, &one, sizeof(one)) < 0)
			LOG_DBG("cannot signal the session's end: %s", strerror(errno));
	}
	return true;
}

void portal_cast_close(struct portal_cast *cast)
{
	if (!cast)
		return;
	if (cast->closed_source)
		wl_event_source_remove(cast->closed_source);
	if (cast->bus) {
		if (cast->filter_id)
			g_dbus_connection_remove_filter(cast->bus, cast->filter_id);
		if (cast->closed_subscription)
			g_dbus_connection_signal_unsubscribe(cast->bus, cast->closed_subscription);
		if (cast->session_path && !atomic_load(&cast->closed)) {
			GError *error = NULL;
			GVariant *reply = g_dbus_connection_call_sync(cast->bus, PORTAL_NAME,
				cast->session_path, SESSION_INTERFACE, "Close", NULL, NULL,
				G_DBUS_CALL_FLAGS_NONE, CLOSE_TIMEOUT_MS, NULL, &error);
			if (reply) {
				LOG_DBG("closed the portal session %s", cast->session_path);
				g_variant_unref(reply);
			} else {
				LOG_DBG("closing the portal session: %s", error_text(error));
				g_error_free(error);
			}
		}
		g_dbus_connection_close_sync(cast->bus, NULL, NULL);
		g_object_unref(cast->bus);
	}
	if (cast->context) {
		/* What the connection still queued there (signal callbacks). */
		while (g_main_context_iteration(cast->context, FALSE))
			;
		g_main_context_unref(cast->context);
	}
	if (cast->closed_event >= 0)
		close(cast->closed_event);
	if (cast->remote_fd >= 0)
		close(cast->remote_fd);
	free(cast->restore_token);
	free(cast->session_path);
	free(cast->portal_owner);
	g_free(cast->sender);
	free(cast);
}
