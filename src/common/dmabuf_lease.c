#include "dmabuf_lease.h"

/* Reference counting and dispatch only: what a buffer is and how it goes
 * back to its owner is the lender's (see the impls). */

static atomic_uint_fast64_t next_planes_id = 1;

void dmabuf_planes_init(struct dmabuf_planes *planes, const struct dmabuf_planes_impl *impl,
			const struct dmabuf_attributes *attributes)
{
	planes->impl = impl;
	atomic_init(&planes->refs, 1);
	planes->id = atomic_fetch_add(&next_planes_id, 1);
	planes->attributes = *attributes;
}

void dmabuf_lease_init(struct dmabuf_lease *lease, const struct dmabuf_lease_impl *impl,
		       struct dmabuf_planes *planes)
{
	lease->impl = impl;
	atomic_init(&lease->refs, 1);
	atomic_fetch_add(&planes->refs, 1);
	lease->planes = planes;
}

struct dmabuf_lease *dmabuf_lease_ref(struct dmabuf_lease *lease)
{
	atomic_fetch_add(&lease->refs, 1);
	return lease;
}

void dmabuf_lease_unref(struct dmabuf_lease *lease)
{
	if (lease && atomic_fetch_sub(&lease->refs, 1) == 1)
		lease->impl->end(lease);
}

const struct dmabuf_attributes *dmabuf_lease_attributes(const struct dmabuf_lease *lease)
{
	return &lease->planes->attributes;
}

uint64_t dmabuf_lease_buffer_id(const struct dmabuf_lease *lease)
{
	return lease->planes->id;
}

struct dmabuf_planes *dmabuf_lease_planes_ref(struct dmabuf_lease *lease)
{
	atomic_fetch_add(&lease->planes->refs, 1);
	return lease->planes;
}

const struct dmabuf_attributes *dmabuf_planes_attributes(const struct dmabuf_planes *planes)
{
	return &planes->attributes;
}

void dmabuf_planes_unref(struct dmabuf_planes *planes)
{
	if (planes && atomic_fetch_sub(&planes->refs, 1) == 1)
		planes->impl->destroy(planes);
}

bool dmabuf_planes_unused(const struct dmabuf_planes *planes)
{
	return atomic_load(&planes->refs) == 1;
}

bool dmabuf_lease_read(struct dmabuf_lease *lease, uint8_t *dst, int dst_stride, char *why,
		       size_t why_size)
{
	return lease->planes->impl->read(lease->planes, dst, dst_stride, why, why_size);
}

static void lease_picture_ref(void *picture)
{
	dmabuf_lease_ref(picture);
}

static void lease_picture_unref(void *picture)
{
	dmabuf_lease_unref(picture);
}

const struct frame_picture_impl dmabuf_lease_picture = { lease_picture_ref,
							 lease_picture_unref };
