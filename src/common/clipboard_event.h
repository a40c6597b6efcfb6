#ifndef WL_RECORD_CLIPBOARD_EVENT_H
#define WL_RECORD_CLIPBOARD_EVENT_H

#include <stddef.h>

/* Which selection crosses: the clipboard (wl_data_device) or the primary
 * selection (middle-click paste, zwp_primary_selection_device_v1). Each
 * has its own peer below, with the same rules. */
enum wl_record_selection_kind {
	WL_RECORD_SELECTION_CLIPBOARD,
	WL_RECORD_SELECTION_PRIMARY,
	WL_RECORD_SELECTION_KINDS,
};

/* The clipboard (the selection) or the primary selection as it crosses
 * between the --window on the desktop (src/window/) and the nested
 * compositor (src/capture/data_device.c, primary_selection.c), in neither's
 * types; cmd/ connects each side to the other, once per kind. Both sides
 * call the other through the same two functions. */
struct wl_record_clipboard_peer {
	/* Our selection changed: it now offers these mime types (none: there is
	 * no selection). The strings are lent for the call. */
	void (*selection)(void *data, const char *const *mime_types, size_t count);
	/* The other side pastes: write our selection as `mime_type` into `fd`
	 * (a pipe's write end), which the callee owns and closes. */
	void (*receive)(void *data, const char *mime_type, int fd);
	void *data;
};

#endif
