#include "dmabuf_choice.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "buffer_negotiation.h"

bool dmabuf_choose(const struct dmabuf_choice_facts *f, char *why, size_t why_size)
{
	struct wl_record_dmabuf_offer offer = {
		.offerer = "the compositor",
		.n_formats = f->format_offered ? 1 : 0,
		.formats = &f->format_offered,
	};
	uint32_t format; /* the one offered: each protocol keeps the sinks' best */
	/* From what never changes to what the compositor and machine say. */
	if (!f->built_with_gbm)
		snprintf(why, why_size, "dmabuf not available: built without libgbm");
	else if (!wl_record_buffers_negotiate(&offer, f->sinks, f->n_sinks, &format, why,
					      why_size))
		return false;
	else if (f->cropped)
		snprintf(why, why_size, "-g is cut out of the copy by the CPU");
	else if (f->turned)
		snprintf(why, why_size, "the output is turned: the CPU turns its copies upright");
	else if (!f->node)
		snprintf(why, why_size, "no render node (%s)", f->node_why ? f->node_why : "none");
	else if (!f->linux_dmabuf)
		snprintf(why, why_size, "the compositor offers no zwp_linux_dmabuf_v1 (v2+)");
	else
		return true;
	return false;
}

/* /sys/dev/char/MAJ:MIN/device/drm/ lists every node of the device the
 * compositor named, the render node among them. */
static bool render_node_of(dev_t dev, char *path, size_t path_size)
{
	char dir_path[96];
	snprintf(dir_path, sizeof(dir_path), "/sys/dev/char/%u:%u/device/drm", major(dev),
		 minor(dev));
	DIR *dir = opendir(dir_path);
	if (!dir)
		return false;
	bool found = false;
	struct dirent *entry;
	while (!found && (entry = readdir(dir))) {
		if (strncmp(entry->d_name, "renderD", 7) == 0) {
			snprintf(path, path_size, "/dev/dri/%s", entry->d_name);
			found = access(path, R_OK | W_OK) == 0;
		}
	}
	closedir(dir);
	return found;
}

bool dmabuf_find_render_node(const char *device, bool dev_known, dev_t dev, char *path,
			     size_t path_size, char *why, size_t why_size)
{
	if (device) {
		snprintf(path, path_size, "%s", device);
		if (access(path, R_OK | W_OK) == 0)
			return true;
		snprintf(why, why_size, "--device %s: %s", device, strerror(errno));
		return false;
	}
	if (dev_known && render_node_of(dev, path, path_size))
		return true;
	for (int minor_number = 128; minor_number < 136; minor_number++) {
		snprintf(path, path_size, "/dev/dri/renderD%d", minor_number);
		if (access(path, R_OK | W_OK) == 0)
			return true;
	}
	struct stat st;
	if (stat("/dev/dri", &st) < 0)
		snprintf(why, why_size, "/dev/dri absent");
	else
		snprintf(why, why_size, "no usable /dev/dri/renderD*");
	return false;
}
