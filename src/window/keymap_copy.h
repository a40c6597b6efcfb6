/* The desktop's keymap, passed to hosted apps through a file of ours: the
 * desktop's descriptor could be shrunk (a SIGBUS in every app that maps
 * it) or written while they read it. The copy is a memfd sealed against
 * writes, growth and shrinking, as compositors hand their own keymaps. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* The largest keymap believed: a full xkb keymap is 40-100 KiB. */
#define KEYMAP_COPY_MAX_BYTES (4u << 20)

/* Reads `size` bytes of `fd` (from offset 0) into a new sealed memfd and
 * returns it, or -1 and why in *why (a static string). The caller keeps
 * and closes `fd`. */
int keymap_copy_sealed(int fd, uint32_t size, const char **why);
