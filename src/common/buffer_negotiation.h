#ifndef WL_RECORD_BUFFER_NEGOTIATION_H
#define WL_RECORD_BUFFER_NEGOTIATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sink_caps.h"

/* Whether a source's copies go to the sinks as dmabufs or as pixels, and
 * in which format: what the source offers against what every sink takes
 * (sink_caps.h). The source adds what only it knows (a render node, a
 * crop done by the CPU) before or after. */

/* How much the sinks want dmabufs of `format`: 0 when one of them does not
 * take it at all; else higher for formats earlier in the first sink's
 * list. For a source that keeps only the best of what it is offered. */
int wl_record_dmabuf_format_rank(const struct wl_record_sink_caps *sinks, int n_sinks,
				 uint32_t format);

/* Whether every sink takes dmabufs of `format` with `modifier`. */
bool wl_record_dmabuf_modifier_taken(const struct wl_record_sink_caps *sinks, int n_sinks,
				     uint32_t format, uint64_t modifier);

/* What a source can produce as dmabufs. */
struct wl_record_dmabuf_offer {
	const char *offerer; /* for the log: "the compositor" */
	int n_formats;
	const uint32_t *formats; /* DRM fourccs */
};

/* True: dmabufs, in `*format` (the offered format the sinks rank highest).
 * False: pixels, with the reason in `why`: no sinks asked ("dmabufs not
 * asked for"), the first sink's that takes none, or none offered that
 * every sink takes ("the compositor offers no dmabuf XRGB8888/ARGB8888
 * copy", naming the first sink's formats). */
bool wl_record_buffers_negotiate(const struct wl_record_dmabuf_offer *offer,
				 const struct wl_record_sink_caps *sinks, int n_sinks,
				 uint32_t *format, char *why, size_t why_size);

#endif
