#include "xdg_positioner.h"

#include <assert.h>
#include <stdlib.h>

#include "xdg-shell-server-protocol.h"

static const struct xdg_positioner_interface positioner_impl;

static struct xdg_positioner_rules *rules_from_resource(struct wl_resource *resource)
{
	assert(wl_resource_instance_of(resource, &xdg_positioner_interface, &positioner_impl));
	return wl_resource_get_user_data(resource);
}

const struct xdg_positioner_rules *xdg_positioner_from_resource(struct wl_resource *resource)
{
	return rules_from_resource(resource);
}

static void handle_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static void handle_set_size(struct wl_client *client, struct wl_resource *resource, int32_t width,
			    int32_t height)
{
	if (width <= 0 || height <= 0) {
		wl_resource_post_error(resource, XDG_POSITIONER_ERROR_INVALID_INPUT,
				       "popup size %dx%d is not positive", width, height);
		return;
	}
	struct xdg_positioner_rules *rules = rules_from_resource(resource);
	rules->width = width;
	rules->height = height;
	rules->has_size = true;
}

static void handle_set_anchor_rect(struct wl_client *client, struct wl_resource *resource,
				   int32_t x, int32_t y, int32_t width, int32_t height)
{
	if (width < 0 || height < 0) {
		wl_resource_post_error(resource, XDG_POSITIONER_ERROR_INVALID_INPUT,
				       "anchor rectangle %dx%d is negative", width, height);
		return;
	}
	struct xdg_positioner_rules *rules = rules_from_resource(resource);
	rules->anchor_x = x;
	rules->anchor_y = y;
	rules->anchor_width = width;
	rules->anchor_height = height;
	rules->has_anchor_rect = true;
}

static void handle_set_anchor(struct wl_client *client, struct wl_resource *resource,
			      uint32_t anchor)
{
	if (anchor > XDG_POSITIONER_ANCHOR_BOTTOM_RIGHT) {
		wl_resource_post_error(resource, XDG_POSITIONER_ERROR_INVALID_INPUT,
				       "unknown anchor %u", anchor);
		return;
	}
	rules_from_resource(resource)->anchor = anchor;
}

static void handle_set_gravity(struct wl_client *client, struct wl_resource *resource,
			       uint32_t gravity)
{
	if (gravity > XDG_POSITIONER_GRAVITY_BOTTOM_RIGHT) {
		wl_resource_post_error(resource, XDG_POSITIONER_ERROR_INVALID_INPUT,
				       "unknown gravity %u", gravity);
		return;
	}
	rules_from_resource(resource)->gravity = gravity;
}

static void handle_set_constraint_adjustment(struct wl_client *client,
					     struct wl_resource *resource, uint32_t adjustment)
{
	rules_from_resource(resource)->constraint_adjustment = adjustment;
}

static void handle_set_offset(struct wl_client *client, struct wl_resource *resource, int32_t x,
			      int32_t y)
{
	struct xdg_positioner_rules *rules = rules_from_resource(resource);
	rules->offset_x = x;
	rules->offset_y = y;
}

/* Reactive popups and the parent's size only matter when the parent moves or
 * resizes under a popup, which wl-record never does on its own. */
static void handle_set_reactive(struct wl_client *client, struct wl_resource *resource)
{
}

static void handle_set_parent_size(struct wl_client *client, struct wl_resource *resource,
				   int32_t width, int32_t height)
{
}

static void handle_set_parent_configure(struct wl_client *client, struct wl_resource *resource,
					uint32_t serial)
{
}

static const struct xdg_positioner_interface positioner_impl = {
	.destroy = handle_destroy,
	.set_size = handle_set_size,
	.set_anchor_rect = handle_set_anchor_rect,
	.set_anchor = handle_set_anchor,
	.set_gravity = handle_set_gravity,
	.set_constraint_adjustment = handle_set_constraint_adjustment,
	.set_offset = handle_set_offset,
	.set_reactive = handle_set_reactive,
	.set_parent_size = handle_set_parent_size,
	.set_parent_configure = handle_set_parent_configure,
};

static void positioner_resource_destroy(struct wl_resource *resource)
{
	free(rules_from_resource(resource));
}

void xdg_positioner_create(struct wl_client *client, uint32_t version, uint32_t id)
{
	struct xdg_positioner_rules *rules = calloc(1, sizeof(*rules));
	if (!rules) {
		wl_client_post_no_memory(client);
		return;
	}
	struct wl_resource *resource = wl_resource_create(client, &xdg_positioner_interface,
							  (int)version, id);
	if (!resource) {
		free(rules);
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &positioner_impl, rules,
				       positioner_resource_destroy);
}

static bool is_left(uint32_t edge)
{
	return edge == XDG_POSITIONER_ANCHOR_LEFT || edge == XDG_POSITIONER_ANCHOR_TOP_LEFT ||
	       edge == XDG_POSITIONER_ANCHOR_BOTTOM_LEFT;
}

static bool is_right(uint32_t edge)
{
	return edge == XDG_POSITIONER_ANCHOR_RIGHT || edge == XDG_POSITIONER_ANCHOR_TOP_RIGHT ||
	       edge == XDG_POSITIONER_ANCHOR_BOTTOM_RIGHT;
}

static bool is_top(uint32_t edge)
{
	return edge == XDG_POSITIONER_ANCHOR_TOP || edge == XDG_POSITIONER_ANCHOR_TOP_LEFT ||
	       edge == XDG_POSITIONER_ANCHOR_TOP_RIGHT;
}

static bool is_bottom(uint32_t edge)
{
	return edge == XDG_POSITIONER_ANCHOR_BOTTOM || edge == XDG_POSITIONER_ANCHOR_BOTTOM_LEFT ||
	       edge == XDG_POSITIONER_ANCHOR_BOTTOM_RIGHT;
}

/* Anchor and gravity share their values (xdg-shell defines both enums the
 * same way), so one set of predicates serves both. */
void xdg_positioner_place(const struct xdg_positioner_rules *rules, int32_t *x, int32_t *y,
			  int32_t *width, int32_t *height)
{
	int32_t ax = rules->anchor_x + rules->anchor_width / 2;
	int32_t ay = rules->anchor_y + rules->anchor_height / 2;
	if (is_left(rules->anchor))
		ax = rules->anchor_x;
	else if (is_right(rules->anchor))
		ax = rules->anchor_x + rules->anchor_width;
	if (is_top(rules->anchor))
		ay = rules->anchor_y;
	else if (is_bottom(rules->anchor))
		ay = rules->anchor_y + rules->anchor_height;

	/* Gravity: the direction the popup extends from the anchor point. */
	int32_t px = ax - rules->width / 2, py = ay - rules->height / 2;
	if (is_left(rules->gravity))
		px = ax - rules->width;
	else if (is_right(rules->gravity))
		px = ax;
	if (is_top(rules->gravity))
		py = ay - rules->height;
	else if (is_bottom(rules->gravity))
		py = ay;
	*x = px + rules->offset_x;
	*y = py + rules->offset_y;
	*width = rules->width;
	*height = rules->height;
}
