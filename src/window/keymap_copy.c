#include "keymap_copy.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fd_io.h"

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
	if (!fd_read_whole_at_start(fd, bytes, size)) {
		free(bytes);
		*why = "the file is shorter than announced";
		return -1;
	}
	int copy = memfd_create("wl-record-keymap", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	bool written = copy >= 0 && fd_write_whole(copy, bytes, size);
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
