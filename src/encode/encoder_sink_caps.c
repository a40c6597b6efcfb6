#include "encoder_sink_caps.h"

#include <stdio.h>
#include <string.h>

#include <drm_fourcc.h>

/* FFmpeg names its VA-API encoders *_vaapi (h264_vaapi, hevc_vaapi,
 * vp9_vaapi): those take the frames vaapi_map.c maps. */
static bool codec_maps_dmabufs(const char *codec)
{
	if (!codec)
		return true;
	size_t n = strlen(codec);
	return n > 6 && strcmp(codec + n - 6, "_vaapi") == 0;
}

void encoder_sink_caps(bool still, const char *codec, struct wl_record_sink_caps *caps)
{
	*caps = (struct wl_record_sink_caps){ 0 };
	if (still) {
		snprintf(caps->no_dmabuf_why, sizeof(caps->no_dmabuf_why), "a still wants pixels");
		return;
	}
	if (!codec_maps_dmabufs(codec)) {
		snprintf(caps->no_dmabuf_why, sizeof(caps->no_dmabuf_why),
			 "--codec %s reads pixels (no VA-API map)", codec);
		return;
	}
	/* vaapi_map.c's sw_format_of(), XRGB preferred. */
	caps->dmabuf_formats[caps->n_dmabuf_formats++] =
		(struct wl_record_dmabuf_format){ DRM_FORMAT_XRGB8888, DRM_FORMAT_MOD_INVALID };
	caps->dmabuf_formats[caps->n_dmabuf_formats++] =
		(struct wl_record_dmabuf_format){ DRM_FORMAT_ARGB8888, DRM_FORMAT_MOD_INVALID };
}
