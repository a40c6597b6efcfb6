#include "buffer.h"

#include <assert.h>

#include "dmabuf_buffer.h"
#include "shm.h"

struct client_buffer *client_buffer_try_from_resource(struct wl_resource *resource)
{
	/* One line per kind of buffer wl-record can read. */
	struct client_buffer *buffer = shm_buffer_try_from_resource(resource);
	if (!buffer)
		buffer = dmabuf_buffer_try_from_resource(resource);
	return buffer;
}

struct client_buffer *client_buffer_from_resource(struct wl_resource *resource)
{
	struct client_buffer *buffer = client_buffer_try_from_resource(resource);
	assert(buffer);
	return buffer;
}
