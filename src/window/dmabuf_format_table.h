/* linux-dmabuf v4's format table, as a desktop sends it: read through the
 * descriptor (pread), never mapped, so a table shorter than announced, or
 * truncated while read, is refused instead of raising SIGBUS. */
#pragma once

#include <stddef.h>
#include <stdint.h>

struct dmabuf_format_modifier {
	uint32_t format;
	uint64_t modifier;
};

/* The largest table believed: 65536 entries of 16 bytes, what a uint16_t
 * tranche index can name. */
#define DMABUF_FORMAT_TABLE_MAX_BYTES (65536u * 16u)

/* Reads `size` bytes of `fd` from offset 0 into *table (malloc'd, *count
 * entries). Returns NULL on success, else why not (a static string); the
 * caller still owns and closes fd. */
const char *dmabuf_format_table_read(int fd, uint32_t size,
				     struct dmabuf_format_modifier **table, size_t *count);
