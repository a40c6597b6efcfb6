/* A stand-in for xdg-desktop-portal's ScreenCast interface, for what the
 * real stack cannot show: the session closed from the portal's side
 * (xdpw 0.7 never sends Closed), the options wl-record asks with, and the
 * restore token replaced on every run.
 *
 *   fake-portal NODE_ID
 *
 * Owns org.freedesktop.portal.Desktop on the session bus. Every request is
 * granted; Start returns NODE_ID and the restore token "fake-token-N" (N
 * counts the Starts); OpenPipeWireRemote hands a connection to PipeWire's
 * socket ($XDG_RUNTIME_DIR/pipewire-0). SIGUSR1 closes every session from
 * the portal's side (the Session's Closed signal). Each call is logged on
 * stdout, one line each.
 *
 *   fake-portal NODE_ID bad-fd-index
 *
 * OpenPipeWireRemote's handle names no descriptor it sends: in turn -1,
 * 1 (one past the end), INT32_MAX and INT32_MIN.
 *
 *   fake-portal NODE_ID slow
 *
 * Each Response comes 2 s after its method's answer, logged as "request
 * CALLER PATH" when the method answers and "Response PATH" when sent: time
 * for another process to forge one first, as
 *
 *   fake-portal --forge CALLER PATH
 *
 * does (a Response "cancelled" on PATH, sent to CALLER, from a process
 * that is not the portal). */
#include <errno.h>
#include <glib-unix.h>
#include <gio/gio.h>
#include <gio/gunixfdlist.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define PORTAL_PATH "/org/freedesktop/portal/desktop"

static const char introspection[] =
	"<node>"
	" <interface name='org.freedesktop.portal.ScreenCast'>"
	"  <method name='CreateSession'><arg type='a{sv}' direction='in'/>"
	"   <arg type='o' direction='out'/></method>"
	"  <method name='SelectSources'><arg type='o' direction='in'/>"
	"   <arg type='a{sv}' direction='in'/><arg type='o' direction='out'/></method>"
	"  <method name='Start'><arg type='o' direction='in'/><arg type='s' direction='in'/>"
	"   <arg type='a{sv}' direction='in'/><arg type='o' direction='out'/></method>"
	"  <method name='OpenPipeWireRemote'><arg type='o' direction='in'/>"
	"   <arg type='a{sv}' direction='in'/><arg type='h' direction='out'/></method>"
	"  <property name='AvailableSourceTypes' type='u' access='read'/>"
	"  <property name='AvailableCursorModes' type='u' access='read'/>"
	"  <property name='version' type='u' access='read'/>"
	" </interface>"
	" <interface name='org.freedesktop.portal.Session'>"
	"  <method name='Close'/>"
	"  <signal name='Closed'><arg type='a{sv}'/></signal>"
	"  <property name='version' type='u' access='read'/>"
	" </interface>"
	"</node>";

static GDBusNodeInfo *node_info;
static GDBusConnection *bus;
static unsigned node_id;
static int starts;
static GPtrArray *sessions; /* their object paths */
static bool bad_fd_index;
static bool slow;
static unsigned remotes_opened;

/* The path element of a unique name: ":1.42" is "1_42". */
static char *sender_element(const char *sender)
{
	char *element = g_strdup(sender + 1);
	for (char *c = element; *c; c++)
		if (*c == '.')
			*c = '_';
	return element;
}

static const char *option_string(GVariant *options, const char *key, const char *fallback)
{
	const char *value;
	return g_variant_lookup(options, key, "&s", &value) ? value : fallback;
}

static unsigned option_uint(GVariant *options, const char *key)
{
	guint32 value;
	return g_variant_lookup(options, key, "u", &value) ? value : 0;
}

struct late_response {
	char *caller;
	char *path;
	GVariant *results;
};

static gboolean send_response(void *data)
{
	struct late_response *late = data;
	if (slow)
		printf("Response %s\n", late->path);
	g_dbus_connection_emit_signal(bus, late->caller, late->path,
				      "org.freedesktop.portal.Request", "Response",
				      g_variant_new("(u@a{sv})", 0u, late->results), NULL);
	g_variant_unref(late->results);
	g_free(late->path);
	g_free(late->caller);
	g_free(late);
	return G_SOURCE_REMOVE;
}

/* Sent by a process that is not the portal: only the bus knows the sender. */
static int forge(const char *caller, const char *path)
{
	GError *error = NULL;
	GDBusConnection *forger = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, &error);
	if (!forger || !g_dbus_connection_emit_signal(forger, caller, path,
			"org.freedesktop.portal.Request", "Response",
			g_variant_new("(u@a{sv})", 1u, g_variant_new_array(G_VARIANT_TYPE("{sv}"),
									 NULL, 0)), &error) ||
	    !g_dbus_connection_flush_sync(forger, NULL, &error)) {
		fprintf(stderr, "fake-portal --forge: %s\n", error->message);
		return 1;
	}
	printf("forged a Response on %s from %s\n", path,
	       g_dbus_connection_get_unique_name(forger));
	return 0;
}

/* Answers the method with the Request's path, then the Request's Response. */
static void respond(GDBusMethodInvocation *invocation, GVariant *options, GVariant *results)
{
	const char *sender = g_dbus_method_invocation_get_sender(invocation);
	char *element = sender_element(sender);
	char *path = g_strdup_printf(PORTAL_PATH "/request/%s/%s", element,
				     option_string(options, "handle_token", "t"));
	g_dbus_method_invocation_return_value(invocation, g_variant_new("(o)", path));
	struct late_response *late = g_new(struct late_response, 1);
	*late = (struct late_response){ g_strdup(sender), path, g_variant_ref_sink(results) };
	if (slow) {
		printf("request %s %s\n", sender, path);
		g_dbus_connection_flush_sync(bus, NULL, NULL);
		g_timeout_add(2000, send_response, late);
	} else {
		send_response(late);
	}
	g_free(element);
}

static void session_method(GDBusConnection *connection, const char *sender, const char *path,
			   const char *interface, const char *method, GVariant *parameters,
			   GDBusMethodInvocation *invocation, void *data)
{
	(void)connection;
	(void)sender;
	(void)interface;
	(void)parameters;
	(void)data;
	if (strcmp(method, "Close") == 0) {
		printf("Close %s\n", path);
		g_dbus_method_invocation_return_value(invocation, NULL);
	}
}

static const GDBusInterfaceVTable session_vtable = { .method_call = session_method };

static int connect_pipewire(void)
{
	const char *dir = getenv("XDG_RUNTIME_DIR");
	struct sockaddr_un address = { .sun_family = AF_UNIX };
	snprintf(address.sun_path, sizeof(address.sun_path), "%s/pipewire-0", dir ? dir : "");
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&address, sizeof(address)) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static void screencast_method(GDBusConnection *connection, const char *sender, const char *path,
			      const char *interface, const char *method, GVariant *parameters,
			      GDBusMethodInvocation *invocation, void *data)
{
	(void)connection;
	(void)path;
	(void)interface;
	(void)data;
	GVariant *options = g_variant_get_child_value(parameters,
						      g_variant_n_children(parameters) - 1);
	GVariantBuilder results;
	g_variant_builder_init(&results, G_VARIANT_TYPE_VARDICT);
	if (strcmp(method, "CreateSession") == 0) {
		char *element = sender_element(sender);
		char *session = g_strdup_printf(PORTAL_PATH "/session/%s/%s", element,
						option_string(options, "session_handle_token", "s"));
		GError *error = NULL;
		if (!g_dbus_connection_register_object(bus, session, node_info->interfaces[1],
						       &session_vtable, NULL, NULL, &error)) {
			fprintf(stderr, "fake-portal: %s\n", error->message);
			g_error_free(error);
		}
		g_ptr_array_add(sessions, g_strdup(session));
		printf("CreateSession %s\n", session);
		g_variant_builder_add(&results, "{sv}", "session_handle",
				      g_variant_new_string(session));
		g_free(session);
		g_free(element);
		respond(invocation, options, g_variant_builder_end(&results));
	} else if (strcmp(method, "SelectSources") == 0) {
		gboolean multiple = FALSE;
		g_variant_lookup(options, "multiple", "b", &multiple);
		printf("SelectSources types=%u multiple=%d cursor_mode=%u persist_mode=%u "
		       "restore_token=%s\n", option_uint(options, "types"), multiple,
		       option_uint(options, "cursor_mode"), option_uint(options, "persist_mode"),
		       option_string(options, "restore_token", "none"));
		respond(invocation, options, g_variant_builder_end(&results));
	} else if (strcmp(method, "Start") == 0) {
		char token[32];
		snprintf(token, sizeof(token), "fake-token-%d", ++starts);
		printf("Start node=%u restore_token=%s\n", node_id, token);
		GVariantBuilder stream;
		g_variant_builder_init(&stream, G_VARIANT_TYPE_VARDICT);
		g_variant_builder_add(&stream, "{sv}", "size", g_variant_new("(ii)", 320, 240));
		g_variant_builder_add(&stream, "{sv}", "source_type", g_variant_new_uint32(1));
		GVariantBuilder streams;
		g_variant_builder_init(&streams, G_VARIANT_TYPE("a(ua{sv})"));
		g_variant_builder_add(&streams, "(u@a{sv})", node_id, g_variant_builder_end(&stream));
		g_variant_builder_add(&results, "{sv}", "streams", g_variant_builder_end(&streams));
		g_variant_builder_add(&results, "{sv}", "restore_token", g_variant_new_string(token));
		respond(invocation, options, g_variant_builder_end(&results));
	} else if (strcmp(method, "OpenPipeWireRemote") == 0) {
		g_variant_builder_clear(&results);
		int fd = connect_pipewire();
		printf("OpenPipeWireRemote %s\n", fd >= 0 ? "ok" : strerror(errno));
		GUnixFDList *fds = g_unix_fd_list_new();
		int index = fd >= 0 ? g_unix_fd_list_append(fds, fd, NULL) : -1;
		if (fd >= 0)
			close(fd);
		if (index >= 0 && bad_fd_index) {
			static const gint32 bad[] = { -1, 1, INT32_MAX, INT32_MIN };
			index = bad[remotes_opened++ % 4];
			printf("OpenPipeWireRemote handle %d\n", index);
		}
		if (fd < 0)
			g_dbus_method_invocation_return_dbus_error(invocation,
				"org.freedesktop.portal.Error.Failed", "no PipeWire");
		else
			g_dbus_method_invocation_return_value_with_unix_fd_list(
				invocation, g_variant_new("(h)", index), fds);
		g_object_unref(fds);
	}
	g_variant_unref(options);
}

static GVariant *screencast_property(GDBusConnection *connection, const char *sender,
				     const char *path, const char *interface,
				     const char *property, GError **error, void *data)
{
	(void)connection;
	(void)sender;
	(void)path;
	(void)interface;
	(void)error;
	(void)data;
	if (strcmp(property, "AvailableSourceTypes") == 0)
		return g_variant_new_uint32(3);
	if (strcmp(property, "AvailableCursorModes") == 0)
		return g_variant_new_uint32(7);
	return g_variant_new_uint32(4);
}

static const GDBusInterfaceVTable screencast_vtable = {
	.method_call = screencast_method,
	.get_property = screencast_property,
};

static gboolean close_sessions(void *data)
{
	(void)data;
	for (unsigned i = 0; i < sessions->len; i++) {
		const char *session = g_ptr_array_index(sessions, i);
		printf("Closed %s\n", session);
		g_dbus_connection_emit_signal(bus, NULL, session, "org.freedesktop.portal.Session",
					      "Closed", g_variant_new("(a{sv})", NULL), NULL);
	}
	g_dbus_connection_flush_sync(bus, NULL, NULL);
	return G_SOURCE_CONTINUE;
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "--forge") == 0)
		return forge(argv[2], argv[3]);
	if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "bad-fd-index") != 0 &&
				     strcmp(argv[2], "slow") != 0)) {
		fprintf(stderr, "usage: fake-portal NODE_ID [bad-fd-index|slow]\n"
			"       fake-portal --forge CALLER PATH\n");
		return 2;
	}
	bad_fd_index = argc == 3 && strcmp(argv[2], "bad-fd-index") == 0;
	slow = argc == 3 && strcmp(argv[2], "slow") == 0;
	setvbuf(stdout, NULL, _IOLBF, 0);
	node_id = (unsigned)strtoul(argv[1], NULL, 10);
	sessions = g_ptr_array_new_with_free_func(g_free);
	GError *error = NULL;
	node_info = g_dbus_node_info_new_for_xml(introspection, &error);
	bus = node_info ? g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, &error) : NULL;
	if (!bus || !g_dbus_connection_register_object(bus, PORTAL_PATH,
						       node_info->interfaces[0],
						       &screencast_vtable, NULL, NULL, &error)) {
		fprintf(stderr, "fake-portal: %s\n", error->message);
		return 1;
	}
	GVariant *reply = g_dbus_connection_call_sync(bus, "org.freedesktop.DBus",
		"/org/freedesktop/DBus", "org.freedesktop.DBus", "RequestName",
		g_variant_new("(su)", "org.freedesktop.portal.Desktop", 4u /* do not queue */),
		G_VARIANT_TYPE("(u)"), G_DBUS_CALL_FLAGS_NONE, -1, NULL, &error);
	guint32 owned = 0;
	if (reply) {
		g_variant_get(reply, "(u)", &owned);
		g_variant_unref(reply);
	}
	if (owned != 1) {
		fprintf(stderr, "fake-portal: cannot own org.freedesktop.portal.Desktop\n");
		return 1;
	}
	printf("ready\n");
	g_unix_signal_add(SIGUSR1, close_sessions, NULL);
	GMainLoop *loop = g_main_loop_new(NULL, FALSE);
	g_main_loop_run(loop);
	return 0;
}
