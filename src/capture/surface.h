#ifndef WL_RECORD_SURFACE_H
#define WL_RECORD_SURFACE_H

#include <pixman.h>
#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>

#include "addon.h"

struct wl_record_buffer;
struct server;
struct surface;

/* A role (fullscreen shell, xdg-shell, subsurface) gets each commit after the
 * surface copied the new content into its texture. */
struct surface_role {
	const char *name;
	/* `damage` is what changed in the texture, in buffer coordinates;
	 * empty when the commit brought no new content. */
	void (*commit)(struct surface *surface, const pixman_region32_t *damage, int64_t commit_ns);
};

struct surface_commit_event {
	struct surface *surface;
	const pixman_region32_t *damage; /* as given to surface_role.commit */
	int64_t commit_ns;
};

/* wp_viewport's crop and scale (surface coordinates), part of the surface
 * state so that it is double-buffered (and cached) with the content. */
struct surface_viewport {
	bool has_source, has_destination;
	double src_x, src_y, src_w, src_h;
	int dst_w, dst_h;
};

/* All of wl_surface's double-buffered state. Requests change a surface's
 * `pending` state; a commit makes it `current`, except for an effectively
 * synchronized subsurface, whose commit moves it into `cached`, which is
 * applied when its parent's state is (wlroots keeps a queue of these; one
 * merged cache is the same picture for a recorder). */
struct surface_state {
	bool attached;               /* attach was requested (buffer may be NULL) */
	int32_t dx, dy;              /* attach's x,y: the origin's move (not kept) */
	/* The attached wl_buffer; NULL when none, or when it was destroyed
	 * before being applied (nothing is shown from it then). */
	struct wl_resource *buffer;
	struct wl_listener buffer_destroy;
	int buffer_width, buffer_height;  /* of the last attached buffer; 0: none */
	pixman_region32_t surface_damage; /* surface coordinates */
	pixman_region32_t buffer_damage;  /* buffer coordinates */
	int32_t scale;
	int32_t transform;           /* enum wl_output_transform */
	struct surface_viewport viewport;
	/* Where the pointer may enter it (screen_surface_at, for --window). */
	pixman_region32_t input_region;
	struct wl_list frame_callbacks;   /* wl_callback resource links */
};

struct surface {
	struct wl_resource *resource;
	struct server *server;
	/* `current` never holds a buffer: applying a state copies it into
	 * `texture` and releases it, or lends it (`lease`). */
	struct surface_state pending, cached, current;
	bool has_cache;              /* `cached` waits for the parent */

	/* wl-record's copy of the last committed buffer (unless lent): the
	 * client's buffer is released as soon as its damage is copied here.
	 * x8r8g8b8 for opaque buffers, a8r8g8b8 for buffers with alpha; buffer
	 * size. */
	pixman_image_t *texture;
	bool mapped;                 /* has content (a non-NULL buffer is attached) */
	/* The origin's moves (attach's x,y) summed: where a drag icon is drawn
	 * from the pointer. Other roles have no origin to move. */
	int32_t origin_x, origin_y;

	const struct surface_role *role;
	void *role_data;

	/* Hold, don't copy: the committed buffer (wl_shm or dmabuf), lent to
	 * the frames instead of copied into `texture` (which is then stale
	 * until surface_refresh_texture() reads it). A commit's lock
	 * (client_lease.h); NULL when the last commit was copied. */
	struct wl_record_buffer *lease;
	bool texture_stale;
	/* The client sent a picture already shown again, in another buffer
	 * (shm_buffer_same_as_lease): its buffers are copied, not lent. */
	bool copy_only;

	/* Extension state (viewport, subsurface children, xdg_surface),
	 * destroyed after the destroy signal. */
	struct addon_set addons;

	struct {
		struct wl_signal destroy;
		/* struct surface_commit_event *: after a state was applied
		 * (with the subsurfaces' and the viewport's), before the
		 * role's commit. */
		struct wl_signal commit;
	} events;
};

bool compositor_create_global(struct server *server);

/* The surface behind a wl_surface resource (asserts that it is one). */
struct surface *surface_from_resource(struct wl_resource *resource);

/* Gives the surface a role; posts the protocol error `error_code` on
 * `error_resource` and returns false when it already has another one. */
bool surface_set_role(struct surface *surface, const struct surface_role *role, void *role_data,
		      struct wl_resource *error_resource, uint32_t error_code);

/* Brings `texture` up to date when the last commit was lent (a guarded CPU
 * read of the client's memory, or an EGL read of a dmabuf): for whoever
 * needs a private copy (composition, the cursor, in-process listeners).
 * False when it could not be read. */
bool surface_refresh_texture(struct surface *surface);

/* Applies a synchronized subsurface's cached state now (its parent's state
 * is being applied, or it stopped being synchronized). */
void surface_apply_cached(struct surface *surface);

/* The size the surface will have once its pending state is applied (after
 * any cached one); 0x0 when it will have no content. */
void surface_get_pending_size(const struct surface *surface, int *width, int *height);

/* Size of the surface in surface coordinates (buffer size, transformed and
 * divided by the scale); 0x0 while unmapped. */
void surface_get_size(const struct surface *surface, int *width, int *height);

#endif
