/* libavfilter is loaded at run time, not linked (avfilter_loader.h): it is
 * not mapped before the first use, and the loaded functions build and run a
 * real filter graph (software scale, the same calls the VA-API graph makes). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <libavutil/frame.h>

#include "avfilter_loader.h"
#include "synth.h"

static bool avfilter_mapped(void)
{
	FILE *maps = fopen("/proc/self/maps", "r");
	test_assert(maps);
	char line[512];
	bool found = false;
	while (fgets(line, sizeof(line), maps))
		found = found || strstr(line, "/libavfilter.so") != NULL;
	fclose(maps);
	return found;
}

TEST(loaded_at_first_use)
{
	test_assert(!avfilter_mapped());
	const char *why = NULL;
	const struct avfilter_api *avf = avfilter_api_get(&why);
	if (!avf)
		fprintf(stderr, "%s\n", why);
	test_assert(avf);
	test_assert(avfilter_api_get(NULL) == avf);
	test_assert(avfilter_mapped());
	test_assert(avf->get_by_name("scale_vaapi")); /* Debian's build has it */

	AVFilterGraph *graph = avf->graph_alloc();
	test_assert(graph);
	AVFilterContext *source = NULL, *scale = NULL, *sink = NULL;
	test_assert(avf->graph_create_filter(&source, avf->get_by_name("buffer"), "source",
				       "video_size=64x32:pix_fmt=bgr0:time_base=1/1000:pixel_aspect=1/1",
				       NULL, graph) >= 0);
	test_assert(avf->graph_create_filter(&scale, avf->get_by_name("scale"), "scale",
				       "w=32:h=16:flags=neighbor", NULL, graph) >= 0);
	test_assert(avf->graph_create_filter(&sink, avf->get_by_name("buffersink"), "sink", NULL, NULL,
				       graph) >= 0);
	test_assert(avf->link(source, 0, scale, 0) >= 0);
	test_assert(avf->link(scale, 0, sink, 0) >= 0);
	test_assert(avf->graph_config(graph, NULL) >= 0);

	AVFrame *in = av_frame_alloc(), *out = av_frame_alloc();
	test_assert(in && out);
	in->format = AV_PIX_FMT_BGR0;
	in->width = 64;
	in->height = 32;
	test_assert(av_frame_get_buffer(in, 0) >= 0);
	for (int y = 0; y < 32; y++)
		for (int x = 0; x < 64; x++) {
			uint8_t *p = in->data[0] + y * in->linesize[0] + x * 4;
			p[0] = 10, p[1] = 200, p[2] = (uint8_t)(x < 32 ? 0 : 255), p[3] = 255;
		}
	in->pts = 0;
	test_assert(avf->buffersrc_add_frame(source, in) >= 0);
	test_assert(avf->buffersink_get_frame(sink, out) >= 0);
	test_assert(out->width == 32 && out->height == 16 && out->format == AV_PIX_FMT_BGR0);
	const uint8_t *left = out->data[0] + 8 * out->linesize[0] + 4 * 4;
	const uint8_t *right = out->data[0] + 8 * out->linesize[0] + 28 * 4;
	printf("left %u %u %u, right %u %u %u\n", left[0], left[1], left[2], right[0], right[1],
	       right[2]);
	test_assert(left[0] == 10 && left[1] == 200 && left[2] == 0);
	test_assert(right[0] == 10 && right[1] == 200 && right[2] == 255);
	test_assert(avf->buffersink_get_hw_frames_ctx(sink) == NULL); /* software frames */
	av_frame_free(&in);
	av_frame_free(&out);
	avf->graph_free(&graph);
	test_assert(graph == NULL);
}
