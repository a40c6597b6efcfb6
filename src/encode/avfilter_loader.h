#ifndef WL_RECORD_AVFILTER_LOADER_H
#define WL_RECORD_AVFILTER_LOADER_H

#include <libavfilter/avfilter.h>
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>

/* libavfilter, loaded at run time by the VA-API paths, the only ones that
 * need it (scale_vaapi). Linked in, it and the libraries it pulls in cost
 * about 21 MB of resident memory in every run (measured: a program linking
 * libavcodec alone at 18 MB, with libavfilter at 39 MB), a sixth of a 1080p
 * software recording's peak. The members are the libavfilter functions of
 * the same names, type-checked against its headers. */
struct avfilter_api {
	__typeof__(&avfilter_version) version;
	__typeof__(&avfilter_get_by_name) get_by_name;
	__typeof__(&avfilter_graph_alloc) graph_alloc;
	__typeof__(&avfilter_graph_create_filter) graph_create_filter;
	__typeof__(&avfilter_graph_config) graph_config;
	__typeof__(&avfilter_graph_free) graph_free;
	__typeof__(&avfilter_link) link;
	__typeof__(&av_buffersrc_parameters_alloc) buffersrc_parameters_alloc;
	__typeof__(&av_buffersrc_parameters_set) buffersrc_parameters_set;
	__typeof__(&av_buffersrc_add_frame) buffersrc_add_frame;
	__typeof__(&av_buffersink_get_frame) buffersink_get_frame;
	__typeof__(&av_buffersink_get_hw_frames_ctx) buffersink_get_hw_frames_ctx;
};

/* The library, loaded on the first call (thread-safe), or NULL when it
 * cannot be loaded; then `*why` (when not NULL) says why. */
const struct avfilter_api *avfilter_api_get(const char **why);

#endif
