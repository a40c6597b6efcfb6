#include "buffer_negotiation.h"

#include <stdio.h>
#include <string.h>

#include <drm_fourcc.h>

static const struct wl_record_dmabuf_format *find_format(const struct wl_record_sink_caps *caps,
							  uint32_t format, int *index)
{
	for (int i = 0; i < caps->n_dmabuf_formats; i++) {
		if (caps->dmabuf_formats[i].format == format) {
			if (index)
				*index = i;
			return &caps->dmabuf_formats[i];
		}
	}
	return NULL;
}

int wl_record_dmabuf_format_rank(const struct wl_record_sink_caps *sinks, int n_sinks,
				 uint32_t format)
{
	int index = 0;
	if (n_sinks < 1 || !find_format(&sinks[0], format, &index))
		return 0;
	for (int i = 1; i < n_sinks; i++)
		if (!find_format(&sinks[i], format, NULL))
			return 0;
	return sinks[0].n_dmabuf_formats - index;
}

/* A sink may list a format more than once, with each modifier it takes. */
static bool sink_takes(const struct wl_record_sink_caps *caps, uint32_t format,
		       uint64_t modifier)
{
	for (int i = 0; i < caps->n_dmabuf_formats; i++) {
		const struct wl_record_dmabuf_format *f = &caps->dmabuf_formats[i];
		if (f->format == format &&
		    (f->modifier == DRM_FORMAT_MOD_INVALID || f->modifier == modifier))
			return true;
	}
	return false;
}

bool wl_record_dmabuf_modifier_taken(const struct wl_record_sink_caps *sinks, int n_sinks,
				     uint32_t format, uint64_t modifier)
{
	for (int i = 0; i < n_sinks; i++)
		if (!sink_takes(&sinks[i], format, modifier))
			return false;
	return n_sinks > 0;
}

static const char *format_name(uint32_t format, char *buf, size_t size)
{
	switch (format) {
	case DRM_FORMAT_XRGB8888:
		return "XRGB8888";
	case DRM_FORMAT_ARGB8888:
		return "ARGB8888";
	case DRM_FORMAT_XBGR8888:
		return "XBGR8888";
	case DRM_FORMAT_ABGR8888:
		return "ABGR8888";
	default:
		snprintf(buf, size, "0x%08x", format);
		return buf;
	}
}

/* "XRGB8888/ARGB8888": the formats `caps` takes, each once. */
static void name_formats(const struct wl_record_sink_caps *caps, char *out, size_t size)
{
	size_t used = 0;
	out[0] = 0;
	for (int i = 0; i < caps->n_dmabuf_formats && used < size; i++) {
		int first = 0;
		find_format(caps, caps->dmabuf_formats[i].format, &first);
		if (first != i)
			continue;
		char buf[16];
		int n = snprintf(out + used, size - used, "%s%s", used ? "/" : "",
				 format_name(caps->dmabuf_formats[i].format, buf, sizeof(buf)));
		used += n > 0 ? (size_t)n : 0;
	}
}

bool wl_record_buffers_negotiate(const struct wl_record_dmabuf_offer *offer,
				 const struct wl_record_sink_caps *sinks, int n_sinks,
				 uint32_t *format, char *why, size_t why_size)
{
	if (n_sinks < 1) {
		snprintf(why, why_size, "dmabufs not asked for");
		return false;
	}
	for (int i = 0; i < n_sinks; i++) {
		if (!sinks[i].n_dmabuf_formats) {
			snprintf(why, why_size, "%s", sinks[i].no_dmabuf_why);
			return false;
		}
	}
	int best = 0;
	for (int i = 0; i < offer->n_formats; i++) {
		int rank = wl_record_dmabuf_format_rank(sinks, n_sinks, offer->formats[i]);
		if (rank > best) {
			best = rank;
			*format = offer->formats[i];
		}
	}
	if (best)
		return true;
	char names[128];
	name_formats(&sinks[0], names, sizeof(names));
	snprintf(why, why_size, "%s offers no dmabuf %s copy", offer->offerer, names);
	return false;
}
