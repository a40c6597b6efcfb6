#ifndef WL_RECORD_ENCODER_SINK_CAPS_H
#define WL_RECORD_ENCODER_SINK_CAPS_H

#include <stdbool.h>

#include "sink_caps.h"

/* What the recording takes from a source (sink_caps.h), known before the
 * encoder module loads: a still (png_writer.h) reads pixels; a VA-API
 * encoder (`codec` NULL: VA-API where it works) maps XRGB8888 and
 * ARGB8888 dmabufs of any modifier (vaapi_map.c); any other encoder reads
 * pixels. */
void encoder_sink_caps(bool still, const char *codec, struct wl_record_sink_caps *caps);

#endif
