#define LOG_MODULE "pipewire"
#include "picture_pool.h"

#include <drm_fourcc.h>
#include <stdlib.h>

#include "log.h"

/* The last reference (any thread): the pool's went, and every frame's. */
static void picture_destroy(struct wl_record_buffer *base)
{
	struct picture *picture = (struct picture *)base; /* its first member */
	pixman_image_unref(picture->image);
	free(picture);
}

static bool picture_begin_access(struct wl_record_buffer *base, const uint8_t **data, int *stride)
{
	struct picture *picture = (struct picture *)base; /* its first member */
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

static bool picture_is_free(struct picture *picture)
{
	return !wl_record_buffer_is_locked(&picture->base);
}

static struct picture *picture_create(int width, int height)
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
	wl_record_buffer_init(&picture->base, &picture_impl, width, height, DRM_FORMAT_XRGB8888);
	return picture;
}

struct picture *picture_pool_get(struct picture_pool *pool, int width, int height)
{
	for (int i = 0; i < pool->count; i++) {
		struct picture *p = pool->pictures[i];
		if (picture_is_free(p) && pixman_image_get_width(p->image) == width &&
		    pixman_image_get_height(p->image) == height)
			return p;
	}
	/* The stream changed size: a free picture of the old size makes room. */
	for (int i = 0; i < pool->count; i++) {
		if (picture_is_free(pool->pictures[i])) {
			wl_record_buffer_drop(&pool->pictures[i]->base);
			pool->pictures[i] = pool->pictures[--pool->count];
			break;
		}
	}
	if (pool->count == PICTURE_POOL_SIZE)
		return NULL;
	struct picture *picture = picture_create(width, height);
	if (picture)
		pool->pictures[pool->count++] = picture;
	return picture;
}

void picture_pool_finish(struct picture_pool *pool)
{
	for (int i = 0; i < pool->count; i++)
		wl_record_buffer_drop(&pool->pictures[i]->base);
	pool->count = 0;
}
