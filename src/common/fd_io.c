#include "fd_io.h"

#include <errno.h>
#include <stdint.h>
#include <sys/types.h>
#include <unistd.h>

bool fd_read_whole_at_start(int fd, void *buffer, size_t size)
{
	uint8_t *bytes = buffer;
	size_t done = 0;
	while (done < size) {
		ssize_t n = pread(fd, bytes + done, size - done, (off_t)done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		done += (size_t)n;
	}
	return true;
}

bool fd_write_whole(int fd, const void *buffer, size_t size)
{
	const uint8_t *bytes = buffer;
	size_t done = 0;
	while (done < size) {
		ssize_t n = write(fd, bytes + done, size - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		done += (size_t)n;
	}
	return true;
}
