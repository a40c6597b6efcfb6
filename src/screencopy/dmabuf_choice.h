#ifndef WL_RECORD_DMABUF_CHOICE_H
#define WL_RECORD_DMABUF_CHOICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sink_caps.h"

/* Whether the desktop's copies go into dmabufs (GBM, taken by the sinks
 * without a CPU copy) or into shm: the rule, as a pure function of what is
 * known when the compositor first says which buffers it takes. What the
 * sinks take against what the compositor offers is the common negotiation
 * (buffer_negotiation.h); around it what only this source knows. libc
 * only: it is built and tested with or without libgbm. */

struct dmabuf_choice_facts {
	bool built_with_gbm;
	/* What the sinks take (screencopy_source_set_buffers); none: not asked. */
	const struct wl_record_sink_caps *sinks;
	int n_sinks;
	uint32_t format_offered; /* the best dmabuf format offered (DRM fourcc); 0: none */
	bool cropped;          /* -g cut out of the copy by the CPU (ext-image-copy-capture) */
	bool turned;           /* the output is rotated or mirrored: the CPU turns it upright */
	const char *node;      /* the render node found; NULL: none */
	const char *node_why;  /* without one: why ("/dev/dri absent") */
	bool linux_dmabuf;     /* the compositor offers zwp_linux_dmabuf_v1 (v2+) */
};

/* True: try dmabufs (the render node must still open and GBM allocate).
 * False: shm, with the reason in `why` ("no render node (/dev/dri
 * absent)"), logged as "shm buffers: <why>". */
bool dmabuf_choose(const struct dmabuf_choice_facts *facts, char *why, size_t why_size);

/* The render node to allocate on: `device` (--device) when given; else
 * the render node of the compositor's `dev` (ext-image-copy-capture's
 * dmabuf_device, a primary or render node) when `dev_known`; else the
 * first /dev/dri/renderD* that can be opened. False with why ("/dev/dri
 * absent") when there is none. */
bool dmabuf_find_render_node(const char *device, bool dev_known, dev_t dev, char *path,
			     size_t path_size, char *why, size_t why_size);

#endif
