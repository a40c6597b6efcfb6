#ifndef WL_RECORD_ENDED_H
#define WL_RECORD_ENDED_H

/* How a part that can end on its own (a source whose compositor, node or
 * portal session went away, the --window whose desktop closed it) tells
 * its owner, once: `why` is one line for the user. The owner may destroy
 * the part only after the call returns. */
typedef void (*ended_fn)(void *data, const char *why);

#endif
