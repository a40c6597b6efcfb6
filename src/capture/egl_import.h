#ifndef WL_RECORD_EGL_IMPORT_H
#define WL_RECORD_EGL_IMPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dmabuf_attributes.h"

/* Reading dmabufs the CPU cannot read (tiled, compressed: any modifier but
 * LINEAR) through Mesa's EGL: import with EGL_EXT_image_dma_buf_import
 * (_modifiers) on a display without any window system (the render node's
 * EGL device, else the surfaceless platform), draw nothing, read the pixels
 * back with glReadPixels. GPU work on the compositor thread: used for stills
 * and the software encoder, never on the zero-copy path.
 *
 * Built without EGL (meson found no egl/glesv2), every call fails with a
 * reason. */

struct egl_importer;

/* `render_node` (may be NULL) is the device to import on. NULL with the
 * reason in `why` when EGL or the needed extensions are missing. */
struct egl_importer *egl_importer_create(const char *render_node, char *why, size_t why_size);
void egl_importer_destroy(struct egl_importer *importer);

/* Modifiers of `format` that can be imported and read back (not
 * external-only), at most `max`. */
int egl_importer_query_modifiers(struct egl_importer *importer, uint32_t format,
				 uint64_t *modifiers, int max);

/* Imports the buffer once to see that it works. */
bool egl_importer_check(struct egl_importer *importer, const struct dmabuf_attributes *attributes,
			char *why, size_t why_size);

/* Reads the buffer into `dst` as XRGB8888 rows `dst_stride` bytes apart. */
bool egl_importer_read(struct egl_importer *importer, const struct dmabuf_attributes *attributes,
		       uint8_t *dst, int dst_stride, char *why, size_t why_size);

#endif
