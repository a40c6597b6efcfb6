#include "dmabuf_client.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/udmabuf.h>

static void handle_format(void *data, struct zwp_linux_dmabuf_v1 *dmabuf, uint32_t format)
{
	struct dmabuf_client *client = data;
	client->n_format_events++;
}

static void handle_modifier(void *data, struct zwp_linux_dmabuf_v1 *dmabuf, uint32_t format,
			    uint32_t hi, uint32_t lo)
{
	struct dmabuf_client *client = data;
	if (client->n_modifier_events < DMABUF_CLIENT_MAX_FORMATS) {
		client->formats[client->n_modifier_events] = format;
		client->modifiers[client->n_modifier_events] = (uint64_t)hi << 32 | lo;
	}
	client->n_modifier_events++;
}

static const struct zwp_linux_dmabuf_v1_listener dmabuf_listener = {
	.format = handle_format,
	.modifier = handle_modifier,
};

struct bind_request {
	struct dmabuf_client *client;
	uint32_t version;
	struct wl_registry *registry;
};

static void registry_global(void *data, struct wl_registry *registry, uint32_t name,
			    const char *interface, uint32_t version)
{
	struct bind_request *request = data;
	if (strcmp(interface, zwp_linux_dmabuf_v1_interface.name) == 0 && version >= request->version) {
		request->client->dmabuf = wl_registry_bind(registry, name,
							   &zwp_linux_dmabuf_v1_interface,
							   request->version);
		request->client->version = request->version;
		zwp_linux_dmabuf_v1_add_listener(request->client->dmabuf, &dmabuf_listener,
						 request->client);
	}
}

static void registry_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_global, .global_remove = registry_global_remove,
};

bool dmabuf_client_bind(struct dmabuf_client *client, struct wl_display *display,
			uint32_t version, dmabuf_client_roundtrip roundtrip, void *data)
{
	*client = (struct dmabuf_client){ 0 };
	struct bind_request request = { .client = client, .version = version };
	request.registry = wl_display_get_registry(display);
	wl_registry_add_listener(request.registry, &registry_listener, &request);
	bool ok = roundtrip(data);
	wl_registry_destroy(request.registry);
	if (!ok || !client->dmabuf)
		return false;
	return roundtrip(data); /* the events sent on bind */
}

void dmabuf_client_finish(struct dmabuf_client *client)
{
	if (client->dmabuf)
		zwp_linux_dmabuf_v1_destroy(client->dmabuf);
	client->dmabuf = NULL;
}

static void feedback_done(void *data, struct zwp_linux_dmabuf_feedback_v1 *feedback)
{
	((struct dmabuf_client *)data)->feedback_done = true;
}

static void feedback_format_table(void *data, struct zwp_linux_dmabuf_feedback_v1 *feedback,
				  int32_t fd, uint32_t size)
{
	struct dmabuf_client *client = data;
	const uint8_t *table = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (table != MAP_FAILED) {
		client->n_table = (int)(size / 16);
		for (int i = 0; i < client->n_table && i < DMABUF_CLIENT_MAX_FORMATS; i++) {
			memcpy(&client->table_format[i], table + i * 16, 4);
			memcpy(&client->table_modifier[i], table + i * 16 + 8, 8);
		}
		munmap((void *)table, size);
	}
	close(fd);
}

static void read_device(struct wl_array *array, bool *has, dev_t *device)
{
	if (array->size == sizeof(dev_t)) {
		memcpy(device, array->data, sizeof(dev_t));
		*has = true;
	}
}

static void feedback_main_device(void *data, struct zwp_linux_dmabuf_feedback_v1 *feedback,
				 struct wl_array *device)
{
	struct dmabuf_client *client = data;
	read_device(device, &client->has_main_device, &client->main_device);
}

static void feedback_tranche_done(void *data, struct zwp_linux_dmabuf_feedback_v1 *feedback)
{
	((struct dmabuf_client *)data)->tranches++;
}

static void feedback_target_device(void *data, struct zwp_linux_dmabuf_feedback_v1 *feedback,
				   struct wl_array *device)
{
	struct dmabuf_client *client = data;
	read_device(device, &client->has_target_device, &client->target_device);
}

static void feedback_tranche_formats(void *data, struct zwp_linux_dmabuf_feedback_v1 *feedback,
				     struct wl_array *indices)
{
	struct dmabuf_client *client = data;
	uint16_t *index;
	wl_array_for_each(index, indices) {
		if (client->n_tranche_indices < DMABUF_CLIENT_MAX_FORMATS)
			client->tranche_indices[client->n_tranche_indices++] = *index;
	}
}

static void feedback_tranche_flags(void *data, struct zwp_linux_dmabuf_feedback_v1 *feedback,
				   uint32_t flags)
{
}

static const struct zwp_linux_dmabuf_feedback_v1_listener feedback_listener = {
	.done = feedback_done,
	.format_table = feedback_format_table,
	.main_device = feedback_main_device,
	.tranche_done = feedback_tranche_done,
	.tranche_target_device = feedback_target_device,
	.tranche_formats = feedback_tranche_formats,
	.tranche_flags = feedback_tranche_flags,
};

struct zwp_linux_dmabuf_feedback_v1 *dmabuf_client_get_feedback(struct dmabuf_client *client,
							       struct wl_surface *surface)
{
	struct zwp_linux_dmabuf_feedback_v1 *feedback =
		surface ? zwp_linux_dmabuf_v1_get_surface_feedback(client->dmabuf, surface)
			: zwp_linux_dmabuf_v1_get_default_feedback(client->dmabuf);
	zwp_linux_dmabuf_feedback_v1_add_listener(feedback, &feedback_listener, client);
	return feedback;
}

/* A real dma-buf from a memfd, where the kernel offers udmabuf. */
static int make_udmabuf(int memfd, size_t size)
{
	int device = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
	if (device < 0)
		return -1;
	struct udmabuf_create create = { .memfd = (uint32_t)memfd, .flags = UDMABUF_FLAGS_CLOEXEC,
					 .offset = 0, .size = size };
	int fd = ioctl(device, UDMABUF_CREATE, &create);
	close(device);
	return fd;
}

int dmabuf_client_make_fd(size_t size, bool shrinkable, void **pixels, bool *is_udmabuf)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t rounded = (size + (size_t)page - 1) / (size_t)page * (size_t)page;
	int fd = memfd_create("test-dmabuf", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0 || ftruncate(fd, (off_t)(shrinkable ? size : rounded)) < 0) {
		perror("memfd");
		exit(1);
	}
	*pixels = mmap(NULL, shrinkable ? size : rounded, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (*pixels == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	*is_udmabuf = false;
	if (shrinkable)
		return fd;
	/* udmabuf wants a memfd sealed against shrinking, page-sized. */
	fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK);
	int dmabuf = make_udmabuf(fd, rounded);
	if (dmabuf >= 0) {
		close(fd);
		*is_udmabuf = true;
		return dmabuf;
	}
	return fd;
}
