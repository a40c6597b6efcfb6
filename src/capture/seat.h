#ifndef WL_RECORD_SEAT_H
#define WL_RECORD_SEAT_H

#include <stdbool.h>

struct server;

/* A wl_seat with no input devices: toolkits want one to exist; recording
 * has no input to give them. */
struct wl_global *seat_create_global(struct server *server);

#endif
