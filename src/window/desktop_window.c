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
#include <wayland-cursor.h>

#include "clipboard_event.h"
#include "clock.h"
#include "dmabuf_lease.h"
#include "frame.h"
#include "input_event.h"
#include "log.h"
#include "primary-selection-unstable-v1-client-protocol.h"
#include "roundtrip.h"
#include "viewporter-client-protocol.h"
#include "window_dmabuf.h"
#include "window_fit.h"
#include "xdg-decoration-unstable-v1-client-protocol.h"
#include "xdg-shell-client-protocol.h"

/* Three: one the desktop shows, one it may still hold for its next frame,
 * one to draw into. */
#define BUFFER_COUNT 3
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

/* The desktop's clipboard or primary selection as the window sees it. */
struct desktop_selection {
	enum wl_record_selection_kind kind;
	struct wl_record_clipboard_peer peer;
	struct desktop_offer *introduced; /* the newest offer */
	struct desktop_offer *current;    /* the desktop's selection; NULL: none */
};

struct desktop_window {
	struct wl_display *display;
	struct wl_registry *registry;
	struct wl_compositor *compositor;
	struct wl_subcompositor *subcompositor;
	struct wl_shm *shm;
	struct xdg_wm_base *wm_base;
	struct wp_viewporter *viewporter;
	struct zxdg_decoration_manager_v1 *decoration_manager;
	char limits[768];

	/* Input: the desktop's first seat, passed on to `input`. */
	struct wl_seat *seat;
	uint32_t seat_version;
	struct wl_pointer *pointer;
	struct wl_keyboard *keyboard;
	struct wl_touch *touch;
	struct wl_array touch_ids; /* int32_t: touches that began on the picture */
	bool touch_frame_due;      /* a touch event went on since the last frame */
	struct wl_record_input_sink input;
	bool pointer_inside;      /* on the picture, as told to `input` */
	uint32_t pointer_serial;  /* of the desktop's last enter, for set_cursor */
	bool pointer_on_window;
	/* The hosted client's cursor, copied: shown while the pointer is on
	 * the window; without one the desktop's own stays. */
	struct wl_surface *cursor_surface;
	struct wl_buffer *cursor_buffer; /* ours; NULL when the theme's is shown */
	struct wl_cursor_theme *cursor_theme; /* loaded when first wanted */
	int cursor_hotspot_x, cursor_hotspot_y;
	bool cursor_set;
	/* The keymap and repeat rate, kept: they come at start-up, before
	 * anyone listens, and go to a sink set later. */
	int keymap_fd;
	uint32_t keymap_format, keymap_size;
	bool have_repeat;
	int32_t repeat_rate, repeat_delay;

	/* The clipboard and the primary selection: the desktop's go to each
	 * selection's peer (the nested compositor), the hosted app's become
	 * `source` and `primary_source` here. */
	struct wl_data_device_manager *data_manager;
	struct wl_data_device *data_device;
	struct zwp_primary_selection_device_manager_v1 *primary_manager;
	struct zwp_primary_selection_device_v1 *primary_device;
	struct desktop_selection selections[WL_RECORD_SELECTION_KINDS];
	struct wl_data_source *source;    /* ours, the hosted app's selection */
	struct zwp_primary_selection_source_v1 *primary_source;
	uint32_t input_serial; /* of the newest keyboard enter, key or button */

	struct wl_event_source *connection;
	struct desktop_window_events events;
	bool broken;

	/* The toplevel's surface: the black background stretched to the window
	 * when scaling, else the picture itself. */
	struct wl_surface *surface;
	struct xdg_surface *xdg_surface;
	struct xdg_toplevel *toplevel;
	struct zxdg_toplevel_decoration_v1 *decoration;
	struct wp_viewport *background_viewport;
	struct wl_buffer *background;
	bool background_attached;
	bool scaled;
	struct wl_surface *picture_surface; /* the subsurface's, or `surface` */
	struct wl_subsurface *subsurface;
	struct wp_viewport *picture_viewport;

	bool configured;
	bool layout_changed;
	int asked_width, asked_height; /* the latest xdg_toplevel.configure; 0: ours to choose */
	int window_width, window_height;
	int picture_width, picture_height; /* the buffers' size: the recording's */
	struct wl_callback *frame_callback;
	int64_t frame_callback_ns; /* when it was asked for */
	/* A client's buffer held by the desktop for a window it does not
	 * refresh: the picture after it goes when this fires. */
	struct wl_event_source *held_timer;

	struct frame_sink sink;
	struct frame newest;
	bool have_newest;
	bool undrawn; /* the newest frame is in no committed buffer yet */
	/* What changed since the last buffer was attached. */
	bool commit_damage_all;
	struct frame_damage commit_damage;
	struct window_buffer *buffers[BUFFER_COUNT];
	/* The frame's own dmabuf shown without a copy, where the desktop can. */
	struct window_dmabuf *dmabuf;
	bool read_failure_said;
	struct desktop_window_stats stats;
};

static void window_lost(struct desktop_window *window, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void window_lost(struct desktop_window *window, const char *fmt, ...)
{
	if (window->broken)
		return;
	window->broken = true;
	/* A closed connection stays readable: stop watching it. */
	if (window->connection) {
		wl_event_source_remove(window->connection);
		window->connection = NULL;
	}
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

/* Sends what is queued; what the socket does not take now goes when it
 * is writable again (never waits). */
static void window_flush(struct desktop_window *window)
{
	if (!window->connection)
		return;
	int sent = wl_display_flush(window->display);
	bool again = sent < 0 && errno == EAGAIN;
	if (sent < 0 && !again) {
		window_lost(window, "the desktop's connection broke: %s", strerror(errno));
		return;
	}
	wl_event_source_fd_update(window->connection,
				  again ? WL_EVENT_READABLE | WL_EVENT_WRITABLE : WL_EVENT_READABLE);
}

static int handle_connection(int fd, uint32_t mask, void *data)
{
	struct desktop_window *window = data;
	if (mask & WL_EVENT_READABLE) {
		/* The fd is readable: read_events takes what is there and does
		 * not wait. */
		while (wl_display_prepare_read(window->display) != 0) {
			if (wl_display_dispatch_pending(window->display) < 0) {
				window_connection_failed(window);
				return 0;
			}
		}
		if (wl_display_read_events(window->display) < 0 ||
		    wl_display_dispatch_pending(window->display) < 0) {
			window_connection_failed(window);
			return 0;
		}
	} else if (mask & (WL_EVENT_HANGUP | WL_EVENT_ERROR)) {
		window_lost(window, "the desktop closed the window's connection");
		return 0;
	}
	if (!window->broken)
		window_flush(window);
	return 0;
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

static struct wl_buffer *create_wl_buffer_format(struct desktop_window *window, int width,
						 int height, uint32_t format, uint8_t **data,
						 size_t *size)
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
	return create_wl_buffer_format(window, width, height, WL_SHM_FORMAT_XRGB8888, data, size);
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
		if (!dmabuf_lease_read(frame->dmabuf, buffer->data, buffer->stride, why, sizeof(why)) &&
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
		    !window_dmabuf_holds_another(window->dmabuf, window->newest.dmabuf))
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
		if (window->have_newest && window->newest.dmabuf)
			lent = window_dmabuf_attach(window->dmabuf, window->picture_surface,
						    window->newest.dmabuf, may_wait, &whole_damage);
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
	if (window->broken || frame->format != FRAME_XRGB8888 || !frame->picture_impl ||
	    (!frame->data && !frame->dmabuf))
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

/* ---- the clipboard and the primary selection: the desktop's and the app's ---- */

/* Offered by our own sources besides the app's types: the desktop's
 * selection is the app's own then, and is not handed back to it. */
#define OWN_SELECTION_MIME "application/x-wl-record-selection"

/* A wl_data_offer or a zwp_primary_selection_offer_v1, after its kind. */
struct desktop_offer {
	enum wl_record_selection_kind kind;
	void *proxy;
	struct wl_array mime_types; /* char *, owned */
	bool ours;
};

static void offer_destroy(struct desktop_offer *offer)
{
	if (!offer)
		return;
	char **mime;
	if (offer->mime_types.size > 0) /* NULL + 0 is undefined */
		wl_array_for_each(mime, &offer->mime_types)
			free(*mime);
	wl_array_release(&offer->mime_types);
	if (offer->kind == WL_RECORD_SELECTION_PRIMARY)
		zwp_primary_selection_offer_v1_destroy(offer->proxy);
	else
		wl_data_offer_destroy(offer->proxy);
	free(offer);
}

static void offer_add_mime_type(struct desktop_offer *offer, const char *mime_type)
{
	if (strcmp(mime_type, OWN_SELECTION_MIME) == 0) {
		offer->ours = true;
		return;
	}
	char *copy = strdup(mime_type);
	char **slot = copy ? wl_array_add(&offer->mime_types, sizeof(*slot)) : NULL;
	if (slot)
		*slot = copy;
	else
		free(copy);
}

static void handle_offer_offer(void *data, struct wl_data_offer *wl_offer, const char *mime_type)
{
	offer_add_mime_type(data, mime_type);
}

static void handle_offer_source_actions(void *data, struct wl_data_offer *offer, uint32_t actions)
{
}

static void handle_offer_action(void *data, struct wl_data_offer *offer, uint32_t action)
{
}

static const struct wl_data_offer_listener offer_listener = {
	.offer = handle_offer_offer,
	.source_actions = handle_offer_source_actions,
	.action = handle_offer_action,
};

static void handle_primary_offer_offer(void *data, struct zwp_primary_selection_offer_v1 *offer,
				       const char *mime_type)
{
	offer_add_mime_type(data, mime_type);
}

static const struct zwp_primary_selection_offer_v1_listener primary_offer_listener = {
	.offer = handle_primary_offer_offer,
};

/* A data_offer event: the newest offer, which may become the selection. */
static void desktop_selection_introduce(struct desktop_selection *selection, void *proxy)
{
	/* The one before was a drag's, or never became the selection. */
	if (selection->introduced && selection->introduced != selection->current)
		offer_destroy(selection->introduced);
	selection->introduced = NULL;
	struct desktop_offer *offer = calloc(1, sizeof(*offer));
	if (offer) {
		offer->kind = selection->kind;
		offer->proxy = proxy;
		wl_array_init(&offer->mime_types);
	}
	if (selection->kind == WL_RECORD_SELECTION_PRIMARY) {
		if (offer)
			zwp_primary_selection_offer_v1_add_listener(proxy, &primary_offer_listener,
								    offer);
		else
			zwp_primary_selection_offer_v1_destroy(proxy);
	} else {
		if (offer)
			wl_data_offer_add_listener(proxy, &offer_listener, offer);
		else
			wl_data_offer_destroy(proxy);
	}
	selection->introduced = offer;
}

/* A selection event: the desktop's selection is `proxy` now (NULL: none). */
static void desktop_selection_changed(struct desktop_selection *selection, void *proxy)
{
	struct desktop_offer *offer = selection->introduced && selection->introduced->proxy == proxy
				      ? selection->introduced : NULL;
	if (selection->current && selection->current != offer)
		offer_destroy(selection->current);
	selection->current = offer;
	if (offer && offer->ours)
		return; /* the hosted app's own, back from the desktop */
	if (selection->peer.selection)
		selection->peer.selection(
			selection->peer.data,
			offer ? (const char *const *)offer->mime_types.data : NULL,
			offer ? offer->mime_types.size / sizeof(char *) : 0);
}

static void desktop_selection_finish(struct desktop_selection *selection)
{
	if (selection->introduced && selection->introduced != selection->current)
		offer_destroy(selection->introduced);
	offer_destroy(selection->current);
	selection->introduced = selection->current = NULL;
}

static void handle_data_offer(void *data, struct wl_data_device *device,
			      struct wl_data_offer *wl_offer)
{
	desktop_selection_introduce(data, wl_offer);
}

static void handle_data_enter(void *data, struct wl_data_device *device, uint32_t serial,
			      struct wl_surface *surface, wl_fixed_t x, wl_fixed_t y,
			      struct wl_data_offer *offer)
{
	/* Drag and drop does not cross the window. */
}

static void handle_data_leave(void *data, struct wl_data_device *device)
{
}

static void handle_data_motion(void *data, struct wl_data_device *device, uint32_t time,
			       wl_fixed_t x, wl_fixed_t y)
{
}

static void handle_data_drop(void *data, struct wl_data_device *device)
{
}

static void handle_data_selection(void *data, struct wl_data_device *device,
				  struct wl_data_offer *wl_offer)
{
	desktop_selection_changed(data, wl_offer);
}

static const struct wl_data_device_listener data_device_listener = {
	.data_offer = handle_data_offer,
	.enter = handle_data_enter,
	.leave = handle_data_leave,
	.motion = handle_data_motion,
	.drop = handle_data_drop,
	.selection = handle_data_selection,
};

static void handle_primary_data_offer(void *data, struct zwp_primary_selection_device_v1 *device,
				      struct zwp_primary_selection_offer_v1 *offer)
{
	desktop_selection_introduce(data, offer);
}

static void handle_primary_selection(void *data, struct zwp_primary_selection_device_v1 *device,
				     struct zwp_primary_selection_offer_v1 *offer)
{
	desktop_selection_changed(data, offer);
}

static const struct zwp_primary_selection_device_v1_listener primary_device_listener = {
	.data_offer = handle_primary_data_offer,
	.selection = handle_primary_selection,
};

/* The desktop pastes the app's selection: the app writes it into fd. */
static void desktop_selection_source_send(struct desktop_selection *selection,
					  const char *mime_type, int32_t fd)
{
	if (selection->peer.receive)
		selection->peer.receive(selection->peer.data, mime_type, fd);
	else
		close(fd);
}

static void handle_source_target(void *data, struct wl_data_source *source,
				 const char *mime_type)
{
}

static void handle_source_send(void *data, struct wl_data_source *source, const char *mime_type,
			       int32_t fd)
{
	struct desktop_window *window = data;
	desktop_selection_source_send(&window->selections[WL_RECORD_SELECTION_CLIPBOARD],
				      mime_type, fd);
}

static void handle_source_cancelled(void *data, struct wl_data_source *source)
{
	struct desktop_window *window = data;
	wl_data_source_destroy(source);
	if (window->source == source)
		window->source = NULL;
}

static void handle_source_dnd_drop_performed(void *data, struct wl_data_source *source)
{
}

static void handle_source_dnd_finished(void *data, struct wl_data_source *source)
{
}

static void handle_source_action(void *data, struct wl_data_source *source, uint32_t action)
{
}

static const struct wl_data_source_listener source_listener = {
	.target = handle_source_target,
	.send = handle_source_send,
	.cancelled = handle_source_cancelled,
	.dnd_drop_performed = handle_source_dnd_drop_performed,
	.dnd_finished = handle_source_dnd_finished,
	.action = handle_source_action,
};

static void handle_primary_source_send(void *data, struct zwp_primary_selection_source_v1 *source,
				       const char *mime_type, int32_t fd)
{
	struct desktop_window *window = data;
	desktop_selection_source_send(&window->selections[WL_RECORD_SELECTION_PRIMARY], mime_type,
				      fd);
}

static void handle_primary_source_cancelled(void *data,
					    struct zwp_primary_selection_source_v1 *source)
{
	struct desktop_window *window = data;
	zwp_primary_selection_source_v1_destroy(source);
	if (window->primary_source == source)
		window->primary_source = NULL;
}

static const struct zwp_primary_selection_source_v1_listener primary_source_listener = {
	.send = handle_primary_source_send,
	.cancelled = handle_primary_source_cancelled,
};

void desktop_window_set_clipboard_peer(struct desktop_window *window,
				       enum wl_record_selection_kind kind,
				       const struct wl_record_clipboard_peer *peer)
{
	struct desktop_selection *selection = &window->selections[kind];
	if (peer)
		selection->peer = *peer;
	else
		selection->peer = (struct wl_record_clipboard_peer){ 0 };
}

/* The hosted app's clipboard as a wl_data_source of ours (NULL: none). */
static void set_clipboard_source(struct desktop_window *window, const char *const *mime_types,
				 size_t count)
{
	struct wl_data_source *old = window->source;
	window->source = NULL;
	if (count > 0) {
		window->source = wl_data_device_manager_create_data_source(window->data_manager);
		wl_data_source_add_listener(window->source, &source_listener, window);
		for (size_t i = 0; i < count; i++)
			wl_data_source_offer(window->source, mime_types[i]);
		wl_data_source_offer(window->source, OWN_SELECTION_MIME);
	}
	/* With the serial of the user's last input on the window: what the
	 * desktop asks of a client that copies. */
	if (window->source || old)
		wl_data_device_set_selection(window->data_device, window->source,
					     window->input_serial);
	if (old)
		wl_data_source_destroy(old);
}

/* The same for the primary selection. */
static void set_primary_source(struct desktop_window *window, const char *const *mime_types,
			       size_t count)
{
	struct zwp_primary_selection_source_v1 *old = window->primary_source;
	window->primary_source = NULL;
	if (count > 0) {
		window->primary_source = zwp_primary_selection_device_manager_v1_create_source(
			window->primary_manager);
		zwp_primary_selection_source_v1_add_listener(window->primary_source,
							     &primary_source_listener, window);
		for (size_t i = 0; i < count; i++)
			zwp_primary_selection_source_v1_offer(window->primary_source, mime_types[i]);
		zwp_primary_selection_source_v1_offer(window->primary_source, OWN_SELECTION_MIME);
	}
	if (window->primary_source || old)
		zwp_primary_selection_device_v1_set_selection(
			window->primary_device, window->primary_source, window->input_serial);
	if (old)
		zwp_primary_selection_source_v1_destroy(old);
}

void desktop_window_clipboard_selection(struct desktop_window *window,
					enum wl_record_selection_kind kind,
					const char *const *mime_types, size_t count)
{
	if (window->broken)
		return;
	if (kind == WL_RECORD_SELECTION_PRIMARY && window->primary_device)
		set_primary_source(window, mime_types, count);
	else if (kind == WL_RECORD_SELECTION_CLIPBOARD && window->data_device)
		set_clipboard_source(window, mime_types, count);
	else
		return;
	window_flush(window);
}

void desktop_window_clipboard_receive(struct desktop_window *window,
				      enum wl_record_selection_kind kind, const char *mime_type,
				      int fd)
{
	struct desktop_offer *offer = window->selections[kind].current;
	if (!window->broken && offer && !offer->ours) {
		if (kind == WL_RECORD_SELECTION_PRIMARY)
			zwp_primary_selection_offer_v1_receive(offer->proxy, mime_type, fd);
		else
			wl_data_offer_receive(offer->proxy, mime_type, fd);
		window_flush(window);
	}
	close(fd);
}

/* ---- input: the desktop's pointer and keyboard, passed on ---- */

static void input_send(struct desktop_window *window, struct wl_record_input_event *event)
{
	if (window->input.event && !window->broken)
		window->input.event(window->input.data, event);
}

static void input_send_type(struct desktop_window *window, enum wl_record_input_type type,
			    uint32_t time)
{
	struct wl_record_input_event event = { .type = type, .time_ms = time };
	input_send(window, &event);
}

/* Desktops before wl_seat 5 send no pointer frames: each event is one. */
static void pointer_frame_if_old(struct desktop_window *window)
{
	if (window->seat_version < WL_POINTER_FRAME_SINCE_VERSION)
		input_send_type(window, WL_RECORD_INPUT_POINTER_FRAME, 0);
}

/* The recording's point under window point sx,sy, through the letterbox;
 * false on the bars (the point is then outside the picture, where no
 * hosted surface is). */
static bool window_to_picture(const struct desktop_window *window, wl_fixed_t sx, wl_fixed_t sy,
			      double *x, double *y)
{
	*x = wl_fixed_to_double(sx);
	*y = wl_fixed_to_double(sy);
	if (!window->scaled)
		return *x >= 0 && *y >= 0 && *x < window->picture_width &&
		       *y < window->picture_height;
	struct window_fit fit = window_fit_picture(window->window_width, window->window_height,
						   window->picture_width, window->picture_height);
	return window_fit_to_picture(&fit, window->picture_width, window->picture_height, *x, *y,
				     x, y);
}

/* The pointer at window point sx,sy (points on the bars land outside the
 * picture). */
static void pointer_moved(struct desktop_window *window, uint32_t time, wl_fixed_t sx,
			  wl_fixed_t sy)
{
	struct wl_record_input_event event = {
		.type = WL_RECORD_INPUT_POINTER_MOTION,
		.time_ms = time,
	};
	window_to_picture(window, sx, sy, &event.x, &event.y);
	input_send(window, &event);
	pointer_frame_if_old(window);
}

static void show_cursor(struct desktop_window *window)
{
	if (window->pointer && window->pointer_on_window && window->cursor_set)
		wl_pointer_set_cursor(window->pointer, window->pointer_serial,
				      window->cursor_surface, window->cursor_hotspot_x,
				      window->cursor_hotspot_y);
}

static void handle_pointer_enter(void *data, struct wl_pointer *pointer, uint32_t serial,
				 struct wl_surface *surface, wl_fixed_t sx, wl_fixed_t sy)
{
	struct desktop_window *window = data;
	window->pointer_serial = serial;
	window->pointer_on_window = true;
	show_cursor(window);
	pointer_moved(window, 0, sx, sy);
}

static void handle_pointer_leave(void *data, struct wl_pointer *pointer, uint32_t serial,
				 struct wl_surface *surface)
{
	struct desktop_window *window = data;
	window->pointer_on_window = false;
	input_send_type(window, WL_RECORD_INPUT_POINTER_LEAVE, 0);
	pointer_frame_if_old(window);
}

static void handle_pointer_motion(void *data, struct wl_pointer *pointer, uint32_t time,
				  wl_fixed_t sx, wl_fixed_t sy)
{
	pointer_moved(data, time, sx, sy);
}

static void handle_pointer_button(void *data, struct wl_pointer *pointer, uint32_t serial,
				  uint32_t time, uint32_t button, uint32_t state)
{
	struct desktop_window *window = data;
	window->input_serial = serial;
	struct wl_record_input_event event = {
		.type = WL_RECORD_INPUT_POINTER_BUTTON,
		.time_ms = time,
		.button = button,
		.pressed = state == WL_POINTER_BUTTON_STATE_PRESSED,
	};
	input_send(window, &event);
	pointer_frame_if_old(window);
}

static void handle_pointer_axis(void *data, struct wl_pointer *pointer, uint32_t time,
				uint32_t axis, wl_fixed_t value)
{
	struct desktop_window *window = data;
	struct wl_record_input_event event = {
		.type = WL_RECORD_INPUT_POINTER_AXIS,
		.time_ms = time,
		.axis = axis,
		.value = wl_fixed_to_double(value),
	};
	input_send(window, &event);
	pointer_frame_if_old(window);
}

static void handle_pointer_frame(void *data, struct wl_pointer *pointer)
{
	input_send_type(data, WL_RECORD_INPUT_POINTER_FRAME, 0);
}

static void handle_pointer_axis_source(void *data, struct wl_pointer *pointer, uint32_t source)
{
	struct wl_record_input_event event = {
		.type = WL_RECORD_INPUT_POINTER_AXIS_SOURCE,
		.axis_source = source,
	};
	input_send(data, &event);
}

static void handle_pointer_axis_stop(void *data, struct wl_pointer *pointer, uint32_t time,
				     uint32_t axis)
{
	struct wl_record_input_event event = {
		.type = WL_RECORD_INPUT_POINTER_AXIS_STOP,
		.time_ms = time,
		.axis = axis,
	};
	input_send(data, &event);
}

static void handle_pointer_axis_discrete(void *data, struct wl_pointer *pointer, uint32_t axis,
					 int32_t discrete)
{
	struct wl_record_input_event event = {
		.type = WL_RECORD_INPUT_POINTER_AXIS_DISCRETE,
		.axis = axis,
		.discrete = discrete,
	};
	input_send(data, &event);
}

/* wl_seat 8 desktops send this instead of axis_discrete. */
static void handle_pointer_axis_value120(void *data, struct wl_pointer *pointer, uint32_t axis,
					 int32_t value120)
{
	struct wl_record_input_event event = {
		.type = WL_RECORD_INPUT_POINTER_AXIS_VALUE120,
		.axis = axis,
		.value120 = value120,
	};
	input_send(data, &event);
}

static const struct wl_pointer_listener pointer_listener = {
	.enter = handle_pointer_enter,
	.leave = handle_pointer_leave,
	.motion = handle_pointer_motion,
	.button = handle_pointer_button,
	.axis = handle_pointer_axis,
	.frame = handle_pointer_frame,
	.axis_source = handle_pointer_axis_source,
	.axis_stop = handle_pointer_axis_stop,
	.axis_discrete = handle_pointer_axis_discrete,
	.axis_value120 = handle_pointer_axis_value120,
};

/* ---- touch: points that go down on the picture are passed on, with
 * their motion and up; those that go down on the bars go nowhere ---- */

static int32_t *find_touch_id(struct desktop_window *window, int32_t id)
{
	int32_t *slot;
	if (window->touch_ids.size == 0)
		return NULL;
	wl_array_for_each(slot, &window->touch_ids) {
		if (*slot == id)
			return slot;
	}
	return NULL;
}

static void forget_touch_id(struct desktop_window *window, int32_t *slot)
{
	int32_t *last = (int32_t *)((char *)window->touch_ids.data + window->touch_ids.size) - 1;
	*slot = *last;
	window->touch_ids.size -= sizeof(*slot);
}

static void send_touch(struct desktop_window *window, enum wl_record_input_type type,
		       uint32_t time, int32_t id, double x, double y)
{
	struct wl_record_input_event event = {
		.type = type, .time_ms = time, .touch_id = id, .x = x, .y = y,
	};
	input_send(window, &event);
	window->touch_frame_due = true;
}

static void handle_touch_down(void *data, struct wl_touch *touch, uint32_t serial, uint32_t time,
			      struct wl_surface *surface, int32_t id, wl_fixed_t sx, wl_fixed_t sy)
{
	struct desktop_window *window = data;
	window->input_serial = serial;
	double x, y;
	int32_t *slot = find_touch_id(window, id);
	if (slot) /* reused without an up */
		forget_touch_id(window, slot);
	if (surface != window->surface || !window_to_picture(window, sx, sy, &x, &y))
		return;
	slot = wl_array_add(&window->touch_ids, sizeof(*slot));
	if (!slot)
		return;
	*slot = id;
	send_touch(window, WL_RECORD_INPUT_TOUCH_DOWN, time, id, x, y);
}

static void handle_touch_up(void *data, struct wl_touch *touch, uint32_t serial, uint32_t time,
			    int32_t id)
{
	struct desktop_window *window = data;
	int32_t *slot = find_touch_id(window, id);
	if (!slot)
		return;
	forget_touch_id(window, slot);
	send_touch(window, WL_RECORD_INPUT_TOUCH_UP, time, id, 0, 0);
}

static void handle_touch_motion(void *data, struct wl_touch *touch, uint32_t time, int32_t id,
				wl_fixed_t sx, wl_fixed_t sy)
{
	struct desktop_window *window = data;
	if (!find_touch_id(window, id))
		return;
	/* Off the picture it still goes on: the hosted surface keeps it. */
	double x, y;
	window_to_picture(window, sx, sy, &x, &y);
	send_touch(window, WL_RECORD_INPUT_TOUCH_MOTION, time, id, x, y);
}

static void handle_touch_frame(void *data, struct wl_touch *touch)
{
	struct desktop_window *window = data;
	if (!window->touch_frame_due)
		return;
	window->touch_frame_due = false;
	input_send_type(window, WL_RECORD_INPUT_TOUCH_FRAME, 0);
}

static void touch_cancel(struct desktop_window *window)
{
	window->touch_frame_due = false;
	if (window->touch_ids.size == 0)
		return;
	window->touch_ids.size = 0;
	input_send_type(window, WL_RECORD_INPUT_TOUCH_CANCEL, 0);
}

static void handle_touch_cancel(void *data, struct wl_touch *touch)
{
	touch_cancel(data);
}

/* Recording units a window unit. */
static double picture_scale(const struct desktop_window *window)
{
	if (!window->scaled)
		return 1;
	struct window_fit fit = window_fit_picture(window->window_width, window->window_height,
						   window->picture_width, window->picture_height);
	return (double)window->picture_width / fit.width;
}

static void handle_touch_shape(void *data, struct wl_touch *touch, int32_t id, wl_fixed_t major,
			       wl_fixed_t minor)
{
	struct desktop_window *window = data;
	if (!find_touch_id(window, id))
		return;
	double scale = picture_scale(window);
	struct wl_record_input_event event = {
		.type = WL_RECORD_INPUT_TOUCH_SHAPE,
		.touch_id = id,
		.major = wl_fixed_to_double(major) * scale,
		.minor = wl_fixed_to_double(minor) * scale,
	};
	input_send(window, &event);
	window->touch_frame_due = true;
}

static void handle_touch_orientation(void *data, struct wl_touch *touch, int32_t id,
				     wl_fixed_t orientation)
{
	struct desktop_window *window = data;
	if (!find_touch_id(window, id))
		return;
	struct wl_record_input_event event = {
		.type = WL_RECORD_INPUT_TOUCH_ORIENTATION,
		.touch_id = id,
		.orientation = wl_fixed_to_double(orientation),
	};
	input_send(window, &event);
	window->touch_frame_due = true;
}

static const struct wl_touch_listener touch_listener = {
	.down = handle_touch_down,
	.up = handle_touch_up,
	.motion = handle_touch_motion,
	.frame = handle_touch_frame,
	.cancel = handle_touch_cancel,
	.shape = handle_touch_shape,
	.orientation = handle_touch_orientation,
};

static void send_keymap(struct desktop_window *window);

/* The keymap goes on as it is: the hosted apps type with the desktop's. */
static void handle_keyboard_keymap(void *data, struct wl_keyboard *keyboard, uint32_t format,
				   int32_t fd, uint32_t size)
{
	struct desktop_window *window = data;
	if (window->keymap_fd >= 0)
		close(window->keymap_fd);
	window->keymap_fd = fd;
	window->keymap_format = format;
	window->keymap_size = size;
	send_keymap(window);
}

static void send_keymap(struct desktop_window *window)
{
	if (window->keymap_fd >= 0) {
		struct wl_record_input_event event = {
			.type = WL_RECORD_INPUT_KEYBOARD_KEYMAP,
			.keymap_fd = window->keymap_fd,
			.keymap_format = window->keymap_format,
			.keymap_size = window->keymap_size,
		};
		input_send(window, &event);
	}
	if (window->have_repeat) {
		struct wl_record_input_event event = {
			.type = WL_RECORD_INPUT_KEYBOARD_REPEAT,
			.repeat_rate = window->repeat_rate,
			.repeat_delay = window->repeat_delay,
		};
		input_send(window, &event);
	}
}

static void handle_keyboard_enter(void *data, struct wl_keyboard *keyboard, uint32_t serial,
				  struct wl_surface *surface, struct wl_array *keys)
{
	struct desktop_window *window = data;
	window->input_serial = serial;
	struct wl_record_input_event event = {
		.type = WL_RECORD_INPUT_KEYBOARD_ENTER,
		.keys = keys->data,
		.key_count = keys->size / sizeof(uint32_t),
	};
	input_send(data, &event);
}

static void handle_keyboard_leave(void *data, struct wl_keyboard *keyboard, uint32_t serial,
				  struct wl_surface *surface)
{
	input_send_type(data, WL_RECORD_INPUT_KEYBOARD_LEAVE, 0);
}

static void handle_keyboard_key(void *data, struct wl_keyboard *keyboard, uint32_t serial,
				uint32_t time, uint32_t key, uint32_t state)
{
	struct desktop_window *window = data;
	window->input_serial = serial;
	struct wl_record_input_event event = {
		.type = WL_RECORD_INPUT_KEYBOARD_KEY,
		.time_ms = time,
		.key = key,
		.pressed = state == WL_KEYBOARD_KEY_STATE_PRESSED,
	};
	input_send(data, &event);
}

static void handle_keyboard_modifiers(void *data, struct wl_keyboard *keyboard, uint32_t serial,
				      uint32_t depressed, uint32_t latched, uint32_t locked,
				      uint32_t group)
{
	struct wl_record_input_event event = {
		.type = WL_RECORD_INPUT_KEYBOARD_MODIFIERS,
		.mods_depressed = depressed,
		.mods_latched = latched,
		.mods_locked = locked,
		.group = group,
	};
	input_send(data, &event);
}

static void handle_keyboard_repeat_info(void *data, struct wl_keyboard *keyboard, int32_t rate,
					int32_t delay)
{
	struct desktop_window *window = data;
	window->have_repeat = true;
	window->repeat_rate = rate;
	window->repeat_delay = delay;
	send_keymap(window);
}

static const struct wl_keyboard_listener keyboard_listener = {
	.keymap = handle_keyboard_keymap,
	.enter = handle_keyboard_enter,
	.leave = handle_keyboard_leave,
	.key = handle_keyboard_key,
	.modifiers = handle_keyboard_modifiers,
	.repeat_info = handle_keyboard_repeat_info,
};

static void release_pointer(struct desktop_window *window)
{
	if (!window->pointer)
		return;
	if (window->seat_version >= WL_POINTER_RELEASE_SINCE_VERSION)
		wl_pointer_release(window->pointer);
	else
		wl_pointer_destroy(window->pointer);
	window->pointer = NULL;
	window->pointer_on_window = false;
}

static void release_keyboard(struct desktop_window *window)
{
	if (!window->keyboard)
		return;
	if (window->seat_version >= WL_KEYBOARD_RELEASE_SINCE_VERSION)
		wl_keyboard_release(window->keyboard);
	else
		wl_keyboard_destroy(window->keyboard);
	window->keyboard = NULL;
}

static void release_touch(struct desktop_window *window)
{
	if (!window->touch)
		return;
	if (window->seat_version >= WL_TOUCH_RELEASE_SINCE_VERSION)
		wl_touch_release(window->touch);
	else
		wl_touch_destroy(window->touch);
	window->touch = NULL;
}

/* Whether the hosted apps are offered touch. */
static void send_touch_capability(struct desktop_window *window)
{
	struct wl_record_input_event event = {
		.type = WL_RECORD_INPUT_TOUCH_CAPABILITY,
		.has_touch = window->touch != NULL,
	};
	input_send(window, &event);
}

static void handle_seat_capabilities(void *data, struct wl_seat *seat, uint32_t capabilities)
{
	struct desktop_window *window = data;
	bool pointer = capabilities & WL_SEAT_CAPABILITY_POINTER;
	bool keyboard = capabilities & WL_SEAT_CAPABILITY_KEYBOARD;
	bool touch = capabilities & WL_SEAT_CAPABILITY_TOUCH;
	if (touch && !window->touch) {
		window->touch = wl_seat_get_touch(seat);
		wl_touch_add_listener(window->touch, &touch_listener, window);
		send_touch_capability(window);
	} else if (!touch && window->touch) {
		release_touch(window);
		touch_cancel(window);
		send_touch_capability(window);
	}
	if (pointer && !window->pointer) {
		window->pointer = wl_seat_get_pointer(seat);
		wl_pointer_add_listener(window->pointer, &pointer_listener, window);
	} else if (!pointer && window->pointer) {
		release_pointer(window);
		input_send_type(window, WL_RECORD_INPUT_POINTER_LEAVE, 0);
	}
	if (keyboard && !window->keyboard) {
		window->keyboard = wl_seat_get_keyboard(seat);
		wl_keyboard_add_listener(window->keyboard, &keyboard_listener, window);
	} else if (!keyboard && window->keyboard) {
		release_keyboard(window);
		input_send_type(window, WL_RECORD_INPUT_KEYBOARD_LEAVE, 0);
	}
	window_flush(window);
}

static void handle_seat_name(void *data, struct wl_seat *seat, const char *name)
{
}

static const struct wl_seat_listener seat_listener = {
	.capabilities = handle_seat_capabilities,
	.name = handle_seat_name,
};

void desktop_window_set_input_sink(struct desktop_window *window,
				   const struct wl_record_input_sink *sink)
{
	window->input = *sink;
	send_keymap(window);
	send_touch_capability(window);
}

static void attach_cursor(struct desktop_window *window, struct wl_buffer *buffer, bool ours,
			  int hotspot_x, int hotspot_y)
{
	if (!window->cursor_surface)
		window->cursor_surface = wl_compositor_create_surface(window->compositor);
	wl_surface_attach(window->cursor_surface, buffer, 0, 0);
	wl_surface_damage_buffer(window->cursor_surface, 0, 0, INT32_MAX, INT32_MAX);
	wl_surface_commit(window->cursor_surface);
	/* The desktop has the new content now: the old buffer can go. */
	if (window->cursor_buffer)
		wl_buffer_destroy(window->cursor_buffer);
	window->cursor_buffer = ours ? buffer : NULL;
	bool moved = !window->cursor_set || hotspot_x != window->cursor_hotspot_x ||
		     hotspot_y != window->cursor_hotspot_y;
	window->cursor_hotspot_x = hotspot_x;
	window->cursor_hotspot_y = hotspot_y;
	window->cursor_set = true;
	if (moved)
		show_cursor(window);
	window_flush(window);
}

/* The desktop's arrow, from the cursor theme it uses (XCURSOR_THEME and
 * XCURSOR_SIZE, as wlroots reads them); false when there is none. */
static bool attach_default_cursor(struct desktop_window *window)
{
	if (!window->cursor_theme) {
		const char *size = getenv("XCURSOR_SIZE");
		int pixels = size && atoi(size) > 0 ? atoi(size) : 24;
		window->cursor_theme = wl_cursor_theme_load(getenv("XCURSOR_THEME"), pixels,
							    window->shm);
		if (!window->cursor_theme)
			return false;
	}
	struct wl_cursor *cursor = wl_cursor_theme_get_cursor(window->cursor_theme, "left_ptr");
	if (!cursor)
		cursor = wl_cursor_theme_get_cursor(window->cursor_theme, "default");
	if (!cursor || cursor->image_count == 0)
		return false;
	struct wl_cursor_image *image = cursor->images[0];
	struct wl_buffer *buffer = wl_cursor_image_get_buffer(image);
	if (!buffer)
		return false;
	attach_cursor(window, buffer, false, (int)image->hotspot_x, (int)image->hotspot_y);
	return true;
}

void desktop_window_set_cursor(struct desktop_window *window,
			       const struct wl_record_cursor_image *image)
{
	if (window->broken || !window->compositor)
		return;
	if (!image || image->width <= 0 || image->height <= 0) {
		/* Without a theme the last image stays: better than none. */
		attach_default_cursor(window);
		return;
	}
	uint8_t *data;
	size_t size;
	struct wl_buffer *buffer = create_wl_buffer_format(window, image->width, image->height,
							   WL_SHM_FORMAT_ARGB8888, &data, &size);
	if (!buffer)
		return;
	for (int y = 0; y < image->height; y++)
		memcpy(data + (size_t)y * (size_t)image->width * 4,
		       image->pixels + (size_t)y * (size_t)image->stride, (size_t)image->width * 4);
	munmap(data, size);
	attach_cursor(window, buffer, true, image->hotspot_x, image->hotspot_y);
}

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
		wl_seat_add_listener(window->seat, &seat_listener, window);
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
	if (window->data_manager && window->seat) {
		window->data_device = wl_data_device_manager_get_data_device(window->data_manager,
									      window->seat);
		wl_data_device_add_listener(window->data_device, &data_device_listener,
					    &window->selections[WL_RECORD_SELECTION_CLIPBOARD]);
	}
	if (window->primary_manager && window->seat) {
		window->primary_device = zwp_primary_selection_device_manager_v1_get_device(
			window->primary_manager, window->seat);
		zwp_primary_selection_device_v1_add_listener(
			window->primary_device, &primary_device_listener,
			&window->selections[WL_RECORD_SELECTION_PRIMARY]);
	}
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
	window->connection = wl_event_loop_add_fd(loop, wl_display_get_fd(window->display),
						  WL_EVENT_READABLE, handle_connection, window);
	if (!window->connection) {
		LOG_ERR("cannot watch the desktop's connection");
		return false;
	}
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
	if (window->connection)
		wl_event_source_remove(window->connection);
	if (window->held_timer)
		wl_event_source_remove(window->held_timer);
	if (window->frame_callback)
		wl_callback_destroy(window->frame_callback);
	for (int i = 0; i < BUFFER_COUNT; i++)
		buffer_destroy(window->buffers[i]);
	window_dmabuf_destroy(window->dmabuf);
	for (int kind = 0; kind < WL_RECORD_SELECTION_KINDS; kind++)
		desktop_selection_finish(&window->selections[kind]);
	if (window->source)
		wl_data_source_destroy(window->source);
	if (window->primary_source)
		zwp_primary_selection_source_v1_destroy(window->primary_source);
	if (window->primary_device)
		zwp_primary_selection_device_v1_destroy(window->primary_device);
	if (window->primary_manager)
		zwp_primary_selection_device_manager_v1_destroy(window->primary_manager);
	if (window->data_device) {
		if (wl_data_device_get_version(window->data_device) >=
		    WL_DATA_DEVICE_RELEASE_SINCE_VERSION)
			wl_data_device_release(window->data_device);
		else
			wl_data_device_destroy(window->data_device);
	}
	if (window->data_manager)
		wl_data_device_manager_destroy(window->data_manager);
	release_pointer(window);
	release_keyboard(window);
	release_touch(window);
	wl_array_release(&window->touch_ids);
	if (window->seat)
		wl_seat_destroy(window->seat);
	if (window->cursor_surface)
		wl_surface_destroy(window->cursor_surface);
	if (window->cursor_buffer)
		wl_buffer_destroy(window->cursor_buffer);
	if (window->cursor_theme)
		wl_cursor_theme_destroy(window->cursor_theme);
	if (window->keymap_fd >= 0)
		close(window->keymap_fd);
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
