#define LOG_MODULE "window"
#include "window_dmabuf.h"

#include <drm_fourcc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wayland-client.h>

#include "dmabuf_format_table.h"
#include "linux-dmabuf-unstable-v1-client-protocol.h"
#include "log.h"
#include "wl_record_buffer.h"

/* Client buffers followed at once: a client cycles two to four; more are
 * dropped oldest first when neither pending nor held by the desktop. */
#define MAX_ENTRIES 16

struct format_list {
	struct dmabuf_format_modifier *items;
	size_t count, capacity;
};

enum entry_state {
	ENTRY_PENDING, /* create sent, no answer yet */
	ENTRY_READY,   /* the desktop's wl_buffer exists */
	ENTRY_REFUSED, /* copied: the desktop refused it or lacks its format */
};

struct entry {
	struct window_dmabuf *dmabuf;
	struct wl_list link; /* window_dmabuf.entries, most recently used first */
	uint64_t buffer_id;
	struct wl_record_buffer *buffer; /* a cache reference: the fds stay open */
	enum entry_state state;
	struct zwp_linux_buffer_params_v1 *params; /* while pending */
	struct wl_buffer *wl_buffer;
	/* Locked from the attach to the desktop's release: the client's buffer
	 * is not given back while the desktop may show it. */
	struct wl_record_buffer *held;
	uint32_t sent_format; /* what the desktop's buffer was made as */
	uint64_t modifier;
	uint32_t flags;
};

struct window_dmabuf {
	void (*ready)(void *data);
	void *ready_data;
	struct zwp_linux_dmabuf_v1 *global;
	uint32_t version;
	struct zwp_linux_dmabuf_feedback_v1 *feedback;
	struct format_list offered;
	/* Version 4: the table, and the tranches' formats until `done`. */
	struct dmabuf_format_modifier *table;
	size_t table_count;
	struct format_list incoming;
	bool feedback_done;
	/* Format and modifier pairs the desktop refused a buffer of. */
	struct format_list refused;
	struct format_list said; /* pairs already explained under -v */
	bool said_none;
	struct wl_list entries;
	int entry_count;
};

static bool list_has(const struct format_list *list, uint32_t format, uint64_t modifier)
{
	for (size_t i = 0; i < list->count; i++)
		if (list->items[i].format == format && list->items[i].modifier == modifier)
			return true;
	return false;
}

static void list_add(struct format_list *list, uint32_t format, uint64_t modifier)
{
	if (list_has(list, format, modifier))
		return;
	if (list->count == list->capacity) {
		size_t capacity = list->capacity ? list->capacity * 2 : 16;
		struct dmabuf_format_modifier *items = realloc(list->items, capacity * sizeof(*items));
		if (!items)
			return; /* one format less: its buffers are copied */
		list->items = items;
		list->capacity = capacity;
	}
	list->items[list->count++] = (struct dmabuf_format_modifier){ format, modifier };
}

static void list_finish(struct format_list *list)
{
	free(list->items);
	*list = (struct format_list){ 0 };
}

/* ---- what the desktop offers: version 3 events ---- */

static void handle_format(void *data, struct zwp_linux_dmabuf_v1 *global, uint32_t format)
{
	/* Without a modifier: not enough to make an explicit-modifier buffer. */
}

static void handle_modifier(void *data, struct zwp_linux_dmabuf_v1 *global, uint32_t format,
			    uint32_t modifier_hi, uint32_t modifier_lo)
{
	struct window_dmabuf *dmabuf = data;
	list_add(&dmabuf->offered, format, (uint64_t)modifier_hi << 32 | modifier_lo);
}

static const struct zwp_linux_dmabuf_v1_listener global_listener = {
	.format = handle_format,
	.modifier = handle_modifier,
};

/* ---- version 4: the default feedback ---- */

static void handle_feedback_done(void *data, struct zwp_linux_dmabuf_feedback_v1 *feedback)
{
	struct window_dmabuf *dmabuf = data;
	/* A new set replaces the old one whole. */
	list_finish(&dmabuf->offered);
	dmabuf->offered = dmabuf->incoming;
	dmabuf->incoming = (struct format_list){ 0 };
	dmabuf->feedback_done = true;
	LOG_DBG("the desktop offers %zu dmabuf format and modifier pairs (linux-dmabuf v4)",
		dmabuf->offered.count);
}

static void handle_format_table(void *data, struct zwp_linux_dmabuf_feedback_v1 *feedback,
				int32_t fd, uint32_t size)
{
	struct window_dmabuf *dmabuf = data;
	free(dmabuf->table);
	const char *why = dmabuf_format_table_read(fd, size, &dmabuf->table, &dmabuf->table_count);
	close(fd);
	if (why)
		LOG_DBG("the desktop's dmabuf format table is refused (%s): its buffers are copied",
			why);
}

static void handle_main_device(void *data, struct zwp_linux_dmabuf_feedback_v1 *feedback,
			       struct wl_array *device)
{
}

static void handle_tranche_done(void *data, struct zwp_linux_dmabuf_feedback_v1 *feedback)
{
}

static void handle_tranche_target_device(void *data,
					 struct zwp_linux_dmabuf_feedback_v1 *feedback,
					 struct wl_array *device)
{
}

static void handle_tranche_formats(void *data, struct zwp_linux_dmabuf_feedback_v1 *feedback,
				   struct wl_array *indices)
{
	struct window_dmabuf *dmabuf = data;
	/* The client's buffers are on whatever device it chose: every tranche's
	 * pairs are worth a try (a refusal is remembered). */
	size_t count = indices->size / sizeof(uint16_t);
	const uint16_t *index = indices->data;
	for (size_t i = 0; i < count; i++)
		if (index[i] < dmabuf->table_count)
			list_add(&dmabuf->incoming, dmabuf->table[index[i]].format,
				 dmabuf->table[index[i]].modifier);
}

static void handle_tranche_flags(void *data, struct zwp_linux_dmabuf_feedback_v1 *feedback,
				 uint32_t flags)
{
}

static const struct zwp_linux_dmabuf_feedback_v1_listener feedback_listener = {
	.done = handle_feedback_done,
	.format_table = handle_format_table,
	.main_device = handle_main_device,
	.tranche_done = handle_tranche_done,
	.tranche_target_device = handle_tranche_target_device,
	.tranche_formats = handle_tranche_formats,
	.tranche_flags = handle_tranche_flags,
};

struct window_dmabuf *window_dmabuf_create(void (*ready)(void *data), void *data)
{
	struct window_dmabuf *dmabuf = calloc(1, sizeof(*dmabuf));
	if (!dmabuf)
		return NULL;
	dmabuf->ready = ready;
	dmabuf->ready_data = data;
	wl_list_init(&dmabuf->entries);
	return dmabuf;
}

bool window_dmabuf_global(struct window_dmabuf *dmabuf, struct wl_registry *registry,
			  uint32_t name, const char *interface, uint32_t version)
{
	if (strcmp(interface, zwp_linux_dmabuf_v1_interface.name) != 0)
		return false;
	if (dmabuf->global || version < ZWP_LINUX_DMABUF_V1_MODIFIER_SINCE_VERSION)
		return true;
	dmabuf->version = version < 4 ? version : 4;
	dmabuf->global = wl_registry_bind(registry, name, &zwp_linux_dmabuf_v1_interface,
					  dmabuf->version);
	if (dmabuf->version >= ZWP_LINUX_DMABUF_V1_GET_DEFAULT_FEEDBACK_SINCE_VERSION) {
		dmabuf->feedback = zwp_linux_dmabuf_v1_get_default_feedback(dmabuf->global);
		zwp_linux_dmabuf_feedback_v1_add_listener(dmabuf->feedback, &feedback_listener,
							  dmabuf);
	} else {
		zwp_linux_dmabuf_v1_add_listener(dmabuf->global, &global_listener, dmabuf);
	}
	return true;
}

bool window_dmabuf_bound(const struct window_dmabuf *dmabuf)
{
	return dmabuf && dmabuf->global;
}

/* ---- the desktop's buffers, one per client buffer ---- */

static void entry_destroy(struct entry *entry)
{
	wl_list_remove(&entry->link);
	entry->dmabuf->entry_count--;
	if (entry->params)
		zwp_linux_buffer_params_v1_destroy(entry->params);
	if (entry->wl_buffer)
		wl_buffer_destroy(entry->wl_buffer);
	wl_record_buffer_unlock(entry->held);
	wl_record_buffer_unref(entry->buffer);
	free(entry);
}

/* Neither waiting for an answer nor shown by the desktop. */
static bool entry_idle(const struct entry *entry)
{
	return entry->state != ENTRY_PENDING && !entry->held;
}

void window_dmabuf_sweep(struct window_dmabuf *dmabuf)
{
	if (!dmabuf)
		return;
	struct entry *entry, *tmp;
	wl_list_for_each_safe(entry, tmp, &dmabuf->entries, link)
		if (entry_idle(entry) && wl_record_buffer_unused(entry->buffer))
			entry_destroy(entry);
}

static void handle_release(void *data, struct wl_buffer *wl_buffer)
{
	struct entry *entry = data;
	struct wl_record_buffer *held = entry->held;
	entry->held = NULL;
	wl_record_buffer_unlock(held);
}

static const struct wl_buffer_listener release_listener = { .release = handle_release };

static void handle_created(void *data, struct zwp_linux_buffer_params_v1 *params,
			   struct wl_buffer *wl_buffer)
{
	struct entry *entry = data;
	zwp_linux_buffer_params_v1_destroy(params);
	entry->params = NULL;
	entry->wl_buffer = wl_buffer;
	wl_buffer_add_listener(wl_buffer, &release_listener, entry);
	entry->state = ENTRY_READY;
	entry->dmabuf->ready(entry->dmabuf->ready_data);
}

static void handle_failed(void *data, struct zwp_linux_buffer_params_v1 *params)
{
	struct entry *entry = data;
	struct window_dmabuf *dmabuf = entry->dmabuf;
	zwp_linux_buffer_params_v1_destroy(params);
	entry->params = NULL;
	entry->state = ENTRY_REFUSED;
	/* Its other buffers would be refused alike: not asked for again. */
	list_add(&dmabuf->refused, entry->sent_format, entry->modifier);
	LOG_DBG("the desktop refused a dmabuf of format %.4s modifier 0x%016llx: the window "
		"copies such pictures", (const char *)&entry->sent_format,
		(unsigned long long)entry->modifier);
	dmabuf->ready(dmabuf->ready_data);
}

static const struct zwp_linux_buffer_params_v1_listener params_listener = {
	.created = handle_created,
	.failed = handle_failed,
};

/* The format the desktop's buffer is made as: the opaque twin of ARGB8888
 * when offered (the recording ignores alpha, so must the window), else the
 * client's own; 0 when the desktop has neither. */
static uint32_t desktop_format(struct window_dmabuf *dmabuf, uint32_t format, uint64_t modifier)
{
	if (format == DRM_FORMAT_ARGB8888 &&
	    list_has(&dmabuf->offered, DRM_FORMAT_XRGB8888, modifier))
		return DRM_FORMAT_XRGB8888;
	if (list_has(&dmabuf->offered, format, modifier))
		return format;
	return 0;
}

static void say_refused(struct window_dmabuf *dmabuf, uint32_t format, uint64_t modifier,
			const char *why)
{
	if (list_has(&dmabuf->said, format, modifier))
		return;
	list_add(&dmabuf->said, format, modifier);
	LOG_DBG("the window copies dmabuf pictures of format %.4s modifier 0x%016llx: %s",
		(const char *)&format, (unsigned long long)modifier, why);
}

/* A new entry: the create request sent, or refused at once. */
static struct entry *entry_create(struct window_dmabuf *dmabuf, struct wl_record_buffer *buffer)
{
	if (dmabuf->entry_count >= MAX_ENTRIES) {
		struct entry *oldest = NULL, *entry;
		wl_list_for_each(entry, &dmabuf->entries, link)
			if (entry_idle(entry))
				oldest = entry;
		if (!oldest)
			return NULL;
		entry_destroy(oldest);
	}
	struct entry *entry = calloc(1, sizeof(*entry));
	if (!entry)
		return NULL;
	const struct dmabuf_attributes *attributes = wl_record_buffer_get_dmabuf(buffer);
	entry->dmabuf = dmabuf;
	entry->buffer_id = buffer->id;
	entry->buffer = wl_record_buffer_ref(buffer);
	entry->modifier = attributes->modifier;
	entry->flags = attributes->flags;
	wl_list_insert(&dmabuf->entries, &entry->link);
	dmabuf->entry_count++;

	entry->sent_format = desktop_format(dmabuf, attributes->format, attributes->modifier);
	if (!entry->sent_format) {
		entry->state = ENTRY_REFUSED;
		say_refused(dmabuf, attributes->format, attributes->modifier,
			    "the desktop does not offer it through linux-dmabuf");
		return entry;
	}
	if (list_has(&dmabuf->refused, entry->sent_format, entry->modifier)) {
		entry->state = ENTRY_REFUSED;
		return entry;
	}
	entry->state = ENTRY_PENDING;
	entry->params = zwp_linux_dmabuf_v1_create_params(dmabuf->global);
	zwp_linux_buffer_params_v1_add_listener(entry->params, &params_listener, entry);
	for (int i = 0; i < attributes->n_planes; i++)
		/* libwayland sends a duplicate of the fd: the buffer keeps its own. */
		zwp_linux_buffer_params_v1_add(entry->params, attributes->fd[i], (uint32_t)i,
					       attributes->offset[i], attributes->stride[i],
					       (uint32_t)(attributes->modifier >> 32),
					       (uint32_t)(attributes->modifier & 0xffffffff));
	zwp_linux_buffer_params_v1_create(entry->params, attributes->width, attributes->height,
					  entry->sent_format, attributes->flags);
	return entry;
}

static struct entry *find_entry(struct window_dmabuf *dmabuf, uint64_t buffer_id)
{
	struct entry *entry;
	wl_list_for_each(entry, &dmabuf->entries, link)
		if (entry->buffer_id == buffer_id)
			return entry;
	return NULL;
}

enum window_dmabuf_result window_dmabuf_attach(struct window_dmabuf *dmabuf,
					       struct wl_surface *surface,
					       struct wl_record_buffer *buffer, bool may_wait,
					       bool *whole_damage)
{
	*whole_damage = false;
	if (!dmabuf || !buffer || !wl_record_buffer_get_dmabuf(buffer))
		return WINDOW_DMABUF_COPY;
	if (!dmabuf->global) {
		if (!dmabuf->said_none) {
			dmabuf->said_none = true;
			LOG_DBG("the desktop offers no linux-dmabuf (version 3 or later): the window "
				"copies dmabuf pictures");
		}
		return WINDOW_DMABUF_COPY;
	}
	window_dmabuf_sweep(dmabuf);
	struct entry *entry = find_entry(dmabuf, buffer->id);
	if (!entry)
		entry = entry_create(dmabuf, buffer);
	if (!entry)
		return WINDOW_DMABUF_COPY;
	wl_list_remove(&entry->link);
	wl_list_insert(&dmabuf->entries, &entry->link);
	switch (entry->state) {
	case ENTRY_PENDING:
		return may_wait ? WINDOW_DMABUF_PENDING : WINDOW_DMABUF_COPY;
	case ENTRY_REFUSED:
		return WINDOW_DMABUF_COPY;
	case ENTRY_READY:
		break;
	}
	/* Attached again while the desktop holds it: a copy replaces it
	 * instead, so that the desktop's release keeps its meaning. */
	if (entry->held)
		return WINDOW_DMABUF_COPY;
	entry->held = wl_record_buffer_lock(buffer);
	wl_surface_attach(surface, entry->wl_buffer, 0, 0);
	*whole_damage = entry->flags & ZWP_LINUX_BUFFER_PARAMS_V1_FLAGS_Y_INVERT;
	return WINDOW_DMABUF_ATTACHED;
}

bool window_dmabuf_holds_another(const struct window_dmabuf *dmabuf,
				 const struct wl_record_buffer *buffer)
{
	if (!dmabuf)
		return false;
	uint64_t id = buffer ? buffer->id : 0;
	bool another = false;
	const struct entry *entry;
	wl_list_for_each(entry, &dmabuf->entries, link) {
		if (!entry->held)
			continue;
		if (buffer && entry->buffer_id == id)
			return false;
		another = true;
	}
	return another;
}

void window_dmabuf_desktop_gone(struct window_dmabuf *dmabuf)
{
	if (!dmabuf)
		return;
	struct entry *entry;
	wl_list_for_each(entry, &dmabuf->entries, link) {
		wl_record_buffer_unlock(entry->held);
		entry->held = NULL;
	}
}

void window_dmabuf_destroy(struct window_dmabuf *dmabuf)
{
	if (!dmabuf)
		return;
	struct entry *entry, *tmp;
	wl_list_for_each_safe(entry, tmp, &dmabuf->entries, link)
		entry_destroy(entry);
	if (dmabuf->feedback)
		zwp_linux_dmabuf_feedback_v1_destroy(dmabuf->feedback);
	if (dmabuf->global)
		zwp_linux_dmabuf_v1_destroy(dmabuf->global);
	free(dmabuf->table);
	list_finish(&dmabuf->offered);
	list_finish(&dmabuf->incoming);
	list_finish(&dmabuf->refused);
	list_finish(&dmabuf->said);
	free(dmabuf);
}
