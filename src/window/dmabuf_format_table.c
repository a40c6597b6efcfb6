#include "dmabuf_format_table.h"

#include <stdlib.h>
#include <string.h>

#include "fd_io.h"

#define ENTRY_BYTES 16

const char *dmabuf_format_table_read(int fd, uint32_t size,
				     struct dmabuf_format_modifier **table, size_t *count)
{
	*table = NULL;
	*count = 0;
	if (size < ENTRY_BYTES || size % ENTRY_BYTES)
		return "its size is not a whole number of entries";
	if (size > DMABUF_FORMAT_TABLE_MAX_BYTES)
		return "it is larger than any index can name";
	uint8_t *bytes = malloc(size);
	if (!bytes)
		return "out of memory";
	if (!fd_read_whole_at_start(fd, bytes, size)) {
		free(bytes);
		return "the file is shorter than announced, or cannot be read";
	}
	size_t entries = size / ENTRY_BYTES;
	struct dmabuf_format_modifier *out = calloc(entries, sizeof(*out));
	if (!out) {
		free(bytes);
		return "out of memory";
	}
	/* Each entry: format (32 bits), padding (32 bits), modifier (64 bits). */
	for (size_t i = 0; i < entries; i++) {
		memcpy(&out[i].format, bytes + i * ENTRY_BYTES, 4);
		memcpy(&out[i].modifier, bytes + i * ENTRY_BYTES + 8, 8);
	}
	free(bytes);
	*table = out;
	*count = entries;
	return NULL;
}
