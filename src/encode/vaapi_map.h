#ifndef WL_RECORD_VAAPI_MAP_H
#define WL_RECORD_VAAPI_MAP_H

#include <stdbool.h>
#include <stddef.h>

#include <libavutil/buffer.h>
#include <libavutil/frame.h>

#include "wl_record_buffer.h"

/* The zero-copy path: a client's dmabuf wrapped as an AV_PIX_FMT_DRM_PRIME
 * frame, av_hwframe_map()ped into a VA-API surface (no copy: the driver
 * imports the memory), converted to NV12 at the stream size by scale_vaapi,
 * ready for h264_vaapi/hevc_vaapi. A lock rides with the frames
 * (opaque_ref, which scale_vaapi copies to its output), so the wl_buffer is
 * released when the encoder drops the NV12 surface, not before.
 *
 * One VA-API frames context and one scale_vaapi graph per buffer size and
 * format (a handful: the output size changes rarely); imports are cached per
 * client buffer (the surface is the buffer's memory, not a copy of it, so a
 * client cycling through its buffers is mapped once per buffer). FFmpeg 5.1 maps
 * single-object buffers only; every failure is returned with a reason, and
 * the caller falls back to the CPU read of the buffer. */

struct vaapi_map;

struct vaapi_map *vaapi_map_create(AVBufferRef *vaapi_device);
void vaapi_map_destroy(struct vaapi_map *map);

/* `buffer` (a dmabuf: wl_record_buffer_get_dmabuf) is mapped; `out`
 * receives an NV12 VA-API frame of width x height. Any thread (the
 * encoder's). Negative AVERROR with `why` filled on failure. */
int vaapi_map_convert(struct vaapi_map *map, struct wl_record_buffer *buffer, int width,
		      int height, AVFrame *out, char *why, size_t why_size);

/* Which hops ran at least once (in the --stats-fd summary for scripts/check-hw). */
struct vaapi_map_hops {
	bool imported;  /* DRM_PRIME frame built from the dmabuf */
	bool mapped;    /* av_hwframe_map to VA-API succeeded */
	bool converted; /* scale_vaapi produced NV12 */
};
void vaapi_map_get_hops(const struct vaapi_map *map, struct vaapi_map_hops *hops);

#endif
