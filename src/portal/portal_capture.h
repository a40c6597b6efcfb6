#ifndef WL_RECORD_PORTAL_CAPTURE_H
#define WL_RECORD_PORTAL_CAPTURE_H

#include "capture_source.h"

struct portal_cast;

/* The ScreenCast portal, as the capture source (capture_source.h): its
 * session and the PipeWire stream it opened (`stream`, pipewire/'s capture
 * source: this part does not read frames), both the caller's no more. It
 * ends when either does: the session closed from the portal's side (the
 * user stopped sharing) or the stream. NULL when out of memory (both are
 * then closed). */
struct capture_source *portal_capture_create(struct portal_cast *cast,
					     struct capture_source *stream);

#endif
