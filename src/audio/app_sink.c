#define LOG_MODULE "audio"
#include "app_sink.h"

#include <errno.h>
#include <pulse/pulseaudio.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "log.h"

#define NULL_SINK_KEY "sink_name=wl-record-"
#define LOOPBACK_KEY "source=wl-record-"
#define NAME_SUFFIX "-app"
/* The stand-in output PulseAudio's module-always-sink and PipeWire's
 * fallback sink make when there is no real one, and remove as soon as
 * another sink (ours) appears: ours then becomes the default. */
#define STAND_IN_SINK "auto_null"
/* Leftovers unloaded at one start; more are left for the next. */
#define MAX_STALE 16

struct app_sink {
	char name[64];      /* wl-record-<pid>-app */
	char monitor[80];   /* <name>.monitor */
	uint32_t null_sink_module;
	uint32_t loopback_module;
};

/* A blocking exchange with the server on a plain (unthreaded) mainloop:
 * each request is sent and the loop run until it is answered. For the
 * start and the end only. */
struct pulse_session {
	pa_mainloop *loop;
	pa_context *context;
};

static void session_close(struct pulse_session *session)
{
	if (session->context) {
		pa_context_disconnect(session->context);
		pa_context_unref(session->context);
	}
	if (session->loop)
		pa_mainloop_free(session->loop);
	*session = (struct pulse_session){ 0 };
}

static const char *session_error(const struct pulse_session *session)
{
	return session->context ? pa_strerror(pa_context_errno(session->context))
				: "cannot set up the audio client";
}

static bool session_open(struct pulse_session *session)
{
	*session = (struct pulse_session){ 0 };
	session->loop = pa_mainloop_new();
	if (!session->loop)
		return false;
	session->context = pa_context_new(pa_mainloop_get_api(session->loop), "wl-record");
	if (!session->context)
		return false;
	/* No autospawn, as for the capture: no server is the user's to see. */
	if (pa_context_connect(session->context, NULL, PA_CONTEXT_NOAUTOSPAWN, NULL) < 0)
		return false;
	for (;;) {
		pa_context_state_t state = pa_context_get_state(session->context);
		if (state == PA_CONTEXT_READY)
			return true;
		if (!PA_CONTEXT_IS_GOOD(state))
			return false;
		if (pa_mainloop_iterate(session->loop, 1, NULL) < 0)
			return false;
	}
}

/* Runs the loop until `operation` is answered (or the connection fails,
 * which cancels it). */
static bool session_wait(struct pulse_session *session, pa_operation *operation)
{
	if (!operation)
		return false;
	while (pa_operation_get_state(operation) == PA_OPERATION_RUNNING) {
		if (pa_mainloop_iterate(session->loop, 1, NULL) < 0)
			break;
	}
	bool done = pa_operation_get_state(operation) == PA_OPERATION_DONE;
	pa_operation_unref(operation);
	return done;
}

static void handle_index(pa_context *context, uint32_t index, void *data)
{
	(void)context;
	*(uint32_t *)data = index;
}

static uint32_t load_module(struct pulse_session *session, const char *name, const char *args)
{
	uint32_t index = PA_INVALID_INDEX;
	session_wait(session, pa_context_load_module(session->context, name, args, handle_index,
						     &index));
	return index;
}

static void handle_success(pa_context *context, int success, void *data)
{
	(void)context;
	*(bool *)data = success;
}

static bool unload_module(struct pulse_session *session, uint32_t index)
{
	bool unloaded = false;
	session_wait(session, pa_context_unload_module(session->context, index, handle_success,
						       &unloaded));
	return unloaded;
}

struct default_sink {
	char name[256];
};

static void handle_server_info(pa_context *context, const pa_server_info *info, void *data)
{
	(void)context;
	struct default_sink *sink = data;
	if (info && info->default_sink_name)
		snprintf(sink->name, sizeof(sink->name), "%s", info->default_sink_name);
}

/* Our pid namespace, so that a wl-record's pid is only judged (alive or
 * dead) in the namespace it belongs to: one in a container sharing the
 * server has pids that mean nothing here. */
static unsigned long pid_namespace(void)
{
	struct stat st;
	return stat("/proc/self/ns/pid", &st) == 0 ? (unsigned long)st.st_ino : 0;
}

/* The pid in a module argument that starts with `key` followed by
 * "<pid>-app" (as ours do), else 0. */
static pid_t owner_pid(const char *argument, const char *key)
{
	size_t key_len = strlen(key);
	if (!argument || strncmp(argument, key, key_len) != 0)
		return 0;
	const char *digits = argument + key_len;
	char *end;
	long pid = strtol(digits, &end, 10);
	if (end == digits || pid <= 0 || pid > 0x3fffffff ||
	    strncmp(end, NAME_SUFFIX, strlen(NAME_SUFFIX)) != 0)
		return 0;
	return (pid_t)pid;
}

struct stale_modules {
	char namespace_tag[64];     /* as our null sinks carry it */
	pid_t pids[MAX_STALE];      /* of dead owners' null sinks */
	uint32_t null_sinks[MAX_STALE];
	size_t n_null_sinks;
	uint32_t loopbacks[MAX_STALE];
	size_t n_loopbacks;
};

static bool owner_gone(pid_t pid)
{
	/* Our own pid: a leftover of an earlier process that had it. */
	return pid == getpid() || (kill(pid, 0) < 0 && errno == ESRCH);
}

/* The server lists modules in the order they were loaded: a loopback
 * comes after the null sink it reads from. */
static void handle_module(pa_context *context, const pa_module_info *info, int eol, void *data)
{
	(void)context;
	struct stale_modules *stale = data;
	if (eol || !info || !info->name)
		return;
	if (strcmp(info->name, "module-null-sink") == 0) {
		pid_t pid = owner_pid(info->argument, NULL_SINK_KEY);
		if (pid && strstr(info->argument, stale->namespace_tag) && owner_gone(pid) &&
		    stale->n_null_sinks < MAX_STALE) {
			stale->pids[stale->n_null_sinks] = pid;
			stale->null_sinks[stale->n_null_sinks++] = info->index;
		}
	} else if (strcmp(info->name, "module-loopback") == 0) {
		pid_t pid = owner_pid(info->argument, LOOPBACK_KEY);
		for (size_t i = 0; pid && i < stale->n_null_sinks; i++) {
			if (stale->pids[i] == pid && stale->n_loopbacks < MAX_STALE) {
				stale->loopbacks[stale->n_loopbacks++] = info->index;
				break;
			}
		}
	}
}

/* Unloads what a wl-record killed with SIGKILL (or crashed) left behind,
 * so that mixers do not fill up with dead "wl-record: …" outputs. Best
 * effort: a failure here changes nothing for this recording. */
static void unload_stale(struct pulse_session *session, unsigned long namespace)
{
	struct stale_modules stale = { 0 };
	snprintf(stale.namespace_tag, sizeof(stale.namespace_tag), "wl-record.pid-namespace=%lu ",
		 namespace);
	if (!session_wait(session, pa_context_get_module_info_list(session->context, handle_module,
								   &stale)))
		return;
	/* The loopbacks first: they read from the sinks. */
	for (size_t i = 0; i < stale.n_loopbacks; i++)
		unload_module(session, stale.loopbacks[i]);
	for (size_t i = 0; i < stale.n_null_sinks; i++) {
		if (unload_module(session, stale.null_sinks[i]))
			LOG_INFO("removed the output wl-record-%d-app left by a wl-record that is gone",
				 (int)stale.pids[i]);
	}
}

/* Module arguments are quoted with ' and the description inside with ":
 * neither (nor a backslash or a control character) may come from `label`.
 * A cut label is cut between characters: the server wants UTF-8. */
static void plain_label(const char *label, char *out, size_t size)
{
	size_t n = 0;
	const char *c = label ? label : "";
	for (; *c && n + 1 < size; c++) {
		unsigned char ch = (unsigned char)*c;
		out[n++] = (ch < ' ' || ch == 0x7f || ch == '\'' || ch == '"' || ch == '\\') ? '_' : *c;
	}
	if (*c && ((unsigned char)*c & 0xc0) == 0x80) {
		while (n > 0 && ((unsigned char)out[n - 1] & 0xc0) == 0x80)
			n--;
		if (n > 0 && (unsigned char)out[n - 1] >= 0xc0)
			n--;
	}
	out[n] = '\0';
}

struct app_sink *app_sink_create(const char *label, bool audible)
{
	struct app_sink *sink = calloc(1, sizeof(*sink));
	if (!sink) {
		LOG_ERRNO("--app-audio");
		return NULL;
	}
	sink->null_sink_module = PA_INVALID_INDEX;
	sink->loopback_module = PA_INVALID_INDEX;
	snprintf(sink->name, sizeof(sink->name), "wl-record-%d" NAME_SUFFIX, (int)getpid());
	snprintf(sink->monitor, sizeof(sink->monitor), "%s.monitor", sink->name);

	struct pulse_session session;
	if (!session_open(&session)) {
		LOG_ERR("--app-audio: no audio server (PulseAudio or pipewire-pulse): %s",
			session_error(&session));
		goto fail;
	}
	unsigned long namespace = pid_namespace();
	unload_stale(&session, namespace);

	/* The user's output, asked before our sink exists: a server with no
	 * other sink could make ours the default, and a loopback into its own
	 * sink would feed back. */
	struct default_sink output = { "" };
	if (audible)
		session_wait(&session, pa_context_get_server_info(session.context,
								  handle_server_info, &output));

	char description[128];
	plain_label(label, description, sizeof(description));
	char args[512];
	/* 48 kHz stereo: what the capture asks for, so nothing is resampled. */
	snprintf(args, sizeof(args),
		 "sink_name=%s rate=48000 channels=2 sink_properties='device.description=\"wl-record: "
		 "%s\" wl-record.pid-namespace=%lu '", sink->name, description, namespace);
	sink->null_sink_module = load_module(&session, "module-null-sink", args);
	if (sink->null_sink_module == PA_INVALID_INDEX) {
		LOG_ERR("--app-audio: cannot make an output for the command: %s",
			session_error(&session));
		goto fail_session;
	}

	/* No real output: nobody to hear it, and a loopback to the default
	 * (ours, once the stand-in is gone) would feed the sink into itself. */
	bool no_output = !output.name[0] || strcmp(output.name, STAND_IN_SINK) == 0;
	if (audible && !no_output) {
		snprintf(args, sizeof(args), "source=%s sink=%s", sink->monitor, output.name);
		sink->loopback_module = load_module(&session, "module-loopback", args);
		if (sink->loopback_module == PA_INVALID_INDEX) {
			LOG_ERR("--app-audio: cannot pass the command's sound on to %s: %s "
				"(--mute-app records it without)", output.name, session_error(&session));
			goto fail_session;
		}
	} else if (audible) {
		LOG_WARN("--app-audio: no sound output to play the command's sound on (the "
			 "server has %s): it is recorded, not heard", output.name[0] ? "only the "
			 "stand-in " STAND_IN_SINK : "no default output");
	}
	session_close(&session);
	LOG_DBG("--app-audio: output %s (module %u), loopback module %d to %s", sink->name,
		sink->null_sink_module, sink->loopback_module == PA_INVALID_INDEX ? -1
		: (int)sink->loopback_module, output.name[0] ? output.name : "none");
	return sink;

fail_session:
	if (sink->null_sink_module != PA_INVALID_INDEX)
		unload_module(&session, sink->null_sink_module);
fail:
	session_close(&session);
	free(sink);
	return NULL;
}

const char *app_sink_name(const struct app_sink *sink)
{
	return sink->name;
}

const char *app_sink_monitor(const struct app_sink *sink)
{
	return sink->monitor;
}

void app_sink_destroy(struct app_sink *sink)
{
	if (!sink)
		return;
	struct pulse_session session;
	if (session_open(&session)) {
		/* The loopback first: it reads from the sink. */
		if (sink->loopback_module != PA_INVALID_INDEX &&
		    !unload_module(&session, sink->loopback_module))
			LOG_WARN("--app-audio: cannot unload the loopback (module %u): %s",
				 sink->loopback_module, session_error(&session));
		if (!unload_module(&session, sink->null_sink_module))
			LOG_WARN("--app-audio: cannot unload %s (module %u): %s", sink->name,
				 sink->null_sink_module, session_error(&session));
	} else {
		/* The server went away, and its modules with it. */
		LOG_DBG("--app-audio: no audio server at exit: nothing to unload");
	}
	session_close(&session);
	free(sink);
}
