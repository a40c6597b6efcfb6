#ifndef WL_RECORD_CLIPBOARD_EVENT_H
#define WL_RECORD_CLIPBOARD_EVENT_H

#include <stddef.h>

/* The clipboard (the selection) as it crosses between the --window on the
 * desktop (src/window/) and the nested compositor's data device
 * (src/capture/), in neither's types; cmd/ connects each side to the other.
 * Both sides call the other through the same two functions. */
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
