#ifndef WL_RECORD_PRIMARY_SELECTION_H
#define WL_RECORD_PRIMARY_SELECTION_H

#include <stddef.h>

#include "clipboard_event.h"

struct server;
struct primary_selection;

/* The primary selection (middle-click paste) of the nested compositor:
 * zwp_primary_selection_device_manager_v1, with the clipboard's rules
 * (selection.h): offered only to the client with the keyboard, set only by
 * it. Its calls mirror data_device.h's. */
struct primary_selection *primary_selection_create(struct server *server);
void primary_selection_destroy(struct primary_selection *primary);

/* Offers the global from now on (only with --window). */
void primary_selection_enable(struct primary_selection *primary);
struct wl_global *primary_selection_global(const struct primary_selection *primary);
void primary_selection_set_peer(struct primary_selection *primary,
				const struct wl_record_clipboard_peer *peer);
void primary_selection_set_desktop(struct primary_selection *primary,
				   const char *const *mime_types, size_t count);
void primary_selection_receive(struct primary_selection *primary, const char *mime_type, int fd);
void primary_selection_keyboard_focus_changed(struct primary_selection *primary);

#endif
