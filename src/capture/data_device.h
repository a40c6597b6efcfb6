#ifndef WL_RECORD_DATA_DEVICE_H
#define WL_RECORD_DATA_DEVICE_H

#include <stddef.h>

#include "clipboard_event.h"

struct server;
struct data_device;

/* The clipboard of the nested compositor: wl_data_device_manager (version
 * 3): the selection, and drag and drop between hosted clients (drag.h).
 * There is one selection:
 * the last one set, by a hosted client (while it has the keyboard) or by the
 * desktop (data_device_set_desktop_selection). It is offered only to the
 * client with the keyboard focus, when the focus comes and whenever the
 * selection changes; the client losing the focus is told there is none, and
 * its earlier offers read nothing any more. */
struct data_device *data_device_create(struct server *server);
void data_device_destroy(struct data_device *device);

/* Offers the global from now on (only with --window: a recording has no
 * clipboard to share). */
void data_device_enable(struct data_device *device);

/* The global, for the server's filter. NULL before enabled. */
struct wl_global *data_device_global(const struct data_device *device);

/* The desktop's side: told when a hosted client sets the selection, asked
 * for the data when a hosted client pastes the desktop's selection. */
void data_device_set_peer(struct data_device *device, const struct wl_record_clipboard_peer *peer);

/* The desktop's selection changed (count 0: none): it becomes the selection. */
void data_device_set_desktop_selection(struct data_device *device, const char *const *mime_types,
				       size_t count);

/* The desktop pastes the hosted client's selection: `fd` goes to its source
 * (closed here in any case). */
void data_device_receive(struct data_device *device, const char *mime_type, int fd);

/* The seat's keyboard focus moved to another client (or none). */
void data_device_keyboard_focus_changed(struct data_device *device);

#endif
