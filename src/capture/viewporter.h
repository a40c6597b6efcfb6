#ifndef WL_RECORD_VIEWPORTER_H
#define WL_RECORD_VIEWPORTER_H

#include <stdbool.h>

struct server;
struct surface;

bool viewporter_create_global(struct server *server);

/* The checks wp_viewport asks for when the surface commits, on its pending
 * state: false after posting the error. */
bool viewport_check_pending(struct surface *surface);

/* The part of the surface shown (surface coordinates) and the size it is
 * shown at, as wp_viewport set them; without a viewport, the whole surface
 * at its own size. False when the surface has no content to show. */
bool surface_get_view(const struct surface *surface, double *src_x, double *src_y, double *src_w,
		      double *src_h, int *dst_w, int *dst_h);

/* The surface's size as shown (a viewport's destination, else its own). */
void surface_get_shown_size(const struct surface *surface, int *width, int *height);

#endif
