#ifndef WLR_SCREEN_H
#define WLR_SCREEN_H

#include <pixman.h>
#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>

#include "frame.h"

struct surface;

/* How a presented surface fills the output (values of
 * zwp_fullscreen_shell_v1.present_method, which the shell validates). */
enum screen_method {
	SCREEN_METHOD_DEFAULT = 0,
	SCREEN_METHOD_CENTER = 1,
	SCREEN_METHOD_ZOOM = 2,
	SCREEN_METHOD_ZOOM_CROP = 3,
	SCREEN_METHOD_STRETCH = 4,
};

/* The picture of the output: the presented surface placed by its method over
 * black. Shells tell it what is presented and when it changed; it emits a
 * frame each time the picture changes. Knows nothing of any shell protocol. */
struct screen {
	int width, height;
	pixman_image_t *image; /* composed picture, used unless the surface maps 1:1 */
	struct surface *surface;
	enum screen_method method;
	struct wl_listener surface_destroy;
	struct wl_client *presenter; /* client of the last presented surface */
	struct wl_listener presenter_destroy;

	struct {
		struct wl_signal frame;          /* struct frame *, valid during the emit */
		struct wl_signal presenter_gone; /* struct wl_client * */
	} events;
};

bool screen_init(struct screen *screen, int width, int height);
void screen_finish(struct screen *screen);

/* New output size; re-emits the picture when something is presented. */
bool screen_resize(struct screen *screen, int width, int height);

/* Shows `surface` (NULL: nothing, the output goes black) with `method`. */
void screen_present(struct screen *screen, struct surface *surface, enum screen_method method,
		    int64_t commit_ns);

/* The presented surface committed; `damage` (buffer coordinates) is what its
 * texture gained. An empty damage makes no new frame. */
void screen_surface_committed(struct screen *screen, struct surface *surface,
			      const pixman_region32_t *damage, int64_t commit_ns);

/* The current picture (a view valid until the next change). */
void screen_get_frame(struct screen *screen, struct frame *frame, int64_t pts_ns);

#endif
