#include "pipewire_source.h"

#include <stdio.h>
#include <unistd.h>

/* Built without libpipewire-0.3: --capture pipewire= says so. */

struct pipewire_source *pipewire_source_connect(const struct pipewire_selection *selection,
						char *why, size_t why_size)
{
	if (selection->use_remote_fd)
		close(selection->remote_fd);
	snprintf(why, why_size, "this wl-record was built without PipeWire (libpipewire-0.3-dev)");
	return NULL;
}

const char *pipewire_source_describe(const struct pipewire_source *source)
{
	(void)source;
	return "";
}

bool pipewire_source_start(struct pipewire_source *source, struct wl_event_loop *loop,
			   ended_fn ended, void *data)
{
	(void)source;
	(void)loop;
	(void)ended;
	(void)data;
	return false;
}

struct frame_source *pipewire_frame_source(struct pipewire_source *source)
{
	(void)source;
	return NULL;
}

void pipewire_source_destroy(struct pipewire_source *source)
{
	(void)source;
}
