#ifndef WL_RECORD_CLOCK_H
#define WL_RECORD_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC in nanoseconds: the one clock frames are stamped with. */
int64_t clock_now_ns(void);

#endif
