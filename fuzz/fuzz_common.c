#include "fuzz_common.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <wayland-server-core.h>

static void drop_wl_log(const char *fmt, va_list args)
{
}

void fuzz_quiet_logs(void)
{
	static bool done;
	if (done)
		return;
	done = true;
	const char *verbose = getenv("WL_RECORD_FUZZ_VERBOSE");
	if (verbose && *verbose == '1') {
		log_set_level(LOG_LEVEL_DEBUG);
		return;
	}
	/* wl-record's own errors still print at the quiet level: the scripts
	 * run libFuzzer with -close_fd_mask=2, which keeps the sanitizers'
	 * and libFuzzer's reports. */
	log_set_level(LOG_LEVEL_QUIET);
	wl_log_set_handler_server(drop_wl_log);
}

uint32_t fuzz_take(struct fuzz_reader *r, int bytes)
{
	uint32_t v = 0;
	for (int i = 0; i < bytes; i++) {
		v <<= 8;
		if (r->size) {
			v |= *r->data++;
			r->size--;
		}
	}
	return v;
}
