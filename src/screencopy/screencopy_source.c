#define LOG_MODULE "screencopy"
#include "screencopy_source.h"

#include <errno.h>
#include <poll.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <pixman.h>
#include <wayland-client.h>

#include "clock.h"
#include "log.h"
#include "wlr-screencopy-unstable-v1-client-protocol.h"
#include "xdg-output-unstable-v1-client-protocol.h"

/* Three do for a recording: the last picture (kept by the source and the
 * sinks' newest), the pacer's pending one, the copy under way; one more when
 * a sink keeps one longer. When all are kept, the next copy waits RETRY_MS
 * at a time. */
#define MAX_BUFFERS 4
#define RETRY_MS 5
#define SCREENCOPY_VERSION 3
#define XDG_OUTPUT_VERSION 3
#define OUTPUT_NAME_SIZE 64

/* One wl_output of the desktop, with what -o, -g and --list-outputs need:
 * its name (wl_output v4, else xdg-output v2) and its place in the
 * compositor's logical space (xdg-output, else wl_output.geometry and the
 * mode divided by the scale). */
struct desktop_output {
	struct wl_list link; /* screencopy_source.outputs, in advertised order */
	struct screencopy_source *source;
	struct wl_output *wl_output;
	struct zxdg_output_v1 *xdg_output;
	uint32_t global;
	uint32_t version;
	char name[OUTPUT_NAME_SIZE];
	char xdg_name[OUTPUT_NAME_SIZE];
	int mode_width, mode_height, refresh_mhz;
	int scale;
	int32_t transform;
	int geometry_x, geometry_y;
	bool logical_known;
	int logical_x, logical_y, logical_width, logical_height;
};

/* One wl_shm buffer the compositor copies into, and the picture of the
 * frames made from it. Reference counted across threads (a sink may drop a
 * frame on another thread): the source's list holds one reference, each
 * kept frame one more, so it is free to copy into again at exactly one. The
 * memory goes with the last reference, the wl_buffer with the source. */
struct shm_buffer {
	atomic_int refs;
	struct wl_buffer *wl_buffer;
	uint8_t *data;
	size_t size;
	uint32_t format; /* wl_shm format */
	int width, height, stride;
	/* XBGR/ABGR pictures are converted into this XRGB copy for the sinks. */
	pixman_image_t *converted;
};

struct copy_offer {
	uint32_t format;
	int width, height, stride;
	int rank; /* 0: unusable */
};

struct screencopy_source {
	struct frame_source frames;
	struct wl_display *display;
	struct wl_registry *registry;
	struct wl_shm *shm;
	struct zwlr_screencopy_manager_v1 *manager;
	uint32_t manager_version;
	struct zxdg_output_manager_v1 *xdg_output_manager;
	struct wl_list outputs; /* desktop_output.link */
	bool globals_read;      /* later outputs are not bound: only the chosen one matters */
	struct desktop_output *output; /* the one recorded */
	/* -g: the part of `output` recorded, in its logical coordinates. */
	bool region;
	int region_x, region_y, region_width, region_height;
	int overlay_cursor;
	char description[192];
	char note[160];

	struct wl_event_source *connection;
	struct wl_event_source *retry;
	screencopy_ended_fn ended;
	void *ended_data;
	bool over;

	/* The copy under way. */
	struct zwlr_screencopy_frame_v1 *frame;
	struct copy_offer offer;
	struct shm_buffer *target;
	uint32_t flags;
	bool damage_known;
	struct frame_damage damage;
	bool copied_once; /* later copies wait for damage */
	int64_t start_ns;
	int64_t last_pts_ns;

	struct shm_buffer *buffers[MAX_BUFFERS];
	int buffer_count;
	/* The last picture handed on, kept (one reference) so that the next
	 * copy never lands in it and can be compared with it. */
	struct shm_buffer *last;
	int64_t unchanged_copies;
};

static void buffer_ref(void *picture)
{
	struct shm_buffer *buffer = picture;
	atomic_fetch_add(&buffer->refs, 1);
}

static void buffer_unref(void *picture)
{
	struct shm_buffer *buffer = picture;
	if (atomic_fetch_sub(&buffer->refs, 1) != 1)
		return;
	if (buffer->converted)
		pixman_image_unref(buffer->converted);
	munmap(buffer->data, buffer->size);
	free(buffer);
}

static const struct frame_picture_impl buffer_picture = { buffer_ref, buffer_unref };

static bool buffer_is_free(struct shm_buffer *buffer)
{
	return atomic_load(&buffer->refs) == 1;
}

/* The source lets go of a buffer: its wl_buffer now, its memory when no
 * frame keeps it any more. */
static void buffer_drop(struct shm_buffer *buffer)
{
	if (buffer->wl_buffer)
		wl_buffer_destroy(buffer->wl_buffer);
	buffer->wl_buffer = NULL;
	buffer_unref(buffer);
}

static bool format_is_swapped(uint32_t format)
{
	return format == WL_SHM_FORMAT_XBGR8888 || format == WL_SHM_FORMAT_ABGR8888;
}

/* XRGB and ARGB are what frames hold (alpha ignored); XBGR and ABGR are
 * converted; anything else is not read. */
static int format_rank(uint32_t format)
{
	if (format == WL_SHM_FORMAT_XRGB8888 || format == WL_SHM_FORMAT_ARGB8888)
		return 2;
	return format_is_swapped(format) ? 1 : 0;
}

static struct shm_buffer *buffer_create(struct screencopy_source *source,
					const struct copy_offer *offer)
{
	struct shm_buffer *buffer = calloc(1, sizeof(*buffer));
	if (!buffer)
		return NULL;
	atomic_init(&buffer->refs, 1);
	buffer->format = offer->format;
	buffer->width = offer->width;
	buffer->height = offer->height;
	buffer->stride = offer->stride;
	buffer->size = (size_t)offer->stride * (size_t)offer->height;
	int fd = memfd_create("wl-record-screencopy", MFD_CLOEXEC);
	if (fd < 0) {
		LOG_ERRNO("cannot create a buffer for the copy");
		free(buffer);
		return NULL;
	}
	if (ftruncate(fd, (off_t)buffer->size) < 0) {
		LOG_ERRNO("cannot size a %zu-byte buffer for the copy", buffer->size);
		close(fd);
		free(buffer);
		return NULL;
	}
	buffer->data = mmap(NULL, buffer->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (buffer->data == MAP_FAILED) {
		LOG_ERRNO("cannot map a buffer for the copy");
		close(fd);
		free(buffer);
		return NULL;
	}
	struct wl_shm_pool *pool = wl_shm_create_pool(source->shm, fd, (int32_t)buffer->size);
	buffer->wl_buffer = wl_shm_pool_create_buffer(pool, 0, offer->width, offer->height,
						      offer->stride, offer->format);
	wl_shm_pool_destroy(pool);
	close(fd);
	if (format_is_swapped(offer->format)) {
		buffer->converted = pixman_image_create_bits(PIXMAN_x8r8g8b8, offer->width,
							     offer->height, NULL, 0);
		if (!buffer->converted) {
			LOG_ERR("out of memory for a %dx%d picture", offer->width, offer->height);
			buffer_drop(buffer);
			return NULL;
		}
	}
	return buffer;
}

/* A free buffer for `offer`: one of ours if it fits, else a new one in place
 * of a free one that no longer fits (the output changed size). NULL when
 * every buffer is still kept by a sink. */
static struct shm_buffer *buffer_for(struct screencopy_source *source,
				     const struct copy_offer *offer)
{
	for (int i = 0; i < source->buffer_count; i++) {
		struct shm_buffer *b = source->buffers[i];
		if (buffer_is_free(b) && b->format == offer->format && b->width == offer->width &&
		    b->height == offer->height && b->stride == offer->stride)
			return b;
	}
	for (int i = 0; i < source->buffer_count; i++) {
		if (buffer_is_free(source->buffers[i])) {
			buffer_drop(source->buffers[i]);
			source->buffers[i] = source->buffers[--source->buffer_count];
			break;
		}
	}
	if (source->buffer_count == MAX_BUFFERS)
		return NULL;
	struct shm_buffer *buffer = buffer_create(source, offer);
	if (buffer)
		source->buffers[source->buffer_count++] = buffer;
	return buffer;
}

static void end(struct screencopy_source *source, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void end(struct screencopy_source *source, const char *fmt, ...)
{
	if (source->over)
		return;
	source->over = true;
	char why[256];
	va_list args;
	va_start(args, fmt);
	vsnprintf(why, sizeof(why), fmt, args);
	va_end(args);
	if (source->frame) {
		zwlr_screencopy_frame_v1_destroy(source->frame);
		source->frame = NULL;
	}
	/* A closed connection stays readable: stop watching it. */
	if (source->connection) {
		wl_event_source_remove(source->connection);
		source->connection = NULL;
	}
	if (source->ended)
		source->ended(source->ended_data, why);
}

static void flush(struct screencopy_source *source)
{
	if (!source->connection)
		return;
	if (wl_display_flush(source->display) < 0 && errno != EAGAIN) {
		end(source, "the connection to the compositor broke: %s", strerror(errno));
		return;
	}
	/* What did not fit goes when the socket takes it again. */
	wl_event_source_fd_update(source->connection, errno == EAGAIN
				  ? WL_EVENT_READABLE | WL_EVENT_WRITABLE : WL_EVENT_READABLE);
}

static void request_copy(struct screencopy_source *source);
static void start_capture(struct screencopy_source *source);

static void frame_buffer(void *data, struct zwlr_screencopy_frame_v1 *frame, uint32_t format,
			 uint32_t width, uint32_t height, uint32_t stride)
{
	struct screencopy_source *source = data;
	int rank = format_rank(format);
	/* Said once, not for every frame. */
	if (!source->copied_once)
		LOG_DBG("the compositor offers shm format 0x%08x %ux%u stride %u%s", format, width,
			height, stride, rank ? "" : " (not read)");
	if (width == 0 || height == 0 || width > 16384 || height > 16384 || stride < width * 4 ||
	    stride > 65536 * 4)
		rank = 0;
	if (rank > source->offer.rank) {
		source->offer = (struct copy_offer){ .format = format, .width = (int)width,
						     .height = (int)height, .stride = (int)stride,
						     .rank = rank };
	}
	/* Before v3 this is the only buffer event, with no buffer_done. */
	if (source->manager_version < 3)
		request_copy(source);
}

static void frame_linux_dmabuf(void *data, struct zwlr_screencopy_frame_v1 *frame,
			       uint32_t format, uint32_t width, uint32_t height)
{
	/* shm only in this version. */
}

static void frame_buffer_done(void *data, struct zwlr_screencopy_frame_v1 *frame)
{
	request_copy(data);
}

static void frame_flags(void *data, struct zwlr_screencopy_frame_v1 *frame, uint32_t flags)
{
	struct screencopy_source *source = data;
	source->flags = flags;
}

static void frame_damage(void *data, struct zwlr_screencopy_frame_v1 *frame, uint32_t x,
			 uint32_t y, uint32_t width, uint32_t height)
{
	struct screencopy_source *source = data;
	struct frame damage = {
		.damage_known = true,
		.damage = { (int)x, (int)y, (int)(x + width), (int)(y + height) },
	};
	struct frame into = { .damage_known = source->damage_known, .damage = source->damage };
	frame_damage_merge(&into, &damage);
	source->damage = into.damage;
}

/* Whether the copy in `buffer` holds the same pixels as `last` where the
 * compositor said the output changed (everywhere, without damage). sway 1.7 reports damage for output
 * commits that change nothing (seen: 1 in 5 copies of a client drawing at
 * 20 fps); such a copy is no new picture and costs the encoder a frame. */
static bool copy_unchanged(const struct screencopy_source *source,
			   const struct shm_buffer *buffer)
{
	const struct shm_buffer *last = source->last;
	if (!last || last->format != buffer->format ||
	    last->width != buffer->width || last->height != buffer->height ||
	    last->stride != buffer->stride)
		return false;
	struct frame_damage d = source->damage;
	/* Damage in the copy's own rows, or all of it when they are flipped or
	 * the compositor gives no damage (a v1 copy: answered whether the
	 * output changed or not). */
	if (!source->damage_known || source->flags & ZWLR_SCREENCOPY_FRAME_V1_FLAGS_Y_INVERT)
		d = (struct frame_damage){ 0, 0, buffer->width, buffer->height };
	d.x1 = d.x1 < 0 ? 0 : d.x1;
	d.y1 = d.y1 < 0 ? 0 : d.y1;
	d.x2 = d.x2 > buffer->width ? buffer->width : d.x2;
	d.y2 = d.y2 > buffer->height ? buffer->height : d.y2;
	for (int y = d.y1; y < d.y2; y++) {
		size_t offset = (size_t)buffer->stride * (size_t)y + (size_t)d.x1 * 4;
		if (memcmp(buffer->data + offset, last->data + offset, (size_t)(d.x2 - d.x1) * 4))
			return false;
	}
	return true;
}

static void flip_rows(struct shm_buffer *buffer)
{
	size_t row = (size_t)buffer->width * 4;
	uint8_t *tmp = malloc(row);
	if (!tmp)
		return;
	for (int y = 0; y < buffer->height / 2; y++) {
		uint8_t *a = buffer->data + (size_t)buffer->stride * (size_t)y;
		uint8_t *b = buffer->data + (size_t)buffer->stride * (size_t)(buffer->height - 1 - y);
		memcpy(tmp, a, row);
		memcpy(a, b, row);
		memcpy(b, tmp, row);
	}
	free(tmp);
}

static int clamp(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* The presentation time when it is usable (the compositor's clock is
 * CLOCK_MONOTONIC for wlroots), else now; strictly increasing either way,
 * as the muxer needs. */
static int64_t frame_time(struct screencopy_source *source, uint32_t sec_hi, uint32_t sec_lo,
			  uint32_t nsec)
{
	int64_t now = clock_now_ns();
	int64_t t = (int64_t)(((uint64_t)sec_hi << 32) | sec_lo) * 1000000000 + nsec;
	if (t <= 0 || t > now || t < now - 1000000000LL)
		t = now;
	/* Never before the capture began (the recording's clock starts before). */
	if (t < source->start_ns)
		t = source->start_ns;
	if (t <= source->last_pts_ns)
		t = source->last_pts_ns + 1;
	source->last_pts_ns = t;
	return t;
}

static void frame_ready(void *data, struct zwlr_screencopy_frame_v1 *frame, uint32_t sec_hi,
			uint32_t sec_lo, uint32_t nsec)
{
	struct screencopy_source *source = data;
	struct shm_buffer *buffer = source->target;
	zwlr_screencopy_frame_v1_destroy(source->frame);
	source->frame = NULL;
	source->target = NULL;
	if (copy_unchanged(source, buffer)) {
		source->unchanged_copies++;
		start_capture(source);
		flush(source);
		return;
	}

	struct frame picture = {
		.format = FRAME_XRGB8888,
		.data = buffer->data,
		.width = buffer->width,
		.height = buffer->height,
		.stride = buffer->stride,
		.pts_ns = frame_time(source, sec_hi, sec_lo, nsec),
		.damage_known = source->damage_known,
		.damage = source->damage,
		.picture_impl = &buffer_picture,
		.picture = buffer,
	};
	if (source->flags & ZWLR_SCREENCOPY_FRAME_V1_FLAGS_Y_INVERT) {
		flip_rows(buffer);
		int y1 = picture.damage.y1;
		picture.damage.y1 = buffer->height - picture.damage.y2;
		picture.damage.y2 = buffer->height - y1;
	}
	picture.damage.x1 = clamp(picture.damage.x1, 0, buffer->width);
	picture.damage.x2 = clamp(picture.damage.x2, 0, buffer->width);
	picture.damage.y1 = clamp(picture.damage.y1, 0, buffer->height);
	picture.damage.y2 = clamp(picture.damage.y2, 0, buffer->height);
	if (buffer->converted) {
		pixman_image_t *from = pixman_image_create_bits(
			buffer->format == WL_SHM_FORMAT_XBGR8888 ? PIXMAN_x8b8g8r8 : PIXMAN_a8b8g8r8,
			buffer->width, buffer->height, (uint32_t *)buffer->data, buffer->stride);
		if (!from) {
			end(source, "out of memory");
			return;
		}
		pixman_image_composite32(PIXMAN_OP_SRC, from, NULL, buffer->converted, 0, 0, 0, 0,
					 0, 0, buffer->width, buffer->height);
		pixman_image_unref(from);
		picture.data = (uint8_t *)pixman_image_get_data(buffer->converted);
		picture.stride = pixman_image_get_stride(buffer->converted);
	}
	source->copied_once = true;
	if (source->last)
		buffer_unref(source->last);
	source->last = buffer;
	buffer_ref(buffer);
	frame_source_emit(&source->frames, &picture);
	if (source->over)
		return;

	/* The next picture: with copy_with_damage the compositor answers when
	 * the output changes, so a still screen costs nothing meanwhile. */
	start_capture(source);
	flush(source);
}

static void frame_failed(void *data, struct zwlr_screencopy_frame_v1 *frame)
{
	end(data, "the compositor could not copy the output (screencopy failed)");
}

static const struct zwlr_screencopy_frame_v1_listener frame_listener = {
	.buffer = frame_buffer,
	.flags = frame_flags,
	.ready = frame_ready,
	.failed = frame_failed,
	.damage = frame_damage,
	.linux_dmabuf = frame_linux_dmabuf,
	.buffer_done = frame_buffer_done,
};

static void start_capture(struct screencopy_source *source)
{
	if (source->region)
		source->frame = zwlr_screencopy_manager_v1_capture_output_region(
			source->manager, source->overlay_cursor, source->output->wl_output,
			source->region_x, source->region_y, source->region_width,
			source->region_height);
	else
		source->frame = zwlr_screencopy_manager_v1_capture_output(
			source->manager, source->overlay_cursor, source->output->wl_output);
	zwlr_screencopy_frame_v1_add_listener(source->frame, &frame_listener, source);
	source->offer = (struct copy_offer){ 0 };
	source->flags = 0;
	/* The first copy has nothing to be compared with. */
	source->damage_known = source->copied_once && source->manager_version >= 2;
	source->damage = (struct frame_damage){ 0 };
}

/* Once the buffer is known: copy into a free buffer, or wait for one. */
static void request_copy(struct screencopy_source *source)
{
	if (source->over || !source->frame || source->target)
		return;
	if (!source->offer.rank) {
		end(source, "the compositor offers no shm format wl-record reads "
			    "(XRGB8888, ARGB8888, XBGR8888, ABGR8888)");
		return;
	}
	struct shm_buffer *buffer = buffer_for(source, &source->offer);
	if (!buffer) {
		if (source->buffer_count < MAX_BUFFERS) {
			end(source, "cannot allocate a %dx%d buffer", source->offer.width,
			    source->offer.height);
			return;
		}
		LOG_DBG("every buffer is still kept; copying in %d ms", RETRY_MS);
		wl_event_source_timer_update(source->retry, RETRY_MS);
		return;
	}
	source->target = buffer;
	if (source->copied_once && source->manager_version >= 2)
		zwlr_screencopy_frame_v1_copy_with_damage(source->frame, buffer->wl_buffer);
	else
		zwlr_screencopy_frame_v1_copy(source->frame, buffer->wl_buffer);
	flush(source);
}

static int handle_retry(void *data)
{
	request_copy(data);
	return 0;
}

static int handle_connection(int fd, uint32_t mask, void *data)
{
	struct screencopy_source *source = data;
	if (mask & WL_EVENT_READABLE) {
		if (wl_display_dispatch(source->display) < 0) {
			int error = wl_display_get_error(source->display);
			if (error == EPROTO)
				end(source, "the compositor ended the connection with a protocol error");
			else
				end(source, "the compositor closed the connection (%s)",
				    strerror(error ? error : EPIPE));
			return 0;
		}
	} else if (mask & (WL_EVENT_HANGUP | WL_EVENT_ERROR)) {
		end(source, "the compositor closed the connection");
		return 0;
	}
	flush(source);
	return 0;
}

static void output_geometry(void *data, struct wl_output *wl_output, int32_t x, int32_t y,
			    int32_t physical_width, int32_t physical_height, int32_t subpixel,
			    const char *make, const char *model, int32_t transform)
{
	struct desktop_output *output = data;
	output->geometry_x = x;
	output->geometry_y = y;
	output->transform = transform;
}

static void output_mode(void *data, struct wl_output *wl_output, uint32_t flags, int32_t width,
			int32_t height, int32_t refresh)
{
	struct desktop_output *output = data;
	if (flags & WL_OUTPUT_MODE_CURRENT) {
		output->mode_width = width;
		output->mode_height = height;
		output->refresh_mhz = refresh;
	}
}

static void output_done(void *data, struct wl_output *wl_output)
{
}

static void output_scale(void *data, struct wl_output *wl_output, int32_t factor)
{
	struct desktop_output *output = data;
	output->scale = factor;
}

static void output_name(void *data, struct wl_output *wl_output, const char *name)
{
	struct desktop_output *output = data;
	snprintf(output->name, sizeof(output->name), "%s", name);
}

static void output_description(void *data, struct wl_output *wl_output, const char *description)
{
}

static const struct wl_output_listener output_listener = {
	.geometry = output_geometry,
	.mode = output_mode,
	.done = output_done,
	.scale = output_scale,
	.name = output_name,
	.description = output_description,
};

static void xdg_output_logical_position(void *data, struct zxdg_output_v1 *xdg_output,
					int32_t x, int32_t y)
{
	struct desktop_output *output = data;
	output->logical_known = true;
	output->logical_x = x;
	output->logical_y = y;
}

static void xdg_output_logical_size(void *data, struct zxdg_output_v1 *xdg_output,
				    int32_t width, int32_t height)
{
	struct desktop_output *output = data;
	output->logical_width = width;
	output->logical_height = height;
}

static void xdg_output_done(void *data, struct zxdg_output_v1 *xdg_output)
{
}

static void xdg_output_name(void *data, struct zxdg_output_v1 *xdg_output, const char *name)
{
	struct desktop_output *output = data;
	snprintf(output->xdg_name, sizeof(output->xdg_name), "%s", name);
}

static void xdg_output_description(void *data, struct zxdg_output_v1 *xdg_output,
				   const char *description)
{
}

static const struct zxdg_output_v1_listener xdg_output_listener = {
	.logical_position = xdg_output_logical_position,
	.logical_size = xdg_output_logical_size,
	.done = xdg_output_done,
	.name = xdg_output_name,
	.description = xdg_output_description,
};

static const char *desktop_output_name(const struct desktop_output *output)
{
	return output->name[0] ? output->name : output->xdg_name;
}

/* Where the output lies in the compositor's logical space. Without
 * xdg-output: wl_output's position and its mode over the scale, turned
 * for a rotated output. */
static void desktop_output_box(const struct desktop_output *output, int *x, int *y, int *width,
			       int *height)
{
	if (output->logical_known && output->logical_width > 0 && output->logical_height > 0) {
		*x = output->logical_x;
		*y = output->logical_y;
		*width = output->logical_width;
		*height = output->logical_height;
		return;
	}
	int scale = output->scale > 0 ? output->scale : 1;
	bool turned = output->transform & 1; /* 90 and 270, flipped or not */
	*x = output->geometry_x;
	*y = output->geometry_y;
	*width = (turned ? output->mode_height : output->mode_width) / scale;
	*height = (turned ? output->mode_width : output->mode_height) / scale;
}

static void desktop_output_destroy(struct desktop_output *output)
{
	wl_list_remove(&output->link);
	if (output->xdg_output)
		zxdg_output_v1_destroy(output->xdg_output);
	if (output->version >= WL_OUTPUT_RELEASE_SINCE_VERSION)
		wl_output_release(output->wl_output);
	else
		wl_output_destroy(output->wl_output);
	free(output);
}

static void desktop_output_watch(struct screencopy_source *source, struct desktop_output *output)
{
	if (!source->xdg_output_manager || output->xdg_output)
		return;
	output->xdg_output = zxdg_output_manager_v1_get_xdg_output(source->xdg_output_manager,
								   output->wl_output);
	zxdg_output_v1_add_listener(output->xdg_output, &xdg_output_listener, output);
}

static uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

static void registry_global(void *data, struct wl_registry *registry, uint32_t name,
			    const char *interface, uint32_t version)
{
	struct screencopy_source *source = data;
	if (strcmp(interface, wl_shm_interface.name) == 0 && !source->shm) {
		source->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	} else if (strcmp(interface, zwlr_screencopy_manager_v1_interface.name) == 0 &&
		   !source->manager) {
		source->manager_version = min_u32(version, SCREENCOPY_VERSION);
		source->manager = wl_registry_bind(registry, name,
						   &zwlr_screencopy_manager_v1_interface,
						   source->manager_version);
	} else if (strcmp(interface, zxdg_output_manager_v1_interface.name) == 0 &&
		   !source->xdg_output_manager) {
		source->xdg_output_manager = wl_registry_bind(registry, name,
							      &zxdg_output_manager_v1_interface,
							      min_u32(version, XDG_OUTPUT_VERSION));
	} else if (strcmp(interface, wl_output_interface.name) == 0 && !source->globals_read) {
		struct desktop_output *output = calloc(1, sizeof(*output));
		if (!output)
			return;
		output->source = source;
		output->global = name;
		output->version = min_u32(version, 4);
		output->scale = 1;
		output->wl_output = wl_registry_bind(registry, name, &wl_output_interface,
						     output->version);
		wl_output_add_listener(output->wl_output, &output_listener, output);
		wl_list_insert(source->outputs.prev, &output->link);
	}
}

static void registry_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
	struct screencopy_source *source = data;
	if (source->output && name == source->output->global) {
		end(source, "the output was removed");
		return;
	}
	struct desktop_output *output;
	wl_list_for_each(output, &source->outputs, link) {
		if (output->global == name) {
			desktop_output_destroy(output);
			return;
		}
	}
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_global,
	.global_remove = registry_global_remove,
};

/* A compositor that accepts the connection and never answers must not
 * hang wl-record's start: how long the first answers may take. */
#define ANSWER_TIMEOUT_MS 5000

static void handle_sync_done(void *data, struct wl_callback *callback, uint32_t serial)
{
	bool *done = data;
	*done = true;
	wl_callback_destroy(callback);
}

static const struct wl_callback_listener sync_listener = { .done = handle_sync_done };

/* wl_display_roundtrip() with a deadline: 1 answered, 0 timed out, -1 the
 * connection failed. */
static int roundtrip_within(struct wl_display *display, int64_t deadline_ns)
{
	bool done = false;
	struct wl_callback *callback = wl_display_sync(display);
	if (!callback)
		return -1;
	wl_callback_add_listener(callback, &sync_listener, &done);
	int result = 1;
	while (!done) {
		if (wl_display_dispatch_pending(display) < 0) {
			result = -1;
			break;
		}
		if (done)
			break;
		if (wl_display_prepare_read(display) != 0)
			continue; /* events queued meanwhile: dispatch them first */
		if (wl_display_flush(display) < 0 && errno != EAGAIN) {
			wl_display_cancel_read(display);
			result = -1;
			break;
		}
		int64_t left_ms = (deadline_ns - clock_now_ns()) / 1000000;
		struct pollfd pfd = { .fd = wl_display_get_fd(display), .events = POLLIN };
		int ready = left_ms > 0 ? poll(&pfd, 1, (int)left_ms) : 0;
		if (ready <= 0) {
			wl_display_cancel_read(display);
			if (ready < 0 && errno == EINTR)
				continue;
			result = ready < 0 ? -1 : 0;
			break;
		}
		if (wl_display_read_events(display) < 0) {
			result = -1;
			break;
		}
	}
	/* Unanswered: nothing may call back into this stack frame later. */
	if (!done)
		wl_callback_destroy(callback);
	return result;
}

struct screencopy_source *screencopy_source_connect(const char *display_name, char *why,
						    size_t why_size)
{
	struct screencopy_source *source = calloc(1, sizeof(*source));
	if (!source) {
		snprintf(why, why_size, "out of memory");
		return NULL;
	}
	frame_source_init(&source->frames);
	wl_list_init(&source->outputs);
	source->overlay_cursor = 1;
	source->display = wl_display_connect(display_name);
	if (!source->display) {
		snprintf(why, why_size, "cannot connect: %s", strerror(errno));
		goto fail;
	}
	source->registry = wl_display_get_registry(source->display);
	wl_registry_add_listener(source->registry, &registry_listener, source);
	/* The globals, then the outputs' modes, names and places (xdg-output
	 * asked for once both the manager and the outputs are known). */
	int64_t deadline = clock_now_ns() + (int64_t)ANSWER_TIMEOUT_MS * 1000000;
	int answered = roundtrip_within(source->display, deadline);
	source->globals_read = true;
	struct desktop_output *output;
	wl_list_for_each(output, &source->outputs, link)
		desktop_output_watch(source, output);
	if (answered > 0)
		answered = roundtrip_within(source->display, deadline);
	if (answered <= 0) {
		if (answered == 0)
			snprintf(why, why_size, "it did not answer within %d s", ANSWER_TIMEOUT_MS / 1000);
		else
			snprintf(why, why_size, "the compositor closed the connection");
		goto fail;
	}
	if (!source->shm || wl_list_empty(&source->outputs)) {
		snprintf(why, why_size, "it offers no %s", source->shm ? "wl_output" : "wl_shm");
		goto fail;
	}
	/* Until screencopy_source_select(): the first output, all of it. */
	struct screencopy_selection everything = { 0 };
	screencopy_source_select(source, &everything, why, why_size);
	return source;

fail:
	screencopy_source_destroy(source);
	return NULL;
}

static int output_count(const struct screencopy_source *source)
{
	return wl_list_length(&source->outputs);
}

/* "HEADLESS-1, HEADLESS-2": for an error naming what there is. */
static void output_names(const struct screencopy_source *source, char *names, size_t size)
{
	names[0] = 0;
	size_t used = 0;
	const struct desktop_output *output;
	wl_list_for_each(output, &source->outputs, link) {
		const char *name = desktop_output_name(output);
		int n = snprintf(names + used, size - used, "%s%s", used ? ", " : "",
				 name[0] ? name : "(unnamed)");
		if (n < 0 || (size_t)n >= size - used)
			break;
		used += (size_t)n;
	}
}

enum screencopy_select_result screencopy_source_select(struct screencopy_source *source,
							 const struct screencopy_selection *selection,
							 char *why, size_t why_size)
{
	struct desktop_output *chosen = NULL, *output;
	int x, y, width, height;
	if (selection->output_name) {
		wl_list_for_each(output, &source->outputs, link) {
			if (strcmp(selection->output_name, output->name) == 0 ||
			    strcmp(selection->output_name, output->xdg_name) == 0) {
				chosen = output;
				break;
			}
		}
		if (!chosen) {
			char names[256];
			output_names(source, names, sizeof(names));
			snprintf(why, why_size, "no output named '%s'; there are: %s",
				 selection->output_name, names);
			return SCREENCOPY_SELECT_NO_OUTPUT;
		}
	} else if (selection->region) {
		/* The output holding the region's origin. */
		wl_list_for_each(output, &source->outputs, link) {
			desktop_output_box(output, &x, &y, &width, &height);
			if (selection->x >= x && selection->x < x + width && selection->y >= y &&
			    selection->y < y + height) {
				chosen = output;
				break;
			}
		}
		if (!chosen) {
			snprintf(why, why_size, "-g %d,%d %dx%d: no output holds %d,%d",
				 selection->x, selection->y, selection->width, selection->height,
				 selection->x, selection->y);
			return SCREENCOPY_SELECT_BAD_REGION;
		}
	} else {
		chosen = wl_container_of(source->outputs.next, chosen, link);
	}
	desktop_output_box(chosen, &x, &y, &width, &height);
	const char *name = desktop_output_name(chosen);
	if (!name[0])
		name = "the first output";
	if (selection->region) {
		/* screencopy clips a region to the output: one reaching past it
		 * would be recorded smaller than asked, so it is refused. */
		if (selection->x < x || selection->y < y ||
		    (int64_t)selection->x + selection->width > (int64_t)x + width ||
		    (int64_t)selection->y + selection->height > (int64_t)y + height) {
			snprintf(why, why_size, "-g %d,%d %dx%d does not lie within %s (%d,%d %dx%d): "
				 "a region spanning outputs cannot be recorded",
				 selection->x, selection->y, selection->width, selection->height,
				 name, x, y, width, height);
			return SCREENCOPY_SELECT_BAD_REGION;
		}
		source->region = true;
		source->region_x = selection->x - x;
		source->region_y = selection->y - y;
		source->region_width = selection->width;
		source->region_height = selection->height;
		snprintf(source->description, sizeof(source->description),
			 "the region %d,%d %dx%d of %s (%dx%d)", selection->x, selection->y,
			 selection->width, selection->height, name, chosen->mode_width,
			 chosen->mode_height);
	} else {
		source->region = false;
		snprintf(source->description, sizeof(source->description), "%s (%dx%d)", name,
			 chosen->mode_width, chosen->mode_height);
	}
	source->note[0] = 0;
	if (!selection->output_name && !selection->region && output_count(source) > 1)
		snprintf(source->note, sizeof(source->note),
			 "the first of %d outputs: -o NAME picks another (see --list-outputs)",
			 output_count(source));
	source->overlay_cursor = selection->no_cursor ? 0 : 1;
	source->output = chosen;
	return SCREENCOPY_SELECT_OK;
}

const char *screencopy_source_note(const struct screencopy_source *source)
{
	return source->note;
}

void screencopy_source_list_outputs(const struct screencopy_source *source, FILE *out)
{
	const struct desktop_output *output;
	wl_list_for_each(output, &source->outputs, link) {
		int x, y, width, height;
		desktop_output_box(output, &x, &y, &width, &height);
		const char *name = desktop_output_name(output);
		fprintf(out, "%s  %dx%d@%.3fHz  scale %d  logical %d,%d %dx%d\n",
			name[0] ? name : "(unnamed)", output->mode_width, output->mode_height,
			output->refresh_mhz / 1000.0, output->scale, x, y, width, height);
	}
}

bool screencopy_source_offered(const struct screencopy_source *source)
{
	return source->manager != NULL;
}

const char *screencopy_source_describe(const struct screencopy_source *source)
{
	return source->description;
}

bool screencopy_source_start(struct screencopy_source *source, struct wl_event_loop *loop,
			     screencopy_ended_fn ended, void *data)
{
	if (!source->manager)
		return false;
	source->ended = ended;
	source->ended_data = data;
	source->retry = wl_event_loop_add_timer(loop, handle_retry, source);
	source->connection = wl_event_loop_add_fd(loop, wl_display_get_fd(source->display),
						  WL_EVENT_READABLE, handle_connection, source);
	if (!source->retry || !source->connection) {
		LOG_ERR("cannot watch the compositor's connection");
		return false;
	}
	LOG_DBG("wlr-screencopy version %u", source->manager_version);
	source->start_ns = clock_now_ns();
	start_capture(source);
	flush(source);
	return true;
}

struct frame_source *screencopy_frame_source(struct screencopy_source *source)
{
	return &source->frames;
}

void screencopy_source_destroy(struct screencopy_source *source)
{
	if (!source)
		return;
	frame_source_finish(&source->frames);
	if (source->connection)
		wl_event_source_remove(source->connection);
	if (source->retry)
		wl_event_source_remove(source->retry);
	if (source->frame)
		zwlr_screencopy_frame_v1_destroy(source->frame);
	if (source->unchanged_copies)
		LOG_DBG("%" PRId64 " copies brought nothing new and were passed over",
			source->unchanged_copies);
	if (source->last)
		buffer_unref(source->last);
	for (int i = 0; i < source->buffer_count; i++)
		buffer_drop(source->buffers[i]);
	if (source->manager)
		zwlr_screencopy_manager_v1_destroy(source->manager);
	struct desktop_output *output, *next_output;
	wl_list_for_each_safe(output, next_output, &source->outputs, link)
		desktop_output_destroy(output);
	if (source->xdg_output_manager)
		zxdg_output_manager_v1_destroy(source->xdg_output_manager);
	if (source->shm)
		wl_shm_destroy(source->shm);
	if (source->registry)
		wl_registry_destroy(source->registry);
	if (source->display) {
		wl_display_flush(source->display);
		wl_display_disconnect(source->display);
	}
	free(source);
}
