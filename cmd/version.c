#define LOG_MODULE ""
#include "help.h"

#include "log.h"
#include "recorder.h"

void print_version(FILE *out)
{
	fprintf(out, "wl-record %s\n", WL_RECORD_VERSION);
	fflush(out);
	recorder_print_libraries(out);
	fputs("Encoders usable here (wl-record --list-encoders says why others are not):\n",
	      out);
	fflush(out);
	/* The reasons are for --list-encoders; here only what works. */
	enum log_level level = log_get_level();
	log_set_level(LOG_LEVEL_WARN);
	recorder_list_encoders();
	fflush(stdout);
	log_set_level(level);
}
