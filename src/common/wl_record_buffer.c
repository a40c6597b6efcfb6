#include "wl_record_buffer.h"

#include <stdio.h>
#include <string.h>

/* Counting and dispatch only: what a buffer is, and what its last lock or
 * reference means, is its producer's (the impls). */

static atomic_uint_fast64_t next_buffer_id = 1;

void wl_record_buffer_init(struct wl_record_buffer *buffer, const struct wl_record_buffer_impl *impl,
			   int width, int height, uint32_t format)
{
	buffer->impl = impl;
	buffer->width = width;
	buffer->height = height;
	buffer->format = format;
	buffer->id = atomic_fetch_add(&next_buffer_id, 1);
	atomic_init(&buffer->locks, 0);
	atomic_init(&buffer->refs, 1);
}

struct wl_record_buffer *wl_record_buffer_ref(struct wl_record_buffer *buffer)
{
	atomic_fetch_add(&buffer->refs, 1);
	return buffer;
}

void wl_record_buffer_unref(struct wl_record_buffer *buffer)
{
	if (buffer && atomic_fetch_sub(&buffer->refs, 1) == 1)
		buffer->impl->destroy(buffer);
}

void wl_record_buffer_drop(struct wl_record_buffer *buffer)
{
	wl_record_buffer_unref(buffer);
}

struct wl_record_buffer *wl_record_buffer_lock(struct wl_record_buffer *buffer)
{
	atomic_fetch_add(&buffer->refs, 1);
	atomic_fetch_add(&buffer->locks, 1);
	return buffer;
}

void wl_record_buffer_unlock(struct wl_record_buffer *buffer)
{
	if (!buffer)
		return;
	if (atomic_fetch_sub(&buffer->locks, 1) == 1 && buffer->impl->unlocked)
		buffer->impl->unlocked(buffer);
	wl_record_buffer_unref(buffer);
}

bool wl_record_buffer_is_locked(const struct wl_record_buffer *buffer)
{
	return atomic_load(&buffer->locks) > 0;
}

bool wl_record_buffer_unused(const struct wl_record_buffer *buffer)
{
	return atomic_load(&buffer->refs) == 1;
}

bool wl_record_buffer_begin_data_ptr_access(struct wl_record_buffer *buffer,
					    const uint8_t **data, int *stride)
{
	if (!buffer->impl->begin_data_ptr_access)
		return false;
	return buffer->impl->begin_data_ptr_access(buffer, data, stride);
}

bool wl_record_buffer_end_data_ptr_access(struct wl_record_buffer *buffer)
{
	return buffer->impl->end_data_ptr_access ? buffer->impl->end_data_ptr_access(buffer) : true;
}

const struct dmabuf_attributes *wl_record_buffer_get_dmabuf(struct wl_record_buffer *buffer)
{
	return buffer->impl->get_dmabuf ? buffer->impl->get_dmabuf(buffer) : NULL;
}

bool wl_record_buffer_read(struct wl_record_buffer *buffer, uint8_t *dst, int dst_stride,
			   char *why, size_t why_size)
{
	const uint8_t *data;
	int stride;
	if (wl_record_buffer_begin_data_ptr_access(buffer, &data, &stride)) {
		size_t row = (size_t)buffer->width * 4;
		for (int y = 0; y < buffer->height; y++)
			memcpy(dst + (size_t)dst_stride * (size_t)y, data + (size_t)stride * (size_t)y,
			       row);
		if (!wl_record_buffer_end_data_ptr_access(buffer)) {
			snprintf(why, why_size, "the buffer's memory faulted while it was read");
			return false;
		}
		return true;
	}
	if (!buffer->impl->read) {
		snprintf(why, why_size, "the buffer cannot be read by the CPU");
		return false;
	}
	return buffer->impl->read(buffer, dst, dst_stride, why, why_size);
}
