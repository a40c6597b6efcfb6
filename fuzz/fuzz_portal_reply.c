/* libFuzzer target: what the xdg-desktop-portal answers, read by
 * src/portal/portal_screencast.c through its pure functions
 * (portal_reply.h): a Request's Response, CreateSession's session handle,
 * Start's streams and restore token, OpenPipeWireRemote's fd index.
 *
 * Input:
 *   byte 0       which answer (value % 4): 0 a Response's parameters,
 *                1 CreateSession's results, 2 Start's results,
 *                3 OpenPipeWireRemote's reply
 *   byte 1       its type (value % 4): 0 the one the portal sends ((ua{sv}),
 *                a{sv}, a{sv}, (h)), else another (a{sv}, (ua{sv}), v,
 *                (u), ...): a value of another type must read as nothing
 *   byte 2       for the fd index: how many descriptors came (value % 8)
 *   the rest     the GVariant's serialized bytes (GVariant's own format,
 *                the one D-Bus bodies are parsed into), taken untrusted by
 *                g_variant_new_from_data, then g_variant_get_normal_form
 *
 * The bytes are an allocation of exactly their size, so ASan sees any read
 * past them. A Response's results are read as both CreateSession's and
 * Start's, as portal_screencast.c does with them. */
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "fuzz_common.h"
#include "portal_reply.h"

static const char *const types[4][4] = {
	{ "(ua{sv})", "(uv)", "a{sv}", "(u)" },
	{ "a{sv}", "(ua{sv})", "a{ss}", "v" },
	{ "a{sv}", "a(ua{sv})", "a{sa{sv}}", "(a{sv})" },
	{ "(h)", "(i)", "h", "(hh)" },
};

static volatile uint64_t sink;

static void read_results(GVariant *results)
{
	char *session = wl_record_portal_session_handle(results);
	if (session)
		sink += strlen(session);
	free(session);
	struct wl_record_portal_stream stream = { 0 };
	if (wl_record_portal_read_start(results, &stream))
		sink += stream.node + stream.source_type + (uint64_t)stream.width +
			(uint64_t)stream.height;
	if (stream.restore_token)
		sink += strlen(stream.restore_token);
	free(stream.restore_token);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_quiet_logs();
	if (size < 3)
		return 0;
	unsigned answer = data[0] % 4, kind = data[1] % 4;
	int count = data[2] % 8;
	size_t n = size - 3;
	/* Exactly its size, read in place, freed with the last reference. */
	uint8_t *bytes = malloc(n ? n : 1);
	if (!bytes)
		abort();
	memcpy(bytes, data + 3, n);
	GVariant *raw = g_variant_ref_sink(g_variant_new_from_data(
		G_VARIANT_TYPE(types[answer][kind]), bytes, n, FALSE, free, bytes));
	GVariant *value = g_variant_get_normal_form(raw);
	g_variant_unref(raw);

	switch (answer) {
	case 0: {
		uint32_t code = 0;
		GVariant *results = NULL;
		if (wl_record_portal_read_response(value, &code, &results)) {
			read_results(results);
			g_variant_unref(results);
		}
		break;
	}
	case 1:
	case 2:
		read_results(value);
		break;
	default: {
		int index = wl_record_portal_remote_index(value, count);
		if (index < -1 || index >= count)
			abort();
		sink += (uint64_t)index;
		break;
	}
	}
	g_variant_unref(value);
	return 0;
}
