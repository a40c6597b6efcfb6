#define LOG_MODULE ""
#include "log.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static enum log_level current_level = LOG_LEVEL_INFO;

void log_set_level(enum log_level level)
{
	current_level = level;
}

enum log_level log_get_level(void)
{
	return current_level;
}

void log_msg(enum log_level level, const char *module, int errno_value, const char *fmt, ...)
{
	if (level > current_level)
		return;

	/* Build the whole line first so lines from the encoder thread and the
	 * compositor thread never interleave mid-line. */
	char line[1024];
	int n = snprintf(line, sizeof(line), "wl-record: %s%s", module ? module : "",
			 module && module[0] ? ": " : "");
	if (n < 0)
		return;
	va_list ap;
	va_start(ap, fmt);
	if ((size_t)n < sizeof(line))
		n += vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	va_end(ap);
	if (errno_value && (size_t)n < sizeof(line))
		n += snprintf(line + n, sizeof(line) - (size_t)n, ": %s", strerror(errno_value));
	if ((size_t)n >= sizeof(line) - 1)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	fwrite(line, 1, (size_t)n, stderr);
}
