#include "pipewire_source.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* Where libpipewire looks: $PIPEWIRE_REMOTE (a name, or a path) or
 * pipewire-0, in $PIPEWIRE_RUNTIME_DIR or $XDG_RUNTIME_DIR. */
bool pipewire_running(char *why, size_t why_size)
{
	const char *remote = getenv("PIPEWIRE_REMOTE");
	if (!remote || !remote[0])
		remote = "pipewire-0";
	const char *dir = getenv("PIPEWIRE_RUNTIME_DIR");
	if (!dir || !dir[0])
		dir = getenv("XDG_RUNTIME_DIR");
	struct sockaddr_un address = { .sun_family = AF_UNIX };
	int n = remote[0] == '/' || !dir
		? snprintf(address.sun_path, sizeof(address.sun_path), "%s", remote)
		: snprintf(address.sun_path, sizeof(address.sun_path), "%s/%s", dir, remote);
	if (n < 0 || (size_t)n >= sizeof(address.sun_path)) {
		snprintf(why, why_size, "PipeWire's socket path is too long");
		return false;
	}
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(why, why_size, "cannot make a socket: %s", strerror(errno));
		return false;
	}
	bool running = connect(fd, (struct sockaddr *)&address, sizeof(address)) == 0;
	if (!running)
		snprintf(why, why_size, "PipeWire is not running (cannot connect to %s: %s)",
			 address.sun_path, strerror(errno));
	close(fd);
	return running;
}
