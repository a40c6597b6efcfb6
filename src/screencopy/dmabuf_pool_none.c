/* Built without libgbm: no dmabuf is ever allocated, every copy goes into
 * shm (dmabuf_choose() says "dmabuf not available: built without libgbm"). */
#include <stdio.h>

#include "dmabuf_pool.h"

bool dmabuf_pool_available(void)
{
	return false;
}

void dmabuf_pool_init(struct screencopy_dmabuf_pool *pool)
{
}

bool dmabuf_pool_open(struct screencopy_dmabuf_pool *pool, const char *path, char *why,
		      size_t why_size)
{
	snprintf(why, why_size, "dmabuf not available: built without libgbm");
	return false;
}

struct screencopy_dmabuf_buffer *dmabuf_pool_buffer_for(struct screencopy_dmabuf_pool *pool,
							const struct dmabuf_offer *offer,
							char *why, size_t why_size)
{
	snprintf(why, why_size, "dmabuf not available: built without libgbm");
	return NULL;
}

bool dmabuf_pool_full(const struct screencopy_dmabuf_pool *pool)
{
	return false;
}

void dmabuf_pool_note_copy(struct screencopy_dmabuf_pool *pool,
			   struct screencopy_dmabuf_buffer *filled, bool known,
			   const struct frame_damage *damage)
{
}

void dmabuf_pool_finish(struct screencopy_dmabuf_pool *pool)
{
}
