#define LOG_MODULE "capture"
#include "drag.h"

#include <math.h>
#include <stdlib.h>
#include <unistd.h>
#include <wayland-server-protocol.h>

#include "clock.h"
#include "log.h"
#include "screen.h"
#include "seat.h"
#include "server.h"
#include "surface.h"
#include "tracked_surface.h"
#include "xdg_shell.h"

#define ALL_ACTIONS                                                                  \
	(WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY | WL_DATA_DEVICE_MANAGER_DND_ACTION_MOVE | \
	 WL_DATA_DEVICE_MANAGER_DND_ACTION_ASK)

/* One wl_data_offer of a drag: live while its target has the pointer, and
 * after a drop until finished; inert (source NULL) otherwise. */
struct dnd_offer {
	struct wl_resource *resource;
	struct drag *drag; /* the drag's current offer; NULL after the drop or leave */
	struct wl_resource *source;
	struct wl_listener source_destroy;
	uint32_t source_actions;
	uint32_t actions, preferred; /* the target's set_actions */
	uint32_t action;             /* the one chosen */
	bool accepted;               /* the target accepted a mime type */
	bool dropped, finished;
};

struct drag {
	struct server *server;
	bool active;
	struct wl_list *devices;
	struct wl_client *client; /* the origin's */
	struct wl_resource *source; /* NULL: a drag within the client */
	struct wl_listener source_destroy;
	const struct wl_array *mime_types;
	uint32_t source_actions;
	struct tracked_surface origin, icon, focus; /* the drag is told when one goes */
	struct wl_listener icon_commit; /* it may move its origin */
	struct wl_resource *focus_device; /* the target's wl_data_device */
	struct wl_listener focus_device_destroy;
	struct dnd_offer *offer;
	double x, y;
};

static const struct surface_role icon_role = {
	.name = "wl_data_device-icon",
};

/* ---- the icon, drawn at the pointer ---- */

static void place_icon(struct drag *drag)
{
	struct surface *icon = drag->active ? drag->icon.surface : NULL;
	int x = (int)floor(drag->x) + (icon ? icon->origin_x : 0);
	int y = (int)floor(drag->y) + (icon ? icon->origin_y : 0);
	screen_set_drag_icon(&drag->server->screen, icon, x, y, clock_now_ns());
}

static void icon_committed(struct wl_listener *listener, void *data)
{
	struct drag *drag = wl_container_of(listener, drag, icon_commit);
	place_icon(drag);
}

static void set_icon(struct drag *drag, struct surface *icon)
{
	wl_list_remove(&drag->icon_commit.link);
	wl_list_init(&drag->icon_commit.link);
	tracked_surface_set(&drag->icon, icon);
	if (icon)
		wl_signal_add(&icon->events.commit, &drag->icon_commit);
}

/* ---- actions ---- */

/* The target's preferred action if the source has it, else the first both
 * have (as wlroots and Weston choose). */
static uint32_t choose_action(const struct dnd_offer *offer)
{
	uint32_t offer_actions = WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY, preferred = 0;
	if (wl_resource_get_version(offer->resource) >= WL_DATA_OFFER_ACTION_SINCE_VERSION) {
		offer_actions = offer->actions;
		preferred = offer->preferred;
	}
	uint32_t available = offer_actions & offer->source_actions;
	if (!available)
		return WL_DATA_DEVICE_MANAGER_DND_ACTION_NONE;
	if (preferred & available)
		return preferred;
	return available & -available; /* the lowest bit */
}

static void update_action(struct dnd_offer *offer)
{
	if (!offer->source)
		return;
	uint32_t action = choose_action(offer);
	if (action == offer->action)
		return;
	offer->action = action;
	if (wl_resource_get_version(offer->resource) >= WL_DATA_OFFER_ACTION_SINCE_VERSION)
		wl_data_offer_send_action(offer->resource, action);
	if (wl_resource_get_version(offer->source) >= WL_DATA_SOURCE_ACTION_SINCE_VERSION)
		wl_data_source_send_action(offer->source, action);
}

/* ---- offers ---- */

static void offer_detach_source(struct dnd_offer *offer)
{
	if (!offer->source)
		return;
	wl_list_remove(&offer->source_destroy.link);
	wl_list_init(&offer->source_destroy.link);
	offer->source = NULL;
}

static void offer_source_destroyed(struct wl_listener *listener, void *data)
{
	struct dnd_offer *offer = wl_container_of(listener, offer, source_destroy);
	offer_detach_source(offer);
}

static void offer_accept(struct wl_client *client, struct wl_resource *resource, uint32_t serial,
			 const char *mime_type)
{
	struct dnd_offer *offer = wl_resource_get_user_data(resource);
	if (!offer->source || offer->dropped)
		return;
	offer->accepted = mime_type != NULL;
	wl_data_source_send_target(offer->source, mime_type);
}

static void offer_receive(struct wl_client *client, struct wl_resource *resource,
			  const char *mime_type, int32_t fd)
{
	struct dnd_offer *offer = wl_resource_get_user_data(resource);
	if (offer->source && !offer->finished)
		wl_data_source_send_send(offer->source, mime_type, fd);
	close(fd);
}

static void offer_destroy_request(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static void offer_finish(struct wl_client *client, struct wl_resource *resource)
{
	struct dnd_offer *offer = wl_resource_get_user_data(resource);
	if (!offer->dropped || offer->finished) {
		wl_resource_post_error(resource, WL_DATA_OFFER_ERROR_INVALID_FINISH,
				       "finish before the drop or twice");
		return;
	}
	if (offer->action == WL_DATA_DEVICE_MANAGER_DND_ACTION_NONE ||
	    offer->action == WL_DATA_DEVICE_MANAGER_DND_ACTION_ASK) {
		wl_resource_post_error(resource, WL_DATA_OFFER_ERROR_INVALID_FINISH,
				       "finish without a chosen action");
		return;
	}
	offer->finished = true;
	if (offer->source &&
	    wl_resource_get_version(offer->source) >= WL_DATA_SOURCE_DND_FINISHED_SINCE_VERSION)
		wl_data_source_send_dnd_finished(offer->source);
	offer_detach_source(offer);
}

static void offer_set_actions(struct wl_client *client, struct wl_resource *resource,
			      uint32_t actions, uint32_t preferred)
{
	struct dnd_offer *offer = wl_resource_get_user_data(resource);
	if (actions & ~ALL_ACTIONS) {
		wl_resource_post_error(resource, WL_DATA_OFFER_ERROR_INVALID_ACTION_MASK,
				       "invalid action mask %x", actions);
		return;
	}
	if (preferred && (!(preferred & actions) || (preferred & (preferred - 1)))) {
		wl_resource_post_error(resource, WL_DATA_OFFER_ERROR_INVALID_ACTION,
				       "invalid preferred action %x", preferred);
		return;
	}
	/* After the drop, only to settle an "ask". */
	if (offer->dropped && offer->action != WL_DATA_DEVICE_MANAGER_DND_ACTION_ASK) {
		wl_resource_post_error(resource, WL_DATA_OFFER_ERROR_INVALID_OFFER,
				       "set_actions after the drop");
		return;
	}
	offer->actions = actions;
	offer->preferred = preferred;
	update_action(offer);
}

static const struct wl_data_offer_interface offer_impl = {
	.accept = offer_accept,
	.receive = offer_receive,
	.destroy = offer_destroy_request,
	.finish = offer_finish,
	.set_actions = offer_set_actions,
};

static void offer_resource_destroyed(struct wl_resource *resource)
{
	struct dnd_offer *offer = wl_resource_get_user_data(resource);
	if (offer->drag)
		offer->drag->offer = NULL;
	if (offer->dropped && !offer->finished && offer->source) {
		/* Dropped but never finished: a version 1-2 target cannot say
		 * it is done, a version 3 one gave up. */
		if (wl_resource_get_version(resource) < WL_DATA_OFFER_ACTION_SINCE_VERSION &&
		    wl_resource_get_version(offer->source) >=
			    WL_DATA_SOURCE_DND_FINISHED_SINCE_VERSION)
			wl_data_source_send_dnd_finished(offer->source);
		else
			wl_data_source_send_cancelled(offer->source);
	}
	offer_detach_source(offer);
	free(offer);
}

static struct dnd_offer *create_offer(struct drag *drag, struct wl_resource *device)
{
	struct wl_client *client = wl_resource_get_client(device);
	struct dnd_offer *offer = calloc(1, sizeof(*offer));
	if (!offer) {
		wl_client_post_no_memory(client);
		return NULL;
	}
	offer->resource = wl_resource_create(client, &wl_data_offer_interface,
					     wl_resource_get_version(device), 0);
	if (!offer->resource) {
		free(offer);
		wl_client_post_no_memory(client);
		return NULL;
	}
	wl_resource_set_implementation(offer->resource, &offer_impl, offer,
				       offer_resource_destroyed);
	offer->drag = drag;
	offer->source = drag->source;
	offer->source_actions = drag->source_actions;
	offer->source_destroy.notify = offer_source_destroyed;
	wl_resource_add_destroy_listener(drag->source, &offer->source_destroy);
	wl_data_device_send_data_offer(device, offer->resource);
	char **mime;
	if (drag->mime_types->size > 0)
		wl_array_for_each(mime, drag->mime_types)
			wl_data_offer_send_offer(offer->resource, *mime);
	if (wl_resource_get_version(offer->resource) >= WL_DATA_OFFER_SOURCE_ACTIONS_SINCE_VERSION)
		wl_data_offer_send_source_actions(offer->resource, offer->source_actions);
	return offer;
}

/* The drag no longer speaks through this offer (left, dropped or ended). */
static void release_offer(struct drag *drag, bool keep_source)
{
	struct dnd_offer *offer = drag->offer;
	if (!offer)
		return;
	drag->offer = NULL;
	offer->drag = NULL;
	if (!keep_source)
		offer_detach_source(offer);
}

/* ---- the target ---- */

static void forget_focus_device(struct drag *drag)
{
	wl_list_remove(&drag->focus_device_destroy.link);
	wl_list_init(&drag->focus_device_destroy.link);
	drag->focus_device = NULL;
}

/* The target's first wl_data_device (toolkits make one a seat). */
static struct wl_resource *client_device(struct drag *drag, struct wl_client *client)
{
	struct wl_resource *resource;
	wl_resource_for_each(resource, drag->devices) {
		if (wl_resource_get_client(resource) == client)
			return resource;
	}
	return NULL;
}

static void leave_focus(struct drag *drag, bool send_leave)
{
	if (drag->focus_device && send_leave)
		wl_data_device_send_leave(drag->focus_device);
	if (drag->offer && drag->offer->accepted && drag->source)
		wl_data_source_send_target(drag->source, NULL);
	release_offer(drag, false);
	forget_focus_device(drag);
	tracked_surface_set(&drag->focus, NULL);
}

static void set_focus(struct drag *drag, struct surface *surface, double sx, double sy,
		      uint32_t time_ms)
{
	if (surface == drag->focus.surface) {
		if (surface && drag->focus_device)
			wl_data_device_send_motion(drag->focus_device, time_ms,
						   wl_fixed_from_double(sx),
						   wl_fixed_from_double(sy));
		return;
	}
	leave_focus(drag, true);
	if (!surface)
		return;
	struct wl_client *client = wl_resource_get_client(surface->resource);
	/* Without a source, only the origin's client's own surfaces. */
	if (!drag->source && client != drag->client)
		return;
	tracked_surface_set(&drag->focus, surface);
	struct wl_resource *device = client_device(drag, client);
	if (!device)
		return;
	drag->focus_device = device;
	wl_resource_add_destroy_listener(device, &drag->focus_device_destroy);
	if (drag->source)
		drag->offer = create_offer(drag, device);
	wl_data_device_send_enter(device, wl_display_next_serial(drag->server->display),
				  surface->resource, wl_fixed_from_double(sx),
				  wl_fixed_from_double(sy),
				  drag->offer ? drag->offer->resource : NULL);
	if (drag->offer)
		update_action(drag->offer);
}

/* ---- the drag ---- */

static void end_drag(struct drag *drag)
{
	drag->active = false;
	forget_focus_device(drag);
	tracked_surface_set(&drag->focus, NULL);
	tracked_surface_set(&drag->origin, NULL);
	place_icon(drag);
	set_icon(drag, NULL);
	if (drag->source) {
		wl_list_remove(&drag->source_destroy.link);
		wl_list_init(&drag->source_destroy.link);
	}
	drag->source = NULL;
	drag->mime_types = NULL;
	drag->client = NULL;
}

void drag_cancel(struct drag *drag)
{
	if (!drag || !drag->active)
		return;
	LOG_DBG("the drag is cancelled");
	leave_focus(drag, true);
	if (drag->source)
		wl_data_source_send_cancelled(drag->source);
	end_drag(drag);
}

void drag_drop(struct drag *drag)
{
	if (!drag || !drag->active)
		return;
	struct dnd_offer *offer = drag->offer;
	if (!drag->source) {
		if (drag->focus_device)
			wl_data_device_send_drop(drag->focus_device);
		end_drag(drag);
		return;
	}
	bool droppable = offer && drag->focus_device && offer->accepted &&
			 offer->action != WL_DATA_DEVICE_MANAGER_DND_ACTION_NONE;
	if (!droppable) {
		drag_cancel(drag);
		return;
	}
	LOG_DBG("dropped");
	wl_data_device_send_drop(drag->focus_device);
	if (wl_resource_get_version(drag->source) >= WL_DATA_SOURCE_DND_DROP_PERFORMED_SINCE_VERSION)
		wl_data_source_send_dnd_drop_performed(drag->source);
	offer->dropped = true;
	/* The offer keeps its source for receive and finish. */
	release_offer(drag, true);
	end_drag(drag);
}

void drag_motion(struct drag *drag, double x, double y, uint32_t time_ms)
{
	if (!drag->active)
		return;
	drag->x = x;
	drag->y = y;
	struct screen_hit hit;
	if (!screen_surface_at(&drag->server->screen, x, y, &hit))
		hit.surface = NULL;
	set_focus(drag, hit.surface, hit.sx, hit.sy, time_ms);
	place_icon(drag);
}

static void source_destroyed(struct wl_listener *listener, void *data)
{
	struct drag *drag = wl_container_of(listener, drag, source_destroy);
	wl_list_remove(&drag->source_destroy.link);
	wl_list_init(&drag->source_destroy.link);
	drag->source = NULL; /* nobody to tell */
	leave_focus(drag, true);
	end_drag(drag);
}

static void origin_gone(struct tracked_surface *origin)
{
	struct drag *drag = wl_container_of(origin, drag, origin);
	drag_cancel(drag);
}

static void icon_gone(struct tracked_surface *icon)
{
	/* The drag goes on without its image (as in wlroots). */
	struct drag *drag = wl_container_of(icon, drag, icon);
	set_icon(drag, NULL);
	place_icon(drag);
}

static void focus_gone(struct tracked_surface *focus)
{
	struct drag *drag = wl_container_of(focus, drag, focus);
	leave_focus(drag, true);
}

static void focus_device_destroyed(struct wl_listener *listener, void *data)
{
	struct drag *drag = wl_container_of(listener, drag, focus_device_destroy);
	forget_focus_device(drag);
	release_offer(drag, false);
}

void drag_start(struct drag *drag, struct wl_list *devices, struct wl_resource *device_resource,
		struct wl_resource *source, const struct wl_array *mime_types,
		uint32_t source_actions, struct wl_resource *origin_resource,
		struct wl_resource *icon_resource, uint32_t serial)
{
	struct wl_client *client = wl_resource_get_client(device_resource);
	struct surface *origin = surface_from_resource(origin_resource);
	struct surface *icon = icon_resource ? surface_from_resource(icon_resource) : NULL;
	if (icon && icon->role != &icon_role &&
	    !surface_set_role(icon, &icon_role, drag, device_resource, WL_DATA_DEVICE_ERROR_ROLE))
		return;
	struct surface *grab = xdg_shell_grab_surface(drag->server->xdg_shell);
	double x, y;
	if (drag->active || (grab && wl_resource_get_client(grab->resource) != client) ||
	    !seat_begin_drag(drag->server->seat, origin, serial, &x, &y)) {
		LOG_DBG("start_drag without the pointer's grab: cancelled");
		if (source)
			wl_data_source_send_cancelled(source);
		return;
	}
	drag->active = true;
	drag->devices = devices;
	drag->client = client;
	drag->source = source;
	drag->mime_types = mime_types;
	drag->source_actions = source_actions;
	if (source)
		wl_resource_add_destroy_listener(source, &drag->source_destroy);
	tracked_surface_set(&drag->origin, origin);
	set_icon(drag, icon);
	LOG_DBG("a drag starts (%s source)", source ? "a" : "no");
	drag_motion(drag, x, y, 0);
}

bool drag_active(const struct drag *drag)
{
	return drag && drag->active;
}

struct drag *drag_create(struct server *server)
{
	struct drag *drag = calloc(1, sizeof(*drag));
	if (!drag)
		return NULL;
	drag->server = server;
	drag->source_destroy.notify = source_destroyed;
	wl_list_init(&drag->source_destroy.link);
	tracked_surface_init(&drag->origin, origin_gone);
	tracked_surface_init(&drag->icon, icon_gone);
	drag->icon_commit.notify = icon_committed;
	wl_list_init(&drag->icon_commit.link);
	tracked_surface_init(&drag->focus, focus_gone);
	drag->focus_device_destroy.notify = focus_device_destroyed;
	wl_list_init(&drag->focus_device_destroy.link);
	return drag;
}

void drag_destroy(struct drag *drag)
{
	if (!drag)
		return;
	drag_cancel(drag);
	free(drag);
}
