#include "buffer_pool.h"

void wl_record_buffer_pool_init(struct wl_record_buffer_pool *pool, int capacity,
				wl_record_buffer_create_fn create, void *data)
{
	*pool = (struct wl_record_buffer_pool){
		.create = create,
		.data = data,
		.capacity = capacity < 1 ? 1
			  : capacity > WL_RECORD_BUFFER_POOL_CAPACITY ? WL_RECORD_BUFFER_POOL_CAPACITY
								      : capacity,
	};
}

void wl_record_buffer_pool_set_retire(struct wl_record_buffer_pool *pool,
				      wl_record_buffer_retire_fn retire)
{
	pool->retire = retire;
}

static void retire(struct wl_record_buffer_pool *pool, int slot)
{
	struct wl_record_buffer *buffer = pool->slots[slot];
	if (!buffer)
		return;
	if (pool->retire)
		pool->retire(buffer, pool->data);
	wl_record_buffer_drop(buffer);
	pool->slots[slot] = NULL;
}

static bool fits(const struct wl_record_buffer *buffer, int width, int height, uint32_t format)
{
	return buffer->width == width && buffer->height == height && buffer->format == format;
}

struct wl_record_buffer *wl_record_buffer_pool_acquire(struct wl_record_buffer_pool *pool,
						       int width, int height, uint32_t format,
						       bool *created)
{
	int replace = -1;
	for (int i = 0; i < pool->capacity; i++) {
		struct wl_record_buffer *buffer = pool->slots[i];
		if (!buffer) {
			if (replace < 0 || pool->slots[replace])
				replace = i; /* an empty slot before evicting */
			continue;
		}
		if (wl_record_buffer_is_locked(buffer))
			continue;
		if (fits(buffer, width, height, format)) {
			if (created)
				*created = false;
			return wl_record_buffer_lock(buffer);
		}
		if (replace < 0)
			replace = i;
	}
	if (replace < 0)
		return NULL;
	struct wl_record_buffer *buffer = pool->create(pool->data, width, height, format);
	if (!buffer)
		return NULL;
	retire(pool, replace);
	pool->slots[replace] = buffer;
	if (created)
		*created = true;
	return wl_record_buffer_lock(buffer);
}

bool wl_record_buffer_pool_full(const struct wl_record_buffer_pool *pool)
{
	for (int i = 0; i < pool->capacity; i++)
		if (!pool->slots[i] || !wl_record_buffer_is_locked(pool->slots[i]))
			return false;
	return true;
}

void wl_record_buffer_pool_for_each(struct wl_record_buffer_pool *pool,
				    void (*fn)(struct wl_record_buffer *buffer, void *data),
				    void *data)
{
	for (int i = 0; i < pool->capacity; i++)
		if (pool->slots[i])
			fn(pool->slots[i], data);
}

void wl_record_buffer_pool_finish(struct wl_record_buffer_pool *pool)
{
	for (int i = 0; i < pool->capacity; i++)
		retire(pool, i);
}
