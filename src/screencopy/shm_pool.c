#define LOG_MODULE "screencopy"
#include "shm_pool.h"

#include <drm_fourcc.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "log.h"
#include "stale_damage.h"

static struct screencopy_shm_buffer *screencopy_shm_buffer_from(struct wl_record_buffer *base)
{
	struct screencopy_shm_buffer *buffer = wl_container_of(base, buffer, base);
	return buffer;
}

/* The last reference (any thread): the pool's went, and every frame's. */
static void buffer_destroy(struct wl_record_buffer *base)
{
	struct screencopy_shm_buffer *buffer = screencopy_shm_buffer_from(base);
	if (buffer->converted)
		pixman_image_unref(buffer->converted);
	if (buffer->upright)
		pixman_image_unref(buffer->upright);
	munmap(buffer->data, buffer->size);
	free(buffer);
}

/* Our own mapping of the copy, as the compositor wrote it. */
static bool buffer_begin_access(struct wl_record_buffer *base, const uint8_t **data, int *stride)
{
	struct screencopy_shm_buffer *buffer = screencopy_shm_buffer_from(base);
	*data = buffer->data;
	*stride = buffer->stride;
	return true;
}

static bool buffer_end_access(struct wl_record_buffer *base)
{
	return true; /* our memfd, never shrunk: nothing can fault */
}

static const struct wl_record_buffer_impl buffer_impl = {
	.destroy = buffer_destroy,
	.begin_data_ptr_access = buffer_begin_access,
	.end_data_ptr_access = buffer_end_access,
};

/* The pool lets go of a buffer (main thread): its wl_buffer goes now, its
 * memory when no frame keeps it any more. */
static void buffer_retire(struct wl_record_buffer *base, void *data)
{
	struct screencopy_shm_buffer *buffer = screencopy_shm_buffer_from(base);
	if (buffer->wl_buffer)
		wl_buffer_destroy(buffer->wl_buffer);
	buffer->wl_buffer = NULL;
}

static bool format_is_swapped(uint32_t format)
{
	return format == WL_SHM_FORMAT_XBGR8888 || format == WL_SHM_FORMAT_ABGR8888;
}

int shm_offer_rank(uint32_t format, uint32_t width, uint32_t height, uint32_t stride)
{
	if (width == 0 || height == 0 || width > 16384 || height > 16384 || stride < width * 4 ||
	    stride > 65536 * 4)
		return 0;
	if (format == WL_SHM_FORMAT_XRGB8888 || format == WL_SHM_FORMAT_ARGB8888)
		return 2;
	return format_is_swapped(format) ? 1 : 0;
}

/* wl_shm's codes are DRM's but for its first two. */
static uint32_t drm_format(uint32_t shm_format)
{
	return shm_format == WL_SHM_FORMAT_ARGB8888   ? DRM_FORMAT_ARGB8888
	       : shm_format == WL_SHM_FORMAT_XRGB8888 ? DRM_FORMAT_XRGB8888
						       : shm_format;
}

/* The pool's create: a buffer for the offer asked for (pool->asked). */
static struct wl_record_buffer *buffer_create(void *data, int width, int height, uint32_t format)
{
	struct screencopy_shm_pool *pool = data;
	const struct copy_offer *offer = pool->asked;
	struct screencopy_shm_buffer *buffer = calloc(1, sizeof(*buffer));
	if (!buffer)
		return NULL;
	wl_record_buffer_init(&buffer->base, &buffer_impl, offer->width, offer->height,
			      drm_format(offer->format));
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
	struct wl_shm_pool *wl_pool = wl_shm_create_pool(pool->shm, fd, (int32_t)buffer->size);
	buffer->wl_buffer = wl_shm_pool_create_buffer(wl_pool, 0, offer->width, offer->height,
						      offer->stride, offer->format);
	wl_shm_pool_destroy(wl_pool);
	close(fd);
	if (format_is_swapped(offer->format)) {
		buffer->converted = pixman_image_create_bits(PIXMAN_x8r8g8b8, offer->width,
							     offer->height, NULL, 0);
		if (!buffer->converted) {
			LOG_ERR("out of memory for a %dx%d picture", offer->width, offer->height);
			buffer_retire(&buffer->base, pool);
			wl_record_buffer_drop(&buffer->base);
			return NULL;
		}
	}
	return &buffer->base;
}

void shm_pool_init(struct screencopy_shm_pool *pool)
{
	wl_record_buffer_pool_init(&pool->buffers, SHM_POOL_MAX_BUFFERS, buffer_create, pool);
	wl_record_buffer_pool_set_retire(&pool->buffers, buffer_retire);
}

struct screencopy_shm_buffer *shm_pool_buffer_for(struct screencopy_shm_pool *pool,
						  const struct copy_offer *offer)
{
	/* The pool matches size and format: buffers of another stride go. */
	if (offer->stride != pool->stride)
		shm_pool_finish(pool);
	pool->stride = offer->stride;
	pool->asked = offer;
	struct wl_record_buffer *buffer = wl_record_buffer_pool_acquire(
		&pool->buffers, offer->width, offer->height, drm_format(offer->format), NULL);
	pool->asked = NULL;
	return buffer ? screencopy_shm_buffer_from(buffer) : NULL;
}

bool shm_pool_full(const struct screencopy_shm_pool *pool)
{
	return wl_record_buffer_pool_full(&pool->buffers);
}

struct shm_stale_note {
	const struct screencopy_shm_buffer *filled;
	bool known;
	const struct frame_damage *damage;
};

static void note_stale(struct wl_record_buffer *base, void *data)
{
	struct screencopy_shm_buffer *b = screencopy_shm_buffer_from(base);
	const struct shm_stale_note *note = data;
	stale_damage_note(&b->stale_known, &b->stale, b == note->filled, note->known,
			  note->damage);
}

void shm_pool_note_copy(struct screencopy_shm_pool *pool, struct screencopy_shm_buffer *filled,
			bool known, const struct frame_damage *damage)
{
	struct shm_stale_note note = { filled, known, damage };
	wl_record_buffer_pool_for_each(&pool->buffers, note_stale, &note);
}

void shm_pool_finish(struct screencopy_shm_pool *pool)
{
	wl_record_buffer_pool_finish(&pool->buffers);
}
