#include "avfilter_loader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include <libavutil/macros.h>

#define LIBRARY_NAME "libavfilter.so." AV_STRINGIFY(LIBAVFILTER_VERSION_MAJOR)

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static struct avfilter_api api;
static const struct avfilter_api *loaded;
static char load_error[256];

static void *find(void *library, const char *name)
{
	void *symbol = dlsym(library, name);
	if (!symbol && !load_error[0])
		snprintf(load_error, sizeof(load_error), "%s has no %s", LIBRARY_NAME, name);
	return symbol;
}

static void load(void)
{
	/* Never closed: filter graphs may live until exit. */
	void *library = dlopen(LIBRARY_NAME, RTLD_NOW | RTLD_LOCAL);
	if (!library) {
		snprintf(load_error, sizeof(load_error), "cannot load %s: %s", LIBRARY_NAME,
			 dlerror());
		return;
	}
	/* A cast through void * per symbol: the type comes from the header. */
#define FIND(member, symbol) (api.member = (__typeof__(api.member))find(library, #symbol))
	FIND(version, avfilter_version);
	FIND(get_by_name, avfilter_get_by_name);
	FIND(graph_alloc, avfilter_graph_alloc);
	FIND(graph_create_filter, avfilter_graph_create_filter);
	FIND(graph_config, avfilter_graph_config);
	FIND(graph_free, avfilter_graph_free);
	FIND(link, avfilter_link);
	FIND(buffersrc_parameters_alloc, av_buffersrc_parameters_alloc);
	FIND(buffersrc_parameters_set, av_buffersrc_parameters_set);
	FIND(buffersrc_add_frame, av_buffersrc_add_frame);
	FIND(buffersink_get_frame, av_buffersink_get_frame);
	FIND(buffersink_get_hw_frames_ctx, av_buffersink_get_hw_frames_ctx);
#undef FIND
	if (load_error[0])
		return;
	if (AV_VERSION_MAJOR(api.version()) != LIBAVFILTER_VERSION_MAJOR) {
		snprintf(load_error, sizeof(load_error), "%s is version %u, built for %d",
			 LIBRARY_NAME, AV_VERSION_MAJOR(api.version()), LIBAVFILTER_VERSION_MAJOR);
		return;
	}
	loaded = &api;
}

const struct avfilter_api *avfilter_api_get(const char **why)
{
	pthread_once(&load_once, load);
	if (!loaded && why)
		*why = load_error;
	return loaded;
}
