#define LOG_MODULE "pipewire"
#include "picture_pool.h"

#include <stdlib.h>

#include "log.h"

static void picture_ref(void *data)
{
	struct picture *picture = data;
	atomic_fetch_add(&picture->refs, 1);
}

static void picture_unref(void *data)
{
	struct picture *picture = data;
	if (atomic_fetch_sub(&picture->refs, 1) != 1)
		return;
	pixman_image_unref(picture->image);
	free(picture);
}

const struct frame_picture_impl picture_pool_picture = { picture_ref, picture_unref };

static bool picture_is_free(struct picture *picture)
{
	return atomic_load(&picture->refs) == 1;
}

static struct picture *picture_create(int width, int height)
{
	struct picture *picture = calloc(1, sizeof(*picture));
	if (!picture)
		return NULL;
	atomic_init(&picture->refs, 1);
	picture->image = pixman_image_create_bits(PIXMAN_x8r8g8b8, width, height, NULL, 0);
	if (!picture->image) {
		LOG_ERR("out of memory for a %dx%d picture", width, height);
		free(picture);
		return NULL;
	}
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
			picture_unref(pool->pictures[i]);
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
		picture_unref(pool->pictures[i]);
	pool->count = 0;
}
