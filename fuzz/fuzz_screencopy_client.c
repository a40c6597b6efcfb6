/* libFuzzer target: the client side of screencopy (src/screencopy/), the
 * real screencopy_source talking to a compositor that says what the input
 * says, over a socketpair (WAYLAND_SOCKET).
 *
 * The fuzzer's in-process server advertises wl_shm, one wl_output,
 * xdg-output (optional), zwlr_screencopy_manager_v1 (v1 to v3) and
 * ext-image-copy-capture-v1 with its output source; it answers the
 * client's requests with nothing by itself: every event it sends is an
 * operation of the input, posted (wl_resource_post_event, through the
 * generated send functions) on the newest object of its kind.
 *
 * Input:
 *   byte 0       flags: bit 0 ext-image-copy-capture (else wlr-screencopy),
 *                bits 1-2 wlr-screencopy version (1 + value % 3), bit 3 a
 *                region (-g), bit 4 no cursor, bit 5 a sink taking dmabufs
 *                (XRGB8888 LINEAR and one other modifier, ARGB8888 any),
 *                bit 6 xdg-output, bit 7 the sink keeps every frame
 *   byte 1       wl_output transform (any value: only 0-7 are meant)
 *   byte 2       wl_output scale (value % 4; 0 is sent as 0)
 *   4 bytes      mode width, height (2 bytes each, big-endian)
 *   8 bytes      xdg-output logical x, y, width, height (2 bytes each,
 *                big-endian, as int16)
 *   8 bytes      the region: x, y, width, height (as the logical values)
 *   then up to MAX_OPS operations: 1 byte (value % N_OPS) and its
 *   arguments (see the switch in run_op); sizes are small (1 to 512) or one
 *   of a few extremes, damage coordinates small or at the int32 extremes,
 *   arrays 0 to 255 bytes taken from the input (zeros past its end).
 *
 * Every input ends with screencopy_source_destroy() and the server torn
 * down, so ASan sees leaks and use-after-free; each delivered frame is read
 * at both ends of every row, and its damage must lie in the picture. The
 * connection is made while the server runs in a second thread (the
 * client's roundtrips block); from then on everything is one thread, one
 * turn at a time, so a run is deterministic. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <wayland-server.h>

#include "fuzz_common.h"
#include "screencopy_internal.h"

#include "ext-image-capture-source-v1-server-protocol.h"
#include "ext-image-copy-capture-v1-server-protocol.h"
#include "wlr-screencopy-unstable-v1-server-protocol.h"
#include "xdg-output-unstable-v1-server-protocol.h"

#define MAX_OPS 64
#define MAX_KEPT 6


/* A buffer side: small, or an extreme no real output has. */
static uint32_t take_size(struct fuzz_reader *r)
{
	static const uint32_t extremes[] = { 0, 16385, 65535, 0x7fffffff,
					     0x80000000u, 0xffffffffu, 1, 4096 };
	uint32_t v = fuzz_take(r, 2);
	return v >= 0xff00 ? extremes[v & 7] : 1 + v % 512;
}

static uint32_t take_stride(struct fuzz_reader *r, uint32_t width)
{
	uint32_t v = fuzz_take(r, 2);
	const uint32_t extremes[] = { 0, width * 4 - 1, 0x7fffffff, 0xffffffffu,
				      262144, 262148, width * 4 + 4, width * 4 };
	return v >= 0xff00 ? extremes[v & 7] : width * 4 + (v % 16) * 4;
}

/* Damage: mostly small, sometimes at the int32 extremes. */
static int32_t take_coordinate(struct fuzz_reader *r)
{
	uint32_t v = fuzz_take(r, 2);
	switch (v >> 13) {
	case 0:
		return INT32_MAX;
	case 1:
		return INT32_MIN;
	case 2:
		return -(int32_t)(v & 0x3ff);
	default:
		return (int32_t)(v & 0x1ff);
	}
}

static uint32_t take_shm_format(struct fuzz_reader *r)
{
	static const uint32_t formats[] = { WL_SHM_FORMAT_XRGB8888, WL_SHM_FORMAT_ARGB8888,
					    WL_SHM_FORMAT_XBGR8888, WL_SHM_FORMAT_ABGR8888,
					    WL_SHM_FORMAT_RGB565, 0xdeadbeef };
	return formats[fuzz_take(r, 1) % 6];
}

static uint32_t take_drm_format(struct fuzz_reader *r)
{
	static const uint32_t formats[] = { DRM_FORMAT_XRGB8888, DRM_FORMAT_ARGB8888,
					    DRM_FORMAT_NV12, 0 };
	return formats[fuzz_take(r, 1) % 4];
}

/* An array of 0 to 255 bytes from the input. */
static void take_array(struct fuzz_reader *r, struct wl_array *array)
{
	wl_array_init(array);
	size_t n = fuzz_take(r, 1);
	uint8_t *p = wl_array_add(array, n ? n : 1);
	if (!p)
		abort();
	array->size = n;
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)fuzz_take(r, 1);
}

struct setup {
	uint8_t flags;
	int32_t transform, scale, mode_width, mode_height;
	int32_t logical[4];
	int region[4];
};

/* The server: what it advertises, and the newest object of each kind. */
struct fuzz_server {
	struct wl_display *display;
	struct wl_event_loop *loop;
	struct setup *setup; /* the mode changes */
	struct wl_global *output_global;
	struct wl_list outputs; /* wl_output resources */
	struct wl_resource *wlr_frame;
	struct wl_resource *ext_session;
	struct wl_resource *ext_frame;
	struct wl_client *client;
	struct wl_listener client_destroy;
};

static void forget(struct wl_resource *resource)
{
	struct fuzz_server *s = wl_resource_get_user_data(resource);
	if (s->wlr_frame == resource)
		s->wlr_frame = NULL;
	if (s->ext_session == resource)
		s->ext_session = NULL;
	if (s->ext_frame == resource)
		s->ext_frame = NULL;
}

static void destroy_request(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static void unlink_output(struct wl_resource *resource)
{
	wl_list_remove(wl_resource_get_link(resource));
}

static const struct wl_output_interface output_impl = { .release = destroy_request };

static void send_output_mode(struct wl_resource *resource, const struct setup *setup)
{
	wl_output_send_mode(resource, WL_OUTPUT_MODE_CURRENT, setup->mode_width,
			    setup->mode_height, 60000);
	if (wl_resource_get_version(resource) >= 2)
		wl_output_send_done(resource);
}

static void bind_output(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct fuzz_server *s = data;
	struct wl_resource *resource = wl_resource_create(client, &wl_output_interface,
							  (int)version, id);
	if (!resource) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &output_impl, s, unlink_output);
	wl_list_insert(&s->outputs, wl_resource_get_link(resource));
	wl_output_send_geometry(resource, 0, 0, 0, 0, WL_OUTPUT_SUBPIXEL_UNKNOWN, "fuzz", "fuzz",
				s->setup->transform);
	if (version >= 2)
		wl_output_send_scale(resource, s->setup->scale);
	if (version >= 4)
		wl_output_send_name(resource, "FUZZ-1");
	send_output_mode(resource, s->setup);
}

static void get_xdg_output(struct wl_client *client, struct wl_resource *manager, uint32_t id,
			   struct wl_resource *output)
{
	struct fuzz_server *s = wl_resource_get_user_data(manager);
	static const struct zxdg_output_v1_interface xdg_output_impl = { .destroy = destroy_request };
	struct wl_resource *resource = wl_resource_create(
		client, &zxdg_output_v1_interface, wl_resource_get_version(manager), id);
	if (!resource) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &xdg_output_impl, s, NULL);
	const int32_t *l = s->setup->logical;
	zxdg_output_v1_send_logical_position(resource, l[0], l[1]);
	zxdg_output_v1_send_logical_size(resource, l[2], l[3]);
	if (wl_resource_get_version(resource) >= 2)
		zxdg_output_v1_send_name(resource, "FUZZ-XDG-1");
}

static const struct zxdg_output_manager_v1_interface xdg_output_manager_impl = {
	.destroy = destroy_request,
	.get_xdg_output = get_xdg_output,
};

static void bind_xdg_output_manager(struct wl_client *client, void *data, uint32_t version,
				    uint32_t id)
{
	struct wl_resource *resource = wl_resource_create(client, &zxdg_output_manager_v1_interface,
							  (int)version, id);
	if (!resource) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &xdg_output_manager_impl, data, NULL);
}

/* wlr-screencopy: frames are only remembered; the input answers them. */
static void wlr_frame_copy(struct wl_client *client, struct wl_resource *frame,
			   struct wl_resource *buffer)
{
}

static const struct zwlr_screencopy_frame_v1_interface wlr_frame_impl = {
	.copy = wlr_frame_copy,
	.destroy = destroy_request,
	.copy_with_damage = wlr_frame_copy,
};

static void new_wlr_frame(struct wl_resource *manager, uint32_t id)
{
	struct fuzz_server *s = wl_resource_get_user_data(manager);
	struct wl_resource *frame = wl_resource_create(wl_resource_get_client(manager),
						       &zwlr_screencopy_frame_v1_interface,
						       wl_resource_get_version(manager), id);
	if (!frame) {
		wl_client_post_no_memory(wl_resource_get_client(manager));
		return;
	}
	wl_resource_set_implementation(frame, &wlr_frame_impl, s, forget);
	s->wlr_frame = frame;
}

static void wlr_capture_output(struct wl_client *client, struct wl_resource *manager,
			       uint32_t id, int32_t overlay_cursor, struct wl_resource *output)
{
	new_wlr_frame(manager, id);
}

static void wlr_capture_output_region(struct wl_client *client, struct wl_resource *manager,
				      uint32_t id, int32_t overlay_cursor,
				      struct wl_resource *output, int32_t x, int32_t y,
				      int32_t width, int32_t height)
{
	new_wlr_frame(manager, id);
}

static const struct zwlr_screencopy_manager_v1_interface wlr_manager_impl = {
	.capture_output = wlr_capture_output,
	.capture_output_region = wlr_capture_output_region,
	.destroy = destroy_request,
};

static void bind_wlr_manager(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct wl_resource *resource = wl_resource_create(
		client, &zwlr_screencopy_manager_v1_interface, (int)version, id);
	if (!resource) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &wlr_manager_impl, data, NULL);
}

/* ext-image-copy-capture. */
static const struct ext_image_capture_source_v1_interface ext_source_impl = {
	.destroy = destroy_request,
};

static void ext_create_source(struct wl_client *client, struct wl_resource *manager,
			      uint32_t id, struct wl_resource *output)
{
	struct wl_resource *resource = wl_resource_create(client, &ext_image_capture_source_v1_interface,
							  1, id);
	if (!resource) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &ext_source_impl, NULL, NULL);
}

static const struct ext_output_image_capture_source_manager_v1_interface ext_source_manager_impl = {
	.create_source = ext_create_source,
	.destroy = destroy_request,
};

static void ext_frame_attach(struct wl_client *client, struct wl_resource *frame,
			     struct wl_resource *buffer)
{
}

static void ext_frame_damage(struct wl_client *client, struct wl_resource *frame, int32_t x,
			     int32_t y, int32_t width, int32_t height)
{
}

static void ext_frame_capture(struct wl_client *client, struct wl_resource *frame)
{
}

static const struct ext_image_copy_capture_frame_v1_interface ext_frame_impl = {
	.destroy = destroy_request,
	.attach_buffer = ext_frame_attach,
	.damage_buffer = ext_frame_damage,
	.capture = ext_frame_capture,
};

static void ext_create_frame(struct wl_client *client, struct wl_resource *session, uint32_t id)
{
	struct fuzz_server *s = wl_resource_get_user_data(session);
	struct wl_resource *frame = wl_resource_create(client, &ext_image_copy_capture_frame_v1_interface,
						       1, id);
	if (!frame) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(frame, &ext_frame_impl, s, forget);
	s->ext_frame = frame;
}

static const struct ext_image_copy_capture_session_v1_interface ext_session_impl = {
	.create_frame = ext_create_frame,
	.destroy = destroy_request,
};

static void ext_create_session(struct wl_client *client, struct wl_resource *manager,
			       uint32_t id, struct wl_resource *source, uint32_t options)
{
	struct fuzz_server *s = wl_resource_get_user_data(manager);
	struct wl_resource *session = wl_resource_create(
		client, &ext_image_copy_capture_session_v1_interface, 1, id);
	if (!session) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(session, &ext_session_impl, s, forget);
	s->ext_session = session;
}

static void ext_create_cursor_session(struct wl_client *client, struct wl_resource *manager,
				      uint32_t id, struct wl_resource *source,
				      struct wl_resource *pointer)
{
	wl_resource_post_error(manager, 0, "not offered by the fuzzer");
}

static const struct ext_image_copy_capture_manager_v1_interface ext_manager_impl = {
	.create_session = ext_create_session,
	.create_pointer_cursor_session = ext_create_cursor_session,
	.destroy = destroy_request,
};

static void bind_ext_source_manager(struct wl_client *client, void *data, uint32_t version,
				    uint32_t id)
{
	struct wl_resource *resource = wl_resource_create(
		client, &ext_output_image_capture_source_manager_v1_interface, 1, id);
	if (!resource) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &ext_source_manager_impl, data, NULL);
}

static void bind_ext_manager(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct wl_resource *resource = wl_resource_create(
		client, &ext_image_copy_capture_manager_v1_interface, 1, id);
	if (!resource) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &ext_manager_impl, data, NULL);
}

static void client_destroyed(struct wl_listener *listener, void *data)
{
	struct fuzz_server *s = wl_container_of(listener, s, client_destroy);
	wl_list_remove(&s->client_destroy.link);
	wl_list_init(&s->client_destroy.link);
	s->client = NULL;
}

/* The second thread, only while the client connects. */
struct serving {
	struct fuzz_server *server;
	int stop_fd;
	atomic_bool stop;
};

static int stop_serving(int fd, uint32_t mask, void *data)
{
	struct serving *serving = data;
	atomic_store(&serving->stop, true);
	return 0;
}

static void *serve(void *data)
{
	struct serving *serving = data;
	while (!atomic_load(&serving->stop)) {
		wl_display_flush_clients(serving->server->display);
		wl_event_loop_dispatch(serving->server->loop, -1);
	}
	wl_display_flush_clients(serving->server->display);
	return NULL;
}

/* The sink: reads every row of each frame; may keep frames. */
struct fuzz_sink {
	struct frame_sink sink;
	bool keep;
	struct frame kept[MAX_KEPT];
	int n_kept;
};

static volatile uint64_t checksum;

static void sink_frame(struct frame_sink *base, const struct frame *frame)
{
	struct fuzz_sink *sink = wl_container_of(base, sink, sink);
	if (frame->width <= 0 || frame->height <= 0 || frame->stride < frame->width * 4)
		abort();
	if (frame->damage_known &&
	    (frame->damage.x1 < 0 || frame->damage.y1 < 0 || frame->damage.x2 > frame->width ||
	     frame->damage.y2 > frame->height))
		abort();
	if (frame->data) {
		for (int y = 0; y < frame->height; y++) {
			const uint8_t *row = frame->data + (size_t)y * (size_t)frame->stride;
			checksum += row[0] + row[(size_t)frame->width * 4 - 1];
		}
	}
	if (sink->keep && frame->buffer) {
		if (sink->n_kept == MAX_KEPT) {
			frame_unref(&sink->kept[0]);
			memmove(&sink->kept[0], &sink->kept[1], sizeof(sink->kept[0]) * (MAX_KEPT - 1));
			sink->n_kept--;
		}
		frame_ref(&sink->kept[sink->n_kept++], frame);
	}
}

static const struct frame_sink_impl sink_impl = { .frame = sink_frame };

static void release_kept(struct fuzz_sink *sink)
{
	for (int i = 0; i < sink->n_kept; i++)
		frame_unref(&sink->kept[i]);
	sink->n_kept = 0;
}

static void source_ended(void *data, const char *why)
{
	bool *ended = data;
	*ended = true;
}

struct run {
	struct fuzz_server *server;
	struct screencopy_source *source;
	struct wl_event_loop *client_loop;
	struct fuzz_sink *sink;
	bool ended;
};

/* The server's events reach the client, the client's requests the server. */
static void turn(struct run *run)
{
	for (int i = 0; i < 2; i++) {
		wl_display_flush_clients(run->server->display);
		wl_event_loop_dispatch(run->client_loop, 0);
		wl_event_loop_dispatch(run->server->loop, 0);
	}
}

static void send_time(struct wl_resource *frame, struct fuzz_reader *r, bool ext)
{
	uint32_t sec_hi, sec_lo, nsec;
	if (fuzz_take(r, 1) & 1) {
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		sec_hi = (uint32_t)((uint64_t)now.tv_sec >> 32);
		sec_lo = (uint32_t)now.tv_sec;
		nsec = (uint32_t)now.tv_nsec;
	} else {
		sec_hi = fuzz_take(r, 4);
		sec_lo = fuzz_take(r, 4);
		nsec = fuzz_take(r, 4);
	}
	if (ext)
		ext_image_copy_capture_frame_v1_send_presentation_time(frame, sec_hi, sec_lo, nsec);
	else
		zwlr_screencopy_frame_v1_send_ready(frame, sec_hi, sec_lo, nsec);
}

enum {
	OP_TURN,
	OP_WLR_BUFFER,
	OP_WLR_DMABUF,
	OP_WLR_BUFFER_DONE,
	OP_WLR_FLAGS,
	OP_WLR_DAMAGE,
	OP_WLR_READY,
	OP_WLR_FAILED,
	OP_EXT_BUFFER_SIZE,
	OP_EXT_SHM_FORMAT,
	OP_EXT_DMABUF_DEVICE,
	OP_EXT_DMABUF_FORMAT,
	OP_EXT_DONE,
	OP_EXT_STOPPED,
	OP_EXT_TRANSFORM,
	OP_EXT_DAMAGE,
	OP_EXT_PRESENTATION_TIME,
	OP_EXT_READY,
	OP_EXT_FAILED,
	OP_RETRY,
	OP_OUTPUT_MODE,
	OP_OUTPUT_REMOVED,
	OP_RELEASE_KEPT,
	OP_DISCONNECT,
	N_OPS,
};

static void run_op(struct run *run, struct fuzz_reader *r)
{
	struct fuzz_server *s = run->server;
	struct wl_resource *wlr = s->wlr_frame, *session = s->ext_session, *frame = s->ext_frame;
	switch (fuzz_take(r, 1) % N_OPS) {
	case OP_TURN:
		turn(run);
		break;
	case OP_WLR_BUFFER: {
		uint32_t format = take_shm_format(r), width = take_size(r), height = take_size(r);
		uint32_t stride = take_stride(r, width);
		if (wlr)
			zwlr_screencopy_frame_v1_send_buffer(wlr, format, width, height, stride);
		break;
	}
	case OP_WLR_DMABUF: {
		uint32_t format = take_drm_format(r), width = take_size(r), height = take_size(r);
		if (wlr && wl_resource_get_version(wlr) >= 3)
			zwlr_screencopy_frame_v1_send_linux_dmabuf(wlr, format, width, height);
		break;
	}
	case OP_WLR_BUFFER_DONE:
		if (wlr && wl_resource_get_version(wlr) >= 3)
			zwlr_screencopy_frame_v1_send_buffer_done(wlr);
		break;
	case OP_WLR_FLAGS: {
		uint32_t flags = fuzz_take(r, 1);
		if (wlr)
			zwlr_screencopy_frame_v1_send_flags(wlr, flags & 0x80 ? 0xffffffffu : flags & 1);
		break;
	}
	case OP_WLR_DAMAGE: {
		uint32_t x = (uint32_t)take_coordinate(r), y = (uint32_t)take_coordinate(r);
		uint32_t w = (uint32_t)take_coordinate(r), h = (uint32_t)take_coordinate(r);
		if (wlr && wl_resource_get_version(wlr) >= 2)
			zwlr_screencopy_frame_v1_send_damage(wlr, x, y, w, h);
		break;
	}
	case OP_WLR_READY:
		if (wlr)
			send_time(wlr, r, false);
		else
			fuzz_take(r, 13);
		break;
	case OP_WLR_FAILED:
		if (wlr)
			zwlr_screencopy_frame_v1_send_failed(wlr);
		break;
	case OP_EXT_BUFFER_SIZE: {
		uint32_t width = take_size(r), height = take_size(r);
		if (session)
			ext_image_copy_capture_session_v1_send_buffer_size(session, width, height);
		break;
	}
	case OP_EXT_SHM_FORMAT: {
		uint32_t format = take_shm_format(r);
		if (session)
			ext_image_copy_capture_session_v1_send_shm_format(session, format);
		break;
	}
	case OP_EXT_DMABUF_DEVICE: {
		struct wl_array device;
		take_array(r, &device);
		if (session)
			ext_image_copy_capture_session_v1_send_dmabuf_device(session, &device);
		wl_array_release(&device);
		break;
	}
	case OP_EXT_DMABUF_FORMAT: {
		uint32_t format = take_drm_format(r);
		struct wl_array modifiers;
		take_array(r, &modifiers);
		if (session)
			ext_image_copy_capture_session_v1_send_dmabuf_format(session, format,
									      &modifiers);
		wl_array_release(&modifiers);
		break;
	}
	case OP_EXT_DONE:
		if (session)
			ext_image_copy_capture_session_v1_send_done(session);
		break;
	case OP_EXT_STOPPED:
		if (session)
			ext_image_copy_capture_session_v1_send_stopped(session);
		break;
	case OP_EXT_TRANSFORM: {
		uint32_t transform = fuzz_take(r, 1);
		if (frame)
			ext_image_copy_capture_frame_v1_send_transform(frame, transform & 0x80
									       ? 0xffffffffu
									       : transform % 9);
		break;
	}
	case OP_EXT_DAMAGE: {
		int32_t x = take_coordinate(r), y = take_coordinate(r);
		int32_t w = take_coordinate(r), h = take_coordinate(r);
		if (frame)
			ext_image_copy_capture_frame_v1_send_damage(frame, x, y, w, h);
		break;
	}
	case OP_EXT_PRESENTATION_TIME:
		if (frame)
			send_time(frame, r, true);
		else
			fuzz_take(r, 13);
		break;
	case OP_EXT_READY:
		if (frame)
			ext_image_copy_capture_frame_v1_send_ready(frame);
		break;
	case OP_EXT_FAILED: {
		uint32_t reason = fuzz_take(r, 1) % 4;
		if (frame)
			ext_image_copy_capture_frame_v1_send_failed(frame, reason);
		break;
	}
	case OP_RETRY:
		/* What the retry timer does after RETRY_MS, without the wait. */
		if (!run->source->over)
			run->source->protocol->retry(run->source);
		break;
	case OP_OUTPUT_MODE: {
		struct setup *setup = s->setup;
		setup->mode_width = (int32_t)take_size(r);
		setup->mode_height = (int32_t)take_size(r);
		struct wl_resource *output;
		wl_resource_for_each(output, &s->outputs)
			send_output_mode(output, setup);
		break;
	}
	case OP_OUTPUT_REMOVED:
		if (s->output_global)
			wl_global_destroy(s->output_global);
		s->output_global = NULL;
		break;
	case OP_RELEASE_KEPT:
		release_kept(run->sink);
		break;
	case OP_DISCONNECT:
		if (s->client)
			wl_client_destroy(s->client);
		break;
	}
}

static void read_setup(struct fuzz_reader *r, struct setup *setup)
{
	setup->flags = (uint8_t)fuzz_take(r, 1);
	setup->transform = (int32_t)fuzz_take(r, 1);
	setup->scale = (int32_t)(fuzz_take(r, 1) % 4);
	setup->mode_width = (int32_t)fuzz_take(r, 2);
	setup->mode_height = (int32_t)fuzz_take(r, 2);
	for (int i = 0; i < 4; i++)
		setup->logical[i] = (int16_t)fuzz_take(r, 2);
	for (int i = 0; i < 4; i++)
		setup->region[i] = (int16_t)fuzz_take(r, 2);
}

static bool server_init(struct fuzz_server *s, struct setup *setup)
{
	*s = (struct fuzz_server){ .setup = setup };
	wl_list_init(&s->outputs);
	s->display = wl_display_create();
	if (!s->display || wl_display_init_shm(s->display) < 0)
		return false;
	wl_display_add_shm_format(s->display, WL_SHM_FORMAT_XBGR8888);
	wl_display_add_shm_format(s->display, WL_SHM_FORMAT_ABGR8888);
	s->loop = wl_display_get_event_loop(s->display);
	uint32_t wlr_version = 1 + ((setup->flags >> 1) & 3) % 3;
	s->output_global = wl_global_create(s->display, &wl_output_interface, 4, s, bind_output);
	return s->output_global &&
	       (!(setup->flags & 0x40) ||
		wl_global_create(s->display, &zxdg_output_manager_v1_interface, 3, s,
				 bind_xdg_output_manager)) &&
	       wl_global_create(s->display, &zwlr_screencopy_manager_v1_interface, (int)wlr_version,
				s, bind_wlr_manager) &&
	       wl_global_create(s->display, &ext_output_image_capture_source_manager_v1_interface, 1,
				s, bind_ext_source_manager) &&
	       wl_global_create(s->display, &ext_image_copy_capture_manager_v1_interface, 1, s,
				bind_ext_manager);
}

/* Connects the real source to the server over a socketpair, the server
 * answering from a second thread meanwhile. */
static struct screencopy_source *connect_source(struct fuzz_server *s)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		abort();
	s->client = wl_client_create(s->display, sv[0]);
	if (!s->client)
		abort();
	s->client_destroy.notify = client_destroyed;
	wl_client_add_destroy_listener(s->client, &s->client_destroy);

	struct serving serving = { .server = s, .stop_fd = eventfd(0, EFD_CLOEXEC) };
	if (serving.stop_fd < 0)
		abort();
	struct wl_event_source *stop = wl_event_loop_add_fd(s->loop, serving.stop_fd,
							    WL_EVENT_READABLE, stop_serving,
							    &serving);
	pthread_t thread;
	if (!stop || pthread_create(&thread, NULL, serve, &serving) != 0)
		abort();
	char fd_text[16], why[256];
	snprintf(fd_text, sizeof(fd_text), "%d", sv[1]);
	setenv("WAYLAND_SOCKET", fd_text, 1); /* taken (and unset) by wl_display_connect */
	struct screencopy_source *source = screencopy_source_connect(NULL, why, sizeof(why));
	uint64_t one = 1;
	if (write(serving.stop_fd, &one, sizeof(one)) != sizeof(one))
		abort();
	pthread_join(thread, NULL);
	unsetenv("WAYLAND_SOCKET");
	wl_event_source_remove(stop);
	close(serving.stop_fd);
	return source;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_quiet_logs();
	struct fuzz_reader r = { data, size };
	struct setup setup;
	read_setup(&r, &setup);

	struct fuzz_server server;
	if (!server_init(&server, &setup))
		abort();
	struct run run = { .server = &server };
	run.source = connect_source(&server);
	if (!run.source) {
		if (server.client)
			wl_client_destroy(server.client);
		wl_display_destroy(server.display);
		return 0;
	}

	struct screencopy_selection selection = {
		.region = setup.flags & 0x08,
		.x = setup.region[0], .y = setup.region[1],
		.width = setup.region[2], .height = setup.region[3],
		.no_cursor = setup.flags & 0x10,
	};
	char why[256];
	if (screencopy_source_select(run.source, &selection, why, sizeof(why)) !=
	    SCREENCOPY_SELECT_OK) {
		selection.region = false;
		screencopy_source_select(run.source, &selection, why, sizeof(why));
	}
	if (setup.flags & 0x20) {
		struct screencopy_buffers_request request = {
			.n_sinks = 1,
			.sinks[0] = {
				.n_dmabuf_formats = 3,
				.dmabuf_formats = {
					{ DRM_FORMAT_XRGB8888, DRM_FORMAT_MOD_LINEAR },
					{ DRM_FORMAT_XRGB8888, 0x0100000000000001ull },
					{ DRM_FORMAT_ARGB8888, DRM_FORMAT_MOD_INVALID },
				},
			},
		};
		screencopy_source_set_buffers(run.source, &request);
	}
	screencopy_source_use(run.source, setup.flags & 1 ? SCREENCOPY_EXT : SCREENCOPY_WLR);

	struct fuzz_sink sink = { .keep = setup.flags & 0x80 };
	run.sink = &sink;
	frame_sink_connect(&sink.sink, &sink_impl, screencopy_frame_source(run.source));
	run.client_loop = wl_event_loop_create();
	if (!run.client_loop)
		abort();
	if (screencopy_source_start(run.source, run.client_loop, source_ended, &run.ended)) {
		turn(&run);
		for (int op = 0; op < MAX_OPS && r.size > 0 && !run.ended; op++)
			run_op(&run, &r);
		if (!run.ended)
			turn(&run);
	}

	/* The app's end: the source goes, kept frames after it. */
	frame_sink_disconnect(&sink.sink);
	screencopy_source_destroy(run.source);
	release_kept(&sink);
	wl_event_loop_destroy(run.client_loop);
	for (int i = 0; i < 2 && server.client; i++)
		wl_event_loop_dispatch(server.loop, 0);
	if (server.client)
		wl_client_destroy(server.client);
	wl_display_destroy(server.display);
	return 0;
}
