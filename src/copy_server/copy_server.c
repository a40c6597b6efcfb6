#define LOG_MODULE "copy-server"
/* Sessions and frames of ext-image-copy-capture-v1, with the semantics of
 * wlroots' implementation: a session announces its constraints (size, shm
 * formats, done) at once and again when the size changes; at most one frame
 * object a session; the first capture of a session is answered at once with
 * full damage, later ones when the picture changed since the previous one.
 *
 * Objects outlive what they refer to: a frame whose session went, a session
 * whose server went, a session of a cursor (never served) are inert, their
 * resource's user data NULL or their session pointer NULL. */
#include "copy_server.h"

#include <stdlib.h>
#include <string.h>

#include "ext-image-capture-source-v1-server-protocol.h"
#include "ext-image-copy-capture-v1-server-protocol.h"
#include "log.h"

struct copy_server {
	struct wl_display *display;
	const struct shm_writer_impl *shm;
	struct wl_global *manager_global, *source_global;
	struct frame_sink sink;
	struct frame newest; /* referenced; valid when have_newest */
	bool have_newest;
	int width, height; /* the constraints sessions were told */
	struct wl_list managers; /* resource links of the manager's resources */
	struct wl_list sessions; /* copy_session.link */
	/* The newest frame's pixels when it is a dmabuf, read once for all
	 * the captures it answers. */
	uint8_t *scratch;
	size_t scratch_size;
	bool scratch_valid;
};

struct copy_session {
	struct wl_resource *resource;
	struct copy_server *server;
	struct wl_list link; /* copy_server.sessions */
	struct copy_frame *frame; /* the one live frame object, or NULL */
	bool captured_once;
	/* What changed since the previous capture (the damage event's rectangle). */
	bool damaged, damage_full;
	struct frame_damage damage;
};

struct copy_frame {
	struct wl_resource *resource;
	struct copy_session *session; /* NULL when inert */
	struct wl_resource *buffer;   /* NULL when none or destroyed */
	struct wl_listener buffer_destroy;
	bool attached;
	bool capturing; /* capture was requested */
	bool answered;  /* ready or failed was sent */
	bool client_damaged;
	struct frame_damage client_damage; /* bounding box of damage_buffer */
};

struct cursor_session {
	bool got_session;
};

static const struct ext_image_capture_source_v1_interface source_impl;
static const struct ext_image_copy_capture_session_v1_interface session_impl;

/* ---- damage: one rectangle, grown (x2, y2 exclusive) ---- */

static void damage_add(struct frame_damage *into, bool *have, const struct frame_damage *add)
{
	if (add->x1 >= add->x2 || add->y1 >= add->y2)
		return;
	if (!*have)
		*into = *add;
	else
		frame_damage_union(into, add);
	*have = true;
}

static void damage_clip(struct frame_damage *d, int width, int height)
{
	frame_damage_clip(d, &(struct frame_damage){ 0, 0, width, height });
}

static void session_damage_all(struct copy_session *session)
{
	session->damaged = true;
	session->damage_full = true;
}

/* ---- frames ---- */

static void frame_send_failed(struct copy_frame *frame,
			      enum ext_image_copy_capture_frame_v1_failure_reason reason)
{
	if (frame->answered)
		return;
	frame->answered = true;
	ext_image_copy_capture_frame_v1_send_failed(frame->resource, reason);
}

static void frame_detach_buffer(struct copy_frame *frame)
{
	if (!frame->buffer)
		return;
	wl_list_remove(&frame->buffer_destroy.link);
	frame->buffer = NULL;
}

static void handle_buffer_destroy(struct wl_listener *listener, void *data)
{
	struct copy_frame *frame = wl_container_of(listener, frame, buffer_destroy);
	frame_detach_buffer(frame);
}

static bool format_supported(uint32_t format)
{
	return format == WL_SHM_FORMAT_XRGB8888 || format == WL_SHM_FORMAT_ARGB8888;
}

/* The newest frame's pixels as an XRGB8888 frame with `data`, NULL when a
 * dmabuf cannot be read. */
static bool newest_pixels(struct copy_server *server, struct frame *pixels)
{
	const struct frame *newest = &server->newest;
	*pixels = *newest;
	if (newest->data)
		return true;
	if (!newest->buffer)
		return false;
	size_t stride = (size_t)newest->width * 4;
	size_t size = stride * (size_t)newest->height;
	if (!server->scratch_valid) {
		if (size > server->scratch_size) {
			uint8_t *scratch = realloc(server->scratch, size);
			if (!scratch)
				return false;
			server->scratch = scratch;
			server->scratch_size = size;
		}
		char why[256];
		if (!wl_record_buffer_read(newest->buffer, server->scratch, (int)stride, why,
					   sizeof(why))) {
			LOG_WARN("cannot read the screen's dmabuf for a capture: %s", why);
			return false;
		}
		server->scratch_valid = true;
	}
	pixels->data = server->scratch;
	pixels->stride = (int)stride;
	return true;
}

/* What `buffer` is, when it is a writable wl_shm buffer: its size, stride
 * and format. The writer's guard is ended at once, nothing written. */
static bool buffer_describe(struct copy_server *server, struct wl_resource *buffer,
			    struct shm_pixels *to)
{
	if (!buffer || !server->shm->begin_write(buffer, to))
		return false;
	server->shm->end_write(buffer);
	return true;
}

/* Copies the newest frame into the frame's buffer and says so. */
static void frame_complete(struct copy_frame *frame)
{
	struct copy_session *session = frame->session;
	struct copy_server *server = session->server;
	const struct frame *newest = &server->newest;
	struct shm_pixels to;
	if (!buffer_describe(server, frame->buffer, &to) || to.width != newest->width ||
	    to.height != newest->height || !format_supported(to.format)) {
		frame_send_failed(frame, EXT_IMAGE_COPY_CAPTURE_FRAME_V1_FAILURE_REASON_BUFFER_CONSTRAINTS);
		return;
	}
	/* The picture is read before the write begins: reading a dmabuf
	 * guards that mapping against SIGBUS, and no guard may open inside
	 * the write's (shm_writer.h), or a client shrinking its pool during
	 * the write could fault unguarded. */
	struct frame pixels;
	if (!newest_pixels(server, &pixels)) {
		frame_send_failed(frame, EXT_IMAGE_COPY_CAPTURE_FRAME_V1_FAILURE_REASON_UNKNOWN);
		return;
	}
	if (!server->shm->begin_write(frame->buffer, &to)) {
		frame_send_failed(frame, EXT_IMAGE_COPY_CAPTURE_FRAME_V1_FAILURE_REASON_BUFFER_CONSTRAINTS);
		return;
	}

	/* The damage told: all of it the first time. What is copied: that and
	 * what the client says its buffer misses (damage_buffer). */
	struct frame_damage told = session->damage;
	if (!session->captured_once || session->damage_full || !session->damaged)
		told = (struct frame_damage){ 0, 0, newest->width, newest->height };
	damage_clip(&told, newest->width, newest->height);
	struct frame_damage copy = told;
	bool have = true;
	if (frame->client_damaged)
		damage_add(&copy, &have, &frame->client_damage);
	damage_clip(&copy, newest->width, newest->height);

	frame_copy_rows(&pixels, to.data, to.stride, copy.y1, copy.y2);
	if (to.format == WL_SHM_FORMAT_ARGB8888) {
		/* The screen's X byte is undefined, the picture opaque. Bytes, not
		 * words: the client chose the buffer's offset and stride. */
		for (int y = copy.y1; y < copy.y2; y++) {
			uint8_t *row = to.data + (size_t)to.stride * (size_t)y;
			for (int x = 0; x < newest->width; x++)
				row[(size_t)x * 4 + 3] = 0xff;
		}
	}
	if (!server->shm->end_write(frame->buffer)) {
		/* The client shrank its pool: it has its protocol error. */
		frame->answered = true;
		return;
	}

	uint64_t sec = (uint64_t)(newest->pts_ns / 1000000000);
	uint32_t nsec = (uint32_t)(newest->pts_ns % 1000000000);
	ext_image_copy_capture_frame_v1_send_transform(frame->resource, WL_OUTPUT_TRANSFORM_NORMAL);
	ext_image_copy_capture_frame_v1_send_damage(frame->resource, told.x1, told.y1,
						    told.x2 - told.x1, told.y2 - told.y1);
	ext_image_copy_capture_frame_v1_send_presentation_time(frame->resource, (uint32_t)(sec >> 32),
							       (uint32_t)sec, nsec);
	ext_image_copy_capture_frame_v1_send_ready(frame->resource);
	frame->answered = true;
	session->captured_once = true;
	session->damaged = false;
	session->damage_full = false;
}

static struct copy_frame *frame_from_resource(struct wl_resource *resource)
{
	return wl_resource_get_user_data(resource);
}

static void frame_handle_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static void frame_handle_attach_buffer(struct wl_client *client, struct wl_resource *resource,
				       struct wl_resource *buffer)
{
	struct copy_frame *frame = frame_from_resource(resource);
	if (frame->capturing) {
		wl_resource_post_error(resource, EXT_IMAGE_COPY_CAPTURE_FRAME_V1_ERROR_ALREADY_CAPTURED,
				       "attach_buffer after capture");
		return;
	}
	frame_detach_buffer(frame);
	frame->attached = true;
	frame->buffer = buffer;
	frame->buffer_destroy.notify = handle_buffer_destroy;
	wl_resource_add_destroy_listener(buffer, &frame->buffer_destroy);
}

static void frame_handle_damage_buffer(struct wl_client *client, struct wl_resource *resource,
				       int32_t x, int32_t y, int32_t width, int32_t height)
{
	struct copy_frame *frame = frame_from_resource(resource);
	if (frame->capturing) {
		wl_resource_post_error(resource, EXT_IMAGE_COPY_CAPTURE_FRAME_V1_ERROR_ALREADY_CAPTURED,
				       "damage_buffer after capture");
		return;
	}
	if (x < 0 || y < 0 || width <= 0 || height <= 0) {
		wl_resource_post_error(resource,
				       EXT_IMAGE_COPY_CAPTURE_FRAME_V1_ERROR_INVALID_BUFFER_DAMAGE,
				       "invalid buffer damage %d,%d %dx%d", x, y, width, height);
		return;
	}
	/* 64-bit sums: x + width may not fit an int; clipped when used. */
	int64_t x2 = (int64_t)x + width, y2 = (int64_t)y + height;
	struct frame_damage box = { x, y, x2 > INT32_MAX ? INT32_MAX : (int)x2,
				    y2 > INT32_MAX ? INT32_MAX : (int)y2 };
	damage_add(&frame->client_damage, &frame->client_damaged, &box);
}

static void frame_handle_capture(struct wl_client *client, struct wl_resource *resource)
{
	struct copy_frame *frame = frame_from_resource(resource);
	if (frame->capturing) {
		wl_resource_post_error(resource, EXT_IMAGE_COPY_CAPTURE_FRAME_V1_ERROR_ALREADY_CAPTURED,
				       "capture sent twice");
		return;
	}
	if (!frame->attached) {
		wl_resource_post_error(resource, EXT_IMAGE_COPY_CAPTURE_FRAME_V1_ERROR_NO_BUFFER,
				       "capture without attach_buffer");
		return;
	}
	frame->capturing = true;
	struct copy_session *session = frame->session;
	if (!session || !session->server) {
		frame_send_failed(frame, EXT_IMAGE_COPY_CAPTURE_FRAME_V1_FAILURE_REASON_STOPPED);
		return;
	}
	struct copy_server *server = session->server;
	/* Checked now against the constraints told, again when copying. */
	struct shm_pixels to;
	if (!buffer_describe(server, frame->buffer, &to) || to.width != server->width ||
	    to.height != server->height || !format_supported(to.format)) {
		frame_send_failed(frame, EXT_IMAGE_COPY_CAPTURE_FRAME_V1_FAILURE_REASON_BUFFER_CONSTRAINTS);
		return;
	}
	/* Otherwise the next frame with damage answers it (handle_frame). */
	if (server->have_newest && (!session->captured_once || session->damaged))
		frame_complete(frame);
}

static const struct ext_image_copy_capture_frame_v1_interface frame_impl = {
	.destroy = frame_handle_destroy,
	.attach_buffer = frame_handle_attach_buffer,
	.damage_buffer = frame_handle_damage_buffer,
	.capture = frame_handle_capture,
};

static void frame_resource_destroy(struct wl_resource *resource)
{
	struct copy_frame *frame = frame_from_resource(resource);
	frame_detach_buffer(frame);
	if (frame->session)
		frame->session->frame = NULL;
	free(frame);
}

/* ---- sessions ---- */

static void session_send_constraints(struct copy_session *session)
{
	struct copy_server *server = session->server;
	ext_image_copy_capture_session_v1_send_buffer_size(session->resource, (uint32_t)server->width,
							   (uint32_t)server->height);
	ext_image_copy_capture_session_v1_send_shm_format(session->resource, WL_SHM_FORMAT_XRGB8888);
	ext_image_copy_capture_session_v1_send_shm_format(session->resource, WL_SHM_FORMAT_ARGB8888);
	ext_image_copy_capture_session_v1_send_done(session->resource);
}

/* The session stops for good: its frame fails, its resource stays inert. */
static void session_stop(struct copy_session *session)
{
	if (session->frame) {
		if (session->frame->capturing)
			frame_send_failed(session->frame,
					  EXT_IMAGE_COPY_CAPTURE_FRAME_V1_FAILURE_REASON_STOPPED);
		session->frame->session = NULL;
		session->frame = NULL;
	}
	ext_image_copy_capture_session_v1_send_stopped(session->resource);
	wl_resource_set_user_data(session->resource, NULL);
	wl_list_remove(&session->link);
	free(session);
}

static void session_handle_create_frame(struct wl_client *client, struct wl_resource *resource,
					uint32_t id)
{
	struct copy_session *session = wl_resource_get_user_data(resource);
	if (session && session->frame) {
		wl_resource_post_error(resource, EXT_IMAGE_COPY_CAPTURE_SESSION_V1_ERROR_DUPLICATE_FRAME,
				       "create_frame while a frame object exists");
		return;
	}
	struct copy_frame *frame = calloc(1, sizeof(*frame));
	if (!frame) {
		wl_client_post_no_memory(client);
		return;
	}
	frame->resource = wl_resource_create(client, &ext_image_copy_capture_frame_v1_interface,
					     wl_resource_get_version(resource), id);
	if (!frame->resource) {
		free(frame);
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(frame->resource, &frame_impl, frame, frame_resource_destroy);
	frame->session = session;
	if (session)
		session->frame = frame;
}

static void session_handle_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static const struct ext_image_copy_capture_session_v1_interface session_impl = {
	.create_frame = session_handle_create_frame,
	.destroy = session_handle_destroy,
};

static void session_resource_destroy(struct wl_resource *resource)
{
	struct copy_session *session = wl_resource_get_user_data(resource);
	if (!session)
		return;
	if (session->frame) {
		/* The frame object stays, but nothing will answer it. */
		if (session->frame->capturing)
			frame_send_failed(session->frame,
					  EXT_IMAGE_COPY_CAPTURE_FRAME_V1_FAILURE_REASON_STOPPED);
		session->frame->session = NULL;
	}
	wl_list_remove(&session->link);
	free(session);
}

/* A session resource that is stopped from the start (no server, a cursor). */
static void create_stopped_session(struct wl_client *client, int version, uint32_t id)
{
	struct wl_resource *resource = wl_resource_create(client,
							  &ext_image_copy_capture_session_v1_interface,
							  version, id);
	if (!resource) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &session_impl, NULL, session_resource_destroy);
	ext_image_copy_capture_session_v1_send_stopped(resource);
}

/* ---- cursor sessions: offered, never served ---- */

static void cursor_handle_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static void cursor_handle_get_capture_session(struct wl_client *client,
					      struct wl_resource *resource, uint32_t id)
{
	struct cursor_session *cursor = wl_resource_get_user_data(resource);
	if (cursor->got_session) {
		wl_resource_post_error(resource,
				       EXT_IMAGE_COPY_CAPTURE_CURSOR_SESSION_V1_ERROR_DUPLICATE_SESSION,
				       "get_capture_session sent twice");
		return;
	}
	cursor->got_session = true;
	/* No separate cursor image: with --cursor the pointer is in the
	 * output's picture. Nothing will ever be captured here. */
	create_stopped_session(client, wl_resource_get_version(resource), id);
}

static const struct ext_image_copy_capture_cursor_session_v1_interface cursor_impl = {
	.destroy = cursor_handle_destroy,
	.get_capture_session = cursor_handle_get_capture_session,
};

static void cursor_resource_destroy(struct wl_resource *resource)
{
	free(wl_resource_get_user_data(resource));
}

/* ---- the manager ---- */

static void manager_handle_create_session(struct wl_client *client, struct wl_resource *resource,
					  uint32_t id, struct wl_resource *source, uint32_t options)
{
	struct copy_server *server = wl_resource_get_user_data(resource);
	if (options & ~(uint32_t)EXT_IMAGE_COPY_CAPTURE_MANAGER_V1_OPTIONS_PAINT_CURSORS) {
		wl_resource_post_error(resource, EXT_IMAGE_COPY_CAPTURE_MANAGER_V1_ERROR_INVALID_OPTION,
				       "unknown options 0x%x", options);
		return;
	}
	int version = wl_resource_get_version(resource);
	/* Every source is the output (no other source manager is offered). */
	if (!server || !wl_resource_instance_of(source, &ext_image_capture_source_v1_interface,
						&source_impl)) {
		create_stopped_session(client, version, id);
		return;
	}
	struct copy_session *session = calloc(1, sizeof(*session));
	if (!session) {
		wl_client_post_no_memory(client);
		return;
	}
	session->resource = wl_resource_create(client, &ext_image_copy_capture_session_v1_interface,
					       version, id);
	if (!session->resource) {
		free(session);
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(session->resource, &session_impl, session,
				       session_resource_destroy);
	session->server = server;
	wl_list_insert(&server->sessions, &session->link);
	session_send_constraints(session);
}

static void manager_handle_create_pointer_cursor_session(struct wl_client *client,
							 struct wl_resource *resource, uint32_t id,
							 struct wl_resource *source,
							 struct wl_resource *pointer)
{
	struct cursor_session *cursor = calloc(1, sizeof(*cursor));
	if (!cursor) {
		wl_client_post_no_memory(client);
		return;
	}
	struct wl_resource *cursor_resource =
		wl_resource_create(client, &ext_image_copy_capture_cursor_session_v1_interface,
				   wl_resource_get_version(resource), id);
	if (!cursor_resource) {
		free(cursor);
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(cursor_resource, &cursor_impl, cursor, cursor_resource_destroy);
}

static void manager_handle_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static const struct ext_image_copy_capture_manager_v1_interface manager_impl = {
	.create_session = manager_handle_create_session,
	.create_pointer_cursor_session = manager_handle_create_pointer_cursor_session,
	.destroy = manager_handle_destroy,
};

static void manager_resource_destroy(struct wl_resource *resource)
{
	wl_list_remove(wl_resource_get_link(resource));
}

static void manager_bind(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct copy_server *server = data;
	struct wl_resource *resource = wl_resource_create(client,
							  &ext_image_copy_capture_manager_v1_interface,
							  (int)version, id);
	if (!resource) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &manager_impl, server, manager_resource_destroy);
	wl_list_insert(&server->managers, wl_resource_get_link(resource));
}

/* ---- output sources: the display's one output, no state ---- */

static void source_handle_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static const struct ext_image_capture_source_v1_interface source_impl = {
	.destroy = source_handle_destroy,
};

static void output_source_handle_create_source(struct wl_client *client,
					       struct wl_resource *resource, uint32_t id,
					       struct wl_resource *output)
{
	/* libwayland has checked that `output` is a wl_output, and this
	 * display has one. */
	struct wl_resource *source = wl_resource_create(client, &ext_image_capture_source_v1_interface,
							wl_resource_get_version(resource), id);
	if (!source) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(source, &source_impl, NULL, NULL);
}

static void output_source_handle_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static const struct ext_output_image_capture_source_manager_v1_interface output_source_impl = {
	.create_source = output_source_handle_create_source,
	.destroy = output_source_handle_destroy,
};

static void output_source_bind(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct wl_resource *resource =
		wl_resource_create(client, &ext_output_image_capture_source_manager_v1_interface,
				   (int)version, id);
	if (!resource) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &output_source_impl, NULL, NULL);
}

/* ---- the sink ---- */

static void handle_frame(struct frame_sink *sink, const struct frame *frame)
{
	struct copy_server *server = wl_container_of(sink, server, sink);
	if (frame->format != FRAME_XRGB8888 || (!frame->data && !frame->buffer) ||
	    frame->width <= 0 || frame->height <= 0)
		return;
	frame_unref(&server->newest);
	frame_ref(&server->newest, frame);
	server->have_newest = true;
	server->scratch_valid = false;

	bool resized = frame->width != server->width || frame->height != server->height;
	if (resized) {
		server->width = frame->width;
		server->height = frame->height;
	}
	struct copy_session *session, *tmp;
	wl_list_for_each(session, &server->sessions, link) {
		if (resized)
			session_send_constraints(session);
		if (resized || !frame->damage_known)
			session_damage_all(session);
		else
			damage_add(&session->damage, &session->damaged, &frame->damage);
	}
	/* frame_complete() never destroys a session; _safe for clarity. */
	wl_list_for_each_safe(session, tmp, &server->sessions, link) {
		struct copy_frame *waiting = session->frame;
		if (waiting && waiting->capturing && !waiting->answered &&
		    (session->damaged || !session->captured_once))
			frame_complete(waiting);
	}
}

static const struct frame_sink_impl sink_impl = {
	.frame = handle_frame,
};

/* ---- the server ---- */

struct copy_server *copy_server_create(struct wl_display *display,
				       const struct shm_writer_impl *shm, int width, int height)
{
	struct copy_server *server = calloc(1, sizeof(*server));
	if (!server) {
		LOG_ERR("out of memory");
		return NULL;
	}
	server->display = display;
	server->shm = shm;
	server->width = width;
	server->height = height;
	wl_list_init(&server->managers);
	wl_list_init(&server->sessions);
	wl_list_init(&server->sink.link);
	server->manager_global = wl_global_create(display, &ext_image_copy_capture_manager_v1_interface,
						  1, server, manager_bind);
	server->source_global = wl_global_create(display,
						 &ext_output_image_capture_source_manager_v1_interface,
						 1, server, output_source_bind);
	if (!server->manager_global || !server->source_global) {
		LOG_ERR("cannot create the ext-image-copy-capture globals");
		copy_server_destroy(server);
		return NULL;
	}
	return server;
}

void copy_server_connect(struct copy_server *server, struct frame_source *source)
{
	frame_sink_connect(&server->sink, &sink_impl, source);
}

void copy_server_destroy(struct copy_server *server)
{
	if (!server)
		return;
	frame_sink_disconnect(&server->sink);
	if (server->manager_global)
		wl_global_destroy(server->manager_global);
	if (server->source_global)
		wl_global_destroy(server->source_global);
	struct wl_resource *manager, *tmp_manager;
	wl_resource_for_each_safe(manager, tmp_manager, &server->managers) {
		wl_resource_set_user_data(manager, NULL);
		wl_list_remove(wl_resource_get_link(manager));
		wl_list_init(wl_resource_get_link(manager));
	}
	struct copy_session *session, *tmp;
	wl_list_for_each_safe(session, tmp, &server->sessions, link)
		session_stop(session);
	frame_unref(&server->newest);
	free(server->scratch);
	free(server);
}
