#define LOG_MODULE "capture"
#include "screen.h"

#include <math.h>
#include <wayland-server-protocol.h>

#include "log.h"
#include "surface.h"

/* Screen coordinates -> buffer coordinates, as an affine map. */
struct placement {
	double dst_x, dst_y, dst_w, dst_h; /* where the surface lands on the screen */
	double src_w, src_h;   /* the surface's extent in the units of the transform table */
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
	bool swap = surface->transform & WL_OUTPUT_TRANSFORM_90;
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
		p.unit = surface->scale;
		break;
	}
	}
	p.dst_x = floor((W - p.dst_w) / 2);
	p.dst_y = floor((H - p.dst_h) / 2);
	p.identity = surface->transform == WL_OUTPUT_TRANSFORM_NORMAL && bw == screen->width &&
		     bh == screen->height && p.dst_w == W && p.dst_h == H && p.dst_x == 0 &&
		     p.dst_y == 0;
	return p;
}

/* Fills `m` with the map from screen to buffer coordinates. */
static void placement_matrix(const struct placement *p, int32_t transform,
			     struct pixman_f_transform *m)
{
	double sw = p->src_w, sh = p->src_h;
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
	 * surface's extent. */
	double kx = sw / p->dst_w, ky = sh / p->dst_h;
	double u = p->unit;
	pixman_f_transform_init_identity(m);
	m->m[0][0] = u * a * kx;
	m->m[0][1] = u * b * ky;
	m->m[0][2] = u * (c - a * kx * p->dst_x - b * ky * p->dst_y);
	m->m[1][0] = u * d * kx;
	m->m[1][1] = u * e * ky;
	m->m[1][2] = u * (f - d * kx * p->dst_x - e * ky * p->dst_y);
}

static bool showing_content(const struct screen *screen)
{
	return screen->surface && screen->surface->mapped && screen->surface->texture;
}

static void compose(struct screen *screen)
{
	static const pixman_color_t black = { 0, 0, 0, 0xffff };
	pixman_box32_t all = { 0, 0, screen->width, screen->height };
	pixman_image_fill_boxes(PIXMAN_OP_SRC, screen->image, &black, 1, &all);
	if (!showing_content(screen))
		return;

	struct surface *surface = screen->surface;
	if (!surface_refresh_texture(surface))
		return; /* black rather than a stale picture */
	struct placement p = place_surface(screen, surface);
	struct pixman_f_transform fm;
	struct pixman_transform m;
	placement_matrix(&p, surface->transform, &fm);
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
	if (showing_content(screen) && place_surface(screen, screen->surface).identity) {
		if (screen->surface->lease) {
			/* Zero-copy: the frame is the client's dmabuf itself. */
			*frame = (struct frame){
				.width = pixman_image_get_width(screen->surface->texture),
				.height = pixman_image_get_height(screen->surface->texture),
				.stride = pixman_image_get_width(screen->surface->texture) * 4,
				.pts_ns = pts_ns,
				.dmabuf = screen->surface->lease,
			};
			return;
		}
		picture = screen->surface->texture; /* no second copy for the usual case */
	} else {
		compose(screen);
	}

	*frame = (struct frame){
		.data = (uint8_t *)pixman_image_get_data(picture),
		.width = pixman_image_get_width(picture),
		.height = pixman_image_get_height(picture),
		.stride = pixman_image_get_stride(picture),
		.pts_ns = pts_ns,
	};
}

static void emit_frame(struct screen *screen, int64_t pts_ns)
{
	/* Black before anything was ever shown is not a picture of the
	 * compositor; black after content is (the output went blank). */
	if (!screen->shown_content && !showing_content(screen))
		return;
	screen->shown_content = true;
	struct frame frame;
	screen_get_frame(screen, &frame, pts_ns);
	wl_signal_emit(&screen->events.frame, &frame);
}

static void handle_surface_destroy(struct wl_listener *listener, void *data)
{
	struct screen *screen = wl_container_of(listener, screen, surface_destroy);
	wl_list_remove(&screen->surface_destroy.link);
	wl_list_init(&screen->surface_destroy.link);
	screen->surface = NULL;
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

bool screen_init(struct screen *screen, int width, int height)
{
	*screen = (struct screen){ 0 };
	wl_list_init(&screen->surface_destroy.link);
	wl_list_init(&screen->presenter_destroy.link);
	screen->surface_destroy.notify = handle_surface_destroy;
	screen->presenter_destroy.notify = handle_presenter_destroy;
	wl_signal_init(&screen->events.frame);
	wl_signal_init(&screen->events.presenter_gone);
	return screen_resize(screen, width, height);
}

void screen_finish(struct screen *screen)
{
	wl_list_remove(&screen->surface_destroy.link);
	wl_list_remove(&screen->presenter_destroy.link);
	wl_list_init(&screen->surface_destroy.link);
	wl_list_init(&screen->presenter_destroy.link);
	if (screen->image)
		pixman_image_unref(screen->image);
	screen->image = NULL;
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
	return true;
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
		struct wl_client *client = wl_resource_get_client(surface->resource);
		if (client != screen->presenter) {
			wl_list_remove(&screen->presenter_destroy.link);
			screen->presenter = client;
			wl_client_add_destroy_listener(client, &screen->presenter_destroy);
		}
	}
	emit_frame(screen, commit_ns);
}

void screen_surface_committed(struct screen *screen, struct surface *surface,
			      const pixman_region32_t *damage, int64_t commit_ns)
{
	if (surface != screen->surface || !pixman_region32_not_empty((pixman_region32_t *)damage))
		return;
	emit_frame(screen, commit_ns);
}
