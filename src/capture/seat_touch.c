#define LOG_MODULE "capture"
/* The seat's touch: a touch point goes to the surface it went down on,
 * until it lifts, wherever it moves. */
#include <stdlib.h>
#include <wayland-server-protocol.h>

#include "log.h"
#include "seat_internal.h"
#include "server.h"
#include "surface.h"
#include "xdg_shell.h"

/* One finger on the picture, with the surface it went down on: that
 * surface gets it until it lifts, wherever it moves. */
struct touch_point {
	struct wl_list link; /* seat.touch_points */
	int32_t id;
	struct tracked_surface surface; /* NULL: the surface went */
	struct surface_anchor anchor;   /* fixed at the down */
	bool lifted; /* up sent; kept until the frame so that it gets one */
};

static struct touch_point *find_touch(struct seat *seat, int32_t id)
{
	struct touch_point *point;
	wl_list_for_each(point, &seat->touch_points, link) {
		if (point->id == id && !point->lifted)
			return point;
	}
	return NULL;
}

static void touch_point_free(struct touch_point *point)
{
	tracked_surface_set(&point->surface, NULL);
	wl_list_remove(&point->link);
	free(point);
}

static void touch_down(struct seat *seat, const struct wl_record_input_event *event)
{
	struct touch_point *point = find_touch(seat, event->touch_id);
	if (point) /* the desktop reused an id without an up: a new touch */
		touch_point_free(point);
	struct screen_hit hit;
	if (!screen_surface_at(&seat->server->screen, event->x, event->y, &hit))
		hit.surface = NULL;
	struct surface *grab = xdg_shell_grab_surface(seat->server->xdg_shell);
	if (grab && seat_surface_client(hit.surface) != seat_surface_client(grab)) {
		/* Like a click outside the grabbing client: the grab ends and
		 * the touch goes nowhere. */
		xdg_shell_dismiss_grab(seat->server->xdg_shell);
		return;
	}
	if (!hit.surface)
		return;
	point = calloc(1, sizeof(*point));
	if (!point) {
		LOG_ERR("cannot allocate a touch point");
		return;
	}
	point->id = event->touch_id;
	tracked_surface_init(&point->surface, NULL);
	tracked_surface_set(&point->surface, hit.surface);
	point->anchor = seat_anchor_at(event->x, event->y, &hit);
	wl_list_insert(seat->touch_points.prev, &point->link);
	/* A touch on a toplevel gives it the keyboard, as a click does. */
	if (!grab)
		tracked_surface_set(&seat->clicked, hit.view ? hit.view->root : hit.surface);
	uint32_t serial = seat_next_serial(seat);
	wl_fixed_t sx, sy;
	seat_anchor_local(&point->anchor, event->x, event->y, &sx, &sy);
	struct wl_resource *resource;
	for_each_of_client(resource, &seat->touches, seat_surface_client(hit.surface))
		wl_touch_send_down(resource, serial, event->time_ms, hit.surface->resource,
				   event->touch_id, sx, sy);
}

/* Calls fn once for each client that has a touch point on a surface. */
static void for_each_touched_client(struct seat *seat,
				    void (*fn)(struct seat *seat, struct wl_client *client))
{
	struct touch_point *point, *earlier;
	wl_list_for_each(point, &seat->touch_points, link) {
		struct wl_client *client = seat_surface_client(point->surface.surface);
		if (!client)
			continue;
		bool told = false;
		wl_list_for_each(earlier, &seat->touch_points, link) {
			if (earlier == point)
				break;
			if (seat_surface_client(earlier->surface.surface) == client)
				told = true;
		}
		if (!told)
			fn(seat, client);
	}
}

static void send_touch_frame(struct seat *seat, struct wl_client *client)
{
	struct wl_resource *resource;
	for_each_of_client(resource, &seat->touches, client)
		wl_touch_send_frame(resource);
}

static void send_touch_cancel(struct seat *seat, struct wl_client *client)
{
	struct wl_resource *resource;
	for_each_of_client(resource, &seat->touches, client)
		wl_touch_send_cancel(resource);
}

static void forget_touch_points(struct seat *seat)
{
	struct touch_point *point, *tmp;
	wl_list_for_each_safe(point, tmp, &seat->touch_points, link)
		touch_point_free(point);
}

void seat_touch_event(struct seat *seat, const struct wl_record_input_event *event)
{
	struct touch_point *point, *tmp;
	struct wl_resource *resource;
	switch (event->type) {
	case WL_RECORD_INPUT_TOUCH_DOWN:
		touch_down(seat, event);
		return;
	case WL_RECORD_INPUT_TOUCH_MOTION: {
		point = find_touch(seat, event->touch_id);
		if (!point || !point->surface.surface)
			return;
		wl_fixed_t sx, sy;
		seat_anchor_local(&point->anchor, event->x, event->y, &sx, &sy);
		for_each_of_client(resource, &seat->touches,
				   seat_surface_client(point->surface.surface))
			wl_touch_send_motion(resource, event->time_ms, point->id, sx, sy);
		return;
	}
	case WL_RECORD_INPUT_TOUCH_UP: {
		point = find_touch(seat, event->touch_id);
		if (!point)
			return;
		if (!point->surface.surface) {
			touch_point_free(point);
			return;
		}
		uint32_t serial = seat_next_serial(seat);
		for_each_of_client(resource, &seat->touches,
				   seat_surface_client(point->surface.surface))
			wl_touch_send_up(resource, serial, event->time_ms, point->id);
		point->lifted = true;
		return;
	}
	case WL_RECORD_INPUT_TOUCH_FRAME:
		for_each_touched_client(seat, send_touch_frame);
		wl_list_for_each_safe(point, tmp, &seat->touch_points, link) {
			if (point->lifted)
				touch_point_free(point);
		}
		return;
	case WL_RECORD_INPUT_TOUCH_CANCEL:
		for_each_touched_client(seat, send_touch_cancel);
		forget_touch_points(seat);
		return;
	case WL_RECORD_INPUT_TOUCH_SHAPE:
	case WL_RECORD_INPUT_TOUCH_ORIENTATION:
		point = find_touch(seat, event->touch_id);
		if (!point)
			return;
		for_each_of_client(resource, &seat->touches,
				   seat_surface_client(point->surface.surface)) {
			if (wl_resource_get_version(resource) < WL_TOUCH_SHAPE_SINCE_VERSION)
				continue;
			/* Surface units; an ellipse stays one only unstretched:
			 * the mean of the two scales. */
			double scale = (point->anchor.scale_x + point->anchor.scale_y) / 2;
			if (event->type == WL_RECORD_INPUT_TOUCH_SHAPE)
				wl_touch_send_shape(resource, point->id,
						    wl_fixed_from_double(event->major * scale),
						    wl_fixed_from_double(event->minor * scale));
			else
				wl_touch_send_orientation(resource, point->id,
							  wl_fixed_from_double(event->orientation));
		}
		return;
	default:
		return;
	}
}

static const struct wl_touch_interface touch_impl = { .release = seat_release_resource };

void seat_touch_get(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	struct seat *seat = wl_resource_get_user_data(resource);
	seat_create_device(client, resource, &wl_touch_interface, &touch_impl, id, &seat->touches);
}

void seat_touch_cancel(struct seat *seat)
{
	for_each_touched_client(seat, send_touch_cancel);
	forget_touch_points(seat);
}

void seat_touch_forget(struct seat *seat)
{
	forget_touch_points(seat);
}
