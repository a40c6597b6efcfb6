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
	const struct wl_interface *manager_interface;
	int manager_version;
	const void *manager_impl; /* its resources' user data: the selection */
	const struct wl_interface *device_interface, *source_interface, *offer_interface;
	/* A device's user data is the selection (NULL once it is gone), a
	 * source's its struct selection_source. */
	const void *device_impl, *source_impl;
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
	uint32_t actions; /* wl_data_source only: set_actions' */
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

/* The selection of one protocol (data_device_create and
 * primary_selection_create make them); NULL-safe where it may be NULL. */
struct selection *selection_create(struct server *server, const struct selection_protocol *protocol);
void selection_destroy(struct selection *selection);

/* Offers the protocol's global from now on (only with --window: a
 * recording has no clipboard to share), and takes the keyboard focus. */
void selection_enable(struct selection *selection);

/* The global, for the server's filter. NULL before enabled. */
struct wl_global *selection_global(const struct selection *selection);

/* The desktop's side: told when a hosted client sets the selection, asked
 * for the data when a hosted client pastes the desktop's selection. */
void selection_set_peer(struct selection *selection, const struct wl_record_clipboard_peer *peer);

/* The seat's keyboard focus moved to another client (or none). */
void selection_keyboard_focus_changed(struct selection *selection);

/* The types one selection carries at most, either way: a source offering
 * more has the rest ignored (they would be re-sent at every focus change
 * and forwarded to the desktop at once). Real clients offer under 40. */
#define SELECTION_MIME_TYPES_MAX 64

/* The desktop's selection changed (count 0: none): it becomes the selection.
 * Only its first SELECTION_MIME_TYPES_MAX types are kept. */
void selection_set_desktop(struct selection *selection, const char *const *mime_types,
			   size_t count);

/* The desktop pastes the hosted client's selection: `fd` goes to its source
 * (closed here in any case). */
void selection_desktop_receive(struct selection *selection, const char *mime_type, int fd);

/* The manager's requests, the same in both protocols. */
void selection_manager_create_source(struct wl_client *client, struct wl_resource *manager,
				     uint32_t id);
void selection_manager_get_device(struct wl_client *client, struct wl_resource *manager,
				  uint32_t id, struct wl_resource *seat);

/* An offer's receive request: fd (closed here or passed on) gets the data
 * when the offer is still current. */
void selection_offer_receive(struct wl_client *client, struct wl_resource *offer,
			     const char *mime_type, int32_t fd);

void selection_source_offer(struct selection_source *source, const char *mime_type);

/* set_selection from a device of `client`, its errors checked: source (or
 * NULL) becomes the selection if the client has the keyboard, else it is
 * cancelled. */
void selection_client_set(struct selection *selection, struct wl_client *client,
			  struct selection_source *source);

#endif
