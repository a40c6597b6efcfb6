#ifndef WL_RECORD_SUBCOMPOSITOR_H
#define WL_RECORD_SUBCOMPOSITOR_H

#include <stdbool.h>

struct server;
struct surface;

/* A surface with its position on the screen, relative to some origin. */
typedef void (*surface_iterator_fn)(struct surface *surface, int x, int y, void *data);

bool subcompositor_create_global(struct server *server);

/* True when the surface is a subsurface that is synchronized, itself or
 * through an ancestor: its commits wait for its parent's. */
bool subsurface_is_synchronized(const struct surface *surface);

/* The parts of a parent's state that belong to its subsurfaces (stacking
 * order, positions): `surface`'s pending state was cached ... */
void subsurface_parent_cache(struct surface *surface);
/* ... or applied (the pending one, or the cached one when `from_cache`):
 * that order and those positions become current, and each child's cached
 * state is applied with it. No-op for a surface without subsurfaces. */
void subsurface_parent_apply(struct surface *surface, bool from_cache);

/* Calls `fn` for `root` (placed at x,y) and its mapped subsurfaces, bottom to
 * top in their stacking order, at their committed positions. Unmapped
 * surfaces are skipped with their subtree. */
void surface_tree_for_each(struct surface *root, int x, int y, surface_iterator_fn fn, void *data);

#endif
