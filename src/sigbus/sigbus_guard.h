#ifndef WL_RECORD_SIGBUS_GUARD_H
#define WL_RECORD_SIGBUS_GUARD_H

#include <stdbool.h>
#include <stddef.h>

/* Reading a client's shared memory faults with SIGBUS when the client shrank
 * the file behind it. Every CPU read of client memory happens between
 * sigbus_guard_begin() and sigbus_guard_end(): a fault inside the guarded
 * mapping replaces that mapping with zero pages, the read completes, and
 * sigbus_guard_end() reports it so the caller can discard what it read and
 * post the protocol error. A SIGBUS anywhere else still kills the process.
 *
 * Guards nest (up to 4 per thread), ended in the reverse order: each
 * sigbus_guard_end() ends the innermost, and a fault in an outer mapping
 * while an inner guard is open is still caught. */

/* Installs the process-wide handler; call once before reading client memory. */
bool sigbus_guard_install(void);

void sigbus_guard_begin(void *mapping, size_t size);
/* The same for writing: the zero pages that replace a faulted mapping are
 * writable, so the interrupted write completes too. */
void sigbus_guard_begin_write(void *mapping, size_t size);

/* Ends the guarded read; false when the mapping faulted during it. */
bool sigbus_guard_end(void);

#endif
