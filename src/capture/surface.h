#ifndef WL_RECORD_SURFACE_H
#define WL_RECORD_SURFACE_H

#include <pixman.h>
#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>

struct dmabuf_lease;
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

struct surface_state {
	bool attached;               /* attach was requested (buffer may be NULL) */
	struct wl_resource *buffer;
	struct wl_listener buffer_destroy;
	pixman_region32_t surface_damage; /* surface coordinates */
	pixman_region32_t buffer_damage;  /* buffer coordinates */
	int32_t scale;
	int32_t transform;
	struct wl_list frame_callbacks;   /* wl_callback resource links */
};

struct surface {
	struct wl_resource *resource;
	struct server *server;
	struct surface_state pending;

	/* wl-record's copy of the last committed buffer: the client's buffer is
	 * released as soon as its damage is copied here. x8r8g8b8 for opaque
	 * buffers, a8r8g8b8 for buffers with alpha; buffer size. */
	pixman_image_t *texture;
	bool mapped;                 /* has content (a non-NULL buffer is attached) */
	int32_t scale;
	int32_t transform;           /* enum wl_output_transform */

	const struct surface_role *role;
	void *role_data;

	/* Zero-copy: the committed dmabuf, lent instead of copied into
	 * `texture` (which is then stale until surface_refresh_texture()).
	 * NULL on the usual path. */
	struct dmabuf_lease *lease;
	bool texture_stale;

	struct {
		struct wl_signal destroy;
		/* struct surface_commit_event *: after the new state is
		 * current, before the role's commit; for state kept beside the
		 * surface (xdg-shell, subsurfaces, viewports). */
		struct wl_signal commit;
	} events;
};

bool compositor_create_global(struct server *server);

/* The surface behind a wl_surface resource (type-checked). */
struct surface *surface_from_resource(struct wl_resource *resource);

/* Gives the surface a role; posts the protocol error `error_code` on
 * `error_resource` and returns false when it already has another one. */
bool surface_set_role(struct surface *surface, const struct surface_role *role, void *role_data,
		      struct wl_resource *error_resource, uint32_t error_code);

/* Brings `texture` up to date when the last commit was lent as a dmabuf
 * (CPU or EGL read of it). False when it could not be read. */
bool surface_refresh_texture(struct surface *surface);

/* Size of the surface in surface coordinates (buffer size, transformed and
 * divided by the scale); 0x0 while unmapped. */
void surface_get_size(const struct surface *surface, int *width, int *height);

#endif
