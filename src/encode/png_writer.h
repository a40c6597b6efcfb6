#ifndef WL_RECORD_PNG_WRITER_H
#define WL_RECORD_PNG_WRITER_H

#include "frame.h"

/* Writes `frame` as an 8-bit RGB PNG (alpha/X byte dropped) with fast
 * compression. Writes to a temporary file beside `path` and renames it into
 * place, so a reader never sees half a PNG. Returns 0, or a negative errno
 * value after logging one clear line. */
int png_write_frame(const char *path, const struct frame *frame);

/* The same, but fails (-EEXIST, logged) when `path` already exists. */
int png_create_frame(const char *path, const struct frame *frame);

#endif
