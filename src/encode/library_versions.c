#define LOG_MODULE "encode"
#include "recorder.h"

#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libswscale/swscale.h>

#include "avfilter_loader.h"

struct libva_search {
	char path[4096];
};

static int find_libva(struct dl_phdr_info *info, size_t size, void *data)
{
	struct libva_search *search = data;
	const char *slash = strrchr(info->dlpi_name, '/');
	const char *base = slash ? slash + 1 : info->dlpi_name;
	if (strncmp(base, "libva.so.", strlen("libva.so.")) != 0)
		return 0;
	snprintf(search->path, sizeof(search->path), "%s", info->dlpi_name);
	return 1;
}

/* libva is loaded by libavutil (VA-API support), not linked by us. Its
 * version shows in the file the soname points at: libva.so.2.1700.0 is
 * 2.17.0 (the middle number is minor * 100 + micro). */
static void print_libva(FILE *out)
{
	struct libva_search search = { 0 };
	dl_iterate_phdr(find_libva, &search);
	if (!search.path[0]) {
		fputs("libva: not loaded (this FFmpeg has no VA-API)\n", out);
		return;
	}
	char *real = realpath(search.path, NULL);
	const char *name = strrchr(real ? real : search.path, '/');
	name = name ? name + 1 : search.path;
	unsigned major, middle, patch;
	if (sscanf(name, "libva.so.%u.%u.%u", &major, &middle, &patch) == 3)
		fprintf(out, "libva %u.%u.%u (%s)\n", major, middle / 100, middle % 100,
			real ? real : search.path);
	else
		fprintf(out, "libva: %s\n", real ? real : search.path);
	free(real);
}

static void print_lib(FILE *out, const char *name, unsigned version)
{
	fprintf(out, " %s %u.%u.%u", name, AV_VERSION_MAJOR(version), AV_VERSION_MINOR(version),
		AV_VERSION_MICRO(version));
}

/* What this machine gives at run time, not what we were built against. */
void recorder_print_libraries(FILE *out)
{
	fprintf(out, "FFmpeg %s:", av_version_info());
	print_lib(out, "libavcodec", avcodec_version());
	print_lib(out, "libavformat", avformat_version());
	/* Loaded only for VA-API (avfilter_loader.h); shown when it can be. */
	const struct avfilter_api *avf = avfilter_api_get(NULL);
	if (avf)
		print_lib(out, "libavfilter", avf->version());
	print_lib(out, "libswscale", swscale_version());
	print_lib(out, "libavutil", avutil_version());
	fputc('\n', out);
	print_libva(out);
}
