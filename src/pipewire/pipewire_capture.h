#ifndef WL_RECORD_PIPEWIRE_CAPTURE_H
#define WL_RECORD_PIPEWIRE_CAPTURE_H

#include "capture_source.h"

struct pipewire_source;

/* A PipeWire node, as the capture source (capture_source.h): `node`,
 * connected (pipewire_source_connect), is the caller's no more. NULL when
 * out of memory (`node` is then destroyed). */
struct capture_source *pipewire_capture_create(struct pipewire_source *node);

#endif
