#ifndef WL_RECORD_APP_SINK_H
#define WL_RECORD_APP_SINK_H

#include <stdbool.h>

/* A private output for the hosted command (--app-audio): a null sink of its
 * own on the audio server (PulseAudio or pipewire-pulse, through libpulse),
 * whose monitor is recorded instead of the whole desktop's, and, when the
 * user should still hear the command, a loopback from that monitor to the
 * output that was the default at start.
 *
 * The command is pointed at the sink through its environment (PULSE_SINK
 * for libpulse apps, PIPEWIRE_NODE for native PipeWire ones); the caller
 * puts app_sink_name() there.
 *
 * Both calls block on the server: made once at start (before the command
 * runs) and once at exit, never while recording.
 *
 * The modules belong to the server, not to our connection: they outlive a
 * wl-record killed with SIGKILL (or crashed). Their names carry our pid
 * ("wl-record-<pid>-app"), so such leftovers are recognisable in a mixer,
 * and app_sink_create() unloads those whose process is gone. */

struct app_sink;

/* Loads the sink (described as "wl-record: <label>" in mixers) and, when
 * `audible`, the loopback to the default output. Logs one clear line and
 * returns NULL when there is no server or a module cannot be loaded
 * (nothing is left loaded then). */
struct app_sink *app_sink_create(const char *label, bool audible);

/* The sink's name, for PULSE_SINK and PIPEWIRE_NODE. */
const char *app_sink_name(const struct app_sink *sink);

/* Its monitor: the source to record. */
const char *app_sink_monitor(const struct app_sink *sink);

/* Unloads the modules (a server that went away took them along) and frees.
 * NULL is fine. */
void app_sink_destroy(struct app_sink *sink);

#endif
