#define LOG_MODULE "pipewire"
#include "picture_pool.h"

#include <drm_fourcc.h>
#include <stdlib.h>

#include "log.h"

static struct picture *picture_from(struct wl_record_buffer *base)
{
	return (struct picture *)base; /* its first member */
}

/* The last reference (any thread): the pool's went, and every frame's. */
static void picture_destroy(struct wl_record_buffer *base)
{
	struct picture *picture = picture_from(base);
	pixman_image_unref(picture->image);
	free(picture);
}

static bool picture_begin_access(struct wl_record_buffer *base, const uint8_t **data, int *stride)
{
	struct picture *picture = picture_from(base);
	*data = (const uint8_t *)pixman_image_get_data(picture->image);
	*stride = pixman_image_get_stride(picture->image);
	return true;
}

static bool picture_end_access(struct wl_record_buffer *base)
{
	return true; /* our own memory: nothing can fault */
}

static const struct wl_record_buffer_impl picture_impl = {
	.destroy = picture_destroy,
	.begin_data_ptr_access = picture_begin_access,
	.end_data_ptr_access = picture_end_access,
};

static struct wl_record_buffer *picture_create(void *data, int width, int height, uint32_t format)
{
	struct picture *picture = calloc(1, sizeof(*picture));
	if (!picture)
		return NULL;
	picture->image = pixman_image_create_bits(PIXMAN_x8r8g8b8, width, height, NULL, 0);
	if (!picture->image) {
		LOG_ERR("out of memory for a %dx%d picture", width, height);
		free(picture);
		return NULL;
	}
	wl_record_buffer_init(&picture->base, &picture_impl, width, height, format);
	return &picture->base;
}

void picture_pool_init(struct picture_pool *pool)
{
	wl_record_buffer_pool_init(&pool->pictures, PICTURE_POOL_SIZE, picture_create, NULL);
}

struct picture *picture_pool_get(struct picture_pool *pool, int width, int height)
{
	struct wl_record_buffer *picture = wl_record_buffer_pool_acquire(
		&pool->pictures, width, height, DRM_FORMAT_XRGB8888, NULL);
	return picture ? picture_from(picture) : NULL;
}

void picture_pool_finish(struct picture_pool *pool)
{
	wl_record_buffer_pool_finish(&pool->pictures);
}
