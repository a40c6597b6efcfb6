#ifndef WL_RECORD_FUZZ_COMMON_H
#define WL_RECORD_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#ifndef LOG_MODULE
#define LOG_MODULE "fuzz"
#endif
#include "log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Errors are the expected outcome of most inputs: printing each one would
 * slow the fuzzer down by orders of magnitude. WL_RECORD_FUZZ_VERBOSE=1 keeps them. */
void fuzz_quiet_logs(void);

/* The input, read from the front. */
struct fuzz_reader {
	const uint8_t *data;
	size_t size;
};

/* The next `bytes` (at most 4) bytes, big-endian; zeros past the end. */
uint32_t fuzz_take(struct fuzz_reader *r, int bytes);

#endif
