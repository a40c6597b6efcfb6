#define LOG_MODULE "capture"
#include "seat.h"

#include <wayland-server-protocol.h>

#include "log.h"
#include "server.h"

#define SEAT_VERSION 7

static void release(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static void pointer_set_cursor(struct wl_client *client, struct wl_resource *resource,
			       uint32_t serial, struct wl_resource *surface, int32_t x, int32_t y)
{
	/* No pointer ever enters: there is no cursor to show. */
}

static const struct wl_pointer_interface pointer_impl = {
	.set_cursor = pointer_set_cursor,
	.release = release,
};

static const struct wl_keyboard_interface keyboard_impl = { .release = release };
static const struct wl_touch_interface touch_impl = { .release = release };

/* A device object that never sends events: the protocol lets a client ask
 * for a capability the seat lacks (before v8 it is no error). */
static void create_inert(struct wl_client *client, struct wl_resource *seat,
			 const struct wl_interface *interface, const void *impl, uint32_t id)
{
	struct wl_resource *resource = wl_resource_create(client, interface,
							  wl_resource_get_version(seat), id);
	if (!resource) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, impl, NULL, NULL);
}

static void seat_get_pointer(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	create_inert(client, resource, &wl_pointer_interface, &pointer_impl, id);
}

static void seat_get_keyboard(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	create_inert(client, resource, &wl_keyboard_interface, &keyboard_impl, id);
}

static void seat_get_touch(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	create_inert(client, resource, &wl_touch_interface, &touch_impl, id);
}

static const struct wl_seat_interface seat_impl = {
	.get_pointer = seat_get_pointer,
	.get_keyboard = seat_get_keyboard,
	.get_touch = seat_get_touch,
	.release = release,
};

static void seat_bind(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct wl_resource *resource = wl_resource_create(client, &wl_seat_interface, (int)version,
							  id);
	if (!resource) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &seat_impl, data, NULL);
	wl_seat_send_capabilities(resource, 0);
	if (version >= WL_SEAT_NAME_SINCE_VERSION)
		wl_seat_send_name(resource, "seat0");
}

struct wl_global *seat_create_global(struct server *server)
{
	struct wl_global *global = wl_global_create(server->display, &wl_seat_interface,
						    SEAT_VERSION, server, seat_bind);
	if (!global)
		LOG_ERR("cannot create the wl_seat global");
	return global;
}
