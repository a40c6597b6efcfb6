#ifndef WL_RECORD_VAAPI_GRAPH_H
#define WL_RECORD_VAAPI_GRAPH_H

#include <stdbool.h>

#include <libavfilter/avfilter.h>
#include <libavutil/buffer.h>
#include <libavutil/rational.h>

/* The one VA-API conversion both hardware paths use (uploaded shm frames and
 * mapped dmabufs): a buffer source of VAAPI surfaces from `frames`
 * (width x height) -> scale_vaapi to NV12 (yuv_convert.h's matrix and tags)
 * at out_width x out_height -> a buffer sink. A picture of another aspect is
 * scaled to fit and padded with black bars (letterbox.h) by pad_vaapi;
 * AVERROR_FILTER_NOT_FOUND when that filter is missing (before FFmpeg 6.1).
 * libavfilter is loaded here (avfilter_loader.h): AVERROR(ENOSYS) when it
 * cannot be. On failure nothing is left allocated, *graph is NULL and `why`
 * says what failed. */
int vaapi_nv12_graph_create(AVBufferRef *frames, int width, int height, AVRational time_base,
			    int out_width, int out_height, AVFilterGraph **graph,
			    AVFilterContext **source, AVFilterContext **sink, char *why,
			    size_t why_size);

/* Whether vaapi_nv12_graph_create can letterbox (pad_vaapi is there). */
bool vaapi_graph_can_letterbox(void);

#endif
