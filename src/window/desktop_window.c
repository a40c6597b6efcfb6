#define LOG_MODULE "window"
#include "desktop_window.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wayland-client.h>

#include "clock.h"
#include "desktop_window_internal.h"
#include "frame.h"
#include "log.h"
#include "primary-selection-unstable-v1-client-protocol.h"
#include "roundtrip.h"
#include "viewporter-client-protocol.h"
#include "window_dmabuf.h"
#include "window_fit.h"
#include "xdg-decoration-unstable-v1-client-protocol.h"
#include "xdg-shell-client-protocol.h"

#define ANSWER_TIMEOUT_MS 5000

struct window_buffer {
	struct desktop_window *window;
	struct wl_buffer *wl_buffer;
	uint8_t *data;
	size_t size;
	int width, height, stride;
	bool busy;     /* committed; the desktop has not released it yet */
	bool retired;  /* of an earlier picture size: goes when released */
	/* What this buffer lacks of the newest frame. */
	bool missing_all;
	struct frame_damage missing;
};

/* How long a picture that would give a hosted client's buffer back waits
 * for the desktop's frame callback: three refreshes at 60 Hz. */
#define HELD_BUFFER_WAIT_MS 50

static void window_lost(struct desktop_window *window, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void window_lost(struct desktop_window *window, const char *fmt, ...)
{
	if (window->broken)
		return;
	window->broken = true;
	/* A closed connection stays readable: stop watching it. */
	desktop_connection_unwatch(&window->connection);
	window_dmabuf_desktop_gone(window->dmabuf);
	char why[256];
	va_list args;
	va_start(args, fmt);
	vsnprintf(why, sizeof(why), fmt, args);
	va_end(args);
	if (window->events.gone)
		window->events.gone(window->events.data, why);
}

static void window_connection_failed(struct desktop_window *window)
{
	int error = wl_display_get_error(window->display);
	if (error == EPROTO) {
		const struct wl_interface *interface = NULL;
		uint32_t id;
		uint32_t code = wl_display_get_protocol_error(window->display, &interface, &id);
		window_lost(window, "the desktop ended the window's connection with a protocol error "
			    "(%s %u)", interface ? interface->name : "?", code);
	} else {
		window_lost(window, "the desktop closed the window's connection (%s)",
			    strerror(error ? error : EPIPE));
	}
}

static void handle_connection_failed(void *data, enum desktop_connection_failure failure,
				     int error)
{
	struct desktop_window *window = data;
	switch (failure) {
	case DESKTOP_CONNECTION_READ_FAILED:
		window_connection_failed(window);
		break;
	case DESKTOP_CONNECTION_HUNG_UP:
		window_lost(window, "the desktop closed the window's connection");
		break;
	case DESKTOP_CONNECTION_FLUSH_FAILED:
		window_lost(window, "the desktop's connection broke: %s", strerror(error));
		break;
	}
}

void window_flush(struct desktop_window *window)
{
	desktop_connection_flush(&window->connection);
}

/* Shared memory of `size` bytes as a wl_shm pool's fd, mapped at `*data`. */
static int create_shm_file(size_t size, uint8_t **data)
{
	int fd = memfd_create("wl-record-window", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	if (ftruncate(fd, (off_t)size) < 0) {
		close(fd);
		return -1;
	}
	void *map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		close(fd);
		return -1;
	}
	*data = map;
	return fd;
}

struct wl_buffer *window_create_shm_buffer(struct desktop_window *window, int width, int height,
					   uint32_t format, uint8_t **data, size_t *size)
{
	int stride = width * 4;
	*size = (size_t)stride * (size_t)height;
	int fd = create_shm_file(*size, data);
	if (fd < 0) {
		LOG_ERRNO("cannot allocate %dx%d pixels for the window", width, height);
		return NULL;
	}
	struct wl_shm_pool *pool = wl_shm_create_pool(window->shm, fd, (int32_t)*size);
	/* Zeroed memory is black in XRGB8888. */
	struct wl_buffer *buffer = wl_shm_pool_create_buffer(pool, 0, width, height, stride,
							     format);
	wl_shm_pool_destroy(pool);
	close(fd);
	return buffer;
}

static struct wl_buffer *create_wl_buffer(struct desktop_window *window, int width, int height,
					  uint8_t **data, size_t *size)
{
	return window_create_shm_buffer(window, width, height, WL_SHM_FORMAT_XRGB8888, data, size);
}

static void buffer_destroy(struct window_buffer *buffer)
{
	if (!buffer)
		return;
	if (buffer->wl_buffer)
		wl_buffer_destroy(buffer->wl_buffer);
	if (buffer->data)
		munmap(buffer->data, buffer->size);
	free(buffer);
}

static void draw(struct desktop_window *window);

static void handle_buffer_release(void *data, struct wl_buffer *wl_buffer)
{
	struct window_buffer *buffer = data;
	struct desktop_window *window = buffer->window;
	buffer->busy = false;
	if (buffer->retired) {
		for (int i = 0; i < BUFFER_COUNT; i++) {
			if (window->buffers[i] == buffer)
				window->buffers[i] = NULL;
		}
		buffer_destroy(buffer);
	}
	/* A draw put off for want of a buffer can happen now. */
	if (window->undrawn)
		draw(window);
}

static const struct wl_buffer_listener buffer_listener = { .release = handle_buffer_release };

static struct window_buffer *buffer_create(struct desktop_window *window)
{
	struct window_buffer *buffer = calloc(1, sizeof(*buffer));
	if (!buffer)
		return NULL;
	buffer->window = window;
	buffer->width = window->picture_width;
	buffer->height = window->picture_height;
	buffer->stride = buffer->width * 4;
	buffer->missing_all = true;
	buffer->wl_buffer = create_wl_buffer(window, buffer->width, buffer->height, &buffer->data,
					     &buffer->size);
	if (!buffer->wl_buffer) {
		buffer_destroy(buffer);
		return NULL;
	}
	wl_buffer_add_listener(buffer->wl_buffer, &buffer_listener, buffer);
	return buffer;
}

/* A buffer the desktop does not hold, made when there are fewer than
 * BUFFER_COUNT; NULL when all are held. */
static struct window_buffer *free_buffer(struct desktop_window *window)
{
	int empty = -1;
	for (int i = 0; i < BUFFER_COUNT; i++) {
		struct window_buffer *buffer = window->buffers[i];
		if (buffer && !buffer->busy && !buffer->retired)
			return buffer;
		if (!buffer && empty < 0)
			empty = i;
	}
	if (empty < 0)
		return NULL;
	window->buffers[empty] = buffer_create(window);
	return window->buffers[empty];
}

/* The picture's size changed: buffers of the old size go (once released). */
static void retire_buffers(struct desktop_window *window)
{
	for (int i = 0; i < BUFFER_COUNT; i++) {
		struct window_buffer *buffer = window->buffers[i];
		if (!buffer)
			continue;
		if (buffer->busy) {
			buffer->retired = true;
		} else {
			buffer_destroy(buffer);
			window->buffers[i] = NULL;
		}
	}
}

static void copy_rectangle(const struct frame *from, struct window_buffer *to,
			   const struct frame_damage *d)
{
	size_t offset = (size_t)d->x1 * 4, bytes = (size_t)(d->x2 - d->x1) * 4;
	for (int y = d->y1; y < d->y2; y++)
		memcpy(to->data + (size_t)to->stride * (size_t)y + offset,
		       from->data + (size_t)from->stride * (size_t)y + offset, bytes);
}

/* Brings `buffer` up to the newest frame: only what it lacks. */
static void fill_buffer(struct desktop_window *window, struct window_buffer *buffer)
{
	const struct frame *frame = &window->newest;
	if (!window->have_newest)
		return; /* stays black until there is a picture */
	struct frame_damage whole = { 0, 0, frame->width, frame->height };
	if (frame->data) {
		struct frame_damage d = buffer->missing_all ? whole : buffer->missing;
		frame_damage_clip(&d, &whole);
		copy_rectangle(frame, buffer, &d);
	} else {
		/* GPU memory: read whole (the read has no rectangle). */
		char why[256];
		if (!wl_record_buffer_read(frame->buffer, buffer->data, buffer->stride, why,
					   sizeof(why)) &&
		    !window->read_failure_said) {
			window->read_failure_said = true;
			LOG_WARN("cannot show the screen's dmabuf in the window: %s", why);
		}
	}
	buffer->missing_all = false;
	buffer->missing = (struct frame_damage){ 0 };
}

static void apply_layout(struct desktop_window *window)
{
	window->layout_changed = false;
	if (!window->scaled)
		return;
	if (!window->background_attached) {
		wl_surface_attach(window->surface, window->background, 0, 0);
		window->background_attached = true;
	}
	wp_viewport_set_destination(window->background_viewport, window->window_width,
				    window->window_height);
	wl_surface_damage_buffer(window->surface, 0, 0, INT32_MAX, INT32_MAX);
	struct window_fit fit = window_fit_picture(window->window_width, window->window_height,
						   window->picture_width, window->picture_height);
	wl_subsurface_set_position(window->subsurface, fit.x, fit.y);
	wp_viewport_set_destination(window->picture_viewport, fit.width, fit.height);
	LOG_DBG("window %dx%d: the %dx%d picture at %d,%d as %dx%d", window->window_width,
		window->window_height, window->picture_width, window->picture_height, fit.x, fit.y,
		fit.width, fit.height);
}

static void handle_frame_done(void *data, struct wl_callback *callback, uint32_t time)
{
	struct desktop_window *window = data;
	wl_callback_destroy(callback);
	window->frame_callback = NULL;
	draw(window);
}

static const struct wl_callback_listener frame_listener = { .done = handle_frame_done };

static int handle_held_timer(void *data)
{
	draw(data);
	return 0;
}

/* Commits what is new, once the desktop is ready for it (no frame callback
 * outstanding): the newest picture when a buffer is free, a new layout. */
/* The newest frame's buffer when its pixels are only there (a dmabuf). */
static struct wl_record_buffer *newest_dmabuf(struct desktop_window *window)
{
	return frame_in_buffer_only(&window->newest) ? window->newest.buffer : NULL;
}

static void draw(struct desktop_window *window)
{
	if (window->broken || !window->configured)
		return;
	/* Otherwise the desktop's refresh paces the window. But the desktop
	 * gives a hosted client's buffer back only when it gets another, and
	 * a hidden window gets no frame callbacks: a client with two buffers
	 * would wait for the window. So once the desktop has not asked for a
	 * picture for a few of its refreshes, a newer one goes without it. */
	if (window->frame_callback) {
		if (!window->undrawn || !window->have_newest ||
		    !window_dmabuf_holds_another(window->dmabuf, newest_dmabuf(window)))
			return;
		int64_t waited_ms = (clock_now_ns() - window->frame_callback_ns) / 1000000;
		if (waited_ms < HELD_BUFFER_WAIT_MS) {
			if (window->held_timer)
				wl_event_source_timer_update(window->held_timer,
							     (int)(HELD_BUFFER_WAIT_MS - waited_ms));
			return;
		}
	}
	/* Without a viewport the toplevel shows the picture itself: it needs
	 * a buffer from the first commit on, black until a frame comes. */
	bool picture_due = window->undrawn || (!window->scaled && window->stats.pictures_shown == 0);
	bool picture_committed = false;
	if (picture_due) {
		/* The frame's dmabuf itself when the desktop takes it; the
		 * first picture of a window without a viewport cannot wait
		 * for the desktop's answer. */
		enum window_dmabuf_result lent = WINDOW_DMABUF_COPY;
		bool whole_damage = false;
		bool may_wait = window->scaled || window->stats.pictures_shown > 0;
		if (window->have_newest && newest_dmabuf(window))
			lent = window_dmabuf_attach(window->dmabuf, window->picture_surface,
						    newest_dmabuf(window), may_wait, &whole_damage);
		struct window_buffer *buffer = NULL;
		if (lent == WINDOW_DMABUF_COPY)
			buffer = free_buffer(window);
		if (buffer) {
			fill_buffer(window, buffer);
			wl_surface_attach(window->picture_surface, buffer->wl_buffer, 0, 0);
			buffer->busy = true;
			if (window->have_newest)
				window->stats.pictures_copied++;
		} else if (lent == WINDOW_DMABUF_ATTACHED) {
			window->stats.pictures_dmabuf++;
		} else if (lent == WINDOW_DMABUF_COPY) {
			window->stats.waits_for_buffer++;
		}
		if (buffer || lent == WINDOW_DMABUF_ATTACHED) {
			if (window->commit_damage_all || whole_damage) {
				wl_surface_damage_buffer(window->picture_surface, 0, 0, INT32_MAX,
							 INT32_MAX);
			} else {
				const struct frame_damage *d = &window->commit_damage;
				wl_surface_damage_buffer(window->picture_surface, d->x1, d->y1,
							 d->x2 - d->x1, d->y2 - d->y1);
			}
			window->commit_damage_all = false;
			window->commit_damage = (struct frame_damage){ 0 };
			window->undrawn = false;
			window->stats.pictures_shown++;
			picture_committed = true;
		}
	}
	if (!picture_committed && !window->layout_changed) {
		window_flush(window); /* a dmabuf import asked for */
		return;
	}
	if (window->layout_changed)
		apply_layout(window);
	if (window->subsurface)
		wl_surface_commit(window->picture_surface); /* applied with the parent's */
	if (!window->frame_callback) {
		window->frame_callback = wl_surface_frame(window->surface);
		wl_callback_add_listener(window->frame_callback, &frame_listener, window);
		window->frame_callback_ns = clock_now_ns();
	}
	wl_surface_commit(window->surface);
	window_flush(window);
}

/* The desktop answered for a dmabuf: a picture put off for it goes now. */
static void handle_dmabuf_ready(void *data)
{
	struct desktop_window *window = data;
	if (window->undrawn)
		draw(window);
}

static void add_damage(struct desktop_window *window, const struct frame *frame)
{
	for (int i = 0; i < BUFFER_COUNT; i++) {
		struct window_buffer *buffer = window->buffers[i];
		if (!buffer)
			continue;
		if (frame->damage_known)
			frame_damage_union(&buffer->missing, &frame->damage);
		else
			buffer->missing_all = true;
	}
	if (frame->damage_known)
		frame_damage_union(&window->commit_damage, &frame->damage);
	else
		window->commit_damage_all = true;
}

static void handle_frame(struct frame_sink *sink, const struct frame *frame)
{
	struct desktop_window *window = wl_container_of(sink, window, sink);
	/* Pixels the caller owns cannot wait for the desktop's refresh. The
	 * screen's frames always can be kept. */
	if (window->broken || frame->format != FRAME_XRGB8888 || !frame->buffer)
		return;
	window->stats.frames_received++;
	window_dmabuf_sweep(window->dmabuf);
	if (window->undrawn)
		window->stats.frames_not_shown++;
	if (frame->width != window->picture_width || frame->height != window->picture_height) {
		LOG_DBG("the picture is %dx%d now (was %dx%d)", frame->width, frame->height,
			window->picture_width, window->picture_height);
		window->picture_width = frame->width;
		window->picture_height = frame->height;
		retire_buffers(window);
		window->layout_changed = true;
		window->commit_damage_all = true;
	}
	frame_unref(&window->newest);
	frame_ref(&window->newest, frame);
	window->have_newest = true;
	window->undrawn = true;
	add_damage(window, frame);
	draw(window);
}

static const struct frame_sink_impl window_sink = { .frame = handle_frame };

static void handle_ping(void *data, struct xdg_wm_base *wm_base, uint32_t serial)
{
	struct desktop_window *window = data;
	xdg_wm_base_pong(wm_base, serial);
	window_flush(window);
}

static const struct xdg_wm_base_listener wm_base_listener = { .ping = handle_ping };

static void handle_surface_configure(void *data, struct xdg_surface *xdg_surface, uint32_t serial)
{
	struct desktop_window *window = data;
	xdg_surface_ack_configure(xdg_surface, serial);
	int width = window->picture_width, height = window->picture_height;
	/* Without a viewport the window keeps the picture's size. */
	if (window->scaled) {
		width = window->asked_width > 0 ? window->asked_width
			: window->window_width > 0 ? window->window_width : width;
		height = window->asked_height > 0 ? window->asked_height
			 : window->window_height > 0 ? window->window_height : height;
	}
	if (!window->configured || width != window->window_width ||
	    height != window->window_height)
		window->layout_changed = true;
	window->configured = true;
	window->window_width = width;
	window->window_height = height;
	draw(window);
}

static const struct xdg_surface_listener xdg_surface_listener = {
	.configure = handle_surface_configure,
};

static void handle_toplevel_configure(void *data, struct xdg_toplevel *toplevel, int32_t width,
				      int32_t height, struct wl_array *states)
{
	struct desktop_window *window = data;
	window->asked_width = width;
	window->asked_height = height;
}

static void handle_toplevel_close(void *data, struct xdg_toplevel *toplevel)
{
	struct desktop_window *window = data;
	LOG_DBG("the window was closed on the desktop");
	if (window->events.closed)
		window->events.closed(window->events.data);
}

static const struct xdg_toplevel_listener toplevel_listener = {
	.configure = handle_toplevel_configure,
	.close = handle_toplevel_close,
};

static void handle_decoration_configure(void *data,
					struct zxdg_toplevel_decoration_v1 *decoration,
					uint32_t mode)
{
	if (mode == ZXDG_TOPLEVEL_DECORATION_V1_MODE_SERVER_SIDE)
		LOG_DBG("the desktop draws the window's title bar and border (server-side)");
	else
		LOG_DBG("the desktop asks for client-side decorations: the window has none");
}

static const struct zxdg_toplevel_decoration_v1_listener decoration_listener = {
	.configure = handle_decoration_configure,
};

static uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

static void registry_global(void *data, struct wl_registry *registry, uint32_t name,
			    const char *interface, uint32_t version)
{
	struct desktop_window *window = data;
	if (window_dmabuf_global(window->dmabuf, registry, name, interface, version))
		return;
	/* wl_surface.damage_buffer is version 4. */
	if (strcmp(interface, wl_compositor_interface.name) == 0 && !window->compositor &&
	    version >= 4)
		window->compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 4);
	else if (strcmp(interface, wl_subcompositor_interface.name) == 0 && !window->subcompositor)
		window->subcompositor = wl_registry_bind(registry, name,
							 &wl_subcompositor_interface, 1);
	else if (strcmp(interface, wl_shm_interface.name) == 0 && !window->shm)
		window->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	else if (strcmp(interface, xdg_wm_base_interface.name) == 0 && !window->wm_base)
		window->wm_base = wl_registry_bind(registry, name, &xdg_wm_base_interface,
						   min_u32(version, 1));
	else if (strcmp(interface, wp_viewporter_interface.name) == 0 && !window->viewporter)
		window->viewporter = wl_registry_bind(registry, name, &wp_viewporter_interface, 1);
	else if (strcmp(interface, wl_data_device_manager_interface.name) == 0 &&
		 !window->data_manager)
		window->data_manager = wl_registry_bind(registry, name,
							&wl_data_device_manager_interface,
							min_u32(version, 3));
	else if (strcmp(interface, zwp_primary_selection_device_manager_v1_interface.name) == 0 &&
		 !window->primary_manager)
		window->primary_manager = wl_registry_bind(
			registry, name, &zwp_primary_selection_device_manager_v1_interface, 1);
	else if (strcmp(interface, wl_seat_interface.name) == 0 && !window->seat) {
		window->seat_version = min_u32(version, 8);
		window->seat = wl_registry_bind(registry, name, &wl_seat_interface,
						window->seat_version);
		window_input_watch_seat(window);
	} else if (strcmp(interface, zxdg_decoration_manager_v1_interface.name) == 0 &&
		 !window->decoration_manager)
		window->decoration_manager = wl_registry_bind(
			registry, name, &zxdg_decoration_manager_v1_interface, 1);
}

static void registry_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_global,
	.global_remove = registry_global_remove,
};

struct desktop_window *desktop_window_connect(const char *display_name, char *why,
					      size_t why_size)
{
	struct desktop_window *window = calloc(1, sizeof(*window));
	if (!window) {
		snprintf(why, why_size, "out of memory");
		return NULL;
	}
	wl_list_init(&window->sink.link);
	wl_array_init(&window->touch_ids);
	window->keymap_fd = -1;
	for (int kind = 0; kind < WL_RECORD_SELECTION_KINDS; kind++)
		window->selections[kind].kind = kind;
	window->dmabuf = window_dmabuf_create(handle_dmabuf_ready, window);
	if (!window->dmabuf) {
		snprintf(why, why_size, "out of memory");
		goto fail;
	}
	window->display = wl_display_connect(display_name);
	if (!window->display) {
		snprintf(why, why_size, "cannot connect: %s", strerror(errno));
		goto fail;
	}
	window->registry = wl_display_get_registry(window->display);
	wl_registry_add_listener(window->registry, &registry_listener, window);
	int answered = wl_record_roundtrip_until(window->display,
				       clock_now_ns() + (int64_t)ANSWER_TIMEOUT_MS * 1000000);
	if (answered <= 0) {
		if (answered == 0)
			snprintf(why, why_size, "it did not answer within %d s",
				 ANSWER_TIMEOUT_MS / 1000);
		else
			snprintf(why, why_size, "the compositor closed the connection");
		goto fail;
	}
	/* linux-dmabuf's formats come after its bind: one more answer. */
	if (window_dmabuf_bound(window->dmabuf) &&
	    wl_record_roundtrip_until(window->display,
				      clock_now_ns() + (int64_t)ANSWER_TIMEOUT_MS * 1000000) <= 0) {
		snprintf(why, why_size, "it did not answer within %d s", ANSWER_TIMEOUT_MS / 1000);
		goto fail;
	}
	const char *missing = !window->compositor ? "wl_compositor (version 4)"
			      : !window->shm ? "wl_shm"
			      : !window->wm_base ? "xdg_wm_base (xdg-shell)" : NULL;
	if (missing) {
		snprintf(why, why_size, "it offers no %s", missing);
		goto fail;
	}
	window_selection_bind(window);
	window->scaled = window->viewporter && window->subcompositor;
	if (!window->scaled)
		snprintf(window->limits, sizeof(window->limits),
			 "the desktop offers no %s: the window stays at the recording's size",
			 window->viewporter ? "wl_subcompositor" : "wp_viewporter");
	if (!window->seat)
		snprintf(window->limits + strlen(window->limits),
			 sizeof(window->limits) - strlen(window->limits),
			 "%sthe desktop offers no wl_seat: the window takes no input",
			 window->limits[0] ? "; " : "");
	if (!window->decoration_manager)
		snprintf(window->limits + strlen(window->limits),
			 sizeof(window->limits) - strlen(window->limits),
			 "%sthe desktop offers no xdg-decoration: the window has no title bar",
			 window->limits[0] ? "; " : "");
	if (!window->data_device)
		snprintf(window->limits + strlen(window->limits),
			 sizeof(window->limits) - strlen(window->limits),
			 "%sthe desktop offers no wl_data_device_manager: no clipboard",
			 window->limits[0] ? "; " : "");
	if (!window->primary_device)
		snprintf(window->limits + strlen(window->limits),
			 sizeof(window->limits) - strlen(window->limits),
			 "%sthe desktop offers no zwp_primary_selection_device_manager_v1: "
			 "no primary selection (middle-click paste)",
			 window->limits[0] ? "; " : "");
	return window;

fail:
	desktop_window_destroy(window);
	return NULL;
}

const char *desktop_window_limits(const struct desktop_window *window)
{
	return window->limits;
}

/* A 1x1 black buffer the viewport stretches over the whole window. */
static bool create_background(struct desktop_window *window)
{
	uint8_t *data;
	size_t size;
	window->background = create_wl_buffer(window, 1, 1, &data, &size);
	if (!window->background)
		return false;
	munmap(data, size); /* zeroed: black; never written */
	window->background_viewport = wp_viewporter_get_viewport(window->viewporter, window->surface);
	window->picture_surface = wl_compositor_create_surface(window->compositor);
	window->subsurface = wl_subcompositor_get_subsurface(window->subcompositor,
							     window->picture_surface, window->surface);
	window->picture_viewport = wp_viewporter_get_viewport(window->viewporter,
							      window->picture_surface);
	/* The picture surface takes no input of its own: the pointer is on the
	 * background, in window coordinates, bars included. */
	struct wl_region *empty = wl_compositor_create_region(window->compositor);
	wl_surface_set_input_region(window->picture_surface, empty);
	wl_region_destroy(empty);
	return true;
}

bool desktop_window_open(struct desktop_window *window, struct wl_event_loop *loop,
			 const char *title, int width, int height,
			 const struct desktop_window_events *events)
{
	window->events = *events;
	window->picture_width = width;
	window->picture_height = height;
	/* The first picture is all new to the desktop. */
	window->commit_damage_all = true;
	xdg_wm_base_add_listener(window->wm_base, &wm_base_listener, window);
	window->surface = wl_compositor_create_surface(window->compositor);
	window->picture_surface = window->surface;
	if (window->scaled && !create_background(window))
		return false;
	window->xdg_surface = xdg_wm_base_get_xdg_surface(window->wm_base, window->surface);
	xdg_surface_add_listener(window->xdg_surface, &xdg_surface_listener, window);
	window->toplevel = xdg_surface_get_toplevel(window->xdg_surface);
	xdg_toplevel_add_listener(window->toplevel, &toplevel_listener, window);
	xdg_toplevel_set_title(window->toplevel, title);
	xdg_toplevel_set_app_id(window->toplevel, "wl-record");
	if (!window->scaled) {
		xdg_toplevel_set_min_size(window->toplevel, width, height);
		xdg_toplevel_set_max_size(window->toplevel, width, height);
	}
	if (window->decoration_manager) {
		window->decoration = zxdg_decoration_manager_v1_get_toplevel_decoration(
			window->decoration_manager, window->toplevel);
		zxdg_toplevel_decoration_v1_add_listener(window->decoration, &decoration_listener,
							 window);
		zxdg_toplevel_decoration_v1_set_mode(window->decoration,
						     ZXDG_TOPLEVEL_DECORATION_V1_MODE_SERVER_SIDE);
	}
	/* The first commit has no buffer: the desktop answers with a configure. */
	wl_surface_commit(window->surface);
	if (!desktop_connection_watch(&window->connection, loop, window->display,
				      handle_connection_failed, window))
		return false;
	window->held_timer = wl_event_loop_add_timer(loop, handle_held_timer, window);
	if (!window->held_timer) {
		LOG_ERR("cannot create the window's timer");
		return false;
	}
	window_flush(window);
	/* Events that arrived during start-up wait in the queue, not on the fd. */
	if (!window->broken && wl_display_dispatch_pending(window->display) < 0)
		window_connection_failed(window);
	return !window->broken;
}

void desktop_window_set_title(struct desktop_window *window, const char *title)
{
	if (!window->toplevel || window->broken)
		return;
	xdg_toplevel_set_title(window->toplevel, title);
	window_flush(window);
}

void desktop_window_connect_source(struct desktop_window *window, struct frame_source *source)
{
	frame_sink_connect(&window->sink, &window_sink, source);
}

void desktop_window_get_stats(const struct desktop_window *window,
			      struct desktop_window_stats *stats)
{
	*stats = window->stats;
}

void desktop_window_destroy(struct desktop_window *window)
{
	if (!window)
		return;
	frame_sink_disconnect(&window->sink);
	frame_unref(&window->newest);
	desktop_connection_unwatch(&window->connection);
	if (window->held_timer)
		wl_event_source_remove(window->held_timer);
	if (window->frame_callback)
		wl_callback_destroy(window->frame_callback);
	for (int i = 0; i < BUFFER_COUNT; i++)
		buffer_destroy(window->buffers[i]);
	window_dmabuf_destroy(window->dmabuf);
	window_selection_finish(window);
	window_input_finish(window);
	if (window->picture_viewport)
		wp_viewport_destroy(window->picture_viewport);
	if (window->subsurface)
		wl_subsurface_destroy(window->subsurface);
	if (window->picture_surface && window->picture_surface != window->surface)
		wl_surface_destroy(window->picture_surface);
	if (window->background_viewport)
		wp_viewport_destroy(window->background_viewport);
	if (window->background)
		wl_buffer_destroy(window->background);
	if (window->decoration)
		zxdg_toplevel_decoration_v1_destroy(window->decoration);
	if (window->toplevel)
		xdg_toplevel_destroy(window->toplevel);
	if (window->xdg_surface)
		xdg_surface_destroy(window->xdg_surface);
	if (window->surface)
		wl_surface_destroy(window->surface);
	if (window->decoration_manager)
		zxdg_decoration_manager_v1_destroy(window->decoration_manager);
	if (window->viewporter)
		wp_viewporter_destroy(window->viewporter);
	if (window->wm_base)
		xdg_wm_base_destroy(window->wm_base);
	if (window->shm)
		wl_shm_destroy(window->shm);
	if (window->subcompositor)
		wl_subcompositor_destroy(window->subcompositor);
	if (window->compositor)
		wl_compositor_destroy(window->compositor);
	if (window->registry)
		wl_registry_destroy(window->registry);
	if (window->display) {
		if (!window->broken)
			wl_display_flush(window->display);
		wl_display_disconnect(window->display);
	}
	free(window);
}