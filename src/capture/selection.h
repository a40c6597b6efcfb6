#ifndef WL_RECORD_SELECTION_H
#define WL_RECORD_SELECTION_H

#include <stdbool.h>
#include <stddef.h>
#include <wayland-server-core.h>

#include "clipboard_event.h"

struct server;

/* What the clipboard (wl_data_device_manager, data_device.c) and the
 * primary selection (zwp_primary_selection_device_manager_v1,
 * primary_selection.c) share: one selection, the last one set, by a hosted
 * client (while it has the keyboard) or by the desktop. It is offered only
 * to the client with the keyboard focus, when the focus comes and whenever
 * the selection changes; the client losing the focus is told there is none,
 * and its earlier offers read nothing any more. Each protocol supplies its
 * offer and its events here, and checks its own requests' errors. */
struct selection_protocol {
	const char *name; /* for the log */
	const struct wl_interface *offer_interface;
	const void *offer_impl; /* whose receive calls selection_offer_receive */
	void (*send_data_offer)(struct wl_resource *device, struct wl_resource *offer);
	void (*send_offer_mime)(struct wl_resource *offer, const char *mime_type);
	void (*send_selection)(struct wl_resource *device, struct wl_resource *offer);
	void (*send_source_send)(struct wl_resource *source, const char *mime_type, int fd);
	void (*send_source_cancelled)(struct wl_resource *source);
};

enum selection_owner {
	SELECTION_NONE,
	SELECTION_DESKTOP,
	SELECTION_CLIENT,
};

struct selection_source {
	struct wl_resource *resource;
	struct selection *selection;
	struct wl_array mime_types; /* char *, owned */
	bool used;        /* given to set_selection (or start_drag) */
	bool actions_set; /* wl_data_source only: a drag's, not for the selection */
};

struct selection {
	struct server *server;
	const struct selection_protocol *protocol;
	struct wl_global *global;
	struct wl_record_clipboard_peer peer;
	/* Resource links of every device, and of the offers of the current
	 * selection to the focused client (older offers are unlinked, their
	 * user data NULL: they read nothing). */
	struct wl_list devices, offers;
	struct wl_client *focus; /* the client offered the selection */
	enum selection_owner owner;
	struct wl_array desktop_mime_types; /* char *, owned */
	struct selection_source *client_source;
};

void selection_init(struct selection *selection, struct server *server,
		    const struct selection_protocol *protocol);
void selection_finish(struct selection *selection);

/* Creates the global (once) and takes the current keyboard focus. */
void selection_enable(struct selection *selection, const struct wl_interface *interface,
		      int version, wl_global_bind_func_t bind);

void selection_set_peer(struct selection *selection, const struct wl_record_clipboard_peer *peer);
void selection_keyboard_focus_changed(struct selection *selection);
void selection_set_desktop(struct selection *selection, const char *const *mime_types,
			   size_t count);
/* The desktop pastes the hosted client's selection (fd closed here). */
void selection_desktop_receive(struct selection *selection, const char *mime_type, int fd);

/* A device resource created with `selection` as its user data (or NULL
 * after the selection is gone): linked, and offered the selection when its
 * client has the keyboard. Its destroy callback is selection_unlink. */
void selection_add_device(struct selection *selection, struct wl_resource *device);
void selection_unlink(struct wl_resource *resource);

/* An offer's receive request: fd (closed here or passed on) gets the data
 * when the offer is still current. */
void selection_offer_receive(struct wl_client *client, struct wl_resource *offer,
			     const char *mime_type, int32_t fd);

/* A new source resource (user data: the selection_source), or NULL with
 * no memory posted. Its destroy callback ends the selection it holds. */
struct selection_source *selection_source_create(struct selection *selection,
						 struct wl_client *client,
						 const struct wl_interface *interface, int version,
						 uint32_t id, const void *impl);
void selection_source_offer(struct selection_source *source, const char *mime_type);

/* set_selection from a device of `client`, its errors checked: source (or
 * NULL) becomes the selection if the client has the keyboard, else it is
 * cancelled. */
void selection_client_set(struct selection *selection, struct wl_client *client,
			  struct selection_source *source);

#endif
