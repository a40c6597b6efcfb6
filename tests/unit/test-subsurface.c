/* Synchronized subsurfaces through the real protocol: a synchronized child's
 * whole state (buffer, damage, viewport, frame callbacks) waits for its
 * parent's commit, nested children wait for the root, set_desync applies
 * what waits, and a child destroyed while its state waits leaves nothing.
 *
 * Each check looks at the pixels the screen emits. The screen redraws only
 * what is damaged, so every "not shown yet" check first makes it redraw the
 * whole picture (`redraw_everything`): a texture that already holds the new
 * content would show there. Run with a case name; each case is its own meson
 * test. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inproc.h"
#include "viewporter-client-protocol.h"
#include "xdg-shell-client-protocol.h"

#define RED 0xffff0000u
#define GREEN 0xff00ff00u
#define BLUE 0xff0000ffu
#define WHITE 0xffffffffu
#define CYAN 0xff00ffffu
#define GREY 0xff808080u

#define WIDTH 64
#define HEIGHT 48

struct globals {
	struct xdg_wm_base *wm_base;
	struct wl_subcompositor *subcompositor;
	struct wp_viewporter *viewporter;
};

static void wm_base_ping(void *data, struct xdg_wm_base *wm_base, uint32_t serial)
{
	xdg_wm_base_pong(wm_base, serial);
}

static const struct xdg_wm_base_listener wm_base_listener = { .ping = wm_base_ping };

static void registry_global(void *data, struct wl_registry *registry, uint32_t name,
			    const char *interface, uint32_t version)
{
	struct globals *g = data;
	if (strcmp(interface, "xdg_wm_base") == 0) {
		g->wm_base = wl_registry_bind(registry, name, &xdg_wm_base_interface, 1);
		xdg_wm_base_add_listener(g->wm_base, &wm_base_listener, g);
	} else if (strcmp(interface, "wl_subcompositor") == 0) {
		g->subcompositor = wl_registry_bind(registry, name, &wl_subcompositor_interface, 1);
	} else if (strcmp(interface, "wp_viewporter") == 0) {
		g->viewporter = wl_registry_bind(registry, name, &wp_viewporter_interface, 1);
	}
}

static void registry_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_global, .global_remove = registry_global_remove,
};

/* A toplevel with its configure. */
struct window {
	struct wl_surface *surface;
	struct xdg_surface *xdg_surface;
	struct xdg_toplevel *toplevel;
	uint32_t serial;
};

static void xdg_surface_configure(void *data, struct xdg_surface *xdg_surface, uint32_t serial)
{
	((struct window *)data)->serial = serial;
}

static const struct xdg_surface_listener xdg_surface_listener = {
	.configure = xdg_surface_configure,
};

static void toplevel_configure(void *data, struct xdg_toplevel *toplevel, int32_t width,
			       int32_t height, struct wl_array *states)
{
}

static void toplevel_close(void *data, struct xdg_toplevel *toplevel)
{
}

static const struct xdg_toplevel_listener toplevel_listener = {
	.configure = toplevel_configure, .close = toplevel_close,
};

static void buffer_release(void *data, struct wl_buffer *buffer)
{
	((struct test_buffer *)data)->released = true;
}

static const struct wl_buffer_listener buffer_listener = { .release = buffer_release };

static void solid_buffer(struct inproc *t, struct test_buffer *b, int width, int height,
			 uint32_t colour)
{
	test_buffer_init(t, b, width, height, WL_SHM_FORMAT_XRGB8888);
	for (int i = 0; i < width * height; i++)
		b->pixels[i] = colour;
	wl_buffer_add_listener(b->buffer, &buffer_listener, b);
}

static void commit_buffer(struct wl_surface *surface, struct test_buffer *b)
{
	b->released = false;
	wl_surface_attach(surface, b->buffer, 0, 0);
	wl_surface_damage_buffer(surface, 0, 0, b->width, b->height);
	wl_surface_commit(surface);
}

struct sub {
	struct wl_surface *surface;
	struct wl_subsurface *subsurface;
	struct test_buffer buffer, white;
};

/* The scene every case starts from: a red 64x48 toplevel, and below it a
 * desynchronized grey child covering it (hidden behind the parent's opaque
 * content) whose commits make the screen redraw everything. */
struct scene {
	struct inproc t;
	struct globals g;
	struct window top;
	struct test_buffer red;
	struct sub backdrop;
};

static void make_sub(struct scene *s, struct sub *sub, struct wl_surface *parent, int size,
		     uint32_t colour, int x, int y)
{
	sub->surface = wl_compositor_create_surface(s->t.compositor);
	sub->subsurface = wl_subcompositor_get_subsurface(s->g.subcompositor, sub->surface, parent);
	wl_subsurface_set_position(sub->subsurface, x, y);
	solid_buffer(&s->t, &sub->buffer, size, size, colour);
	solid_buffer(&s->t, &sub->white, size, size, WHITE);
	commit_buffer(sub->surface, &sub->buffer);
}

static void destroy_sub(struct sub *sub)
{
	if (sub->subsurface)
		wl_subsurface_destroy(sub->subsurface);
	if (sub->surface)
		wl_surface_destroy(sub->surface);
	test_buffer_finish(&sub->buffer);
	test_buffer_finish(&sub->white);
}

static void scene_init(struct scene *s)
{
	struct inproc *t = &s->t;
	inproc_init(t, WIDTH, HEIGHT);
	t->server->adopted_client = NULL; /* stands for a desktop client */
	s->g = (struct globals){ 0 };
	struct wl_registry *registry = wl_display_get_registry(t->display);
	wl_registry_add_listener(registry, &registry_listener, &s->g);
	test_assert(inproc_roundtrip(t));
	wl_registry_destroy(registry);
	test_assert(s->g.wm_base && s->g.subcompositor && s->g.viewporter);

	struct window *w = &s->top;
	*w = (struct window){ 0 };
	w->surface = wl_compositor_create_surface(t->compositor);
	w->xdg_surface = xdg_wm_base_get_xdg_surface(s->g.wm_base, w->surface);
	xdg_surface_add_listener(w->xdg_surface, &xdg_surface_listener, w);
	w->toplevel = xdg_surface_get_toplevel(w->xdg_surface);
	xdg_toplevel_add_listener(w->toplevel, &toplevel_listener, w);
	wl_surface_commit(w->surface);
	test_assert(inproc_roundtrip(t));
	test_assert(w->serial != 0);
	xdg_surface_ack_configure(w->xdg_surface, w->serial);
	solid_buffer(t, &s->red, WIDTH, HEIGHT, RED);

	make_sub(s, &s->backdrop, w->surface, WIDTH, GREY, 0, 0);
	wl_subsurface_set_desync(s->backdrop.subsurface);
	wl_subsurface_place_below(s->backdrop.subsurface, w->surface);
	commit_buffer(w->surface, &s->red);
	test_assert(inproc_roundtrip(t));
	test_assert(t->frames >= 1);
	test_assert_pixel(t, 0, 0, RED);
	test_assert_pixel(t, WIDTH - 1, HEIGHT - 1, RED);
}

static void scene_finish(struct scene *s)
{
	destroy_sub(&s->backdrop);
	xdg_toplevel_destroy(s->top.toplevel);
	xdg_surface_destroy(s->top.xdg_surface);
	wl_surface_destroy(s->top.surface);
	test_buffer_finish(&s->red);
	test_assert(inproc_roundtrip(&s->t));
	wp_viewporter_destroy(s->g.viewporter);
	wl_subcompositor_destroy(s->g.subcompositor);
	xdg_wm_base_destroy(s->g.wm_base);
	inproc_finish(&s->t);
}

/* An unrelated desynchronized commit that damages the whole screen: the
 * frame it makes shows every surface's texture as it is now. */
static void redraw_everything(struct scene *s)
{
	int frames = s->t.frames;
	commit_buffer(s->backdrop.surface, &s->backdrop.buffer);
	test_assert(inproc_roundtrip(&s->t));
	test_assert(s->t.frames == frames + 1);
}

static void commit_parent(struct scene *s)
{
	wl_surface_commit(s->top.surface);
	test_assert(inproc_roundtrip(&s->t));
}

/* A sync child commits white; a desync sibling below it, overlapping it,
 * commits new content: the frame that makes must show the sibling's new
 * content and still the child's old one where the child covers it, until
 * the parent commits. */
TEST(sync_child_waits_for_parent)
{
	struct scene s;
	scene_init(&s);
	struct sub sibling, child;
	make_sub(&s, &sibling, s.top.surface, 16, GREEN, 16, 16); /* 16..31 */
	make_sub(&s, &child, s.top.surface, 16, BLUE, 8, 8);      /* 8..23, on top */
	wl_subsurface_set_desync(sibling.subsurface);
	commit_parent(&s);
	test_assert_pixel(&s.t, 10, 10, BLUE);
	test_assert_pixel(&s.t, 20, 20, BLUE);
	test_assert_pixel(&s.t, 28, 28, GREEN);

	commit_buffer(child.surface, &child.white);
	test_assert(inproc_roundtrip(&s.t));
	for (int i = 0; i < 16 * 16; i++)
		sibling.buffer.pixels[i] = CYAN;
	int frames = s.t.frames;
	commit_buffer(sibling.surface, &sibling.buffer);
	test_assert(inproc_roundtrip(&s.t));
	test_assert(s.t.frames == frames + 1);
	test_assert_pixel(&s.t, 28, 28, CYAN);
	test_assert_pixel(&s.t, 20, 20, BLUE); /* redrawn with the sibling, not yet white */
	redraw_everything(&s);
	test_assert_pixel(&s.t, 10, 10, BLUE);
	test_assert_pixel(&s.t, 20, 20, BLUE);

	frames = s.t.frames;
	commit_parent(&s);
	test_assert(s.t.frames == frames + 1);
	test_assert_pixel(&s.t, 10, 10, WHITE);
	test_assert_pixel(&s.t, 20, 20, WHITE);
	test_assert_pixel(&s.t, 28, 28, CYAN);
	test_assert_pixel(&s.t, 40, 40, RED);

	destroy_sub(&child);
	destroy_sub(&sibling);
	scene_finish(&s);
}

/* A sync grandchild under a sync child shows only with the root's commit:
 * the child's commit only caches its own state, with the grandchild's still
 * waiting inside it. */
TEST(nested_sync)
{
	struct scene s;
	scene_init(&s);
	struct sub child, grandchild;
	make_sub(&s, &child, s.top.surface, 16, BLUE, 8, 8);
	make_sub(&s, &grandchild, child.surface, 8, GREEN, 4, 4);
	wl_surface_commit(child.surface);
	commit_parent(&s);
	test_assert_pixel(&s.t, 9, 9, BLUE);
	test_assert_pixel(&s.t, 14, 14, GREEN);

	commit_buffer(grandchild.surface, &grandchild.white);
	test_assert(inproc_roundtrip(&s.t));
	redraw_everything(&s);
	test_assert_pixel(&s.t, 14, 14, GREEN);

	/* The child commits: still cached, as the child is synchronized. */
	wl_subsurface_set_position(grandchild.subsurface, 6, 6);
	wl_surface_commit(child.surface);
	test_assert(inproc_roundtrip(&s.t));
	redraw_everything(&s);
	test_assert_pixel(&s.t, 12, 12, GREEN);
	test_assert_pixel(&s.t, 19, 19, GREEN);
	test_assert_pixel(&s.t, 21, 21, BLUE);

	commit_parent(&s);
	/* Moved to 14,14 (the child's state) and white (the grandchild's). */
	test_assert_pixel(&s.t, 12, 12, BLUE);
	test_assert_pixel(&s.t, 13, 13, BLUE);
	test_assert_pixel(&s.t, 14, 14, WHITE);
	test_assert_pixel(&s.t, 21, 21, WHITE);

	destroy_sub(&grandchild);
	destroy_sub(&child);
	scene_finish(&s);
}

/* set_desync with a state waiting applies it at once. */
TEST(desync_applies_cache)
{
	struct scene s;
	scene_init(&s);
	struct sub child;
	make_sub(&s, &child, s.top.surface, 16, BLUE, 8, 8);
	commit_parent(&s);
	test_assert_pixel(&s.t, 10, 10, BLUE);

	commit_buffer(child.surface, &child.white);
	test_assert(inproc_roundtrip(&s.t));
	redraw_everything(&s);
	test_assert_pixel(&s.t, 10, 10, BLUE);

	int frames = s.t.frames;
	wl_subsurface_set_desync(child.subsurface);
	test_assert(inproc_roundtrip(&s.t));
	test_assert(s.t.frames == frames + 1);
	test_assert_pixel(&s.t, 10, 10, WHITE);
	test_assert(child.white.released);

	/* Desynchronized now: its next commit shows on its own. */
	frames = s.t.frames;
	commit_buffer(child.surface, &child.buffer);
	test_assert(inproc_roundtrip(&s.t));
	test_assert(s.t.frames == frames + 1);
	test_assert_pixel(&s.t, 10, 10, BLUE);

	destroy_sub(&child);
	scene_finish(&s);
}

/* A child destroyed while its state waits: no crash, nothing of it shown
 * after the parent commits, and its buffer handed back. Both orders of
 * destruction. */
TEST(destroyed_while_cached)
{
	for (int surface_first = 0; surface_first < 2; surface_first++) {
		struct scene s;
		scene_init(&s);
		struct sub child;
		make_sub(&s, &child, s.top.surface, 16, BLUE, 8, 8);
		commit_parent(&s);
		test_assert_pixel(&s.t, 10, 10, BLUE);

		struct wl_callback *callback = wl_surface_frame(child.surface);
		commit_buffer(child.surface, &child.white);
		test_assert(inproc_roundtrip(&s.t));
		test_assert(!child.white.released);
		if (surface_first) {
			wl_surface_destroy(child.surface);
			wl_subsurface_destroy(child.subsurface);
		} else {
			wl_subsurface_destroy(child.subsurface);
			wl_surface_destroy(child.surface);
		}
		child.surface = NULL;
		child.subsurface = NULL;
		wl_callback_destroy(callback);
		test_assert(inproc_roundtrip(&s.t));
		test_assert(child.white.released);
		test_assert_pixel(&s.t, 10, 10, RED);

		commit_parent(&s);
		redraw_everything(&s);
		test_assert_pixel(&s.t, 10, 10, RED);
		test_assert_pixel(&s.t, 23, 23, RED);

		destroy_sub(&child);
		scene_finish(&s);
	}
}

/* A cached buffer replaced by a newer commit before the parent's is never
 * read: it goes back to the client at once, the newer one shows. */
TEST(replaced_cache_released)
{
	struct scene s;
	scene_init(&s);
	struct sub child;
	make_sub(&s, &child, s.top.surface, 16, BLUE, 8, 8);
	commit_parent(&s);
	test_assert_pixel(&s.t, 10, 10, BLUE);

	struct test_buffer green;
	solid_buffer(&s.t, &green, 16, 16, GREEN);
	commit_buffer(child.surface, &child.white);
	test_assert(inproc_roundtrip(&s.t));
	test_assert(!child.white.released);
	commit_buffer(child.surface, &green);
	test_assert(inproc_roundtrip(&s.t));
	test_assert(child.white.released);
	test_assert(!green.released);

	commit_parent(&s);
	test_assert_pixel(&s.t, 10, 10, GREEN);
	test_assert(green.released);

	destroy_sub(&child);
	test_buffer_finish(&green);
	scene_finish(&s);
}

static int callbacks_done;
static void frame_done(void *data, struct wl_callback *callback, uint32_t time)
{
	callbacks_done++;
	wl_callback_destroy(callback);
}
static const struct wl_callback_listener frame_listener = { .done = frame_done };

/* A frame callback requested with a state that waits is answered only once
 * that state is applied (and shown). */
TEST(frame_callback_waits)
{
	struct scene s;
	scene_init(&s);
	struct sub child;
	make_sub(&s, &child, s.top.surface, 16, BLUE, 8, 8);
	commit_parent(&s);

	callbacks_done = 0;
	struct wl_callback *callback = wl_surface_frame(child.surface);
	wl_callback_add_listener(callback, &frame_listener, NULL);
	commit_buffer(child.surface, &child.white);
	inproc_run_for(&s.t, 100); /* six ticks of the 60 Hz frame clock */
	test_assert(callbacks_done == 0);

	commit_parent(&s);
	test_assert_pixel(&s.t, 10, 10, WHITE);
	inproc_run_for(&s.t, 100);
	test_assert(callbacks_done == 1);

	destroy_sub(&child);
	scene_finish(&s);
}

/* A viewport set on a sync child takes effect with the parent's commit,
 * together with the child's content. */
TEST(viewport_on_sync_child)
{
	struct scene s;
	scene_init(&s);
	struct sub child;
	make_sub(&s, &child, s.top.surface, 16, BLUE, 8, 8);
	struct wp_viewport *viewport = wp_viewporter_get_viewport(s.g.viewporter, child.surface);
	commit_parent(&s);
	test_assert_pixel(&s.t, 23, 23, BLUE);
	test_assert_pixel(&s.t, 30, 30, RED);

	wp_viewport_set_destination(viewport, 32, 32);
	wl_surface_commit(child.surface);
	test_assert(inproc_roundtrip(&s.t));
	redraw_everything(&s);
	test_assert_pixel(&s.t, 23, 23, BLUE);
	test_assert_pixel(&s.t, 30, 30, RED);

	commit_parent(&s);
	test_assert_pixel(&s.t, 30, 30, BLUE);
	test_assert_pixel(&s.t, 39, 39, BLUE);
	test_assert_pixel(&s.t, 41, 41, RED);

	/* Unset again, with new content, both waiting for the parent. */
	wp_viewport_set_destination(viewport, -1, -1);
	commit_buffer(child.surface, &child.white);
	test_assert(inproc_roundtrip(&s.t));
	redraw_everything(&s);
	test_assert_pixel(&s.t, 30, 30, BLUE);
	commit_parent(&s);
	test_assert_pixel(&s.t, 23, 23, WHITE);
	test_assert_pixel(&s.t, 30, 30, RED);

	wp_viewport_destroy(viewport);
	destroy_sub(&child);
	scene_finish(&s);
}
