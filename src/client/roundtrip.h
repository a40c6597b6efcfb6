#ifndef WL_RECORD_ROUNDTRIP_H
#define WL_RECORD_ROUNDTRIP_H

#include <stdint.h>

struct wl_display;

/* wl_display_roundtrip() that gives up at deadline_ns (CLOCK_MONOTONIC):
 * for start-up, before a main loop runs, so that a compositor which accepts
 * the connection and never answers cannot hang wl-record. Returns 1 when
 * answered, 0 when the deadline passed, -1 when the connection failed. */
int wl_record_roundtrip_until(struct wl_display *display, int64_t deadline_ns);

#endif
