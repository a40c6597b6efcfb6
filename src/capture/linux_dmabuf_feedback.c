#define LOG_MODULE "dmabuf"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "linux-dmabuf-unstable-v1-server-protocol.h"
#include "linux_dmabuf.h"
#include "log.h"

/* zwp_linux_dmabuf_feedback_v1: one tranche on the main device holding every
 * advertised (format, modifier) pair.
 *
 * main_device: the render node wl-record found (the one its VA-API encoder
 * and EGL importer use). Without any render node (no GPU, as on the CI
 * machines) there is no device to name, yet the event is mandatory: dev_t 0
 * is sent for main_device and tranche_target_device. No DRM device has
 * number 0:0, so a client looking it up finds nothing and keeps to buffers
 * it can allocate without a device (a memfd or udmabuf, LINEAR). */

struct table_entry {
	uint32_t format;
	uint32_t padding;
	uint64_t modifier;
};

bool linux_dmabuf_feedback_make_table(struct linux_dmabuf *dmabuf)
{
	size_t size = sizeof(struct table_entry) * (size_t)dmabuf->n_formats;
	struct table_entry *entries = calloc((size_t)dmabuf->n_formats, sizeof(*entries));
	int fd = memfd_create("wl-record-dmabuf-formats", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	bool ok = false;
	if (!entries || fd < 0) {
		LOG_ERRNO("cannot make the dmabuf format table");
		goto out;
	}
	for (int i = 0; i < dmabuf->n_formats; i++)
		entries[i] = (struct table_entry){ .format = dmabuf->formats[i].format,
						   .modifier = dmabuf->formats[i].modifier };
	if (write(fd, entries, size) != (ssize_t)size) {
		LOG_ERRNO("cannot write the dmabuf format table");
		goto out;
	}
	/* Clients map it; nobody may change it under them. */
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0) {
		LOG_ERRNO("cannot seal the dmabuf format table");
		goto out;
	}
	dmabuf->table_fd = fd;
	dmabuf->table_size = size;
	fd = -1;
	ok = true;
out:
	if (fd >= 0)
		close(fd);
	free(entries);
	return ok;
}

static void feedback_handle_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static const struct zwp_linux_dmabuf_feedback_v1_interface feedback_impl = {
	.destroy = feedback_handle_destroy,
};

static void send_device(struct wl_resource *resource, dev_t device, bool main)
{
	struct wl_array array;
	wl_array_init(&array);
	dev_t *data = wl_array_add(&array, sizeof(device));
	if (!data) {
		wl_resource_post_no_memory(resource);
		return;
	}
	*data = device;
	if (main)
		zwp_linux_dmabuf_feedback_v1_send_main_device(resource, &array);
	else
		zwp_linux_dmabuf_feedback_v1_send_tranche_target_device(resource, &array);
	wl_array_release(&array);
}

void linux_dmabuf_feedback_create(struct linux_dmabuf *dmabuf, struct wl_client *client,
				  uint32_t version, uint32_t id)
{
	struct wl_resource *resource = wl_resource_create(
		client, &zwp_linux_dmabuf_feedback_v1_interface, (int)version, id);
	if (!resource) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &feedback_impl, NULL, NULL);

	dev_t device = dmabuf->has_render_node ? dmabuf->main_device : 0;
	zwp_linux_dmabuf_feedback_v1_send_format_table(resource, dmabuf->table_fd,
						       (uint32_t)dmabuf->table_size);
	send_device(resource, device, true);
	send_device(resource, device, false);

	struct wl_array indices;
	wl_array_init(&indices);
	for (int i = 0; i < dmabuf->n_formats; i++) {
		uint16_t *index = wl_array_add(&indices, sizeof(*index));
		if (!index) {
			wl_array_release(&indices);
			wl_resource_post_no_memory(resource);
			return;
		}
		*index = (uint16_t)i;
	}
	zwp_linux_dmabuf_feedback_v1_send_tranche_formats(resource, &indices);
	wl_array_release(&indices);
	zwp_linux_dmabuf_feedback_v1_send_tranche_flags(resource, 0);
	zwp_linux_dmabuf_feedback_v1_send_tranche_done(resource);
	zwp_linux_dmabuf_feedback_v1_send_done(resource);
}
