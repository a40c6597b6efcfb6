#ifndef WLR_FRAME_H
#define WLR_FRAME_H

#include <stddef.h>
#include <stdint.h>

/* A picture of the whole output as wl-record composed it: 32-bit pixels laid
 * out as DRM_FORMAT_XRGB8888 (bytes B, G, R, X in memory; X is undefined),
 * rows `stride` bytes apart. This is the unit that travels the frame path:
 * commit -> copy into the screen -> snapshot into the queue -> encode. */
struct frame {
	uint8_t *data;
	int width, height;
	int stride;
	int64_t pts_ns; /* CLOCK_MONOTONIC time of the commit that completed it */
	/* Zero-copy path only (NULL otherwise): the picture is this client
	 * dmabuf, `data` is NULL, and whoever keeps the frame takes a reference
	 * (dmabuf_lease.h). Set only when the presented surface maps 1:1 and a
	 * consumer asked for dmabufs. */
	struct dmabuf_lease *dmabuf;
};

#endif
