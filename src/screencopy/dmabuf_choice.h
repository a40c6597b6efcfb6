#ifndef WL_RECORD_DMABUF_CHOICE_H
#define WL_RECORD_DMABUF_CHOICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Whether the desktop's copies go into dmabufs (GBM, mapped by VA-API
 * without a CPU copy) or into shm: the rule, as a pure function of what is
 * known when the compositor first says which buffers it takes. libc only:
 * it is built and tested with or without libgbm. */

struct dmabuf_choice_facts {
	bool built_with_gbm;
	bool asked;            /* the app said what it wants (screencopy_source_set_buffers) */
	bool still;            /* --screenshot: pixels are wanted, shm holds them */
	const char *codec;     /* --codec; NULL: automatic (VA-API where it works) */
	bool format_offered;   /* the compositor offers a dmabuf format VA-API maps */
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

/* True when the encoder named by --codec (NULL: automatic) can map a dmabuf
 * (a *_vaapi one); the others read pixels, for which shm is cheaper. */
bool dmabuf_codec_maps(const char *codec);

/* DRM_FORMAT_XRGB8888 and DRM_FORMAT_ARGB8888: what VA-API maps
 * (src/encode/vaapi_map.c); 2 for XRGB (preferred), 1 for ARGB, 0 else. */
int dmabuf_format_rank(uint32_t format);

#define DMABUF_FORMAT_XRGB8888 0x34325258u /* 'XR24' */
#define DMABUF_FORMAT_ARGB8888 0x34325241u /* 'AR24' */

/* The render node to allocate on: `device` (--device) when given; else
 * the render node of the compositor's `dev` (ext-image-copy-capture's
 * dmabuf_device, a primary or render node) when `dev_known`; else the
 * first /dev/dri/renderD* that can be opened. False with why ("/dev/dri
 * absent") when there is none. */
bool dmabuf_find_render_node(const char *device, bool dev_known, dev_t dev, char *path,
			     size_t path_size, char *why, size_t why_size);

#endif
