#include "keymap_copy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static bool read_whole(int fd, uint8_t *bytes, size_t size)
{
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

static bool write_whole(int fd, const uint8_t *bytes, size_t size)
{
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

int keymap_copy_sealed(int fd, uint32_t size, const char **why)
{
	if (size == 0 || size > KEYMAP_COPY_MAX_BYTES) {
		*why = size ? "it is larger than any keymap" : "it is empty";
		return -1;
	}
	uint8_t *bytes = malloc(size);
	if (!bytes) {
		*why = "out of memory";
		return -1;
	}
	if (!read_whole(fd, bytes, size)) {
		free(bytes);
		*why = "the file is shorter than announced";
		return -1;
	}
	int copy = memfd_create("wl-record-keymap", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	bool written = copy >= 0 && write_whole(copy, bytes, size);
	free(bytes);
	if (!written || fcntl(copy, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE |
						 F_SEAL_SEAL) < 0) {
		if (copy >= 0)
			close(copy);
		*why = "no file of ours could hold it";
		return -1;
	}
	return copy;
}
