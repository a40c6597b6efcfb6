/* Whole reads and writes on a descriptor, retried on EINTR and short
 * counts: for files a peer hands us (a keymap, a format table) and files
 * of ours. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Reads `size` bytes from offset 0 (pread); false when the file is shorter
 * or cannot be read at an offset (a pipe). */
bool fd_read_whole_at_start(int fd, void *buffer, size_t size);

/* Writes all of `size` bytes at the file's position. */
bool fd_write_whole(int fd, const void *buffer, size_t size);
