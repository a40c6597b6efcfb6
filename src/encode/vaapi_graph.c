#include "vaapi_graph.h"

#include <stdio.h>

#include <libavutil/pixdesc.h>
#include <libavutil/pixfmt.h>

#include "avfilter_loader.h"
#include "letterbox.h"
#include "yuv_convert.h"

bool vaapi_graph_can_letterbox(void)
{
	const struct avfilter_api *avf = avfilter_api_get(NULL);
	return avf && avf->get_by_name("pad_vaapi");
}

int vaapi_nv12_graph_create(AVBufferRef *frames, int width, int height, AVRational time_base,
			    int out_width, int out_height, AVFilterGraph **graph,
			    AVFilterContext **source, AVFilterContext **sink, char *why,
			    size_t why_size)
{
	AVBufferSrcParameters *params = NULL;
	AVFilterContext *scale = NULL, *pad = NULL;
	char args[256];
	const char *stage = "scale_vaapi"; /* what failed, for `why` */
	int ret;

	const char *not_loaded = NULL;
	const struct avfilter_api *avf = avfilter_api_get(&not_loaded);
	*graph = NULL;
	*source = *sink = NULL;
	if (!avf) {
		snprintf(why, why_size, "scale_vaapi: %s", not_loaded);
		return AVERROR(ENOSYS);
	}
	*graph = avf->graph_alloc();
	if (!*graph) {
		ret = AVERROR(ENOMEM);
		goto out;
	}
	snprintf(args, sizeof(args), "video_size=%dx%d:pix_fmt=%d:time_base=%d/%d:pixel_aspect=1/1",
		 width, height, AV_PIX_FMT_VAAPI, time_base.num, time_base.den);
	ret = avf->graph_create_filter(source, avf->get_by_name("buffer"), "source", args,
					   NULL, *graph);
	if (ret < 0)
		goto out;
	params = avf->buffersrc_parameters_alloc();
	if (!params) {
		ret = AVERROR(ENOMEM);
		goto out;
	}
	params->format = AV_PIX_FMT_VAAPI;
	params->hw_frames_ctx = frames; /* referenced by the call */
	ret = avf->buffersrc_parameters_set(*source, params);
	if (ret < 0)
		goto out;
	const AVFilter *scale_vaapi = avf->get_by_name("scale_vaapi");
	if (!scale_vaapi) {
		ret = AVERROR_FILTER_NOT_FOUND;
		goto out;
	}
	/* Another aspect than the stream's: scaled to fit, then padded with
	 * black bars by pad_vaapi (FFmpeg 6.1+), as the software path does. */
	struct letterbox box = letterbox_fit(width, height, out_width, out_height);
	const AVFilter *pad_vaapi = box.fills ? NULL : avf->get_by_name("pad_vaapi");
	if (!box.fills && !pad_vaapi) {
		ret = AVERROR_FILTER_NOT_FOUND;
		stage = "pad_vaapi";
		goto out;
	}
	/* The same matrix and tags as the software path's. */
	snprintf(args, sizeof(args),
		 "w=%d:h=%d:format=nv12:out_range=limited:out_color_matrix=%s:"
		 "out_color_primaries=%s:out_color_transfer=%s",
		 box.width, box.height, av_color_space_name(YUV_COLORSPACE),
		 av_color_primaries_name(YUV_COLOR_PRIMARIES),
		 av_color_transfer_name(YUV_COLOR_TRC));
	ret = avf->graph_create_filter(&scale, scale_vaapi, "convert", args, NULL, *graph);
	if (ret < 0)
		goto out;
	if (pad_vaapi) {
		snprintf(args, sizeof(args), "width=%d:height=%d:x=%d:y=%d:color=black", out_width,
			 out_height, box.x, box.y);
		stage = "pad_vaapi";
		ret = avf->graph_create_filter(&pad, pad_vaapi, "letterbox", args, NULL, *graph);
		if (ret < 0)
			goto out;
		stage = "scale_vaapi";
	}
	ret = avf->graph_create_filter(sink, avf->get_by_name("buffersink"), "sink", NULL,
					   NULL, *graph);
	if (ret < 0)
		goto out;
	ret = avf->link(*source, 0, scale, 0);
	if (ret >= 0 && pad) {
		ret = avf->link(scale, 0, pad, 0);
		if (ret >= 0)
			ret = avf->link(pad, 0, *sink, 0);
	} else if (ret >= 0) {
		ret = avf->link(scale, 0, *sink, 0);
	}
	if (ret >= 0)
		ret = avf->graph_config(*graph, NULL);
out:
	av_free(params);
	if (ret < 0) {
		avf->graph_free(graph);
		*source = *sink = NULL;
		snprintf(why, why_size, "%s: %s", stage, av_err2str(ret));
	}
	return ret;
}
