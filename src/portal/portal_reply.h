#ifndef WL_RECORD_PORTAL_REPLY_H
#define WL_RECORD_PORTAL_REPLY_H

/* What the portal's answers say, read without the bus: the reading
 * portal_screencast.c does on them, pure functions of a GVariant (for
 * fuzz/fuzz_portal_reply.c). Any GVariant is accepted: a value of another
 * type is read as saying nothing. Built only with gio. */

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

/* A Request's Response signal, (ua{sv}): its code and results (a new
 * reference, to unref). False, with nothing taken, for any other type. */
bool wl_record_portal_read_response(GVariant *parameters, uint32_t *code, GVariant **results);

/* CreateSession's results: the session handle (a string or an object
 * path), malloc'd; NULL when there is none. */
char *wl_record_portal_session_handle(GVariant *results);

/* Start's results: the first stream's node, source type and size (left as
 * they are when not said), and the restore token (malloc'd; NULL: none). */
struct wl_record_portal_stream {
	uint32_t node;
	uint32_t source_type;
	int width, height;
	char *restore_token;
};
/* False when the results hold no stream (the token is read anyway). */
bool wl_record_portal_read_start(GVariant *results, struct wl_record_portal_stream *stream);

/* OpenPipeWireRemote's reply, (h), against the `count` descriptors that
 * came with it: the index of the PipeWire connection's, or -1 when the
 * reply names none of them. */
int wl_record_portal_remote_index(GVariant *reply, int count);

#endif
