#define LOG_MODULE "pipewire"
#include "pipewire_source.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <pipewire/pipewire.h>
#include <spa/buffer/meta.h>
#include <spa/param/video/format-utils.h>
#include <spa/pod/builder.h>
#include <spa/utils/result.h>

#include "clock.h"
#include "log.h"
#include "picture_pool.h"
#include "pipewire_meta.h"
#include "sigbus_guard.h"

/* DRM format modifiers (drm_fourcc.h's values; libdrm is not ours): a
 * LINEAR dmabuf, or one whose layout the producer did not say, is mapped
 * and read like memory. */
#define MODIFIER_LINEAR 0ULL
#define MODIFIER_INVALID 0x00ffffffffffffffULL

/* How long the start-up round trip to PipeWire may take. */
#define CONNECT_TIMEOUT_MS 5000

/* A Header pts older than this, or later than now, is not a CLOCK_MONOTONIC
 * time of this machine (a producer counting from its own start, say). */
#define PTS_PLAUSIBLE_NS (2LL * 1000000000LL)
#define PTS_FUTURE_NS 1000000LL /* rounding by the producer */

#define MAX_DAMAGE_REGIONS 16
#define CURSOR_MAX_SIZE WL_RECORD_PIPEWIRE_CURSOR_MAX
#define CURSOR_META_SIZE(w, h) \
	(sizeof(struct spa_meta_cursor) + sizeof(struct spa_meta_bitmap) + (size_t)(w) * (h) * 4)

struct video_node {
	uint32_t id;
	uint64_t serial; /* 0: none given */
	char *name;
};

/* One producer buffer's memory, mapped for as long as the stream has it. */
struct buffer_mapping {
	uint8_t *base; /* NULL: MemPtr, the data pointer is already ours */
	size_t size;
};

struct cursor_state {
	bool visible;
	int x, y;     /* the bitmap's top-left corner in buffer coordinates */
	pixman_image_t *bitmap; /* our copy of the last bitmap, a8r8g8b8 */
};

struct pipewire_source {
	struct frame_source frames;
	struct pipewire_selection selection;
	char description[320];

	struct pw_loop *loop;
	struct pw_context *context;
	struct pw_core *core;
	struct spa_hook core_listener;
	struct pw_registry *registry;
	struct spa_hook registry_listener;
	int sync_seq;
	bool synced;
	int core_error; /* a negative errno from the core, 0 when none */
	char core_error_message[160];

	struct video_node *nodes;
	size_t node_count;
	uint32_t node_id;
	bool node_found;

	struct pw_stream *stream;
	struct spa_hook stream_listener;
	struct wl_event_source *loop_source;

	/* The negotiated format. */
	bool have_format;
	pixman_format_code_t pixman_format;
	int width, height;

	struct picture_pool pictures;
	bool delivered;          /* a frame went to the sinks since the format was set */
	bool damage_known;       /* of the buffers since the last delivered frame */
	struct frame_damage damage;
	struct frame_damage last_crop;
	struct cursor_state cursor;
	uint64_t cursor_changes, cursor_drawn; /* Cursor metadata seen, and drawn */
	/* The last frame handed on (referenced), and what its cursor covers:
	 * a buffer that only moves the cursor (no picture, as producers send
	 * for cursor_mode metadata) becomes that picture with the cursor moved. */
	struct picture *last_picture;
	pixman_image_t *under;         /* CURSOR_MAX_SIZE square */
	struct frame_damage under_rect; /* where, in the last picture (empty: nowhere) */
	int64_t last_pts_ns;
	bool warned_pts, warned_size, warned_full, warned_cursor;

	ended_fn ended;
	void *ended_data;
	bool ending;
};

static void source_end(struct pipewire_source *source, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void source_end(struct pipewire_source *source, const char *fmt, ...)
{
	if (source->ending)
		return;
	source->ending = true;
	char why[320];
	va_list args;
	va_start(args, fmt);
	vsnprintf(why, sizeof(why), fmt, args);
	va_end(args);
	if (source->ended)
		source->ended(source->ended_data, why);
	else
		LOG_DBG("%s", why);
}

/* --- the registry: which video nodes there are --- */

static bool is_video_node(const char *type, const struct spa_dict *props)
{
	if (strcmp(type, PW_TYPE_INTERFACE_Node) != 0 || !props)
		return false;
	const char *media_class = spa_dict_lookup(props, PW_KEY_MEDIA_CLASS);
	return media_class && strstr(media_class, "Video") && !strstr(media_class, "Stream/Input");
}

static void registry_global(void *data, uint32_t id, uint32_t permissions, const char *type,
			    uint32_t version, const struct spa_dict *props)
{
	(void)permissions;
	(void)version;
	struct pipewire_source *source = data;
	if (!is_video_node(type, props))
		return;
	struct video_node *nodes = realloc(source->nodes,
					   (source->node_count + 1) * sizeof(*nodes));
	if (!nodes)
		return;
	source->nodes = nodes;
	const char *name = spa_dict_lookup(props, PW_KEY_NODE_NAME);
	const char *serial = spa_dict_lookup(props, PW_KEY_OBJECT_SERIAL);
	struct video_node *node = &nodes[source->node_count++];
	node->id = id;
	node->serial = serial ? strtoull(serial, NULL, 10) : 0;
	node->name = strdup(name ? name : "");
	/* The producer names its node: no escape sequences in our lines. */
	if (node->name)
		wl_record_pipewire_clean_name(node->name);
}

static void registry_global_remove(void *data, uint32_t id)
{
	struct pipewire_source *source = data;
	if (source->node_found && id == source->node_id)
		source_end(source, "%s went away", source->description);
}

static const struct pw_registry_events registry_events = {
	PW_VERSION_REGISTRY_EVENTS,
	.global = registry_global,
	.global_remove = registry_global_remove,
};

static void core_done(void *data, uint32_t id, int seq)
{
	struct pipewire_source *source = data;
	if (id == PW_ID_CORE && seq == source->sync_seq)
		source->synced = true;
}

static void core_error(void *data, uint32_t id, int seq, int res, const char *message)
{
	(void)seq;
	struct pipewire_source *source = data;
	LOG_DBG("PipeWire error on object %" PRIu32 ": %s (%s)", id, message, spa_strerror(res));
	if (id != PW_ID_CORE)
		return;
	source->core_error = res;
	snprintf(source->core_error_message, sizeof(source->core_error_message), "%s",
		 message ? message : spa_strerror(res));
	source_end(source, "PipeWire went away (%s): the recording ends here",
		   source->core_error_message);
}

static const struct pw_core_events core_events = {
	PW_VERSION_CORE_EVENTS,
	.done = core_done,
	.error = core_error,
};

/* Runs PipeWire's loop until the registry has told everything it has. */
static bool roundtrip(struct pipewire_source *source)
{
	source->synced = false;
	source->sync_seq = pw_core_sync(source->core, PW_ID_CORE, 0);
	int64_t deadline = clock_now_ns() + (int64_t)CONNECT_TIMEOUT_MS * 1000000;
	while (!source->synced && !source->core_error) {
		int64_t left_ms = (deadline - clock_now_ns()) / 1000000;
		if (left_ms <= 0)
			return false;
		int n = pw_loop_iterate(source->loop, (int)left_ms);
		if (n < 0 && n != -EINTR)
			return false;
	}
	return source->synced;
}

static const struct video_node *find_node(const struct pipewire_source *source, const char *wanted)
{
	char *end;
	errno = 0;
	unsigned long long number = strtoull(wanted, &end, 10);
	bool numeric = wanted[0] && !*end && errno == 0;
	for (size_t i = 0; i < source->node_count; i++)
		if (numeric && source->nodes[i].id == number)
			return &source->nodes[i];
	for (size_t i = 0; i < source->node_count; i++)
		if (numeric && source->nodes[i].serial && source->nodes[i].serial == number)
			return &source->nodes[i];
	for (size_t i = 0; i < source->node_count; i++)
		if (strcmp(source->nodes[i].name, wanted) == 0)
			return &source->nodes[i];
	return NULL;
}

static void list_nodes(const struct pipewire_source *source, char *out, size_t size)
{
	size_t used = 0;
	out[0] = 0;
	for (size_t i = 0; i < source->node_count && used < size; i++) {
		int n = snprintf(out + used, size - used, "%s%s", i ? ", " : "",
				 source->nodes[i].name[0] ? source->nodes[i].name : "(unnamed)");
		used += n > 0 ? (size_t)n : 0;
	}
	if (!source->node_count)
		snprintf(out, size, "none");
}

/* PipeWire's own messages (a producer's error, a lost connection) concern
 * the node, not this recording: warnings, hidden by -q, and their details
 * under -v; through our log, not PipeWire's own stderr writer. Called from
 * PipeWire's threads too: log_msg writes each line at once. */
static void log_from_pipewire_v(void *object, enum spa_log_level level, const char *file,
				int line, const char *func, const char *fmt, va_list args)
	SPA_PRINTF_FUNC(6, 0);
static void log_from_pipewire_v(void *object, enum spa_log_level level, const char *file,
				int line, const char *func, const char *fmt, va_list args)
{
	(void)object, (void)file, (void)line, (void)func;
	enum log_level ours = level <= SPA_LOG_LEVEL_WARN ? LOG_LEVEL_WARN : LOG_LEVEL_DEBUG;
	if (!log_enabled(ours))
		return;
	/* Each call is one whole line, without its newline. */
	char text[512];
	vsnprintf(text, sizeof(text), fmt, args);
	log_msg(ours, "pipewire", NULL, 0, 0, "%s", text);
}

static void log_from_pipewire(void *object, enum spa_log_level level, const char *file, int line,
			      const char *func, const char *fmt, ...) SPA_PRINTF_FUNC(6, 7);
static void log_from_pipewire(void *object, enum spa_log_level level, const char *file, int line,
			      const char *func, const char *fmt, ...)
{
	va_list args;
	va_start(args, fmt);
	log_from_pipewire_v(object, level, file, line, func, fmt, args);
	va_end(args);
}

/* Version 0: PipeWire falls back to log/logv without topics. */
static const struct spa_log_methods pipewire_log_methods = {
	.version = 0,
	.log = log_from_pipewire,
	.logv = log_from_pipewire_v,
};

static struct spa_log pipewire_log;

static void route_pipewire_logs(void)
{
	pipewire_log.iface = SPA_INTERFACE_INIT(SPA_TYPE_INTERFACE_Log, 0, &pipewire_log_methods, NULL);
	/* PIPEWIRE_DEBUG, when set, still chooses how much PipeWire says. */
	pipewire_log.level = getenv("PIPEWIRE_DEBUG") ? pw_log_level
			     : log_enabled(LOG_LEVEL_DEBUG) ? SPA_LOG_LEVEL_INFO
							    : SPA_LOG_LEVEL_WARN;
	pw_log_set(&pipewire_log);
	pw_log_set_level(pipewire_log.level);
}

struct pipewire_source *pipewire_source_connect(const struct pipewire_selection *selection,
						char *why, size_t why_size)
{
	pw_init(NULL, NULL);
	route_pipewire_logs();
	struct pipewire_source *source = calloc(1, sizeof(*source));
	if (!source) {
		snprintf(why, why_size, "out of memory");
		if (selection->use_remote_fd)
			close(selection->remote_fd);
		pw_deinit();
		return NULL;
	}
	frame_source_init(&source->frames);
	picture_pool_init(&source->pictures);
	source->selection = *selection;
	source->loop = pw_loop_new(NULL);
	if (source->loop) {
		/* Entered for good: only the main thread ever runs it. */
		pw_loop_enter(source->loop);
		/* The context starts PipeWire's data thread. It must take no
		 * signal meant for the program (SIGINT, ...: the main thread
		 * reads them from a signalfd), so it starts with all blocked. */
		sigset_t all, old;
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &old);
		source->context = pw_context_new(source->loop, NULL, 0);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	if (!source->context) {
		snprintf(why, why_size, "cannot set up a PipeWire client: %s", strerror(errno));
		if (selection->use_remote_fd)
			close(selection->remote_fd);
		pipewire_source_destroy(source);
		return NULL;
	}
	if (selection->use_remote_fd) {
		source->core = pw_context_connect_fd(source->context, selection->remote_fd, NULL, 0);
		if (!source->core) {
			snprintf(why, why_size, "cannot use the PipeWire connection the portal "
				 "opened: %s", strerror(errno));
			pipewire_source_destroy(source);
			return NULL;
		}
	} else {
		source->core = pw_context_connect(source->context, NULL, 0);
	}
	if (!source->core) {
		const char *remote = getenv("PIPEWIRE_REMOTE");
		snprintf(why, why_size, "PipeWire is not running (cannot connect to %s: %s)",
			 remote && remote[0] ? remote : "pipewire-0", strerror(errno));
		pipewire_source_destroy(source);
		return NULL;
	}
	pw_core_add_listener(source->core, &source->core_listener, &core_events, source);
	source->registry = pw_core_get_registry(source->core, PW_VERSION_REGISTRY, 0);
	pw_registry_add_listener(source->registry, &source->registry_listener, &registry_events,
				 source);
	if (!roundtrip(source)) {
		snprintf(why, why_size, "PipeWire does not answer: %s",
			 source->core_error ? source->core_error_message : "timed out");
		pipewire_source_destroy(source);
		return NULL;
	}
	const struct video_node *node = find_node(source, selection->node);
	if (!node) {
		char found[200];
		list_nodes(source, found, sizeof(found));
		snprintf(why, why_size, "no PipeWire video node '%s' (found: %s)", selection->node,
			 found);
		pipewire_source_destroy(source);
		return NULL;
	}
	source->node_id = node->id;
	source->node_found = true;
	snprintf(source->description, sizeof(source->description),
		 "the PipeWire node '%s' (id %" PRIu32 ", serial %" PRIu64 ")", node->name, node->id,
		 node->serial);
	return source;
}

const char *pipewire_source_describe(const struct pipewire_source *source)
{
	return source->description;
}

struct frame_source *pipewire_frame_source(struct pipewire_source *source)
{
	return &source->frames;
}

/* --- format negotiation --- */

static const struct {
	enum spa_video_format spa;
	pixman_format_code_t pixman;
	const char *name;
} formats[] = {
	/* SPA names bytes in memory order: BGRx is DRM's XRGB8888. */
	{ SPA_VIDEO_FORMAT_BGRx, PIXMAN_x8r8g8b8, "BGRx" },
	{ SPA_VIDEO_FORMAT_BGRA, PIXMAN_a8r8g8b8, "BGRA" },
	{ SPA_VIDEO_FORMAT_RGBx, PIXMAN_x8b8g8r8, "RGBx" },
	{ SPA_VIDEO_FORMAT_RGBA, PIXMAN_a8b8g8r8, "RGBA" },
};
#define FORMAT_COUNT (sizeof(formats) / sizeof(formats[0]))

static pixman_format_code_t pixman_format_of(uint32_t spa_format)
{
	for (size_t i = 0; i < FORMAT_COUNT; i++)
		if (formats[i].spa == spa_format)
			return formats[i].pixman;
	return 0;
}

static const char *format_name(uint32_t spa_format)
{
	for (size_t i = 0; i < FORMAT_COUNT; i++)
		if (formats[i].spa == spa_format)
			return formats[i].name;
	return "?";
}

/* One EnumFormat: the raw formats we convert, any size and rate; with
 * `dmabuf`, as LINEAR (or unspecified-layout) dmabufs. */
static const struct spa_pod *build_format(struct spa_pod_builder *b, bool dmabuf)
{
	struct spa_pod_frame object, choice;
	spa_pod_builder_push_object(b, &object, SPA_TYPE_OBJECT_Format, SPA_PARAM_EnumFormat);
	spa_pod_builder_add(b, SPA_FORMAT_mediaType, SPA_POD_Id(SPA_MEDIA_TYPE_video),
			    SPA_FORMAT_mediaSubtype, SPA_POD_Id(SPA_MEDIA_SUBTYPE_raw), 0);
	spa_pod_builder_prop(b, SPA_FORMAT_VIDEO_format, 0);
	spa_pod_builder_push_choice(b, &choice, SPA_CHOICE_Enum, 0);
	spa_pod_builder_id(b, formats[0].spa); /* the default */
	for (size_t i = 0; i < FORMAT_COUNT; i++)
		spa_pod_builder_id(b, formats[i].spa);
	spa_pod_builder_pop(b, &choice);
	if (dmabuf) {
		spa_pod_builder_prop(b, SPA_FORMAT_VIDEO_modifier, SPA_POD_PROP_FLAG_MANDATORY);
		spa_pod_builder_push_choice(b, &choice, SPA_CHOICE_Enum, 0);
		spa_pod_builder_long(b, (int64_t)MODIFIER_LINEAR);
		spa_pod_builder_long(b, (int64_t)MODIFIER_LINEAR);
		spa_pod_builder_long(b, (int64_t)MODIFIER_INVALID);
		spa_pod_builder_pop(b, &choice);
	}
	spa_pod_builder_add(b,
		SPA_FORMAT_VIDEO_size, SPA_POD_CHOICE_RANGE_Rectangle(
			&SPA_RECTANGLE(1920, 1080), &SPA_RECTANGLE(1, 1), &SPA_RECTANGLE(16384, 16384)),
		SPA_FORMAT_VIDEO_framerate, SPA_POD_CHOICE_RANGE_Fraction(
			&SPA_FRACTION(60, 1), &SPA_FRACTION(0, 1), &SPA_FRACTION(1000, 1)),
		0);
	return spa_pod_builder_pop(b, &object);
}

static const struct spa_pod *build_meta(struct spa_pod_builder *b, uint32_t type, int min,
					int max)
{
	if (min == max)
		return spa_pod_builder_add_object(b, SPA_TYPE_OBJECT_ParamMeta, SPA_PARAM_Meta,
			SPA_PARAM_META_type, SPA_POD_Id(type), SPA_PARAM_META_size, SPA_POD_Int(min));
	return spa_pod_builder_add_object(b, SPA_TYPE_OBJECT_ParamMeta, SPA_PARAM_Meta,
		SPA_PARAM_META_type, SPA_POD_Id(type),
		SPA_PARAM_META_size, SPA_POD_CHOICE_RANGE_Int(max, min, max));
}

static void stream_param_changed(void *data, uint32_t id, const struct spa_pod *param)
{
	struct pipewire_source *source = data;
	if (id != SPA_PARAM_Format)
		return;
	source->have_format = false;
	if (!param)
		return;
	struct spa_video_info_raw info = { 0 };
	uint32_t media_type, media_subtype;
	if (spa_format_parse(param, &media_type, &media_subtype) < 0 ||
	    media_type != SPA_MEDIA_TYPE_video || media_subtype != SPA_MEDIA_SUBTYPE_raw ||
	    spa_format_video_raw_parse(param, &info) < 0 || !pixman_format_of(info.format) ||
	    info.size.width == 0 || info.size.height == 0) {
		pw_stream_set_error(source->stream, -EINVAL, "unusable video format");
		return;
	}
	char why[160];
	if (!wl_record_pipewire_size_ok(info.size.width, info.size.height, why, sizeof(why))) {
		pw_stream_set_error(source->stream, -EINVAL, "unusable video size");
		source_end(source, "%s: %s", source->description, why);
		return;
	}
	bool dmabuf = info.flags & SPA_VIDEO_FLAG_MODIFIER;
	source->pixman_format = pixman_format_of(info.format);
	source->width = (int)info.size.width;
	source->height = (int)info.size.height;
	source->have_format = true;
	source->delivered = false;
	LOG_INFO("PipeWire stream: %dx%d %s%s", source->width, source->height,
		 format_name(info.format),
		 dmabuf ? " in LINEAR dmabufs" : "");

	uint8_t buffer[1024];
	struct spa_pod_builder b = SPA_POD_BUILDER_INIT(buffer, sizeof(buffer));
	const struct spa_pod *params[5];
	int types = dmabuf ? 1 << SPA_DATA_DmaBuf : (1 << SPA_DATA_MemFd) | (1 << SPA_DATA_MemPtr);
	params[0] = spa_pod_builder_add_object(&b, SPA_TYPE_OBJECT_ParamBuffers, SPA_PARAM_Buffers,
		SPA_PARAM_BUFFERS_buffers, SPA_POD_CHOICE_RANGE_Int(4, 2, 16),
		SPA_PARAM_BUFFERS_blocks, SPA_POD_Int(1),
		SPA_PARAM_BUFFERS_dataType, SPA_POD_CHOICE_FLAGS_Int(types));
	params[1] = build_meta(&b, SPA_META_Header, sizeof(struct spa_meta_header),
			       sizeof(struct spa_meta_header));
	params[2] = build_meta(&b, SPA_META_VideoDamage, sizeof(struct spa_meta_region),
			       sizeof(struct spa_meta_region) * MAX_DAMAGE_REGIONS);
	params[3] = build_meta(&b, SPA_META_VideoCrop, sizeof(struct spa_meta_region),
			       sizeof(struct spa_meta_region));
	params[4] = build_meta(&b, SPA_META_Cursor, (int)CURSOR_META_SIZE(1, 1),
			       (int)CURSOR_META_SIZE(CURSOR_MAX_SIZE, CURSOR_MAX_SIZE));
	pw_stream_update_params(source->stream, params, 5);
}

/* --- buffers --- */

static void stream_add_buffer(void *data, struct pw_buffer *buffer)
{
	(void)data;
	struct spa_data *d = &buffer->buffer->datas[0];
	struct buffer_mapping *mapping = calloc(1, sizeof(*mapping));
	if (!mapping)
		return;
	if (d->type == SPA_DATA_MemFd || d->type == SPA_DATA_DmaBuf) {
		/* From the file's start: the offset need not be page-aligned. */
		size_t size = (size_t)d->mapoffset + d->maxsize;
		void *base = mmap(NULL, size, PROT_READ, MAP_SHARED, (int)d->fd, 0);
		if (base == MAP_FAILED) {
			LOG_WARN("cannot map a PipeWire buffer of %zu bytes: %s", size, strerror(errno));
			free(mapping);
			return;
		}
		mapping->base = base;
		mapping->size = size;
	}
	buffer->user_data = mapping;
}

static void stream_remove_buffer(void *data, struct pw_buffer *buffer)
{
	(void)data;
	struct buffer_mapping *mapping = buffer->user_data;
	if (!mapping)
		return;
	if (mapping->base)
		munmap(mapping->base, mapping->size);
	free(mapping);
	buffer->user_data = NULL;
}

/* A copy of the cursor's new bitmap (checked to lie within its meta). */
static void take_bitmap(struct pipewire_source *source, const struct wl_record_pipewire_cursor *c)
{
	pixman_format_code_t format = pixman_format_of(c->format);
	if (!format)
		return;
	pixman_image_t *from = pixman_image_create_bits_no_clear(
		format, c->width, c->height, (uint32_t *)(uintptr_t)c->pixels, c->stride);
	pixman_image_t *copy = pixman_image_create_bits(
		PIXMAN_FORMAT_A(format) ? PIXMAN_a8r8g8b8 : PIXMAN_x8r8g8b8, c->width, c->height,
		NULL, 0);
	if (from && copy) {
		pixman_image_composite32(PIXMAN_OP_SRC, from, NULL, copy, 0, 0, 0, 0, 0, 0, c->width,
					 c->height);
		if (source->cursor.bitmap)
			pixman_image_unref(source->cursor.bitmap);
		source->cursor.bitmap = copy;
		copy = NULL;
	}
	if (from)
		pixman_image_unref(from);
	if (copy)
		pixman_image_unref(copy);
}

/* The damage and cursor of a buffer, whether or not its picture is used:
 * a newer buffer's picture holds every older one's changes. What the
 * metadata says is read and checked by pipewire_meta.c. */
static void note_metadata(struct pipewire_source *source, struct spa_buffer *buffer)
{
	struct wl_record_pipewire_meta meta;
	wl_record_pipewire_meta_read(buffer, &meta);
	if (!meta.has_damage)
		source->damage_known = false;
	else
		frame_damage_union(&source->damage, &meta.damage);

	const struct wl_record_pipewire_cursor *cursor = &meta.cursor;
	if (!cursor->present || source->selection.no_cursor)
		return;
	if (cursor->bitmap == WL_RECORD_PIPEWIRE_BITMAP_HIDDEN) {
		if (source->cursor.bitmap)
			pixman_image_unref(source->cursor.bitmap);
		source->cursor.bitmap = NULL;
	} else if (cursor->bitmap == WL_RECORD_PIPEWIRE_BITMAP_NEW) {
		take_bitmap(source, cursor);
	} else if (cursor->bitmap == WL_RECORD_PIPEWIRE_BITMAP_INVALID && !source->warned_cursor) {
		/* Once: a producer that lies once lies in every buffer. */
		source->warned_cursor = true;
		LOG_WARN("the PipeWire producer's cursor bitmap does not fit in its metadata: the "
			 "cursor is not drawn");
	}
	source->cursor.visible = source->cursor.bitmap != NULL;
	source->cursor.x = cursor->x;
	source->cursor.y = cursor->y;
	source->cursor_changes++;
}

/* The VideoCrop rectangle within the buffer, or the whole buffer. */
static struct frame_damage crop_of(struct pipewire_source *source, struct spa_buffer *buffer)
{
	struct frame_damage whole = { 0, 0, source->width, source->height };
	struct wl_record_pipewire_meta meta;
	wl_record_pipewire_meta_read(buffer, &meta);
	if (!meta.has_crop)
		return whole;
	struct frame_damage cut = meta.crop;
	frame_damage_clip(&cut, &whole);
	return cut.x2 > cut.x1 && cut.y2 > cut.y1 ? cut : whole;
}

static int64_t frame_time(struct pipewire_source *source, struct spa_buffer *buffer, int64_t now)
{
	struct wl_record_pipewire_meta meta;
	wl_record_pipewire_meta_read(buffer, &meta);
	if (meta.has_header && meta.pts > now - PTS_PLAUSIBLE_NS && meta.pts <= now + PTS_FUTURE_NS)
		return meta.pts;
	if (meta.has_header && !source->warned_pts) {
		source->warned_pts = true;
		LOG_DBG("the producer's pts (%" PRId64 ") is not a CLOCK_MONOTONIC time: frames "
			"are timed when they arrive", meta.pts);
	}
	return now;
}

static bool same_rect(const struct frame_damage *a, const struct frame_damage *b)
{
	return a->x1 == b->x1 && a->y1 == b->y1 && a->x2 == b->x2 && a->y2 == b->y2;
}

/* Draws the cursor into `image` (a picture cut to `crop`), keeping what
 * it covers; where it was drawn (empty: nowhere). */
static struct frame_damage draw_cursor(struct pipewire_source *source, pixman_image_t *image,
				       const struct frame_damage *crop)
{
	struct frame_damage bounds = { 0, 0, pixman_image_get_width(image),
				       pixman_image_get_height(image) };
	source->under_rect = (struct frame_damage){ 0 };
	source->cursor_drawn = source->cursor_changes;
	if (!source->cursor.visible || source->selection.no_cursor)
		return source->under_rect;
	if (!source->under) {
		source->under = pixman_image_create_bits(PIXMAN_x8r8g8b8, CURSOR_MAX_SIZE,
							 CURSOR_MAX_SIZE, NULL, 0);
		if (!source->under)
			return source->under_rect;
	}
	int width = pixman_image_get_width(source->cursor.bitmap);
	int height = pixman_image_get_height(source->cursor.bitmap);
	struct frame_damage at = { source->cursor.x - crop->x1, source->cursor.y - crop->y1,
				   source->cursor.x - crop->x1 + width,
				   source->cursor.y - crop->y1 + height };
	struct frame_damage covered = at;
	frame_damage_clip(&covered, &bounds);
	if (covered.x1 >= covered.x2 || covered.y1 >= covered.y2)
		return source->under_rect;
	pixman_image_composite32(PIXMAN_OP_SRC, image, NULL, source->under, covered.x1,
				 covered.y1, 0, 0, 0, 0, covered.x2 - covered.x1,
				 covered.y2 - covered.y1);
	pixman_image_composite32(PIXMAN_OP_OVER, source->cursor.bitmap, NULL, image, 0, 0, 0, 0,
				 at.x1, at.y1, width, height);
	source->under_rect = covered;
	return covered;
}

/* Draws the cursor into `picture` (locked by the caller: the lock becomes
 * source->last_picture's) and hands it on. `damage` (when known) is
 * what changed in the picture apart from the cursor, in its coordinates:
 * where the cursor was and is is added. */
static void hand_on(struct pipewire_source *source, struct picture *picture,
		    const struct frame_damage *crop, int64_t pts, bool damage_known,
		    struct frame_damage damage)
{
	struct frame_damage old_cursor = source->under_rect;
	struct frame_damage new_cursor = draw_cursor(source, picture->image, crop);
	struct frame frame = {
		.format = FRAME_XRGB8888,
		.data = (uint8_t *)pixman_image_get_data(picture->image),
		.width = pixman_image_get_width(picture->image),
		.height = pixman_image_get_height(picture->image),
		.stride = pixman_image_get_stride(picture->image),
		.pts_ns = pts,
		.damage_known = damage_known,
		.buffer = &picture->base,
	};
	if (damage_known) {
		frame_damage_union(&damage, &old_cursor);
		frame_damage_union(&damage, &new_cursor);
		frame.damage = damage;
	}
	if (source->last_pts_ns && frame.pts_ns < source->last_pts_ns)
		frame.pts_ns = source->last_pts_ns; /* never back in time */
	source->last_pts_ns = frame.pts_ns;
	/* The pool's lock on it becomes the last picture's. */
	if (source->last_picture)
		wl_record_buffer_unlock(&source->last_picture->base);
	source->last_picture = picture;
	source->last_crop = *crop;
	source->delivered = true;
	frame_source_emit(&source->frames, &frame);
}

/* Copies a buffer's picture out and hands it to the sinks. */
static void deliver(struct pipewire_source *source, struct pw_buffer *pw_buffer, int64_t now)
{
	struct spa_buffer *buffer = pw_buffer->buffer;
	struct buffer_mapping *mapping = pw_buffer->user_data;
	struct spa_data *d = &buffer->datas[0];
	if (!mapping || !source->have_format || !d->chunk)
		return;
	const uint8_t *base = mapping->base ? mapping->base + d->mapoffset : d->data;
	size_t offset;
	int stride;
	if (!base || !wl_record_pipewire_chunk_layout(d, d->maxsize, source->width, source->height,
						      &offset, &stride)) {
		if (!source->warned_size) {
			source->warned_size = true;
			LOG_WARN("a PipeWire buffer is too small for its %dx%d picture: left out",
				 source->width, source->height);
		}
		return;
	}

	struct frame_damage crop = crop_of(source, buffer);
	int width = crop.x2 - crop.x1, height = crop.y2 - crop.y1;
	struct picture *picture = picture_pool_get(&source->pictures, width, height);
	if (!picture) {
		if (!source->warned_full) {
			source->warned_full = true;
			LOG_WARN("every picture is still kept by a sink: PipeWire frames are dropped");
		}
		return; /* the damage stays for the next one */
	}

	pixman_image_t *from = pixman_image_create_bits_no_clear(
		source->pixman_format, source->width, source->height,
		(uint32_t *)(uintptr_t)(base + offset), stride);
	if (!from) {
		wl_record_buffer_unlock(&picture->base);
		return;
	}
	if (mapping->base)
		sigbus_guard_begin(mapping->base, mapping->size);
	pixman_image_composite32(PIXMAN_OP_SRC, from, NULL, picture->image, crop.x1, crop.y1, 0, 0,
				 0, 0, width, height);
	bool intact = !mapping->base || sigbus_guard_end();
	pixman_image_unref(from);
	if (!intact) {
		wl_record_buffer_unlock(&picture->base);
		source_end(source, "the PipeWire producer took its buffer away while it was read "
			   "(the memory shrank)");
		return;
	}

	/* The producer's damage since our last copy, moved into the cut picture. */
	struct frame_damage bounds = { 0, 0, width, height };
	bool damage_known = source->delivered && source->damage_known &&
			    same_rect(&crop, &source->last_crop);
	struct frame_damage damage = { 0 };
	if (damage_known && source->damage.x1 < source->damage.x2 &&
	    source->damage.y1 < source->damage.y2) {
		damage = (struct frame_damage){
			source->damage.x1 - crop.x1, source->damage.y1 - crop.y1,
			source->damage.x2 - crop.x1, source->damage.y2 - crop.y1,
		};
		frame_damage_clip(&damage, &bounds);
	}
	source->damage_known = true;
	source->damage = (struct frame_damage){ 0 };
	hand_on(source, picture, &crop, frame_time(source, buffer, now), damage_known, damage);
}

/* A buffer that only moved the cursor: the last picture again, the cursor
 * where it is now. The producer's damage, if any, waits for its next
 * picture. */
static void redraw_cursor(struct pipewire_source *source, int64_t pts)
{
	struct picture *last = source->last_picture;
	if (!last)
		return;
	int width = pixman_image_get_width(last->image);
	int height = pixman_image_get_height(last->image);
	struct picture *picture = picture_pool_get(&source->pictures, width, height);
	if (!picture)
		return;
	pixman_image_composite32(PIXMAN_OP_SRC, last->image, NULL, picture->image, 0, 0, 0, 0, 0,
				 0, width, height);
	struct frame_damage *under = &source->under_rect;
	if (under->x1 < under->x2 && under->y1 < under->y2)
		pixman_image_composite32(PIXMAN_OP_SRC, source->under, NULL, picture->image, 0, 0, 0,
					 0, under->x1, under->y1, under->x2 - under->x1,
					 under->y2 - under->y1);
	hand_on(source, picture, &source->last_crop, pts, true, (struct frame_damage){ 0 });
}

static bool has_picture(const struct pw_buffer *buffer)
{
	const struct spa_data *d = &buffer->buffer->datas[0];
	return d->chunk && d->chunk->size && !(d->chunk->flags & SPA_CHUNK_FLAG_CORRUPTED);
}

static void stream_process(void *data)
{
	struct pipewire_source *source = data;
	int64_t now = clock_now_ns();
	struct pw_buffer *newest = NULL, *buffer;
	int64_t cursor_pts = now;
	/* Only the newest picture matters; the others go straight back, their
	 * damage and cursor noted. */
	while ((buffer = pw_stream_dequeue_buffer(source->stream))) {
		note_metadata(source, buffer->buffer);
		if (!has_picture(buffer)) {
			cursor_pts = frame_time(source, buffer->buffer, now);
			pw_stream_queue_buffer(source->stream, buffer);
			continue;
		}
		if (newest)
			pw_stream_queue_buffer(source->stream, newest);
		newest = buffer;
	}
	if (!source->ending && newest)
		deliver(source, newest, now);
	else if (!source->ending && source->cursor_drawn != source->cursor_changes &&
		 source->have_format)
		redraw_cursor(source, cursor_pts);
	if (newest)
		pw_stream_queue_buffer(source->stream, newest);
}

static void stream_state_changed(void *data, enum pw_stream_state old,
				 enum pw_stream_state state, const char *error)
{
	struct pipewire_source *source = data;
	LOG_DBG("stream: %s -> %s%s%s", pw_stream_state_as_string(old),
		pw_stream_state_as_string(state), error ? ": " : "", error ? error : "");
	if (state == PW_STREAM_STATE_ERROR)
		source_end(source, "the PipeWire stream of %s failed: %s", source->description,
			   error ? error : "no reason given");
	else if (state == PW_STREAM_STATE_UNCONNECTED && old != PW_STREAM_STATE_UNCONNECTED)
		source_end(source, "the PipeWire stream of %s was disconnected",
			   source->description);
}

static const struct pw_stream_events stream_events = {
	PW_VERSION_STREAM_EVENTS,
	.state_changed = stream_state_changed,
	.param_changed = stream_param_changed,
	.add_buffer = stream_add_buffer,
	.remove_buffer = stream_remove_buffer,
	.process = stream_process,
};

/* PipeWire's loop is an epoll fd: readable when any of its sources is. */
static int handle_loop(int fd, uint32_t mask, void *data)
{
	(void)fd;
	(void)mask;
	struct pipewire_source *source = data;
	int n = pw_loop_iterate(source->loop, 0);
	if (n < 0 && n != -EINTR)
		source_end(source, "PipeWire's loop failed: %s", spa_strerror(n));
	return 0;
}

bool pipewire_source_start(struct pipewire_source *source, struct wl_event_loop *loop,
			   ended_fn ended, void *data)
{
	if (!sigbus_guard_install())
		return false;
	source->ended = ended;
	source->ended_data = data;
	char target[32];
	snprintf(target, sizeof(target), "%" PRIu32, source->node_id);
	for (size_t i = 0; i < source->node_count; i++)
		if (source->nodes[i].id == source->node_id && source->nodes[i].serial)
			snprintf(target, sizeof(target), "%" PRIu64, source->nodes[i].serial);
	struct pw_properties *props = pw_properties_new(
		PW_KEY_MEDIA_TYPE, "Video", PW_KEY_MEDIA_CATEGORY, "Capture",
		PW_KEY_MEDIA_ROLE, "Screen", PW_KEY_NODE_NAME, "wl-record",
		PW_KEY_TARGET_OBJECT, target,
		/* Its node gone, the recording ends; never another node. */
		PW_KEY_NODE_DONT_RECONNECT, "true", NULL);
	source->stream = pw_stream_new(source->core, "wl-record", props);
	if (!source->stream) {
		LOG_ERR("cannot make a PipeWire stream: %s", strerror(errno));
		return false;
	}
	pw_stream_add_listener(source->stream, &source->stream_listener, &stream_events, source);

	uint8_t buffer[2048];
	struct spa_pod_builder b = SPA_POD_BUILDER_INIT(buffer, sizeof(buffer));
	const struct spa_pod *params[2] = { build_format(&b, true), build_format(&b, false) };
	int res = pw_stream_connect(source->stream, PW_DIRECTION_INPUT, PW_ID_ANY,
				    PW_STREAM_FLAG_AUTOCONNECT, params, 2);
	if (res < 0) {
		LOG_ERR("cannot connect a stream to %s: %s", source->description, spa_strerror(res));
		return false;
	}
	source->loop_source = wl_event_loop_add_fd(loop, pw_loop_get_fd(source->loop),
						   WL_EVENT_READABLE, handle_loop, source);
	if (!source->loop_source) {
		LOG_ERRNO("cannot watch PipeWire's loop");
		return false;
	}
	/* What the calls above queued is sent from the loop: run it once now. */
	pw_loop_iterate(source->loop, 0);
	return true;
}

void pipewire_source_destroy(struct pipewire_source *source)
{
	if (!source)
		return;
	frame_source_finish(&source->frames);
	if (source->loop_source)
		wl_event_source_remove(source->loop_source);
	source->ended = NULL;
	/* Still listened to: its buffers are unmapped in remove_buffer. */
	if (source->stream)
		pw_stream_destroy(source->stream);
	if (source->registry) {
		spa_hook_remove(&source->registry_listener);
		pw_proxy_destroy((struct pw_proxy *)source->registry);
	}
	if (source->core) {
		spa_hook_remove(&source->core_listener);
		pw_core_disconnect(source->core);
	}
	if (source->context)
		pw_context_destroy(source->context);
	if (source->loop) {
		pw_loop_leave(source->loop);
		pw_loop_destroy(source->loop);
	}
	if (source->last_picture)
		wl_record_buffer_unlock(&source->last_picture->base);
	picture_pool_finish(&source->pictures);
	if (source->under)
		pixman_image_unref(source->under);
	if (source->cursor.bitmap)
		pixman_image_unref(source->cursor.bitmap);
	for (size_t i = 0; i < source->node_count; i++)
		free(source->nodes[i].name);
	free(source->nodes);
	free(source);
	pw_deinit();
}
