#include <stdio.h>

#include "egl_import.h"

/* Built without EGL/GLESv2 development files: no import path but LINEAR. */

struct egl_importer *egl_importer_create(const char *render_node, char *why, size_t why_size)
{
	snprintf(why, why_size, "wl-record was built without EGL");
	return NULL;
}

void egl_importer_destroy(struct egl_importer *importer)
{
}

int egl_importer_query_modifiers(struct egl_importer *importer, uint32_t format,
				 uint64_t *modifiers, int max)
{
	return 0;
}

bool egl_importer_check(struct egl_importer *importer, const struct dmabuf_attributes *attributes,
			char *why, size_t why_size)
{
	snprintf(why, why_size, "wl-record was built without EGL");
	return false;
}

bool egl_importer_read(struct egl_importer *importer, const struct dmabuf_attributes *attributes,
		       uint8_t *dst, int dst_stride, char *why, size_t why_size)
{
	snprintf(why, why_size, "wl-record was built without EGL");
	return false;
}
