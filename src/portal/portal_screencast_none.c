#include "portal_screencast.h"

#include <stdio.h>

/* Built without gio-2.0: --capture portal says so, and the automatic
 * choice never takes the portal. */

bool portal_screencast_offered(char *why, size_t why_size)
{
	snprintf(why, why_size, "this wl-record was built without the portal (gio-2.0)");
	return false;
}

struct portal_cast *portal_cast_start(const struct portal_request *request,
				      enum portal_outcome *outcome, char *why, size_t why_size)
{
	(void)request;
	*outcome = PORTAL_ABSENT;
	snprintf(why, why_size, "this wl-record was built without the portal (gio-2.0, "
		 "libglib2.0-dev)");
	return NULL;
}

uint32_t portal_cast_node(const struct portal_cast *cast)
{
	(void)cast;
	return 0;
}

int portal_cast_take_remote(struct portal_cast *cast)
{
	(void)cast;
	return -1;
}

const char *portal_cast_restore_token(const struct portal_cast *cast)
{
	(void)cast;
	return "";
}

const char *portal_cast_describe(const struct portal_cast *cast)
{
	(void)cast;
	return "";
}

bool portal_cast_watch(struct portal_cast *cast, struct wl_event_loop *loop,
		       ended_fn closed, void *data)
{
	(void)cast;
	(void)loop;
	(void)closed;
	(void)data;
	return false;
}

void portal_cast_close(struct portal_cast *cast)
{
	(void)cast;
}
