#ifndef WL_RECORD_LOG_H
#define WL_RECORD_LOG_H

/* One family of log macros. Each .c file defines LOG_MODULE before including
 * this header; messages go to stderr as "wl-record: module: text". */

#include <stdarg.h>
#include <stdbool.h>

enum log_level {
	LOG_LEVEL_QUIET = 0, /* errors only */
	LOG_LEVEL_WARN,
	LOG_LEVEL_INFO,
	LOG_LEVEL_DEBUG,
};

void log_set_level(enum log_level level);
enum log_level log_get_level(void);

void log_msg(enum log_level level, const char *module, int errno_value,
	     const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#ifndef LOG_MODULE
#error "define LOG_MODULE before including log.h"
#endif

#define LOG_ERR(...) log_msg(LOG_LEVEL_QUIET, LOG_MODULE, 0, __VA_ARGS__)
#define LOG_ERRNO(...) log_msg(LOG_LEVEL_QUIET, LOG_MODULE, errno, __VA_ARGS__)
#define LOG_ERRNO_P(err, ...) log_msg(LOG_LEVEL_QUIET, LOG_MODULE, (err), __VA_ARGS__)
#define LOG_WARN(...) log_msg(LOG_LEVEL_WARN, LOG_MODULE, 0, __VA_ARGS__)
#define LOG_INFO(...) log_msg(LOG_LEVEL_INFO, LOG_MODULE, 0, __VA_ARGS__)
#define LOG_DBG(...) log_msg(LOG_LEVEL_DEBUG, LOG_MODULE, 0, __VA_ARGS__)

#endif
