#define LOG_MODULE "shell"
#include "xdg_shell.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <wayland-server-protocol.h>

#include "addon.h"
#include "clock.h"
#include "log.h"
#include "output.h"
#include "server.h"
#include "subcompositor.h"
#include "surface.h"
#include "viewporter.h"
#include "xdg-shell-server-protocol.h"
#include "xdg_positioner.h"

#define WM_BASE_VERSION 5
/* A ping every PING_PERIOD; a client silent for PING_PATIENCE is reported
 * once. It is never disconnected: a slow client (llvmpipe drawing a big
 * frame) is still what the user wants recorded. */
#define PING_PERIOD_MS 5000
#define PING_PATIENCE_NS (10 * 1000000000LL)

struct xdg_shell {
	struct server *server;
	struct wl_global *global;
	struct wl_list wm_bases; /* wm_base.link */
	struct wl_event_source *ping_timer;
	struct wl_list grabs; /* xdg_surface.grab_link: popups with a grab, topmost last */
	struct wl_listener stack_changed;
	xdg_shell_title_handler title_handler;
	void *title_data;
	char *top_title; /* last given to title_handler */
};

struct wm_base {
	struct wl_resource *resource;
	struct xdg_shell *shell;
	struct wl_list link;
	struct wl_list surfaces; /* xdg_surface.wm_base_link */
	uint32_t ping_serial;
	int64_t ping_sent_ns;
	bool ping_pending, reported_unresponsive;
};

enum xdg_role { XDG_ROLE_NONE, XDG_ROLE_TOPLEVEL, XDG_ROLE_POPUP };

struct geometry {
	bool set;
	int32_t x, y, width, height;
};

struct xdg_surface {
	struct wl_resource *resource;
	struct wm_base *wm_base; /* NULL once the wm_base is gone */
	struct wl_list wm_base_link;
	struct surface *surface; /* NULL once the wl_surface is gone */
	struct addon surface_addon; /* how the wl_surface knows it has one */
	struct wl_listener surface_commit;

	enum xdg_role role;
	struct wl_resource *role_resource; /* xdg_toplevel or xdg_popup */
	bool initial_commit_done; /* the first configure was sent */
	bool configured;          /* a configure was acked */
	uint32_t configure_serial;
	struct geometry pending_geometry, geometry;
	struct wl_list popups;    /* xdg_surface.popup_link of child popups */

	/* Toplevel */
	struct screen_view view;
	int32_t min_width, min_height, max_width, max_height;
	char *title; /* NULL until set */

	/* Popup */
	struct xdg_surface *parent; /* NULL once the parent is gone */
	struct wl_list popup_link;
	struct xdg_positioner_rules rules;
	int32_t popup_x, popup_y;   /* relative to the parent's window geometry */
	bool popup_mapped;
	bool popup_moved;           /* repositioned: redraw on the next commit */
	struct wl_list grab_link;   /* xdg_shell.grabs; empty without a grab */
};

static const struct xdg_wm_base_interface wm_base_impl;
static const struct xdg_surface_interface xdg_surface_impl;
static const struct xdg_toplevel_interface toplevel_impl;
static const struct xdg_popup_interface popup_impl;

static struct wm_base *wm_base_from_resource(struct wl_resource *resource)
{
	assert(wl_resource_instance_of(resource, &xdg_wm_base_interface, &wm_base_impl));
	return wl_resource_get_user_data(resource);
}

static struct xdg_surface *xdg_surface_from_resource(struct wl_resource *resource)
{
	assert(wl_resource_instance_of(resource, &xdg_surface_interface, &xdg_surface_impl));
	return wl_resource_get_user_data(resource);
}

/* NULL when the xdg_surface went first: the role object is inert then. */
static struct xdg_surface *toplevel_from_resource(struct wl_resource *resource)
{
	assert(wl_resource_instance_of(resource, &xdg_toplevel_interface, &toplevel_impl));
	return wl_resource_get_user_data(resource);
}

/* NULL when the xdg_surface went first, as for toplevels. */
static struct xdg_surface *popup_from_resource(struct wl_resource *resource)
{
	assert(wl_resource_instance_of(resource, &xdg_popup_interface, &popup_impl));
	return wl_resource_get_user_data(resource);
}

static struct server *xdg_server(const struct xdg_surface *xdg)
{
	return xdg->surface ? xdg->surface->server : NULL;
}

/* The window geometry: as set, or the surface's own extent. */
static struct geometry window_geometry(const struct xdg_surface *xdg)
{
	if (xdg->geometry.set)
		return xdg->geometry;
	struct geometry g = { .set = true };
	if (xdg->surface)
		surface_get_shown_size(xdg->surface, &g.width, &g.height);
	return g;
}

/* ---- configure ---- */

static void append_state(struct wl_array *states, uint32_t state)
{
	uint32_t *slot = wl_array_add(states, sizeof(*slot));
	if (slot)
		*slot = state;
}

static uint32_t next_serial(struct xdg_surface *xdg)
{
	struct wl_display *display = wl_client_get_display(wl_resource_get_client(xdg->resource));
	xdg->configure_serial = wl_display_next_serial(display);
	return xdg->configure_serial;
}

/* Fullscreen at the output's size, within the client's min/max size. */
static void send_toplevel_configure(struct xdg_surface *xdg)
{
	struct server *server = xdg_server(xdg);
	if (!server || !xdg->role_resource)
		return;
	int32_t width = server->screen.width, height = server->screen.height;
	if (xdg->max_width > 0 && width > xdg->max_width)
		width = xdg->max_width;
	if (xdg->max_height > 0 && height > xdg->max_height)
		height = xdg->max_height;
	if (width < xdg->min_width)
		width = xdg->min_width;
	if (height < xdg->min_height)
		height = xdg->min_height;

	uint32_t version = (uint32_t)wl_resource_get_version(xdg->role_resource);
	if (version >= XDG_TOPLEVEL_CONFIGURE_BOUNDS_SINCE_VERSION)
		xdg_toplevel_send_configure_bounds(xdg->role_resource, server->screen.width,
						   server->screen.height);
	if (version >= XDG_TOPLEVEL_WM_CAPABILITIES_SINCE_VERSION && !xdg->initial_commit_done) {
		struct wl_array capabilities;
		wl_array_init(&capabilities);
		append_state(&capabilities, XDG_TOPLEVEL_WM_CAPABILITIES_FULLSCREEN);
		xdg_toplevel_send_wm_capabilities(xdg->role_resource, &capabilities);
		wl_array_release(&capabilities);
	}
	struct wl_array states;
	wl_array_init(&states);
	append_state(&states, XDG_TOPLEVEL_STATE_FULLSCREEN);
	append_state(&states, XDG_TOPLEVEL_STATE_ACTIVATED);
	xdg_toplevel_send_configure(xdg->role_resource, width, height, &states);
	wl_array_release(&states);
	xdg_surface_send_configure(xdg->resource, next_serial(xdg));
}

static void place_popup(struct xdg_surface *popup)
{
	int32_t width, height;
	xdg_positioner_place(&popup->rules, &popup->popup_x, &popup->popup_y, &width, &height);
}

static void send_popup_configure(struct xdg_surface *popup)
{
	if (!popup->role_resource)
		return;
	xdg_popup_send_configure(popup->role_resource, popup->popup_x, popup->popup_y,
				 popup->rules.width, popup->rules.height);
	xdg_surface_send_configure(popup->resource, next_serial(popup));
}

static void send_configure(struct xdg_surface *xdg)
{
	if (xdg->role == XDG_ROLE_TOPLEVEL)
		send_toplevel_configure(xdg);
	else if (xdg->role == XDG_ROLE_POPUP)
		send_popup_configure(xdg);
}

/* ---- the view: the toplevel's surfaces and its popups ---- */

struct tree_call {
	void (*fn)(struct surface *surface, int x, int y, void *data);
	void *data;
};

static void popups_for_each(struct xdg_surface *parent, int root_x, int root_y,
			    struct tree_call *call)
{
	struct geometry pg = window_geometry(parent);
	struct xdg_surface *popup;
	wl_list_for_each(popup, &parent->popups, popup_link) {
		if (!popup->popup_mapped || !popup->surface)
			continue;
		struct geometry g = window_geometry(popup);
		int x = root_x + pg.x + popup->popup_x - g.x;
		int y = root_y + pg.y + popup->popup_y - g.y;
		surface_tree_for_each(popup->surface, x, y, call->fn, call->data);
		popups_for_each(popup, x, y, call);
	}
}

static void view_for_each_surface(struct screen_view *view,
				  void (*fn)(struct surface *surface, int x, int y, void *data),
				  void *data)
{
	struct xdg_surface *xdg = wl_container_of(view, xdg, view);
	if (!xdg->surface)
		return;
	struct tree_call call = { fn, data };
	surface_tree_for_each(xdg->surface, 0, 0, fn, data);
	popups_for_each(xdg, 0, 0, &call);
}

static const struct screen_view_impl view_impl = {
	.for_each_surface = view_for_each_surface,
};

static void update_view_geometry(struct xdg_surface *xdg)
{
	struct geometry g = window_geometry(xdg);
	xdg->view.geometry_x = g.x;
	xdg->view.geometry_y = g.y;
	xdg->view.geometry_width = g.width;
	xdg->view.geometry_height = g.height;
}

static void unmap(struct xdg_surface *xdg)
{
	struct server *server = xdg_server(xdg);
	if (xdg->role == XDG_ROLE_TOPLEVEL && xdg->view.mapped && server)
		screen_unmap_view(&server->screen, &xdg->view, clock_now_ns());
	/* A popup's grab ends when it goes. */
	wl_list_remove(&xdg->grab_link);
	wl_list_init(&xdg->grab_link);
	if (xdg->role == XDG_ROLE_POPUP && xdg->popup_mapped) {
		xdg->popup_mapped = false;
		if (server) {
			wl_signal_emit(&server->screen.events.stack_changed, NULL);
			screen_damage_all(&server->screen);
			screen_flush(&server->screen, clock_now_ns());
		}
	}
	xdg->configured = false;
	xdg->initial_commit_done = false;
}

/* ---- commit ---- */

static void xdg_surface_committed(struct wl_listener *listener, void *data)
{
	struct xdg_surface *xdg = wl_container_of(listener, xdg, surface_commit);
	const struct surface_commit_event *event = data;
	struct surface *surface = event->surface;
	const pixman_region32_t *damage = event->damage;
	int64_t commit_ns = event->commit_ns;
	if (xdg->role == XDG_ROLE_NONE)
		return;
	struct screen *screen = &surface->server->screen;

	bool geometry_changed = memcmp(&xdg->pending_geometry, &xdg->geometry,
				       sizeof(xdg->geometry)) != 0;
	xdg->geometry = xdg->pending_geometry;

	if (!xdg->initial_commit_done) {
		if (surface->mapped) {
			wl_resource_post_error(xdg->resource, XDG_SURFACE_ERROR_UNCONFIGURED_BUFFER,
					       "a buffer was committed before the first configure");
			return;
		}
		send_configure(xdg);
		xdg->initial_commit_done = true;
		return;
	}
	if (!surface->mapped) {
		unmap(xdg);
		return;
	}
	if (!xdg->configured) {
		wl_resource_post_error(xdg->resource, XDG_SURFACE_ERROR_UNCONFIGURED_BUFFER,
				       "a buffer was committed before a configure was acked");
		return;
	}

	if (xdg->role == XDG_ROLE_TOPLEVEL) {
		/* Without a set geometry the window is the surface: a new
		 * buffer size moves it on the screen too. */
		struct screen_view before = xdg->view;
		update_view_geometry(xdg);
		if (before.geometry_x != xdg->view.geometry_x ||
		    before.geometry_y != xdg->view.geometry_y ||
		    before.geometry_width != xdg->view.geometry_width ||
		    before.geometry_height != xdg->view.geometry_height)
			geometry_changed = true;
		if (!xdg->view.mapped) {
			output_send_enter(surface->server->output, surface->resource);
			screen_map_view(screen, &xdg->view, commit_ns);
			return;
		}
	} else {
		if (!xdg->popup_mapped) {
			xdg->popup_mapped = true;
			output_send_enter(surface->server->output, surface->resource);
			geometry_changed = true;
			wl_signal_emit(&screen->events.stack_changed, NULL);
		}
		if (xdg->popup_moved)
			geometry_changed = true;
		xdg->popup_moved = false;
	}
	if (geometry_changed)
		screen_damage_all(screen);
	screen_damage_surface(screen, surface, damage);
	screen_flush(screen, commit_ns);
}


/* ---- the title on top ---- */

static const char *top_title(struct xdg_shell *shell)
{
	struct screen_view *view;
	wl_list_for_each_reverse(view, &shell->server->screen.views, link) {
		if (view->impl != &view_impl || !view->mapped)
			continue;
		struct xdg_surface *xdg = wl_container_of(view, xdg, view);
		return xdg->title;
	}
	return NULL;
}

static void report_title(struct xdg_shell *shell, bool always)
{
	if (!shell->title_handler)
		return;
	const char *title = top_title(shell);
	bool same = title && shell->top_title ? strcmp(title, shell->top_title) == 0
					      : title == shell->top_title;
	if (same && !always)
		return;
	free(shell->top_title);
	shell->top_title = title ? strdup(title) : NULL;
	shell->title_handler(shell->title_data, shell->top_title);
}

static void handle_stack_changed(struct wl_listener *listener, void *data)
{
	struct xdg_shell *shell = wl_container_of(listener, shell, stack_changed);
	report_title(shell, false);
}

/* ---- xdg_toplevel ---- */

static void toplevel_handle_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static void toplevel_ignore_parent(struct wl_client *client, struct wl_resource *resource,
				   struct wl_resource *parent)
{
	/* Every toplevel is fullscreen: a dialog's parent changes nothing. */
}

static void toplevel_ignore_string(struct wl_client *client, struct wl_resource *resource,
				   const char *value)
{
}

static void toplevel_set_title(struct wl_client *client, struct wl_resource *resource,
			       const char *title)
{
	struct xdg_surface *xdg = toplevel_from_resource(resource);
	if (!xdg)
		return;
	char *copy = strdup(title);
	if (!copy) {
		wl_client_post_no_memory(client);
		return;
	}
	free(xdg->title);
	xdg->title = copy;
	struct server *server = xdg_server(xdg);
	if (server && xdg->view.mapped)
		report_title(server->xdg_shell, false);
}

static void toplevel_ignore_menu(struct wl_client *client, struct wl_resource *resource,
				 struct wl_resource *seat, uint32_t serial, int32_t x, int32_t y)
{
}

static void toplevel_ignore_move(struct wl_client *client, struct wl_resource *resource,
				 struct wl_resource *seat, uint32_t serial)
{
}

static void toplevel_ignore_resize(struct wl_client *client, struct wl_resource *resource,
				   struct wl_resource *seat, uint32_t serial, uint32_t edges)
{
}

static bool check_size(struct wl_resource *resource, int32_t width, int32_t height)
{
	if (width >= 0 && height >= 0)
		return true;
	wl_resource_post_error(resource, XDG_TOPLEVEL_ERROR_INVALID_SIZE,
			       "size %dx%d is negative", width, height);
	return false;
}

static void toplevel_set_max_size(struct wl_client *client, struct wl_resource *resource,
				  int32_t width, int32_t height)
{
	struct xdg_surface *xdg = toplevel_from_resource(resource);
	if (!xdg || !check_size(resource, width, height))
		return;
	xdg->max_width = width;
	xdg->max_height = height;
}

static void toplevel_set_min_size(struct wl_client *client, struct wl_resource *resource,
				  int32_t width, int32_t height)
{
	struct xdg_surface *xdg = toplevel_from_resource(resource);
	if (!xdg || !check_size(resource, width, height))
		return;
	xdg->min_width = width;
	xdg->min_height = height;
}

/* State requests are answered with a configure, which is always the same:
 * fullscreen, activated, the output's size. */
static void toplevel_reconfigure(struct wl_client *client, struct wl_resource *resource)
{
	struct xdg_surface *xdg = toplevel_from_resource(resource);
	if (xdg && xdg->initial_commit_done)
		send_toplevel_configure(xdg);
}

static void toplevel_set_fullscreen(struct wl_client *client, struct wl_resource *resource,
				    struct wl_resource *output)
{
	toplevel_reconfigure(client, resource);
}

static const struct xdg_toplevel_interface toplevel_impl = {
	.destroy = toplevel_handle_destroy,
	.set_parent = toplevel_ignore_parent,
	.set_title = toplevel_set_title,
	.set_app_id = toplevel_ignore_string,
	.show_window_menu = toplevel_ignore_menu,
	.move = toplevel_ignore_move,
	.resize = toplevel_ignore_resize,
	.set_max_size = toplevel_set_max_size,
	.set_min_size = toplevel_set_min_size,
	.set_maximized = toplevel_reconfigure,
	.unset_maximized = toplevel_reconfigure,
	.set_fullscreen = toplevel_set_fullscreen,
	.unset_fullscreen = toplevel_reconfigure,
	.set_minimized = toplevel_reconfigure,
};

static void role_resource_destroy(struct wl_resource *resource)
{
	struct xdg_surface *xdg = wl_resource_get_user_data(resource);
	if (!xdg)
		return;
	unmap(xdg);
	if (xdg->role == XDG_ROLE_POPUP) {
		wl_list_remove(&xdg->popup_link);
		wl_list_init(&xdg->popup_link);
		xdg->parent = NULL;
	}
	xdg->role_resource = NULL;
	xdg->role = XDG_ROLE_NONE;
	/* A later toplevel of this xdg_surface starts untitled. */
	free(xdg->title);
	xdg->title = NULL;
}

/* ---- xdg_popup ---- */

static void popup_handle_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static void popup_handle_grab(struct wl_client *client, struct wl_resource *resource,
			      struct wl_resource *seat, uint32_t serial)
{
	/* The topmost grab takes the keyboard and keeps the pointer within the
	 * client; the seat (seat.c) asks for it and ends it on a click
	 * elsewhere. The serial is not checked: wl-record's input comes from
	 * the user at the desktop alone. */
	struct xdg_surface *popup = popup_from_resource(resource);
	if (!popup || !popup->wm_base)
		return;
	if (popup->popup_mapped) {
		wl_resource_post_error(resource, XDG_POPUP_ERROR_INVALID_GRAB,
				       "grab on a popup already mapped");
		return;
	}
	wl_list_remove(&popup->grab_link);
	wl_list_insert(popup->wm_base->shell->grabs.prev, &popup->grab_link);
}

static void popup_handle_reposition(struct wl_client *client, struct wl_resource *resource,
				    struct wl_resource *positioner, uint32_t token)
{
	struct xdg_surface *popup = popup_from_resource(resource);
	const struct xdg_positioner_rules *rules = xdg_positioner_from_resource(positioner);
	if (!popup)
		return;
	if (!rules->has_size || !rules->has_anchor_rect) {
		wl_resource_post_error(resource, XDG_WM_BASE_ERROR_INVALID_POSITIONER,
				       "the positioner has no size or anchor rectangle");
		return;
	}
	popup->rules = *rules;
	place_popup(popup);
	popup->popup_moved = true;
	xdg_popup_send_repositioned(resource, token);
	send_popup_configure(popup);
}

static const struct xdg_popup_interface popup_impl = {
	.destroy = popup_handle_destroy,
	.grab = popup_handle_grab,
	.reposition = popup_handle_reposition,
};

/* ---- xdg_surface ---- */

static void xdg_surface_handle_destroy(struct wl_client *client, struct wl_resource *resource)
{
	struct xdg_surface *xdg = xdg_surface_from_resource(resource);
	if (xdg->role_resource) {
		wl_resource_post_error(resource, XDG_SURFACE_ERROR_DEFUNCT_ROLE_OBJECT,
				       "xdg_surface destroyed before its role object");
		return;
	}
	wl_resource_destroy(resource);
}

static bool check_new_role(struct xdg_surface *xdg)
{
	if (xdg->role_resource || xdg->role != XDG_ROLE_NONE) {
		wl_resource_post_error(xdg->resource, XDG_SURFACE_ERROR_ALREADY_CONSTRUCTED,
				       "xdg_surface already has a role object");
		return false;
	}
	if (!xdg->surface) {
		wl_resource_post_error(xdg->resource, XDG_SURFACE_ERROR_NOT_CONSTRUCTED,
				       "the wl_surface is gone");
		return false;
	}
	return true;
}

static void xdg_surface_handle_get_toplevel(struct wl_client *client,
					    struct wl_resource *resource, uint32_t id)
{
	struct xdg_surface *xdg = xdg_surface_from_resource(resource);
	if (!check_new_role(xdg))
		return;
	xdg->role_resource = wl_resource_create(client, &xdg_toplevel_interface,
						wl_resource_get_version(resource), id);
	if (!xdg->role_resource) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(xdg->role_resource, &toplevel_impl, xdg,
				       role_resource_destroy);
	xdg->role = XDG_ROLE_TOPLEVEL;
}

static void xdg_surface_handle_get_popup(struct wl_client *client, struct wl_resource *resource,
					 uint32_t id, struct wl_resource *parent_resource,
					 struct wl_resource *positioner_resource)
{
	struct xdg_surface *xdg = xdg_surface_from_resource(resource);
	const struct xdg_positioner_rules *rules =
		xdg_positioner_from_resource(positioner_resource);
	if (!check_new_role(xdg))
		return;
	if (!rules->has_size || !rules->has_anchor_rect) {
		struct wl_resource *error_on = xdg->wm_base ? xdg->wm_base->resource : resource;
		wl_resource_post_error(error_on, XDG_WM_BASE_ERROR_INVALID_POSITIONER,
				       "the positioner has no size or anchor rectangle");
		return;
	}
	/* A popup without parent must get one through another protocol
	 * (layer-shell), which wl-record does not offer. */
	struct xdg_surface *parent = parent_resource ? xdg_surface_from_resource(parent_resource)
						     : NULL;
	if (!parent || parent->role == XDG_ROLE_NONE) {
		struct wl_resource *error_on = xdg->wm_base ? xdg->wm_base->resource : resource;
		wl_resource_post_error(error_on, XDG_WM_BASE_ERROR_INVALID_POPUP_PARENT,
				       "a popup needs an xdg_surface parent with a role");
		return;
	}
	xdg->role_resource = wl_resource_create(client, &xdg_popup_interface,
						wl_resource_get_version(resource), id);
	if (!xdg->role_resource) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(xdg->role_resource, &popup_impl, xdg,
				       role_resource_destroy);
	xdg->role = XDG_ROLE_POPUP;
	xdg->parent = parent;
	wl_list_insert(parent->popups.prev, &xdg->popup_link);
	xdg->rules = *rules;
	place_popup(xdg);
}

static void xdg_surface_handle_set_window_geometry(struct wl_client *client,
						   struct wl_resource *resource, int32_t x,
						   int32_t y, int32_t width, int32_t height)
{
	struct xdg_surface *xdg = xdg_surface_from_resource(resource);
	if (width <= 0 || height <= 0) {
		wl_resource_post_error(resource, XDG_SURFACE_ERROR_INVALID_SIZE,
				       "window geometry %dx%d is not positive", width, height);
		return;
	}
	xdg->pending_geometry = (struct geometry){ true, x, y, width, height };
}

static void xdg_surface_handle_ack_configure(struct wl_client *client,
					     struct wl_resource *resource, uint32_t serial)
{
	struct xdg_surface *xdg = xdg_surface_from_resource(resource);
	if (xdg->role == XDG_ROLE_NONE) {
		wl_resource_post_error(resource, XDG_SURFACE_ERROR_NOT_CONSTRUCTED,
				       "ack_configure on an xdg_surface without a role");
		return;
	}
	if (!xdg->initial_commit_done || serial > xdg->configure_serial) {
		wl_resource_post_error(resource, XDG_SURFACE_ERROR_INVALID_SERIAL,
				       "serial %u was never sent in a configure", serial);
		return;
	}
	xdg->configured = true;
}

static const struct xdg_surface_interface xdg_surface_impl = {
	.destroy = xdg_surface_handle_destroy,
	.get_toplevel = xdg_surface_handle_get_toplevel,
	.get_popup = xdg_surface_handle_get_popup,
	.set_window_geometry = xdg_surface_handle_set_window_geometry,
	.ack_configure = xdg_surface_handle_ack_configure,
};

/* Popups of a parent that goes away are dismissed (popup_done). */
static void dismiss_popups(struct xdg_surface *xdg)
{
	struct xdg_surface *popup, *tmp;
	wl_list_for_each_safe(popup, tmp, &xdg->popups, popup_link) {
		unmap(popup);
		wl_list_remove(&popup->popup_link);
		wl_list_init(&popup->popup_link);
		popup->parent = NULL;
		if (popup->role_resource)
			xdg_popup_send_popup_done(popup->role_resource);
	}
}

static void detach_surface(struct xdg_surface *xdg)
{
	if (!xdg->surface)
		return;
	unmap(xdg);
	dismiss_popups(xdg);
	addon_finish(&xdg->surface_addon);
	wl_list_remove(&xdg->surface_commit.link);
	xdg->surface = NULL;
}

static void xdg_surface_addon_destroy(struct addon *addon)
{
	struct xdg_surface *xdg = wl_container_of(addon, xdg, surface_addon);
	detach_surface(xdg);
}

static const struct addon_interface xdg_surface_addon_impl = {
	.name = "xdg_surface",
	.destroy = xdg_surface_addon_destroy,
};

static void xdg_surface_resource_destroy(struct wl_resource *resource)
{
	struct xdg_surface *xdg = xdg_surface_from_resource(resource);
	if (xdg->role_resource) {
		/* Client teardown destroys in any order: leave the role inert. */
		unmap(xdg);
		wl_resource_set_user_data(xdg->role_resource, NULL);
		if (xdg->role == XDG_ROLE_POPUP)
			wl_list_remove(&xdg->popup_link);
	}
	detach_surface(xdg);
	dismiss_popups(xdg);
	wl_list_remove(&xdg->wm_base_link);
	free(xdg->title);
	free(xdg);
}

/* ---- xdg_wm_base ---- */

static void wm_base_handle_destroy(struct wl_client *client, struct wl_resource *resource)
{
	struct wm_base *wm_base = wm_base_from_resource(resource);
	if (!wl_list_empty(&wm_base->surfaces)) {
		wl_resource_post_error(resource, XDG_WM_BASE_ERROR_DEFUNCT_SURFACES,
				       "xdg_wm_base destroyed while it has xdg_surfaces");
		return;
	}
	wl_resource_destroy(resource);
}

static void wm_base_handle_create_positioner(struct wl_client *client,
					     struct wl_resource *resource, uint32_t id)
{
	xdg_positioner_create(client, (uint32_t)wl_resource_get_version(resource), id);
}

static void wm_base_handle_get_xdg_surface(struct wl_client *client, struct wl_resource *resource,
					   uint32_t id, struct wl_resource *surface_resource)
{
	struct wm_base *wm_base = wm_base_from_resource(resource);
	struct surface *surface = surface_from_resource(surface_resource);
	/* Not a surface role of its own: Weston 10's wayland backend makes
	 * its output surface an xdg toplevel and then presents it through the
	 * fullscreen shell when both are offered; the presentation then wins
	 * on the screen. Any role taken before is still an error. */
	if (surface->role || addon_find(&surface->addons, NULL, &xdg_surface_addon_impl)) {
		wl_resource_post_error(resource, XDG_WM_BASE_ERROR_ROLE,
				       "wl_surface@%u already has a role or an xdg_surface",
				       wl_resource_get_id(surface_resource));
		return;
	}
	if (surface->mapped) {
		wl_resource_post_error(resource, XDG_WM_BASE_ERROR_INVALID_SURFACE_STATE,
				       "wl_surface@%u already has a buffer",
				       wl_resource_get_id(surface_resource));
		return;
	}
	struct xdg_surface *xdg = calloc(1, sizeof(*xdg));
	if (!xdg) {
		wl_client_post_no_memory(client);
		return;
	}
	xdg->resource = wl_resource_create(client, &xdg_surface_interface,
					   wl_resource_get_version(resource), id);
	if (!xdg->resource) {
		free(xdg);
		wl_client_post_no_memory(client);
		return;
	}
	xdg->wm_base = wm_base;
	wl_list_insert(&wm_base->surfaces, &xdg->wm_base_link);
	xdg->surface = surface;
	addon_init(&xdg->surface_addon, &surface->addons, NULL, &xdg_surface_addon_impl);
	xdg->surface_commit.notify = xdg_surface_committed;
	wl_signal_add(&surface->events.commit, &xdg->surface_commit);
	wl_list_init(&xdg->popups);
	wl_list_init(&xdg->popup_link);
	wl_list_init(&xdg->grab_link);
	xdg->view.impl = &view_impl;
	xdg->view.root = surface;
	wl_list_init(&xdg->view.link);
	wl_resource_set_implementation(xdg->resource, &xdg_surface_impl, xdg,
				       xdg_surface_resource_destroy);
}

static void wm_base_handle_pong(struct wl_client *client, struct wl_resource *resource,
				uint32_t serial)
{
	struct wm_base *wm_base = wm_base_from_resource(resource);
	if (!wm_base->ping_pending || serial != wm_base->ping_serial)
		return; /* a late answer to an older ping */
	wm_base->ping_pending = false;
	if (wm_base->reported_unresponsive)
		LOG_INFO("an xdg-shell client answers pings again");
	wm_base->reported_unresponsive = false;
}

static const struct xdg_wm_base_interface wm_base_impl = {
	.destroy = wm_base_handle_destroy,
	.create_positioner = wm_base_handle_create_positioner,
	.get_xdg_surface = wm_base_handle_get_xdg_surface,
	.pong = wm_base_handle_pong,
};

static void wm_base_resource_destroy(struct wl_resource *resource)
{
	struct wm_base *wm_base = wm_base_from_resource(resource);
	struct xdg_surface *xdg, *tmp;
	wl_list_for_each_safe(xdg, tmp, &wm_base->surfaces, wm_base_link) {
		wl_list_remove(&xdg->wm_base_link);
		wl_list_init(&xdg->wm_base_link);
		xdg->wm_base = NULL;
	}
	wl_list_remove(&wm_base->link);
	free(wm_base);
}

/* Pings every client; one that stays silent is reported, not dropped: the
 * protocol lets the compositor decide, and a recorder must not block on or
 * kill a busy app. */
static int handle_ping_timer(void *data)
{
	struct xdg_shell *shell = data;
	int64_t now = clock_now_ns();
	struct wm_base *wm_base;
	wl_list_for_each(wm_base, &shell->wm_bases, link) {
		if (wm_base->ping_pending) {
			if (now - wm_base->ping_sent_ns > PING_PATIENCE_NS &&
			    !wm_base->reported_unresponsive) {
				LOG_WARN("an xdg-shell client has not answered a ping for %lld s; "
					 "still recording it",
					 (long long)(PING_PATIENCE_NS / 1000000000LL));
				wm_base->reported_unresponsive = true;
			}
			continue;
		}
		wm_base->ping_serial = wl_display_next_serial(shell->server->display);
		wm_base->ping_sent_ns = now;
		wm_base->ping_pending = true;
		xdg_wm_base_send_ping(wm_base->resource, wm_base->ping_serial);
	}
	if (!wl_list_empty(&shell->wm_bases))
		wl_event_source_timer_update(shell->ping_timer, PING_PERIOD_MS);
	return 0;
}

static void wm_base_bind(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct xdg_shell *shell = data;
	struct wm_base *wm_base = calloc(1, sizeof(*wm_base));
	if (!wm_base) {
		wl_client_post_no_memory(client);
		return;
	}
	wm_base->resource = wl_resource_create(client, &xdg_wm_base_interface, (int)version, id);
	if (!wm_base->resource) {
		free(wm_base);
		wl_client_post_no_memory(client);
		return;
	}
	wm_base->shell = shell;
	wl_list_init(&wm_base->surfaces);
	if (wl_list_empty(&shell->wm_bases))
		wl_event_source_timer_update(shell->ping_timer, PING_PERIOD_MS);
	wl_list_insert(&shell->wm_bases, &wm_base->link);
	wl_resource_set_implementation(wm_base->resource, &wm_base_impl, wm_base,
				       wm_base_resource_destroy);
}

struct xdg_shell *xdg_shell_create(struct server *server)
{
	struct xdg_shell *shell = calloc(1, sizeof(*shell));
	if (!shell)
		return NULL;
	shell->server = server;
	wl_list_init(&shell->wm_bases);
	wl_list_init(&shell->grabs);
	shell->stack_changed.notify = handle_stack_changed;
	wl_signal_add(&server->screen.events.stack_changed, &shell->stack_changed);
	shell->ping_timer = wl_event_loop_add_timer(server->loop, handle_ping_timer, shell);
	shell->global = wl_global_create(server->display, &xdg_wm_base_interface, WM_BASE_VERSION,
					 shell, wm_base_bind);
	if (!shell->ping_timer || !shell->global) {
		LOG_ERR("cannot create the xdg_wm_base global");
		xdg_shell_destroy(shell);
		return NULL;
	}
	return shell;
}

void xdg_shell_destroy(struct xdg_shell *shell)
{
	if (!shell)
		return;
	if (shell->global)
		wl_global_destroy(shell->global);
	if (shell->ping_timer)
		wl_event_source_remove(shell->ping_timer);
	wl_list_remove(&shell->stack_changed.link);
	free(shell->top_title);
	free(shell);
}

void xdg_shell_output_resized(struct xdg_shell *shell)
{
	if (!shell)
		return;
	struct wm_base *wm_base;
	wl_list_for_each(wm_base, &shell->wm_bases, link) {
		struct xdg_surface *xdg;
		wl_list_for_each(xdg, &wm_base->surfaces, wm_base_link) {
			if (xdg->role == XDG_ROLE_TOPLEVEL && xdg->initial_commit_done)
				send_toplevel_configure(xdg);
		}
	}
}

struct surface *xdg_shell_grab_surface(struct xdg_shell *shell)
{
	if (!shell || wl_list_empty(&shell->grabs))
		return NULL;
	struct xdg_surface *top = wl_container_of(shell->grabs.prev, top, grab_link);
	return top->popup_mapped ? top->surface : NULL;
}

void xdg_shell_dismiss_grab(struct xdg_shell *shell)
{
	if (!shell)
		return;
	while (!wl_list_empty(&shell->grabs)) {
		struct xdg_surface *top = wl_container_of(shell->grabs.prev, top, grab_link);
		dismiss_popups(top);
		unmap(top); /* leaves the grab list */
		if (top->role_resource)
			xdg_popup_send_popup_done(top->role_resource);
	}
}

void xdg_shell_set_title_handler(struct xdg_shell *shell, xdg_shell_title_handler handler,
				 void *data)
{
	if (!shell)
		return;
	shell->title_handler = handler;
	shell->title_data = data;
	if (handler)
		report_title(shell, true);
}

int xdg_shell_close_toplevels(struct xdg_shell *shell)
{
	if (!shell)
		return 0;
	int asked = 0;
	struct wm_base *wm_base;
	wl_list_for_each(wm_base, &shell->wm_bases, link) {
		struct xdg_surface *xdg;
		wl_list_for_each(xdg, &wm_base->surfaces, wm_base_link) {
			if (xdg->role == XDG_ROLE_TOPLEVEL && xdg->role_resource) {
				xdg_toplevel_send_close(xdg->role_resource);
				asked++;
			}
		}
	}
	return asked;
}
