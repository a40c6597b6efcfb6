#ifndef WL_RECORD_PRIMARY_SELECTION_H
#define WL_RECORD_PRIMARY_SELECTION_H

struct server;
struct selection;

/* The primary selection (middle-click paste) of the nested compositor:
 * zwp_primary_selection_device_manager_v1 (version 1), with the
 * clipboard's rules and calls (selection.h). */
struct selection *primary_selection_create(struct server *server);

#endif
