#ifndef WL_RECORD_SUBCOMPOSITOR_H
#define WL_RECORD_SUBCOMPOSITOR_H

#include <stdbool.h>

struct server;
struct surface;

/* A surface with its position on the screen, relative to some origin. */
typedef void (*surface_iterator_fn)(struct surface *surface, int x, int y, void *data);

bool subcompositor_create_global(struct server *server);

/* Calls `fn` for `root` (placed at x,y) and its mapped subsurfaces, bottom to
 * top in their stacking order, at their committed positions. Unmapped
 * surfaces are skipped with their subtree. */
void surface_tree_for_each(struct surface *root, int x, int y, surface_iterator_fn fn, void *data);

#endif
