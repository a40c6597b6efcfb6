#define LOG_MODULE "capture"
#include "subcompositor.h"

#include <stdlib.h>
#include <wayland-server-protocol.h>

#include "clock.h"
#include "log.h"
#include "server.h"
#include "surface.h"

#define SUBCOMPOSITOR_VERSION 1

/* Kept beside a surface that has subsurfaces (found through its destroy
 * listener): the stacking order of the children and the parent itself, as
 * shown and as requested for the parent's next commit. */
struct subsurface_parent {
	struct surface *surface;
	struct wl_list current; /* subsurface.current_link and self_current */
	struct wl_list pending; /* subsurface.pending_link and self_pending */
	struct wl_list self_current, self_pending;
	struct wl_listener surface_destroy;
	struct wl_listener surface_commit;
};

struct subsurface {
	struct wl_resource *resource;
	struct surface *surface;          /* NULL once destroyed */
	struct subsurface_parent *parent; /* NULL once the parent is gone */
	struct wl_list current_link, pending_link;
	int x, y, pending_x, pending_y;
	bool synchronized;
	bool has_cache;                   /* a commit waits for the parent's */
	pixman_region32_t cached_damage;
	struct wl_listener surface_destroy;
};

static const struct wl_subsurface_interface subsurface_impl;
static const struct surface_role subsurface_role;

static struct subsurface *subsurface_from_resource(struct wl_resource *resource)
{
	if (!wl_resource_instance_of(resource, &wl_subsurface_interface, &subsurface_impl))
		return NULL;
	return wl_resource_get_user_data(resource);
}

static struct subsurface *subsurface_of_surface(const struct surface *surface)
{
	return surface->role == &subsurface_role ? surface->role_data : NULL;
}

static void parent_surface_destroyed(struct wl_listener *listener, void *data);

static struct subsurface_parent *parent_of_surface(const struct surface *surface)
{
	struct wl_listener *listener =
		wl_signal_get((struct wl_signal *)&surface->events.destroy, parent_surface_destroyed);
	if (!listener)
		return NULL;
	struct subsurface_parent *parent = wl_container_of(listener, parent, surface_destroy);
	return parent;
}

/* Synchronized itself, or through any ancestor (the protocol's effective
 * synchronisation). */
static bool effectively_synchronized(const struct subsurface *subsurface)
{
	for (const struct subsurface *s = subsurface; s; ) {
		if (s->synchronized)
			return true;
		if (!s->parent)
			return false;
		s = subsurface_of_surface(s->parent->surface);
	}
	return false;
}

static void unlink_from_parent(struct subsurface *subsurface)
{
	if (!subsurface->parent)
		return;
	wl_list_remove(&subsurface->current_link);
	wl_list_remove(&subsurface->pending_link);
	wl_list_init(&subsurface->current_link);
	wl_list_init(&subsurface->pending_link);
	subsurface->parent = NULL;
}

static void apply_cache(struct subsurface *subsurface);

/* The parent's commit makes the children's pending position, order and
 * cached content current. */
static void apply_parent_state(struct subsurface_parent *parent)
{
	struct server *server = parent->surface->server;
	bool moved = false;
	/* Order: rebuild `current` in the order of `pending`. */
	struct wl_list *pos;
	struct wl_list new_current;
	wl_list_init(&new_current);
	for (pos = parent->pending.next; pos != &parent->pending; pos = pos->next) {
		struct wl_list *current_link;
		if (pos == &parent->self_pending) {
			current_link = &parent->self_current;
		} else {
			struct subsurface *child = wl_container_of(pos, child, pending_link);
			current_link = &child->current_link;
			if (child->x != child->pending_x || child->y != child->pending_y)
				moved = true;
			child->x = child->pending_x;
			child->y = child->pending_y;
		}
		wl_list_remove(current_link);
		wl_list_insert(new_current.prev, current_link);
	}
	/* A reorder request already marked the whole picture damaged. */
	wl_list_insert_list(&parent->current, &new_current);
	if (moved)
		screen_damage_all(&server->screen);
	for (pos = parent->current.next; pos != &parent->current; pos = pos->next) {
		if (pos == &parent->self_current)
			continue;
		struct subsurface *child = wl_container_of(pos, child, current_link);
		apply_cache(child);
	}
}

static void apply_cache(struct subsurface *subsurface)
{
	if (subsurface->has_cache && subsurface->surface) {
		screen_damage_surface(&subsurface->surface->server->screen, subsurface->surface,
				      &subsurface->cached_damage);
		pixman_region32_clear(&subsurface->cached_damage);
		subsurface->has_cache = false;
	}
	/* Its own synchronized children wait on it. */
	struct subsurface_parent *parent =
		subsurface->surface ? parent_of_surface(subsurface->surface) : NULL;
	if (parent)
		apply_parent_state(parent);
}

static void parent_surface_committed(struct wl_listener *listener, void *data)
{
	struct subsurface_parent *parent = wl_container_of(listener, parent, surface_commit);
	apply_parent_state(parent);
}

static void parent_surface_destroyed(struct wl_listener *listener, void *data)
{
	struct subsurface_parent *parent = wl_container_of(listener, parent, surface_destroy);
	struct wl_list *pos, *next;
	for (pos = parent->pending.next; pos != &parent->pending; pos = next) {
		next = pos->next;
		if (pos == &parent->self_pending)
			continue;
		struct subsurface *child = wl_container_of(pos, child, pending_link);
		unlink_from_parent(child);
	}
	wl_list_remove(&parent->surface_destroy.link);
	wl_list_remove(&parent->surface_commit.link);
	free(parent);
}

static struct subsurface_parent *ensure_parent(struct surface *surface)
{
	struct subsurface_parent *parent = parent_of_surface(surface);
	if (parent)
		return parent;
	parent = calloc(1, sizeof(*parent));
	if (!parent)
		return NULL;
	parent->surface = surface;
	wl_list_init(&parent->current);
	wl_list_init(&parent->pending);
	wl_list_insert(&parent->current, &parent->self_current);
	wl_list_insert(&parent->pending, &parent->self_pending);
	parent->surface_destroy.notify = parent_surface_destroyed;
	wl_signal_add(&surface->events.destroy, &parent->surface_destroy);
	parent->surface_commit.notify = parent_surface_committed;
	/* First of the commit listeners: the children's new state must be in
	 * place before a shell listener draws the picture. */
	wl_list_insert(&surface->events.commit.listener_list, &parent->surface_commit.link);
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
	struct wl_list *pos;
	for (pos = parent->current.next; pos != &parent->current; pos = pos->next) {
		if (pos == &parent->self_current) {
			fn(root, x, y, data);
			continue;
		}
		struct subsurface *child = wl_container_of(pos, child, current_link);
		if (child->surface)
			surface_tree_for_each(child->surface, x + child->x, y + child->y, fn, data);
	}
}

static void subsurface_commit(struct surface *surface, const pixman_region32_t *damage,
			      int64_t commit_ns)
{
	struct subsurface *subsurface = surface->role_data;
	if (!subsurface)
		return; /* the wl_subsurface was destroyed: the role stays, inert */
	struct screen *screen = &surface->server->screen;
	if (effectively_synchronized(subsurface)) {
		/* Shown together with the parent's next commit. */
		pixman_region32_union(&subsurface->cached_damage, &subsurface->cached_damage,
				      (pixman_region32_t *)damage);
		subsurface->has_cache = true;
		return;
	}
	screen_damage_surface(screen, surface, damage);
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
	subsurface->pending_x = x;
	subsurface->pending_y = y;
}

/* The pending_link of `sibling_resource`'s surface in `subsurface`'s parent
 * (the parent itself included); NULL after posting bad_surface. */
static struct wl_list *sibling_link(struct subsurface *subsurface,
				    struct wl_resource *sibling_resource)
{
	struct surface *sibling = surface_from_resource(sibling_resource);
	struct subsurface_parent *parent = subsurface->parent;
	if (parent && sibling == parent->surface)
		return &parent->self_pending;
	struct subsurface *other = subsurface_of_surface(sibling);
	if (parent && other && other != subsurface && other->parent == parent)
		return &other->pending_link;
	wl_resource_post_error(subsurface->resource, WL_SUBSURFACE_ERROR_BAD_SURFACE,
			       "wl_surface@%u is not a sibling or the parent",
			       wl_resource_get_id(sibling_resource));
	return NULL;
}

static void restack(struct wl_resource *resource, struct wl_resource *sibling_resource, bool above)
{
	struct subsurface *subsurface = subsurface_from_resource(resource);
	struct wl_list *link = sibling_link(subsurface, sibling_resource);
	if (!link)
		return;
	wl_list_remove(&subsurface->pending_link);
	wl_list_insert(above ? link : link->prev, &subsurface->pending_link);
	if (subsurface->surface)
		screen_damage_all(&subsurface->surface->server->screen);
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
	if (!effectively_synchronized(subsurface) && subsurface->has_cache) {
		apply_cache(subsurface);
		if (subsurface->surface)
			screen_flush(&subsurface->surface->server->screen, clock_now_ns());
	}
}

static const struct wl_subsurface_interface subsurface_impl = {
	.destroy = subsurface_handle_destroy,
	.set_position = subsurface_handle_set_position,
	.place_above = subsurface_handle_place_above,
	.place_below = subsurface_handle_place_below,
	.set_sync = subsurface_handle_set_sync,
	.set_desync = subsurface_handle_set_desync,
};

static void detach_surface(struct subsurface *subsurface)
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
	screen_flush(screen, clock_now_ns());
}

static void subsurface_surface_destroyed(struct wl_listener *listener, void *data)
{
	struct subsurface *subsurface = wl_container_of(listener, subsurface, surface_destroy);
	detach_surface(subsurface);
}

static void subsurface_resource_destroy(struct wl_resource *resource)
{
	struct subsurface *subsurface = subsurface_from_resource(resource);
	detach_surface(subsurface);
	pixman_region32_fini(&subsurface->cached_damage);
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
	pixman_region32_init(&subsurface->cached_damage);
	/* A new subsurface starts on top of its siblings and parent. */
	wl_list_insert(parent->current.prev, &subsurface->current_link);
	wl_list_insert(parent->pending.prev, &subsurface->pending_link);
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
