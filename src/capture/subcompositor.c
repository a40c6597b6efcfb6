#define LOG_MODULE "capture"
#include "subcompositor.h"

#include <assert.h>
#include <stdlib.h>
#include <wayland-server-protocol.h>

#include "addon.h"
#include "clock.h"
#include "log.h"
#include "server.h"
#include "surface.h"

#define SUBCOMPOSITOR_VERSION 1

/* The three copies of a parent's state that concern its children, as for
 * the rest of a surface's state: the stacking order with positions, as
 * requested, as cached with the parent's synchronized commit, and as shown. */
enum place_state { PLACE_PENDING, PLACE_CACHED, PLACE_CURRENT, PLACE_STATES };

/* A child (or the parent itself) in one of those stacking orders. */
struct place {
	struct wl_list link;           /* subsurface_parent.order[] */
	struct subsurface *subsurface; /* NULL: the parent itself */
	int x, y;
};

/* Kept beside a surface that has subsurfaces, as an addon of it. */
struct subsurface_parent {
	struct surface *surface;
	struct wl_list order[PLACE_STATES]; /* struct place.link, bottom to top */
	struct place self[PLACE_STATES];
	struct addon addon;
};

struct subsurface {
	struct wl_resource *resource;
	struct surface *surface;          /* NULL once destroyed */
	struct subsurface_parent *parent; /* NULL once the parent is gone */
	struct place place[PLACE_STATES];
	bool synchronized;
	struct wl_listener surface_destroy;
};

static const struct wl_subsurface_interface subsurface_impl;
static const struct surface_role subsurface_role;
static const struct addon_interface parent_addon_impl;

static struct subsurface *subsurface_from_resource(struct wl_resource *resource)
{
	assert(wl_resource_instance_of(resource, &wl_subsurface_interface, &subsurface_impl));
	return wl_resource_get_user_data(resource);
}

static struct subsurface *subsurface_of_surface(const struct surface *surface)
{
	return surface->role == &subsurface_role ? surface->role_data : NULL;
}

static struct subsurface_parent *parent_of_surface(struct surface *surface)
{
	struct addon *addon = addon_find(&surface->addons, NULL, &parent_addon_impl);
	if (!addon)
		return NULL;
	struct subsurface_parent *parent = wl_container_of(addon, parent, addon);
	return parent;
}

/* Synchronized itself, or through any ancestor (the protocol's effective
 * synchronisation). One whose parent is gone shows nowhere: nothing to wait
 * for. */
static bool effectively_synchronized(const struct subsurface *subsurface)
{
	for (const struct subsurface *s = subsurface; s; ) {
		if (!s->parent)
			return false;
		if (s->synchronized)
			return true;
		s = subsurface_of_surface(s->parent->surface);
	}
	return false;
}

bool subsurface_is_synchronized(const struct surface *surface)
{
	const struct subsurface *subsurface = subsurface_of_surface(surface);
	return subsurface && effectively_synchronized(subsurface);
}

static void unlink_from_parent(struct subsurface *subsurface)
{
	if (!subsurface->parent)
		return;
	for (int i = 0; i < PLACE_STATES; i++) {
		wl_list_remove(&subsurface->place[i].link);
		wl_list_init(&subsurface->place[i].link);
	}
	subsurface->parent = NULL;
}

static struct place *place_of(struct subsurface_parent *parent, const struct place *place,
			      enum place_state state)
{
	return place->subsurface ? &place->subsurface->place[state] : &parent->self[state];
}

/* Copies the stacking order and positions of `from` to `to`; true when the
 * picture changes with them. */
static bool copy_places(struct subsurface_parent *parent, enum place_state from,
			enum place_state to)
{
	bool changed = false;
	/* Every child is in every order: walking both side by side finds a
	 * reordering. */
	struct wl_list *a = parent->order[from].next, *b = parent->order[to].next;
	for (; a != &parent->order[from]; a = a->next, b = b->next) {
		struct place *pa = wl_container_of(a, pa, link);
		struct place *pb = wl_container_of(b, pb, link);
		if (pa->subsurface != pb->subsurface || pa->x != pb->x || pa->y != pb->y)
			changed = true;
	}
	struct wl_list reordered;
	wl_list_init(&reordered);
	struct place *place;
	wl_list_for_each(place, &parent->order[from], link) {
		struct place *target = place_of(parent, place, to);
		target->x = place->x;
		target->y = place->y;
		wl_list_remove(&target->link);
		wl_list_insert(reordered.prev, &target->link);
	}
	wl_list_insert_list(&parent->order[to], &reordered);
	return changed;
}

void subsurface_parent_cache(struct surface *surface)
{
	struct subsurface_parent *parent = parent_of_surface(surface);
	if (parent)
		copy_places(parent, PLACE_PENDING, PLACE_CACHED);
}

void subsurface_parent_apply(struct surface *surface, bool from_cache)
{
	struct subsurface_parent *parent = parent_of_surface(surface);
	if (!parent)
		return;
	if (copy_places(parent, from_cache ? PLACE_CACHED : PLACE_PENDING, PLACE_CURRENT))
		screen_damage_all(&surface->server->screen);
	/* Each child's own state that waited for this one, bottom to top.
	 * Applying a state changes no stacking order (requests do), so the
	 * list stays valid. */
	struct place *place;
	wl_list_for_each(place, &parent->order[PLACE_CURRENT], link) {
		if (place->subsurface && place->subsurface->surface)
			surface_apply_cached(place->subsurface->surface);
	}
}

static void destroy_parent(struct subsurface_parent *parent)
{
	struct place *place, *next;
	wl_list_for_each_safe(place, next, &parent->order[PLACE_PENDING], link) {
		struct subsurface *child = place->subsurface;
		if (!child)
			continue;
		unlink_from_parent(child);
		/* Not shown any more and not synchronized: what waited is
		 * applied now, so that its buffer goes back to the client. */
		if (child->surface)
			surface_apply_cached(child->surface);
	}
	addon_finish(&parent->addon);
	free(parent);
}

static void parent_addon_destroy(struct addon *addon)
{
	struct subsurface_parent *parent = wl_container_of(addon, parent, addon);
	destroy_parent(parent);
}

static const struct addon_interface parent_addon_impl = {
	.name = "subsurface_parent",
	.destroy = parent_addon_destroy,
};

static struct subsurface_parent *ensure_parent(struct surface *surface)
{
	struct subsurface_parent *parent = parent_of_surface(surface);
	if (parent)
		return parent;
	parent = calloc(1, sizeof(*parent));
	if (!parent)
		return NULL;
	parent->surface = surface;
	for (int i = 0; i < PLACE_STATES; i++) {
		wl_list_init(&parent->order[i]);
		wl_list_insert(&parent->order[i], &parent->self[i].link);
	}
	addon_init(&parent->addon, &surface->addons, NULL, &parent_addon_impl);
	return parent;
}

void surface_tree_for_each(struct surface *root, int x, int y, surface_iterator_fn fn, void *data)
{
	if (!root->mapped || !root->texture)
		return;
	struct subsurface_parent *parent = parent_of_surface(root);
	if (!parent) {
		fn(root, x, y, data);
		return;
	}
	struct place *place;
	wl_list_for_each(place, &parent->order[PLACE_CURRENT], link) {
		if (!place->subsurface)
			fn(root, x, y, data);
		else if (place->subsurface->surface)
			surface_tree_for_each(place->subsurface->surface, x + place->x,
					      y + place->y, fn, data);
	}
}

/* A state of this subsurface was applied: on its own commit when it is
 * desynchronized (shown now), or with its parent's (shown by the parent's
 * role with everything else). */
static void subsurface_commit(struct surface *surface, const pixman_region32_t *damage,
			      int64_t commit_ns)
{
	struct subsurface *subsurface = surface->role_data;
	if (!subsurface || !subsurface->parent)
		return; /* the wl_subsurface or its parent is gone: shown nowhere */
	struct screen *screen = &surface->server->screen;
	screen_damage_surface(screen, surface, damage);
	if (!effectively_synchronized(subsurface))
		screen_flush(screen, commit_ns);
}

static const struct surface_role subsurface_role = {
	.name = "wl_subsurface",
	.commit = subsurface_commit,
};

static void subsurface_handle_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static void subsurface_handle_set_position(struct wl_client *client, struct wl_resource *resource,
					   int32_t x, int32_t y)
{
	struct subsurface *subsurface = subsurface_from_resource(resource);
	subsurface->place[PLACE_PENDING].x = x;
	subsurface->place[PLACE_PENDING].y = y;
}

/* The pending place of `sibling_resource`'s surface in `subsurface`'s parent
 * (the parent itself included); NULL after posting bad_surface. */
static struct place *sibling_place(struct subsurface *subsurface,
				   struct wl_resource *sibling_resource)
{
	struct surface *sibling = surface_from_resource(sibling_resource);
	struct subsurface_parent *parent = subsurface->parent;
	if (parent && sibling == parent->surface)
		return &parent->self[PLACE_PENDING];
	struct subsurface *other = subsurface_of_surface(sibling);
	if (parent && other && other != subsurface && other->parent == parent)
		return &other->place[PLACE_PENDING];
	wl_resource_post_error(subsurface->resource, WL_SUBSURFACE_ERROR_BAD_SURFACE,
			       "wl_surface@%u is not a sibling or the parent",
			       wl_resource_get_id(sibling_resource));
	return NULL;
}

/* Takes effect with the parent's next applied state (which damages the
 * picture when the order changed). */
static void restack(struct wl_resource *resource, struct wl_resource *sibling_resource, bool above)
{
	struct subsurface *subsurface = subsurface_from_resource(resource);
	struct place *sibling = sibling_place(subsurface, sibling_resource);
	if (!sibling)
		return;
	struct wl_list *link = &subsurface->place[PLACE_PENDING].link;
	wl_list_remove(link);
	wl_list_insert(above ? &sibling->link : sibling->link.prev, link);
}

static void subsurface_handle_place_above(struct wl_client *client, struct wl_resource *resource,
					  struct wl_resource *sibling)
{
	restack(resource, sibling, true);
}

static void subsurface_handle_place_below(struct wl_client *client, struct wl_resource *resource,
					  struct wl_resource *sibling)
{
	restack(resource, sibling, false);
}

static void subsurface_handle_set_sync(struct wl_client *client, struct wl_resource *resource)
{
	subsurface_from_resource(resource)->synchronized = true;
}

static void subsurface_handle_set_desync(struct wl_client *client, struct wl_resource *resource)
{
	struct subsurface *subsurface = subsurface_from_resource(resource);
	subsurface->synchronized = false;
	/* What waited is shown now (the role's commit flushes it). */
	if (subsurface->surface && !effectively_synchronized(subsurface))
		surface_apply_cached(subsurface->surface);
}

static const struct wl_subsurface_interface subsurface_impl = {
	.destroy = subsurface_handle_destroy,
	.set_position = subsurface_handle_set_position,
	.place_above = subsurface_handle_place_above,
	.place_below = subsurface_handle_place_below,
	.set_sync = subsurface_handle_set_sync,
	.set_desync = subsurface_handle_set_desync,
};

/* `surface_alive`: the wl_subsurface goes first; what waited for the
 * parent is applied then (its buffer goes back to the client), shown
 * nowhere as the surface is no subsurface any more. */
static void detach_surface(struct subsurface *subsurface, bool surface_alive)
{
	struct surface *surface = subsurface->surface;
	if (!surface)
		return;
	/* The surface is no longer shown; the picture changes now. */
	struct screen *screen = &surface->server->screen;
	screen_damage_all(screen);
	unlink_from_parent(subsurface);
	wl_list_remove(&subsurface->surface_destroy.link);
	surface->role_data = NULL;
	subsurface->surface = NULL;
	if (surface_alive)
		surface_apply_cached(surface);
	screen_flush(screen, clock_now_ns());
}

static void subsurface_surface_destroyed(struct wl_listener *listener, void *data)
{
	struct subsurface *subsurface = wl_container_of(listener, subsurface, surface_destroy);
	detach_surface(subsurface, false);
}

static void subsurface_resource_destroy(struct wl_resource *resource)
{
	struct subsurface *subsurface = subsurface_from_resource(resource);
	detach_surface(subsurface, true);
	free(subsurface);
}

/* True when `candidate` is `surface` or one of its subsurface ancestors. */
static bool is_ancestor_or_self(const struct surface *candidate, const struct surface *surface)
{
	for (const struct surface *s = surface; s; ) {
		if (s == candidate)
			return true;
		const struct subsurface *sub = subsurface_of_surface(s);
		s = sub && sub->parent ? sub->parent->surface : NULL;
	}
	return false;
}

static void subcompositor_handle_get_subsurface(struct wl_client *client,
						struct wl_resource *resource, uint32_t id,
						struct wl_resource *surface_resource,
						struct wl_resource *parent_resource)
{
	struct surface *surface = surface_from_resource(surface_resource);
	struct surface *parent_surface = surface_from_resource(parent_resource);
	if (is_ancestor_or_self(surface, parent_surface)) {
		wl_resource_post_error(resource, WL_SUBCOMPOSITOR_ERROR_BAD_SURFACE,
				       "wl_surface@%u cannot be a subsurface of itself or its descendant",
				       wl_resource_get_id(surface_resource));
		return;
	}
	if (surface->role == &subsurface_role && surface->role_data) {
		wl_resource_post_error(resource, WL_SUBCOMPOSITOR_ERROR_BAD_SURFACE,
				       "wl_surface@%u already is a subsurface",
				       wl_resource_get_id(surface_resource));
		return;
	}
	struct subsurface *subsurface = calloc(1, sizeof(*subsurface));
	struct subsurface_parent *parent = ensure_parent(parent_surface);
	if (!subsurface || !parent) {
		free(subsurface);
		wl_client_post_no_memory(client);
		return;
	}
	if (!surface_set_role(surface, &subsurface_role, subsurface, resource,
			      WL_SUBCOMPOSITOR_ERROR_BAD_SURFACE)) {
		free(subsurface);
		return;
	}
	subsurface->resource = wl_resource_create(client, &wl_subsurface_interface, 1, id);
	if (!subsurface->resource) {
		surface->role_data = NULL;
		free(subsurface);
		wl_client_post_no_memory(client);
		return;
	}
	subsurface->surface = surface;
	subsurface->parent = parent;
	subsurface->synchronized = true; /* the protocol's initial mode */
	/* A new subsurface starts on top of its siblings and parent, at 0,0. */
	for (int i = 0; i < PLACE_STATES; i++) {
		subsurface->place[i].subsurface = subsurface;
		wl_list_insert(parent->order[i].prev, &subsurface->place[i].link);
	}
	subsurface->surface_destroy.notify = subsurface_surface_destroyed;
	wl_signal_add(&surface->events.destroy, &subsurface->surface_destroy);
	wl_resource_set_implementation(subsurface->resource, &subsurface_impl, subsurface,
				       subsurface_resource_destroy);
}

static void subcompositor_handle_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static const struct wl_subcompositor_interface subcompositor_impl = {
	.destroy = subcompositor_handle_destroy,
	.get_subsurface = subcompositor_handle_get_subsurface,
};

static void subcompositor_bind(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct wl_resource *resource = wl_resource_create(client, &wl_subcompositor_interface,
							  (int)version, id);
	if (!resource) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &subcompositor_impl, data, NULL);
}

bool subcompositor_create_global(struct server *server)
{
	if (!wl_global_create(server->display, &wl_subcompositor_interface, SUBCOMPOSITOR_VERSION,
			      server, subcompositor_bind)) {
		LOG_ERR("cannot create the wl_subcompositor global");
		return false;
	}
	return true;
}
