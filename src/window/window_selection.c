/* The desktop window's clipboard and primary selection: the desktop's go
 * to each selection's peer (the nested compositor), the hosted app's
 * become wl_data_source and zwp_primary_selection_source_v1 of ours. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wayland-client.h>

#include "desktop_window_internal.h"
#include "primary-selection-unstable-v1-client-protocol.h"

/* Offered by our own sources besides the app's types: the desktop's
 * selection is the app's own then, and is not handed back to it. */
#define OWN_SELECTION_MIME "application/x-wl-record-selection"

/* A wl_data_offer or a zwp_primary_selection_offer_v1, after its kind. */
struct desktop_offer {
	enum wl_record_selection_kind kind;
	void *proxy;
	struct wl_array mime_types; /* char *, owned */
	bool ours;
};

static void offer_destroy(struct desktop_offer *offer)
{
	if (!offer)
		return;
	char **mime;
	if (offer->mime_types.size > 0) /* NULL + 0 is undefined */
		wl_array_for_each(mime, &offer->mime_types)
			free(*mime);
	wl_array_release(&offer->mime_types);
	if (offer->kind == WL_RECORD_SELECTION_PRIMARY)
		zwp_primary_selection_offer_v1_destroy(offer->proxy);
	else
		wl_data_offer_destroy(offer->proxy);
	free(offer);
}

/* A desktop offering more types has the rest ignored: hosted clients are
 * told them all at every focus change. The nested compositor keeps the
 * same number. */
#define OFFER_MIME_TYPES_MAX 64

static void offer_add_mime_type(struct desktop_offer *offer, const char *mime_type)
{
	if (strcmp(mime_type, OWN_SELECTION_MIME) == 0) {
		offer->ours = true;
		return;
	}
	if (offer->mime_types.size / sizeof(char *) >= OFFER_MIME_TYPES_MAX)
		return;
	char *copy = strdup(mime_type);
	char **slot = copy ? wl_array_add(&offer->mime_types, sizeof(*slot)) : NULL;
	if (slot)
		*slot = copy;
	else
		free(copy);
}

static void handle_offer_offer(void *data, struct wl_data_offer *wl_offer, const char *mime_type)
{
	offer_add_mime_type(data, mime_type);
}

static void handle_offer_source_actions(void *data, struct wl_data_offer *offer, uint32_t actions)
{
}

static void handle_offer_action(void *data, struct wl_data_offer *offer, uint32_t action)
{
}

static const struct wl_data_offer_listener offer_listener = {
	.offer = handle_offer_offer,
	.source_actions = handle_offer_source_actions,
	.action = handle_offer_action,
};

static void handle_primary_offer_offer(void *data, struct zwp_primary_selection_offer_v1 *offer,
				       const char *mime_type)
{
	offer_add_mime_type(data, mime_type);
}

static const struct zwp_primary_selection_offer_v1_listener primary_offer_listener = {
	.offer = handle_primary_offer_offer,
};

/* A data_offer event: the newest offer, which may become the selection. */
static void desktop_selection_introduce(struct desktop_selection *selection, void *proxy)
{
	/* The one before was a drag's, or never became the selection. */
	if (selection->introduced && selection->introduced != selection->current)
		offer_destroy(selection->introduced);
	selection->introduced = NULL;
	struct desktop_offer *offer = calloc(1, sizeof(*offer));
	if (offer) {
		offer->kind = selection->kind;
		offer->proxy = proxy;
		wl_array_init(&offer->mime_types);
	}
	if (selection->kind == WL_RECORD_SELECTION_PRIMARY) {
		if (offer)
			zwp_primary_selection_offer_v1_add_listener(proxy, &primary_offer_listener,
								    offer);
		else
			zwp_primary_selection_offer_v1_destroy(proxy);
	} else {
		if (offer)
			wl_data_offer_add_listener(proxy, &offer_listener, offer);
		else
			wl_data_offer_destroy(proxy);
	}
	selection->introduced = offer;
}

/* A selection event: the desktop's selection is `proxy` now (NULL: none). */
static void desktop_selection_changed(struct desktop_selection *selection, void *proxy)
{
	struct desktop_offer *offer = selection->introduced && selection->introduced->proxy == proxy
				      ? selection->introduced : NULL;
	if (selection->current && selection->current != offer) {
		/* Still the newest offer too (a selection cleared): gone from both. */
		if (selection->introduced == selection->current)
			selection->introduced = NULL;
		offer_destroy(selection->current);
	}
	selection->current = offer;
	if (offer && offer->ours)
		return; /* the hosted app's own, back from the desktop */
	if (selection->peer.selection)
		selection->peer.selection(
			selection->peer.data,
			offer ? (const char *const *)offer->mime_types.data : NULL,
			offer ? offer->mime_types.size / sizeof(char *) : 0);
}

static void desktop_selection_finish(struct desktop_selection *selection)
{
	if (selection->introduced && selection->introduced != selection->current)
		offer_destroy(selection->introduced);
	offer_destroy(selection->current);
	selection->introduced = selection->current = NULL;
}

static void handle_data_offer(void *data, struct wl_data_device *device,
			      struct wl_data_offer *wl_offer)
{
	desktop_selection_introduce(data, wl_offer);
}

static void handle_data_enter(void *data, struct wl_data_device *device, uint32_t serial,
			      struct wl_surface *surface, wl_fixed_t x, wl_fixed_t y,
			      struct wl_data_offer *offer)
{
	/* Drag and drop does not cross the window. */
}

static void handle_data_leave(void *data, struct wl_data_device *device)
{
}

static void handle_data_motion(void *data, struct wl_data_device *device, uint32_t time,
			       wl_fixed_t x, wl_fixed_t y)
{
}

static void handle_data_drop(void *data, struct wl_data_device *device)
{
}

static void handle_data_selection(void *data, struct wl_data_device *device,
				  struct wl_data_offer *wl_offer)
{
	desktop_selection_changed(data, wl_offer);
}

static const struct wl_data_device_listener data_device_listener = {
	.data_offer = handle_data_offer,
	.enter = handle_data_enter,
	.leave = handle_data_leave,
	.motion = handle_data_motion,
	.drop = handle_data_drop,
	.selection = handle_data_selection,
};

static void handle_primary_data_offer(void *data, struct zwp_primary_selection_device_v1 *device,
				      struct zwp_primary_selection_offer_v1 *offer)
{
	desktop_selection_introduce(data, offer);
}

static void handle_primary_selection(void *data, struct zwp_primary_selection_device_v1 *device,
				     struct zwp_primary_selection_offer_v1 *offer)
{
	desktop_selection_changed(data, offer);
}

static const struct zwp_primary_selection_device_v1_listener primary_device_listener = {
	.data_offer = handle_primary_data_offer,
	.selection = handle_primary_selection,
};

/* The desktop pastes the app's selection: the app writes it into fd. */
static void desktop_selection_source_send(struct desktop_selection *selection,
					  const char *mime_type, int32_t fd)
{
	if (selection->peer.receive)
		selection->peer.receive(selection->peer.data, mime_type, fd);
	else
		close(fd);
}

static void handle_source_target(void *data, struct wl_data_source *source,
				 const char *mime_type)
{
}

static void handle_source_send(void *data, struct wl_data_source *source, const char *mime_type,
			       int32_t fd)
{
	struct desktop_window *window = data;
	desktop_selection_source_send(&window->selections[WL_RECORD_SELECTION_CLIPBOARD],
				      mime_type, fd);
}

static void handle_source_cancelled(void *data, struct wl_data_source *source)
{
	struct desktop_window *window = data;
	wl_data_source_destroy(source);
	if (window->source == source)
		window->source = NULL;
}

static void handle_source_dnd_drop_performed(void *data, struct wl_data_source *source)
{
}

static void handle_source_dnd_finished(void *data, struct wl_data_source *source)
{
}

static void handle_source_action(void *data, struct wl_data_source *source, uint32_t action)
{
}

static const struct wl_data_source_listener source_listener = {
	.target = handle_source_target,
	.send = handle_source_send,
	.cancelled = handle_source_cancelled,
	.dnd_drop_performed = handle_source_dnd_drop_performed,
	.dnd_finished = handle_source_dnd_finished,
	.action = handle_source_action,
};

static void handle_primary_source_send(void *data, struct zwp_primary_selection_source_v1 *source,
				       const char *mime_type, int32_t fd)
{
	struct desktop_window *window = data;
	desktop_selection_source_send(&window->selections[WL_RECORD_SELECTION_PRIMARY], mime_type,
				      fd);
}

static void handle_primary_source_cancelled(void *data,
					    struct zwp_primary_selection_source_v1 *source)
{
	struct desktop_window *window = data;
	zwp_primary_selection_source_v1_destroy(source);
	if (window->primary_source == source)
		window->primary_source = NULL;
}

static const struct zwp_primary_selection_source_v1_listener primary_source_listener = {
	.send = handle_primary_source_send,
	.cancelled = handle_primary_source_cancelled,
};

void desktop_window_set_clipboard_peer(struct desktop_window *window,
				       enum wl_record_selection_kind kind,
				       const struct wl_record_clipboard_peer *peer)
{
	struct desktop_selection *selection = &window->selections[kind];
	if (peer)
		selection->peer = *peer;
	else
		selection->peer = (struct wl_record_clipboard_peer){ 0 };
}

/* The hosted app's clipboard as a wl_data_source of ours (NULL: none). */
static void set_clipboard_source(struct desktop_window *window, const char *const *mime_types,
				 size_t count)
{
	struct wl_data_source *old = window->source;
	window->source = NULL;
	if (count > 0) {
		window->source = wl_data_device_manager_create_data_source(window->data_manager);
		wl_data_source_add_listener(window->source, &source_listener, window);
		for (size_t i = 0; i < count; i++)
			wl_data_source_offer(window->source, mime_types[i]);
		wl_data_source_offer(window->source, OWN_SELECTION_MIME);
	}
	/* With the serial of the user's last input on the window: what the
	 * desktop asks of a client that copies. */
	if (window->source || old)
		wl_data_device_set_selection(window->data_device, window->source,
					     window->input_serial);
	if (old)
		wl_data_source_destroy(old);
}

/* The same for the primary selection. */
static void set_primary_source(struct desktop_window *window, const char *const *mime_types,
			       size_t count)
{
	struct zwp_primary_selection_source_v1 *old = window->primary_source;
	window->primary_source = NULL;
	if (count > 0) {
		window->primary_source = zwp_primary_selection_device_manager_v1_create_source(
			window->primary_manager);
		zwp_primary_selection_source_v1_add_listener(window->primary_source,
							     &primary_source_listener, window);
		for (size_t i = 0; i < count; i++)
			zwp_primary_selection_source_v1_offer(window->primary_source, mime_types[i]);
		zwp_primary_selection_source_v1_offer(window->primary_source, OWN_SELECTION_MIME);
	}
	if (window->primary_source || old)
		zwp_primary_selection_device_v1_set_selection(
			window->primary_device, window->primary_source, window->input_serial);
	if (old)
		zwp_primary_selection_source_v1_destroy(old);
}

void desktop_window_clipboard_selection(struct desktop_window *window,
					enum wl_record_selection_kind kind,
					const char *const *mime_types, size_t count)
{
	if (window->broken)
		return;
	if (kind == WL_RECORD_SELECTION_PRIMARY && window->primary_device)
		set_primary_source(window, mime_types, count);
	else if (kind == WL_RECORD_SELECTION_CLIPBOARD && window->data_device)
		set_clipboard_source(window, mime_types, count);
	else
		return;
	window_flush(window);
}

void desktop_window_clipboard_receive(struct desktop_window *window,
				      enum wl_record_selection_kind kind, const char *mime_type,
				      int fd)
{
	struct desktop_offer *offer = window->selections[kind].current;
	if (!window->broken && offer && !offer->ours) {
		if (kind == WL_RECORD_SELECTION_PRIMARY)
			zwp_primary_selection_offer_v1_receive(offer->proxy, mime_type, fd);
		else
			wl_data_offer_receive(offer->proxy, mime_type, fd);
		window_flush(window);
	}
	close(fd);
}

void window_selection_bind(struct desktop_window *window)
{
	if (window->data_manager && window->seat) {
		window->data_device = wl_data_device_manager_get_data_device(window->data_manager,
									      window->seat);
		wl_data_device_add_listener(window->data_device, &data_device_listener,
					    &window->selections[WL_RECORD_SELECTION_CLIPBOARD]);
	}
	if (window->primary_manager && window->seat) {
		window->primary_device = zwp_primary_selection_device_manager_v1_get_device(
			window->primary_manager, window->seat);
		zwp_primary_selection_device_v1_add_listener(
			window->primary_device, &primary_device_listener,
			&window->selections[WL_RECORD_SELECTION_PRIMARY]);
	}
}

void window_selection_finish(struct desktop_window *window)
{
	for (int kind = 0; kind < WL_RECORD_SELECTION_KINDS; kind++)
		desktop_selection_finish(&window->selections[kind]);
	if (window->source)
		wl_data_source_destroy(window->source);
	if (window->primary_source)
		zwp_primary_selection_source_v1_destroy(window->primary_source);
	if (window->primary_device)
		zwp_primary_selection_device_v1_destroy(window->primary_device);
	if (window->primary_manager)
		zwp_primary_selection_device_manager_v1_destroy(window->primary_manager);
	if (window->data_device) {
		if (wl_data_device_get_version(window->data_device) >=
		    WL_DATA_DEVICE_RELEASE_SINCE_VERSION)
			wl_data_device_release(window->data_device);
		else
			wl_data_device_destroy(window->data_device);
	}
	if (window->data_manager)
		wl_data_device_manager_destroy(window->data_manager);
}
