#ifndef WL_RECORD_SINK_CAPS_H
#define WL_RECORD_SINK_CAPS_H

#include <stdint.h>

/* What a frame sink takes, declared by the part that knows it (a VA-API
 * encoder maps some dmabufs, a still reads pixels) and read by a source's
 * buffer negotiation (buffer_negotiation.h). Every sink reads pixels (a
 * frame's data, or its buffer's read()); dmabufs are what some also take
 * without a CPU copy. */

#define WL_RECORD_SINK_MAX_DMABUF_FORMATS 8
/* More sinks than one recording has (the encoder, a window, a still). */
#define WL_RECORD_MAX_SINKS 4

struct wl_record_dmabuf_format {
	uint32_t format;   /* DRM fourcc */
	uint64_t modifier; /* DRM_FORMAT_MOD_INVALID: any the producer allocates */
};

struct wl_record_sink_caps {
	/* The dmabufs it takes without a CPU copy, preferred first. None: it
	 * reads pixels, for which shm is cheaper. */
	int n_dmabuf_formats;
	struct wl_record_dmabuf_format dmabuf_formats[WL_RECORD_SINK_MAX_DMABUF_FORMATS];
	/* Without dmabuf formats: why, as the log says it ("a still wants
	 * pixels"). */
	char no_dmabuf_why[96];
};

#endif
