#define LOG_MODULE "capture"
#include "screen.h"

#include <math.h>
#include <wayland-server-protocol.h>

#include "clock.h"
#include "log.h"
#include "screen_source.h"
#include "subcompositor.h"
#include "surface.h"
#include "viewporter.h"

/* Screen coordinates -> buffer coordinates, as an affine map. */
struct placement {
	double dst_x, dst_y, dst_w, dst_h; /* where the surface lands on the screen */
	double src_x, src_y;   /* origin of the shown part (a viewport's crop) */
	double src_w, src_h;   /* the shown extent in the units of the transform table */
	double surf_w, surf_h; /* the whole surface's extent in those units */
	double unit;           /* buffer pixels per such unit */
	bool identity;
};

static void texture_size(const struct surface *surface, int *width, int *height)
{
	*width = pixman_image_get_width(surface->texture);
	*height = pixman_image_get_height(surface->texture);
}

static struct placement place_surface(const struct screen *screen, const struct surface *surface)
{
	struct placement p = { 0 };
	int bw, bh;
	texture_size(surface, &bw, &bh);
	bool swap = surface->current.transform & WL_OUTPUT_TRANSFORM_90;
	/* Buffer extent as it appears on screen, before any scaling. */
	double tw = swap ? bh : bw, th = swap ? bw : bh;
	double W = screen->width, H = screen->height;

	switch (screen->method) {
	case SCREEN_METHOD_ZOOM:
	case SCREEN_METHOD_ZOOM_CROP: {
		/* Scaling methods override the buffer scale (protocol text). */
		double sx = W / tw, sy = H / th;
		double s = screen->method == SCREEN_METHOD_ZOOM ? fmin(sx, sy) : fmax(sx, sy);
		p.dst_w = round(tw * s);
		p.dst_h = round(th * s);
		p.src_w = tw;
		p.src_h = th;
		p.unit = 1;
		break;
	}
	case SCREEN_METHOD_STRETCH:
		p.dst_w = W;
		p.dst_h = H;
		p.src_w = tw;
		p.src_h = th;
		p.unit = 1;
		break;
	case SCREEN_METHOD_DEFAULT:
	case SCREEN_METHOD_CENTER:
	default: {
		int sw, sh;
		surface_get_size(surface, &sw, &sh);
		p.dst_w = sw;
		p.dst_h = sh;
		p.src_w = sw;
		p.src_h = sh;
		p.unit = surface->current.scale;
		break;
	}
	}
	p.surf_w = p.src_w;
	p.surf_h = p.src_h;
	p.dst_x = floor((W - p.dst_w) / 2);
	p.dst_y = floor((H - p.dst_h) / 2);
	p.identity = surface->current.transform == WL_OUTPUT_TRANSFORM_NORMAL && bw == screen->width &&
		     bh == screen->height && p.dst_w == W && p.dst_h == H && p.dst_x == 0 &&
		     p.dst_y == 0;
	return p;
}

/* Fills `m` with the map from screen to buffer coordinates. */
static void placement_matrix(const struct placement *p, int32_t transform,
			     struct pixman_f_transform *m)
{
	double sw = p->surf_w, sh = p->surf_h;
	/* Surface -> buffer (in surface units), Weston's convention. */
	double a, b, c, d, e, f;
	switch (transform) {
	default:
	case WL_OUTPUT_TRANSFORM_NORMAL:      a = 1;  b = 0;  c = 0;  d = 0;  e = 1;  f = 0;  break;
	case WL_OUTPUT_TRANSFORM_FLIPPED:     a = -1; b = 0;  c = sw; d = 0;  e = 1;  f = 0;  break;
	case WL_OUTPUT_TRANSFORM_90:          a = 0;  b = -1; c = sh; d = 1;  e = 0;  f = 0;  break;
	case WL_OUTPUT_TRANSFORM_FLIPPED_90:  a = 0;  b = -1; c = sh; d = -1; e = 0;  f = sw; break;
	case WL_OUTPUT_TRANSFORM_180:         a = -1; b = 0;  c = sw; d = 0;  e = -1; f = sh; break;
	case WL_OUTPUT_TRANSFORM_FLIPPED_180: a = 1;  b = 0;  c = 0;  d = 0;  e = -1; f = sh; break;
	case WL_OUTPUT_TRANSFORM_270:         a = 0;  b = 1;  c = 0;  d = -1; e = 0;  f = sw; break;
	case WL_OUTPUT_TRANSFORM_FLIPPED_270: a = 0;  b = 1;  c = 0;  d = 1;  e = 0;  f = 0;  break;
	}
	/* Screen -> surface: subtract the destination origin, scale to the
	 * shown extent, add the shown part's origin. */
	double kx = p->src_w / p->dst_w, ky = p->src_h / p->dst_h;
	double ox = p->src_x - kx * p->dst_x, oy = p->src_y - ky * p->dst_y;
	double u = p->unit;
	pixman_f_transform_init_identity(m);
	m->m[0][0] = u * a * kx;
	m->m[0][1] = u * b * ky;
	m->m[0][2] = u * (a * ox + b * oy + c);
	m->m[1][0] = u * d * kx;
	m->m[1][1] = u * e * ky;
	m->m[1][2] = u * (d * ox + e * oy + f);
}

static pixman_color_t background_color(const struct screen *screen)
{
	uint32_t c = screen->background;
	return (pixman_color_t){ (uint16_t)((c >> 16 & 0xff) * 0x101),
				 (uint16_t)((c >> 8 & 0xff) * 0x101), (uint16_t)((c & 0xff) * 0x101),
				 0xffff };
}

static bool showing_presented(const struct screen *screen)
{
	return screen->surface && screen->surface->mapped && screen->surface->texture;
}

/* The views make the picture while the fullscreen shell presents nothing. */
static bool views_active(const struct screen *screen)
{
	if (screen->surface)
		return false;
	struct screen_view *view;
	wl_list_for_each(view, &screen->views, link) {
		if (view->mapped && view->root->mapped && view->root->texture)
			return true;
	}
	return false;
}

static bool showing_content(const struct screen *screen)
{
	return showing_presented(screen) || views_active(screen);
}

/* Where the view's root surface origin lands: its geometry centred (or at
 * the top-left corner when larger than the screen). */
static void view_origin(const struct screen *screen, const struct screen_view *view, int *x,
			int *y)
{
	int gw = view->geometry_width, gh = view->geometry_height, gx = view->geometry_x,
	    gy = view->geometry_y;
	if (gw <= 0 || gh <= 0) {
		surface_get_shown_size(view->root, &gw, &gh);
		gx = gy = 0;
	}
	*x = (gw < screen->width ? (screen->width - gw) / 2 : 0) - gx;
	*y = (gh < screen->height ? (screen->height - gh) / 2 : 0) - gy;
}

typedef void (*view_surface_fn)(struct surface *surface, int x, int y, void *data);

struct shifted_call {
	view_surface_fn fn;
	void *data;
	int x, y;
};

static void call_shifted(struct surface *surface, int x, int y, void *data)
{
	struct shifted_call *call = data;
	call->fn(surface, call->x + x, call->y + y, call->data);
}

static void view_for_each(struct screen *screen, struct screen_view *view, view_surface_fn fn,
			  void *data)
{
	struct shifted_call call = { .fn = fn, .data = data };
	view_origin(screen, view, &call.x, &call.y);
	view->impl->for_each_surface(view, call_shifted, &call);
}

/* Every shown surface with its screen position, bottom to top. */
static void visible_surfaces_for_each(struct screen *screen, view_surface_fn fn, void *data)
{
	struct screen_view *view, *top = NULL;
	wl_list_for_each(view, &screen->views, link) {
		if (!view->mapped || !view->root->mapped || !view->root->texture)
			continue;
		if (screen->policy == SCREEN_POLICY_TOPMOST)
			top = view;
		else
			view_for_each(screen, view, fn, data);
	}
	if (top)
		view_for_each(screen, top, fn, data);
}

/* Where a surface of a view lands and which of its part it shows. */
static bool place_view_surface(const struct surface *surface, int x, int y, struct placement *p)
{
	int dst_w, dst_h, sw, sh;
	double src_x, src_y, src_w, src_h;
	if (!surface->mapped || !surface->texture ||
	    !surface_get_view(surface, &src_x, &src_y, &src_w, &src_h, &dst_w, &dst_h))
		return false;
	surface_get_size(surface, &sw, &sh);
	if (dst_w <= 0 || dst_h <= 0 || src_w <= 0 || src_h <= 0)
		return false;
	*p = (struct placement){
		.dst_x = x, .dst_y = y, .dst_w = dst_w, .dst_h = dst_h,
		.src_x = src_x, .src_y = src_y, .src_w = src_w, .src_h = src_h,
		.surf_w = sw, .surf_h = sh, .unit = surface->current.scale,
	};
	p->identity = surface->current.transform == WL_OUTPUT_TRANSFORM_NORMAL && surface->current.scale == 1 &&
		      src_x == 0 && src_y == 0 && src_w == dst_w && src_h == dst_h &&
		      dst_w == sw && dst_h == sh;
	return true;
}

static void draw_view_surface(struct surface *surface, int x, int y, void *data)
{
	struct screen *screen = data;
	struct placement p;
	if (!place_view_surface(surface, x, y, &p))
		return;
	struct pixman_f_transform fm;
	struct pixman_transform m;
	placement_matrix(&p, surface->current.transform, &fm);
	if (!pixman_transform_from_pixman_f_transform(&m, &fm))
		return;
	pixman_image_set_transform(surface->texture, &m);
	pixman_image_set_filter(surface->texture,
				p.identity ? PIXMAN_FILTER_NEAREST : PIXMAN_FILTER_BILINEAR, NULL, 0);
	pixman_image_set_repeat(surface->texture, PIXMAN_REPEAT_PAD);
	/* Opaque content replaces what is below; content with alpha is
	 * blended over it (premultiplied, as wl_shm's ARGB is). */
	pixman_op_t op = pixman_image_get_format(surface->texture) == PIXMAN_a8r8g8b8
				 ? PIXMAN_OP_OVER : PIXMAN_OP_SRC;
	pixman_image_composite32(op, surface->texture, NULL, screen->image, x, y, 0, 0, x, y,
				 (int)p.dst_w, (int)p.dst_h);
	pixman_image_set_transform(surface->texture, NULL);
}

static bool overlay_shown(const struct screen *screen, const struct screen_overlay *overlay)
{
	return (overlay != &screen->cursor || screen->draw_cursor) && overlay->surface &&
	       overlay->surface->mapped && overlay->surface->texture && showing_content(screen);
}

/* The pointer's image or the drag's icon is drawn over the clients'. */
static bool overlays_shown(const struct screen *screen)
{
	return overlay_shown(screen, &screen->drag_icon) || overlay_shown(screen, &screen->cursor);
}

/* Where an overlay covers the screen; empty when it is not drawn. */
static pixman_box32_t overlay_extent(const struct screen *screen,
				     const struct screen_overlay *overlay)
{
	struct placement p;
	if (!overlay_shown(screen, overlay) ||
	    !place_view_surface(overlay->surface, overlay->x, overlay->y, &p))
		return (pixman_box32_t){ 0 };
	return (pixman_box32_t){ overlay->x, overlay->y, overlay->x + (int)p.dst_w,
				 overlay->y + (int)p.dst_h };
}

static void draw_overlay(struct screen *screen, struct screen_overlay *overlay)
{
	if (!overlay_shown(screen, overlay) || !surface_refresh_texture(overlay->surface))
		return;
	draw_view_surface(overlay->surface, overlay->x, overlay->y, screen);
}

/* On top of what screen->image holds (within its clip, if any): the icon
 * under the pointer's image. */
static void draw_overlays(struct screen *screen)
{
	draw_overlay(screen, &screen->drag_icon);
	draw_overlay(screen, &screen->cursor);
}

/* Redraws the damaged part of the views' picture into screen->image. */
static void compose_views(struct screen *screen)
{
	if (!screen->views_picture_in_image) {
		pixman_region32_union_rect(&screen->damage, &screen->damage, 0, 0,
					   (unsigned)screen->width, (unsigned)screen->height);
	}
	pixman_region32_intersect_rect(&screen->damage, &screen->damage, 0, 0,
				       (unsigned)screen->width, (unsigned)screen->height);
	pixman_color_t background = background_color(screen);
	int n;
	const pixman_box32_t *boxes = pixman_region32_rectangles(&screen->damage, &n);
	pixman_image_fill_boxes(PIXMAN_OP_SRC, screen->image, &background, n, boxes);
	pixman_image_set_clip_region32(screen->image, &screen->damage);
	visible_surfaces_for_each(screen, draw_view_surface, screen);
	draw_overlays(screen);
	pixman_image_set_clip_region32(screen->image, NULL);
	screen->views_picture_in_image = true;
}

struct direct_search {
	struct surface *only;
	int count;
	bool direct;
};

static void check_direct(struct surface *surface, int x, int y, void *data)
{
	struct direct_search *search = data;
	struct placement p;
	search->count++;
	search->only = surface;
	search->direct = place_view_surface(surface, x, y, &p) && p.identity && x == 0 && y == 0;
}

/* The one surface whose texture is the whole picture, if so. */
static struct surface *views_direct_surface(struct screen *screen)
{
	struct direct_search search = { 0 };
	visible_surfaces_for_each(screen, check_direct, &search);
	if (search.count != 1 || !search.direct ||
	    pixman_image_get_format(search.only->texture) != PIXMAN_x8r8g8b8 ||
	    pixman_image_get_width(search.only->texture) != screen->width ||
	    pixman_image_get_height(search.only->texture) != screen->height)
		return NULL;
	return search.only;
}

static void compose(struct screen *screen)
{
	pixman_color_t background = background_color(screen);
	pixman_box32_t all = { 0, 0, screen->width, screen->height };
	pixman_image_fill_boxes(PIXMAN_OP_SRC, screen->image, &background, 1, &all);
	if (!showing_presented(screen))
		return;

	struct surface *surface = screen->surface;
	if (!surface_refresh_texture(surface))
		return; /* black rather than a stale picture */
	struct placement p = place_surface(screen, surface);
	struct pixman_f_transform fm;
	struct pixman_transform m;
	placement_matrix(&p, surface->current.transform, &fm);
	if (!pixman_transform_from_pixman_f_transform(&m, &fm)) {
		LOG_WARN("surface placement out of range; showing black");
		return;
	}
	pixman_image_set_transform(surface->texture, &m);
	bool scaled = p.dst_w != p.src_w * p.unit || p.dst_h != p.src_h * p.unit;
	pixman_image_set_filter(surface->texture, scaled ? PIXMAN_FILTER_BILINEAR : PIXMAN_FILTER_NEAREST,
				NULL, 0);
	/* Edge pixels extend outwards so bilinear filtering does not darken the
	 * borders; the composite is clipped to the surface's rectangle anyway. */
	pixman_image_set_repeat(surface->texture, PIXMAN_REPEAT_PAD);
	pixman_image_composite32(PIXMAN_OP_SRC, surface->texture, NULL, screen->image, (int)p.dst_x,
				 (int)p.dst_y, 0, 0, (int)p.dst_x, (int)p.dst_y, (int)p.dst_w,
				 (int)p.dst_h);
	pixman_image_set_transform(surface->texture, NULL);
}

void screen_get_frame(struct screen *screen, struct frame *frame, int64_t pts_ns)
{
	pixman_image_t *picture = screen->image;
	if (views_active(screen)) {
		/* The pointer is not drawn into a client's texture. */
		struct surface *direct = overlays_shown(screen) ? NULL : views_direct_surface(screen);
		if (direct) {
			picture = direct->texture; /* no second copy for the usual case */
			screen->views_picture_in_image = false;
		} else {
			compose_views(screen);
		}
		pixman_region32_clear(&screen->damage);
	} else {
		screen->views_picture_in_image = false;
		if (showing_presented(screen) && place_surface(screen, screen->surface).identity &&
		    !overlays_shown(screen)) {
			if (screen->surface->lease) {
				/* Hold, don't copy: the frame is the client's buffer
				 * itself (wl_shm or dmabuf). */
				*frame = (struct frame){
					.width = pixman_image_get_width(screen->surface->texture),
					.height = pixman_image_get_height(screen->surface->texture),
					.stride = pixman_image_get_width(screen->surface->texture) * 4,
					.pts_ns = pts_ns,
				};
				screen_source_set_lease(frame, screen->surface->lease);
				return;
			}
			picture = screen->surface->texture; /* no second copy for the usual case */
		} else {
			compose(screen);
			draw_overlays(screen);
		}
	}

	*frame = (struct frame){
		.data = (uint8_t *)pixman_image_get_data(picture),
		.width = pixman_image_get_width(picture),
		.height = pixman_image_get_height(picture),
		.stride = pixman_image_get_stride(picture),
		.pts_ns = pts_ns,
	};
	screen_source_set_image(frame, picture);
}

/* `damage`: what the presented surface's texture gained (buffer
 * coordinates), or NULL; `screen_damage`: what changed in screen
 * coordinates, or NULL. Either lets the consumer skip the rest. */
static void emit_frame(struct screen *screen, int64_t pts_ns, const pixman_region32_t *damage,
		       const pixman_box32_t *screen_damage)
{
	/* Black before anything was ever shown is not a picture of the
	 * compositor; black after content is (the output went blank). */
	if (!screen->shown_content && !showing_content(screen))
		return;
	screen->shown_content = true;
	struct frame frame;
	screen_get_frame(screen, &frame, pts_ns);
	/* Surface damage is in buffer coordinates: it is the frame's own only
	 * when the surface maps 1:1, i.e. when the frame is its texture. */
	if (damage && showing_presented(screen) &&
	    (frame.data == (uint8_t *)pixman_image_get_data(screen->surface->texture) ||
	     (frame_in_buffer_only(&frame) && frame.buffer == screen->surface->lease))) {
		const pixman_box32_t *box = pixman_region32_extents((pixman_region32_t *)damage);
		frame.damage_known = true;
		frame.damage = (struct frame_damage){ box->x1, box->y1, box->x2, box->y2 };
	} else if (screen_damage) {
		frame.damage_known = true;
		frame.damage = (struct frame_damage){ screen_damage->x1, screen_damage->y1,
						      screen_damage->x2, screen_damage->y2 };
	}
	screen_source_emit(screen, &frame);
}

static void handle_surface_destroy(struct wl_listener *listener, void *data)
{
	struct screen *screen = wl_container_of(listener, screen, surface_destroy);
	wl_list_remove(&screen->surface_destroy.link);
	wl_list_init(&screen->surface_destroy.link);
	screen->surface = NULL;
	/* The output went black: sinks keep pictures, so they must be told;
	 * not when the presenter is disconnecting (its going ends a
	 * recording, which must not end on a black frame). */
	if (screen->presenter)
		emit_frame(screen, clock_now_ns(), NULL, NULL);
}

static void handle_presenter_destroy(struct wl_listener *listener, void *data)
{
	struct screen *screen = wl_container_of(listener, screen, presenter_destroy);
	struct wl_client *client = screen->presenter;
	wl_list_remove(&screen->presenter_destroy.link);
	wl_list_init(&screen->presenter_destroy.link);
	screen->presenter = NULL;
	wl_signal_emit(&screen->events.presenter_gone, client);
}

static void forget_overlay(struct screen_overlay *overlay)
{
	wl_list_remove(&overlay->destroy.link);
	wl_list_remove(&overlay->commit.link);
	wl_list_init(&overlay->destroy.link);
	wl_list_init(&overlay->commit.link);
	overlay->surface = NULL;
}

/* An overlay moved, changed or went: its old and new places are redrawn
 * and make a frame whose damage is just them. */
static void overlay_changed(struct screen_overlay *overlay, bool content_changed,
			    int64_t commit_ns)
{
	struct screen *screen = overlay->screen;
	pixman_box32_t old = overlay->box;
	pixman_box32_t now = overlay_extent(screen, overlay);
	overlay->box = now;
	if (!content_changed && old.x1 == now.x1 && old.y1 == now.y1 && old.x2 == now.x2 &&
	    old.y2 == now.y2)
		return;
	pixman_region32_t changed;
	pixman_region32_init(&changed);
	if (old.x2 > old.x1 && old.y2 > old.y1)
		pixman_region32_union_rect(&changed, &changed, old.x1, old.y1,
					   (unsigned)(old.x2 - old.x1), (unsigned)(old.y2 - old.y1));
	if (now.x2 > now.x1 && now.y2 > now.y1)
		pixman_region32_union_rect(&changed, &changed, now.x1, now.y1,
					   (unsigned)(now.x2 - now.x1), (unsigned)(now.y2 - now.y1));
	pixman_region32_intersect_rect(&changed, &changed, 0, 0, (unsigned)screen->width,
				       (unsigned)screen->height);
	if (pixman_region32_not_empty(&changed)) {
		if (views_active(screen)) {
			pixman_region32_union(&screen->damage, &screen->damage, &changed);
			screen_flush(screen, commit_ns);
		} else if (showing_presented(screen)) {
			/* The picture is composed again, but only this changed. */
			emit_frame(screen, commit_ns, NULL, pixman_region32_extents(&changed));
		}
	}
	pixman_region32_fini(&changed);
}

static void handle_overlay_destroy(struct wl_listener *listener, void *data)
{
	struct screen_overlay *overlay = wl_container_of(listener, overlay, destroy);
	forget_overlay(overlay);
	overlay_changed(overlay, false, clock_now_ns());
}

static void handle_overlay_commit(struct wl_listener *listener, void *data)
{
	struct screen_overlay *overlay = wl_container_of(listener, overlay, commit);
	const struct surface_commit_event *event = data;
	overlay_changed(overlay, pixman_region32_not_empty((pixman_region32_t *)event->damage),
			event->commit_ns);
}

static void set_overlay(struct screen_overlay *overlay, struct surface *surface, int x, int y,
			int64_t commit_ns)
{
	if (surface == overlay->surface && x == overlay->x && y == overlay->y)
		return;
	bool new_image = surface != overlay->surface;
	forget_overlay(overlay);
	overlay->surface = surface;
	overlay->x = x;
	overlay->y = y;
	if (surface) {
		wl_signal_add(&surface->events.destroy, &overlay->destroy);
		wl_signal_add(&surface->events.commit, &overlay->commit);
	}
	overlay_changed(overlay, new_image, commit_ns);
}

void screen_set_cursor(struct screen *screen, struct surface *surface, int x, int y,
		       int64_t commit_ns)
{
	if (screen->draw_cursor)
		set_overlay(&screen->cursor, surface, x, y, commit_ns);
}

void screen_set_drag_icon(struct screen *screen, struct surface *surface, int x, int y,
			  int64_t commit_ns)
{
	set_overlay(&screen->drag_icon, surface, x, y, commit_ns);
}

static void overlay_init(struct screen *screen, struct screen_overlay *overlay)
{
	overlay->screen = screen;
	wl_list_init(&overlay->destroy.link);
	wl_list_init(&overlay->commit.link);
	overlay->destroy.notify = handle_overlay_destroy;
	overlay->commit.notify = handle_overlay_commit;
}

bool screen_init(struct screen *screen, int width, int height)
{
	*screen = (struct screen){ 0 };
	wl_list_init(&screen->surface_destroy.link);
	wl_list_init(&screen->presenter_destroy.link);
	overlay_init(screen, &screen->drag_icon);
	overlay_init(screen, &screen->cursor);
	screen->surface_destroy.notify = handle_surface_destroy;
	screen->presenter_destroy.notify = handle_presenter_destroy;
	frame_source_init(&screen->source);
	wl_signal_init(&screen->events.frame);
	wl_signal_init(&screen->events.presenter_gone);
	wl_signal_init(&screen->events.stack_changed);
	wl_list_init(&screen->views);
	pixman_region32_init(&screen->damage);
	return screen_resize(screen, width, height);
}

void screen_finish(struct screen *screen)
{
	frame_source_finish(&screen->source);
	wl_list_remove(&screen->surface_destroy.link);
	wl_list_remove(&screen->presenter_destroy.link);
	wl_list_init(&screen->surface_destroy.link);
	wl_list_init(&screen->presenter_destroy.link);
	forget_overlay(&screen->drag_icon);
	forget_overlay(&screen->cursor);
	if (screen->image)
		pixman_image_unref(screen->image);
	screen->image = NULL;
	pixman_region32_fini(&screen->damage);
	pixman_region32_init(&screen->damage);
}

bool screen_resize(struct screen *screen, int width, int height)
{
	if (screen->image && screen->width == width && screen->height == height)
		return true;
	pixman_image_t *image = pixman_image_create_bits(PIXMAN_x8r8g8b8, width, height, NULL, 0);
	if (!image) {
		LOG_ERR("cannot allocate a %dx%d screen", width, height);
		return false;
	}
	if (screen->image)
		pixman_image_unref(screen->image);
	screen->image = image;
	screen->width = width;
	screen->height = height;
	screen->views_picture_in_image = false;
	return true;
}

/* The client whose going away ends a recording without COMMAND. */
static void set_presenter(struct screen *screen, struct surface *surface)
{
	struct wl_client *client = wl_resource_get_client(surface->resource);
	if (client != screen->presenter) {
		wl_list_remove(&screen->presenter_destroy.link);
		screen->presenter = client;
		wl_client_add_destroy_listener(client, &screen->presenter_destroy);
	}
}

void screen_present(struct screen *screen, struct surface *surface, enum screen_method method,
		    int64_t commit_ns)
{
	wl_list_remove(&screen->surface_destroy.link);
	wl_list_init(&screen->surface_destroy.link);
	screen->surface = surface;
	screen->method = method;
	if (surface) {
		wl_signal_add(&surface->events.destroy, &screen->surface_destroy);
		set_presenter(screen, surface);
	}
	wl_signal_emit(&screen->events.stack_changed, NULL);
	emit_frame(screen, commit_ns, NULL, NULL);
}

void screen_surface_committed(struct screen *screen, struct surface *surface,
			      const pixman_region32_t *damage, int64_t commit_ns)
{
	if (surface != screen->surface || !pixman_region32_not_empty((pixman_region32_t *)damage))
		return;
	emit_frame(screen, commit_ns, damage, NULL);
}

void screen_map_view(struct screen *screen, struct screen_view *view, int64_t commit_ns)
{
	wl_list_remove(&view->link);
	wl_list_insert(screen->views.prev, &view->link);
	view->mapped = true;
	set_presenter(screen, view->root);
	wl_signal_emit(&screen->events.stack_changed, NULL);
	screen_damage_all(screen);
	screen_flush(screen, commit_ns);
}

void screen_unmap_view(struct screen *screen, struct screen_view *view, int64_t commit_ns)
{
	bool was_shown = view->mapped && !screen->surface;
	wl_list_remove(&view->link);
	wl_list_init(&view->link);
	view->mapped = false;
	wl_signal_emit(&screen->events.stack_changed, NULL);
	if (!was_shown)
		return;
	screen_damage_all(screen);
	emit_frame(screen, commit_ns, NULL, NULL);
}

struct surface_search {
	const struct surface *target;
	bool found;
	int x, y;
};

static void find_surface(struct surface *surface, int x, int y, void *data)
{
	struct surface_search *search = data;
	if (surface == search->target) {
		search->found = true;
		search->x = x;
		search->y = y;
	}
}

void screen_damage_surface(struct screen *screen, struct surface *surface,
			   const pixman_region32_t *damage)
{
	if (!views_active(screen))
		return;
	struct surface_search search = { .target = surface };
	visible_surfaces_for_each(screen, find_surface, &search);
	struct placement p;
	if (!search.found || !place_view_surface(surface, search.x, search.y, &p))
		return;
	if (damage && p.identity) {
		/* Buffer and screen pixels match: the damage itself, moved. */
		pixman_region32_t moved;
		pixman_region32_init(&moved);
		pixman_region32_copy(&moved, (pixman_region32_t *)damage);
		pixman_region32_translate(&moved, search.x, search.y);
		pixman_region32_union(&screen->damage, &screen->damage, &moved);
		pixman_region32_fini(&moved);
	} else if (!damage || pixman_region32_not_empty((pixman_region32_t *)damage)) {
		pixman_region32_union_rect(&screen->damage, &screen->damage, search.x, search.y,
					   (unsigned)p.dst_w, (unsigned)p.dst_h);
	}
	pixman_region32_intersect_rect(&screen->damage, &screen->damage, 0, 0,
				       (unsigned)screen->width, (unsigned)screen->height);
}

void screen_damage_all(struct screen *screen)
{
	pixman_region32_union_rect(&screen->damage, &screen->damage, 0, 0, (unsigned)screen->width,
				   (unsigned)screen->height);
}

void screen_flush(struct screen *screen, int64_t commit_ns)
{
	if (!views_active(screen) || !pixman_region32_not_empty(&screen->damage))
		return;
	/* Taken before composing, which consumes the damage. */
	pixman_box32_t changed = *pixman_region32_extents(&screen->damage);
	emit_frame(screen, commit_ns, NULL, &changed);
}

struct hit_search {
	double x, y;
	struct screen_hit hit;
	struct screen_view *view; /* being searched */
};

static bool accepts_input(const struct surface *surface, double sx, double sy, int width,
			  int height)
{
	if (sx < 0 || sy < 0 || sx >= width || sy >= height)
		return false;
	return pixman_region32_contains_point(&surface->current.input_region, (int)floor(sx),
					      (int)floor(sy), NULL);
}

/* Bottom to top: the last surface that takes the point wins. */
static void check_hit(struct surface *surface, int x, int y, void *data)
{
	struct hit_search *search = data;
	int width, height;
	if (!surface->mapped || !surface->texture)
		return;
	surface_get_shown_size(surface, &width, &height);
	double sx = search->x - x, sy = search->y - y;
	if (!accepts_input(surface, sx, sy, width, height))
		return;
	search->hit = (struct screen_hit){ surface, sx, sy, search->view, 1, 1 };
}

bool screen_surface_at(struct screen *screen, double x, double y, struct screen_hit *hit)
{
	struct hit_search search = { .x = x, .y = y };
	if (showing_presented(screen)) {
		struct surface *surface = screen->surface;
		struct placement p = place_surface(screen, surface);
		int width, height;
		surface_get_size(surface, &width, &height);
		double sx = (x - p.dst_x) * width / p.dst_w, sy = (y - p.dst_y) * height / p.dst_h;
		if (accepts_input(surface, sx, sy, width, height))
			search.hit = (struct screen_hit){ surface, sx, sy, NULL,
							  (double)width / p.dst_w,
							  (double)height / p.dst_h };
	} else if (!screen->surface) {
		struct screen_view *view, *top = NULL;
		wl_list_for_each(view, &screen->views, link) {
			if (!view->mapped || !view->root->mapped || !view->root->texture)
				continue;
			top = view;
			if (screen->policy == SCREEN_POLICY_ALL) {
				search.view = view;
				view_for_each(screen, view, check_hit, &search);
			}
		}
		if (top && screen->policy == SCREEN_POLICY_TOPMOST) {
			search.view = top;
			view_for_each(screen, top, check_hit, &search);
		}
	}
	*hit = search.hit;
	return hit->surface != NULL;
}

bool screen_raise_view(struct screen *screen, struct surface *root, int64_t commit_ns)
{
	/* The newest view is the only one shown otherwise: already on top. */
	if (screen->surface || screen->policy != SCREEN_POLICY_ALL || !root)
		return false;
	struct screen_view *view, *found = NULL;
	wl_list_for_each(view, &screen->views, link) {
		if (view->mapped && view->root == root)
			found = view;
	}
	if (!found || found->link.next == &screen->views)
		return false;
	wl_list_remove(&found->link);
	wl_list_insert(screen->views.prev, &found->link);
	wl_signal_emit(&screen->events.stack_changed, NULL);
	screen_damage_all(screen);
	screen_flush(screen, commit_ns);
	return true;
}

struct surface *screen_top_surface(struct screen *screen)
{
	if (screen->surface)
		return showing_presented(screen) ? screen->surface : NULL;
	struct screen_view *view, *top = NULL;
	wl_list_for_each(view, &screen->views, link) {
		if (view->mapped && view->root->mapped && view->root->texture)
			top = view;
	}
	return top ? top->root : NULL;
}
