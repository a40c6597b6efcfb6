#ifndef WL_RECORD_STALE_DAMAGE_H
#define WL_RECORD_STALE_DAMAGE_H

#include <stdbool.h>

#include "frame.h"

/* A copy buffer's record of what changed on the output since it was last
 * copied into (ext-image-copy-capture's damage_buffer asks for it), shared
 * by the shm and dmabuf pools: after a copy, nothing for the buffer just
 * filled; every other grows by the copy's `damage` (all of it when not
 * `known`). */
static inline void stale_damage_note(bool *stale_known, struct frame_damage *stale, bool filled,
				     bool known, const struct frame_damage *damage)
{
	if (filled) {
		*stale_known = true;
		*stale = (struct frame_damage){ 0 };
		return;
	}
	struct frame into = { .damage_known = *stale_known, .damage = *stale };
	struct frame add = { .damage_known = known, .damage = *damage };
	frame_damage_merge(&into, &add);
	*stale_known = into.damage_known;
	*stale = into.damage;
}

#endif
