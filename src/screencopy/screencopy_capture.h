#ifndef WL_RECORD_SCREENCOPY_CAPTURE_H
#define WL_RECORD_SCREENCOPY_CAPTURE_H

#include "capture_source.h"

struct screencopy_source;

/* The desktop copied, as the capture source (capture_source.h): `copy`,
 * connected and set up (output, protocol, buffers), is the caller's no
 * more. NULL when out of memory (`copy` is then destroyed). */
struct capture_source *screencopy_capture_create(struct screencopy_source *copy);

#endif
