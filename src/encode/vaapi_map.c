#define LOG_MODULE "encode"
#include "vaapi_map.h"

#include <drm_fourcc.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libavutil/hwcontext.h>
#include <libavutil/hwcontext_drm.h>

#include "avfilter_loader.h"
#include "log.h"
#include "vaapi_graph.h"

#define MAX_SIZES 4
/* Clients cycle through 2-4 buffers; a destroyed buffer's fds stay open
 * until its import is evicted. */
#define MAX_IMPORTS 8

/* Everything that depends on the buffer size and format. */
struct size_entry {
	int width, height;         /* of the client buffers */
	uint32_t format;           /* DRM fourcc */
	int out_width, out_height; /* stream size */
	AVBufferRef *frames;       /* VA-API frames context the maps land in */
	AVFilterGraph *graph;      /* scale_vaapi to NV12 at the stream size */
	AVFilterContext *source, *sink;
	int64_t count;
	unsigned last_used;
};

/* A client buffer already mapped into a VA-API surface. The surface shows
 * the buffer's memory as it is now (an import, not a copy), so it is reused
 * for every later frame in that buffer. It holds a reference to the
 * buffer, not a lock: the wl_buffer is still released after each use. */
struct import {
	uint64_t buffer_id;
	AVBufferRef *frames; /* the size entry's frames context it belongs to */
	AVFrame *surface;
	unsigned last_used;
};

struct vaapi_map {
	AVBufferRef *device;
	struct size_entry sizes[MAX_SIZES];
	struct import imports[MAX_IMPORTS];
	unsigned use_clock;
	struct vaapi_map_hops hops;
};

struct vaapi_map *vaapi_map_create(AVBufferRef *vaapi_device)
{
	struct vaapi_map *map = calloc(1, sizeof(*map));
	if (!map)
		return NULL;
	map->device = av_buffer_ref(vaapi_device);
	if (!map->device) {
		free(map);
		return NULL;
	}
	return map;
}

static void import_clear(struct import *import)
{
	av_frame_free(&import->surface);
	av_buffer_unref(&import->frames);
	*import = (struct import){ 0 };
}

static void size_entry_clear(struct size_entry *entry)
{
	if (entry->graph) /* made, so libavfilter is loaded */
		avfilter_api_get(NULL)->graph_free(&entry->graph);
	av_buffer_unref(&entry->frames);
	*entry = (struct size_entry){ 0 };
}

void vaapi_map_destroy(struct vaapi_map *map)
{
	if (!map)
		return;
	for (int i = 0; i < MAX_IMPORTS; i++)
		import_clear(&map->imports[i]);
	for (int i = 0; i < MAX_SIZES; i++)
		size_entry_clear(&map->sizes[i]);
	av_buffer_unref(&map->device);
	free(map);
}

void vaapi_map_get_hops(const struct vaapi_map *map, struct vaapi_map_hops *hops)
{
	*hops = map->hops;
}

static enum AVPixelFormat sw_format_of(uint32_t format)
{
	switch (format) {
	case DRM_FORMAT_XRGB8888:
		return AV_PIX_FMT_BGR0;
	case DRM_FORMAT_ARGB8888:
		return AV_PIX_FMT_BGRA;
	default:
		return AV_PIX_FMT_NONE;
	}
}

static int make_graph(struct vaapi_map *map, struct size_entry *entry, char *why,
		      size_t why_size)
{
	/* Timestamps are the recorder's business: a plain counter here. */
	return vaapi_nv12_graph_create(entry->frames, entry->width, entry->height,
				       (AVRational){ 1, 1000 }, entry->out_width, entry->out_height,
				       &entry->graph, &entry->source, &entry->sink, why, why_size);
}

/* The entry for this size, made on first use; the least recently used one
 * is replaced when all are taken. On failure `why` says what failed. */
static int find_entry(struct vaapi_map *map, const struct dmabuf_attributes *a, int out_width,
		      int out_height, struct size_entry **found, char *why, size_t why_size)
{
	struct size_entry *victim = &map->sizes[0];
	map->use_clock++;
	for (int i = 0; i < MAX_SIZES; i++) {
		struct size_entry *entry = &map->sizes[i];
		if (entry->frames && entry->width == a->width && entry->height == a->height &&
		    entry->format == a->format && entry->out_width == out_width &&
		    entry->out_height == out_height) {
			entry->last_used = map->use_clock;
			*found = entry;
			return 0;
		}
		if (!entry->frames || entry->last_used < victim->last_used)
			victim = entry;
	}
	for (int i = 0; i < MAX_IMPORTS; i++)
		if (victim->frames && map->imports[i].frames &&
		    map->imports[i].frames->data == victim->frames->data)
			import_clear(&map->imports[i]);
	size_entry_clear(victim);
	victim->width = a->width;
	victim->height = a->height;
	victim->format = a->format;
	victim->out_width = out_width;
	victim->out_height = out_height;
	victim->last_used = map->use_clock;
	victim->frames = av_hwframe_ctx_alloc(map->device);
	if (!victim->frames) {
		snprintf(why, why_size, "VA-API frames context: out of memory");
		return AVERROR(ENOMEM);
	}
	AVHWFramesContext *frames = (AVHWFramesContext *)victim->frames->data;
	frames->format = AV_PIX_FMT_VAAPI;
	frames->sw_format = sw_format_of(a->format);
	frames->width = a->width;
	frames->height = a->height;
	/* No pool: every surface comes from a client buffer. */
	frames->initial_pool_size = 0;
	int ret = av_hwframe_ctx_init(victim->frames);
	if (ret < 0) {
		snprintf(why, why_size, "VA-API frames context: %s", av_err2str(ret));
	} else {
		ret = make_graph(map, victim, why, why_size);
	}
	if (ret < 0) {
		size_entry_clear(victim);
		return ret;
	}
	*found = victim;
	return 0;
}

static void free_descriptor(void *opaque, uint8_t *data)
{
	wl_record_buffer_unref(opaque);
	av_free(data);
}

static void free_lock(void *opaque, uint8_t *data)
{
	wl_record_buffer_unlock(opaque);
}

/* A DRM_PRIME frame describing the dmabuf; it holds the fds open. */
static int wrap_dmabuf(struct wl_record_buffer *buffer, AVFrame *frame)
{
	const struct dmabuf_attributes *a = wl_record_buffer_get_dmabuf(buffer);
	AVDRMFrameDescriptor *desc = av_mallocz(sizeof(*desc));
	if (!desc)
		return AVERROR(ENOMEM);
	/* One object per plane fd; 5.1's VA-API import takes one object. */
	desc->nb_objects = a->n_planes;
	desc->nb_layers = 1;
	desc->layers[0].format = a->format;
	desc->layers[0].nb_planes = a->n_planes;
	for (int i = 0; i < a->n_planes; i++) {
		desc->objects[i].fd = a->fd[i];
		/* Drivers want the object's size: a dma-buf's size is its end. */
		off_t size = lseek(a->fd[i], 0, SEEK_END);
		desc->objects[i].size = size > 0 ? (size_t)size : 0;
		desc->objects[i].format_modifier = a->modifier;
		desc->layers[0].planes[i].object_index = i;
		desc->layers[0].planes[i].offset = a->offset[i];
		desc->layers[0].planes[i].pitch = a->stride[i];
	}
	frame->buf[0] = av_buffer_create((uint8_t *)desc, sizeof(*desc), free_descriptor,
					 wl_record_buffer_ref(buffer), 0);
	if (!frame->buf[0]) {
		wl_record_buffer_unref(buffer);
		av_free(desc);
		return AVERROR(ENOMEM);
	}
	frame->data[0] = (uint8_t *)desc;
	frame->format = AV_PIX_FMT_DRM_PRIME;
	frame->width = a->width;
	frame->height = a->height;
	return 0;
}

/* The VA-API surface of this client buffer: cached, else mapped now. */
static int import_buffer(struct vaapi_map *map, struct size_entry *entry,
			 struct wl_record_buffer *buffer, AVFrame **surface_out, const char **hop)
{
	uint64_t id = buffer->id;
	struct import *victim = &map->imports[0];
	for (int i = 0; i < MAX_IMPORTS; i++) {
		struct import *import = &map->imports[i];
		if (import->surface && import->buffer_id == id &&
		    import->frames->data == entry->frames->data) {
			import->last_used = map->use_clock;
			*surface_out = import->surface;
			return 0;
		}
		if (!import->surface || import->last_used < victim->last_used)
			victim = import;
	}
	AVFrame *drm = av_frame_alloc(), *surface = av_frame_alloc();
	int ret = AVERROR(ENOMEM);
	if (!drm || !surface)
		goto out;
	*hop = "DRM_PRIME wrap";
	ret = wrap_dmabuf(buffer, drm);
	if (ret < 0)
		goto out;
	map->hops.imported = true;
	*hop = "av_hwframe_map DRM_PRIME -> VAAPI";
	surface->format = AV_PIX_FMT_VAAPI;
	surface->hw_frames_ctx = av_buffer_ref(entry->frames);
	if (!surface->hw_frames_ctx) {
		ret = AVERROR(ENOMEM);
		goto out;
	}
	ret = av_hwframe_map(surface, drm, AV_HWFRAME_MAP_READ);
	if (ret < 0)
		goto out;
	map->hops.mapped = true;
	import_clear(victim);
	victim->frames = av_buffer_ref(entry->frames);
	if (!victim->frames) {
		ret = AVERROR(ENOMEM);
		goto out;
	}
	victim->buffer_id = id;
	victim->surface = surface;
	victim->last_used = map->use_clock;
	surface = NULL;
	*surface_out = victim->surface;
out:
	av_frame_free(&surface);
	av_frame_free(&drm); /* the mapped surface keeps its own reference */
	return ret;
}

int vaapi_map_convert(struct vaapi_map *map, struct wl_record_buffer *buffer, int width,
		      int height, AVFrame *out, char *why, size_t why_size)
{
	const struct dmabuf_attributes *a = wl_record_buffer_get_dmabuf(buffer);
	AVFrame *surface = NULL;
	const char *hop = "set-up";
	int ret;

	if (sw_format_of(a->format) == AV_PIX_FMT_NONE) {
		ret = AVERROR(EINVAL);
		snprintf(why, why_size, "format 0x%08x has no VA-API equivalent", a->format);
		return ret;
	}
	struct size_entry *entry;
	ret = find_entry(map, a, width, height, &entry, why, why_size);
	if (ret < 0)
		return ret; /* `why` written */
	AVFrame *mapped = NULL;
	ret = import_buffer(map, entry, buffer, &mapped, &hop);
	if (ret < 0)
		goto out;
	surface = av_frame_alloc();
	if (!surface) {
		ret = AVERROR(ENOMEM);
		goto out;
	}
	ret = av_frame_ref(surface, mapped);
	if (ret < 0)
		goto out;

	/* A lock goes on with the picture: scale_vaapi copies opaque_ref to
	 * the NV12 frame, which the encoder holds until it is done with it. */
	surface->opaque_ref =
		av_buffer_create(NULL, 0, free_lock, wl_record_buffer_lock(buffer), 0);
	if (!surface->opaque_ref) {
		wl_record_buffer_unlock(buffer);
		ret = AVERROR(ENOMEM);
		goto out;
	}
	surface->pts = entry->count++;

	hop = "scale_vaapi";
	const struct avfilter_api *avf = avfilter_api_get(NULL); /* the graph exists */
	ret = avf->buffersrc_add_frame(entry->source, surface);
	if (ret < 0)
		goto out;
	av_frame_unref(out);
	ret = avf->buffersink_get_frame(entry->sink, out);
	if (ret < 0)
		goto out;
	map->hops.converted = true;
out:
	if (ret < 0)
		snprintf(why, why_size, "%s: %s", hop, av_err2str(ret));
	av_frame_free(&surface);
	return ret;
}
