/* The one buffer type and the one pool (src/common/wl_record_buffer.h,
 * buffer_pool.h) on the common library alone: locks hold a buffer back from
 * its producer, references from caches do not, the last of either frees it,
 * and the pool reuses a free buffer that fits, replaces one that does not,
 * and never hands out one that is locked. */
#include <drm_fourcc.h>
#include <stdlib.h>

#include "buffer_pool.h"
#include "test-runner.h"

struct test_buffer {
	struct wl_record_buffer base;
	int *destroyed;
	int *unlocked;
};

static void test_destroy(struct wl_record_buffer *base)
{
	struct test_buffer *buffer = (struct test_buffer *)base;
	(*buffer->destroyed)++;
	free(buffer);
}

static void test_unlocked(struct wl_record_buffer *base)
{
	struct test_buffer *buffer = (struct test_buffer *)base;
	(*buffer->unlocked)++;
}

static const struct wl_record_buffer_impl test_impl = {
	.destroy = test_destroy,
	.unlocked = test_unlocked,
};

static int destroyed, unlocked, created;

static struct wl_record_buffer *create(void *data, int width, int height, uint32_t format)
{
	(void)data;
	struct test_buffer *buffer = calloc(1, sizeof(*buffer));
	test_assert(buffer);
	wl_record_buffer_init(&buffer->base, &test_impl, width, height, format);
	buffer->destroyed = &destroyed;
	buffer->unlocked = &unlocked;
	created++;
	return &buffer->base;
}

static void reset(void)
{
	destroyed = unlocked = created = 0;
}

TEST(locks_hold_references_keep)
{
	reset();
	struct wl_record_buffer *buffer = create(NULL, 4, 4, DRM_FORMAT_XRGB8888);
	struct wl_record_buffer *cache = wl_record_buffer_ref(buffer);
	wl_record_buffer_lock(buffer);
	test_assert(wl_record_buffer_is_locked(buffer));
	wl_record_buffer_drop(buffer); /* the producer lets go while a frame holds it */
	test_assert(destroyed == 0);
	wl_record_buffer_unlock(buffer);
	test_assert(unlocked == 1);
	test_assert(!wl_record_buffer_is_locked(buffer));
	test_assert(destroyed == 0); /* the cache's reference */
	test_assert(wl_record_buffer_unused(cache));
	wl_record_buffer_unref(cache);
	test_assert(destroyed == 1);
}

TEST(ids_never_repeat)
{
	reset();
	struct wl_record_buffer *a = create(NULL, 1, 1, DRM_FORMAT_XRGB8888);
	struct wl_record_buffer *b = create(NULL, 1, 1, DRM_FORMAT_XRGB8888);
	test_assert(a->id != 0 && b->id != 0 && a->id != b->id);
	wl_record_buffer_drop(a);
	wl_record_buffer_drop(b);
	test_assert(destroyed == 2);
}

TEST(no_pixels_without_access)
{
	reset();
	struct wl_record_buffer *buffer = create(NULL, 2, 2, DRM_FORMAT_XRGB8888);
	const uint8_t *data;
	int stride;
	uint8_t dst[16];
	char why[128] = "";
	test_assert(!wl_record_buffer_begin_data_ptr_access(buffer, &data, &stride));
	test_assert(!wl_record_buffer_get_dmabuf(buffer));
	test_assert(!wl_record_buffer_read(buffer, dst, 8, why, sizeof(why)));
	test_assert(why[0]);
	wl_record_buffer_drop(buffer);
}

TEST(pool_reuses_free_buffer)
{
	reset();
	struct wl_record_buffer_pool pool;
	wl_record_buffer_pool_init(&pool, 2, create, NULL);
	bool fresh;
	struct wl_record_buffer *a = wl_record_buffer_pool_acquire(&pool, 8, 8, 1, &fresh);
	test_assert(a && fresh);
	wl_record_buffer_unlock(a);
	struct wl_record_buffer *again = wl_record_buffer_pool_acquire(&pool, 8, 8, 1, &fresh);
	test_assert(again == a && !fresh);
	test_assert(created == 1);
	wl_record_buffer_unlock(again);
	wl_record_buffer_pool_finish(&pool);
	test_assert(destroyed == 1);
}

TEST(pool_never_hands_out_locked)
{
	reset();
	struct wl_record_buffer_pool pool;
	wl_record_buffer_pool_init(&pool, 2, create, NULL);
	struct wl_record_buffer *a = wl_record_buffer_pool_acquire(&pool, 8, 8, 1, NULL);
	struct wl_record_buffer *b = wl_record_buffer_pool_acquire(&pool, 8, 8, 1, NULL);
	test_assert(a && b && a != b);
	test_assert(wl_record_buffer_pool_full(&pool));
	test_assert(!wl_record_buffer_pool_acquire(&pool, 8, 8, 1, NULL));
	wl_record_buffer_unlock(b);
	test_assert(!wl_record_buffer_pool_full(&pool));
	test_assert(wl_record_buffer_pool_acquire(&pool, 8, 8, 1, NULL) == b);
	wl_record_buffer_unlock(a);
	wl_record_buffer_unlock(b);
	wl_record_buffer_pool_finish(&pool);
	test_assert(destroyed == 2);
}

TEST(pool_replaces_what_no_longer_fits)
{
	reset();
	struct wl_record_buffer_pool pool;
	wl_record_buffer_pool_init(&pool, 1, create, NULL);
	struct wl_record_buffer *small = wl_record_buffer_pool_acquire(&pool, 8, 8, 1, NULL);
	/* Held by a frame: the new size must wait, and the held one survives. */
	test_assert(!wl_record_buffer_pool_acquire(&pool, 16, 16, 1, NULL));
	wl_record_buffer_unlock(small);
	bool fresh;
	struct wl_record_buffer *big = wl_record_buffer_pool_acquire(&pool, 16, 16, 1, &fresh);
	test_assert(big && fresh && big->width == 16);
	test_assert(destroyed == 1); /* the small one went with the replacement */
	wl_record_buffer_unlock(big);
	wl_record_buffer_pool_finish(&pool);
	test_assert(destroyed == 2);
}

static int retired;

static void count_retired(struct wl_record_buffer *buffer, void *data)
{
	test_assert(data == &retired);
	retired++;
}

/* What must go on the pool's thread goes when the pool lets go of a
 * buffer, replaced or at the end, even one a frame still locks. */
TEST(pool_retires_what_it_lets_go)
{
	reset();
	retired = 0;
	struct wl_record_buffer_pool pool;
	wl_record_buffer_pool_init(&pool, 2, create, &retired);
	wl_record_buffer_pool_set_retire(&pool, count_retired);
	struct wl_record_buffer *a = wl_record_buffer_pool_acquire(&pool, 8, 8, 1, NULL);
	struct wl_record_buffer *b = wl_record_buffer_pool_acquire(&pool, 8, 8, 1, NULL);
	wl_record_buffer_unlock(b);
	/* The output grew: b (free) is replaced, a (locked) stays. */
	struct wl_record_buffer *c = wl_record_buffer_pool_acquire(&pool, 16, 16, 1, NULL);
	test_assert(c && retired == 1 && destroyed == 1);
	wl_record_buffer_unlock(c);
	wl_record_buffer_pool_finish(&pool);
	test_assert(retired == 3 && destroyed == 2); /* a still locked */
	wl_record_buffer_unlock(a);
	test_assert(destroyed == 3);
}

TEST(buffer_outlives_pool_while_locked)
{
	reset();
	struct wl_record_buffer_pool pool;
	wl_record_buffer_pool_init(&pool, 2, create, NULL);
	struct wl_record_buffer *a = wl_record_buffer_pool_acquire(&pool, 8, 8, 1, NULL);
	wl_record_buffer_pool_finish(&pool);
	test_assert(destroyed == 0);
	wl_record_buffer_unlock(a);
	test_assert(destroyed == 1);
}
