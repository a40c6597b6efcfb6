#ifndef WL_RECORD_DATA_DEVICE_H
#define WL_RECORD_DATA_DEVICE_H

struct server;
struct selection;

/* The clipboard of the nested compositor: wl_data_device_manager (version
 * 3): the selection, with the rules and the calls of selection.h, and
 * drag and drop between hosted clients (drag.h). */
struct selection *data_device_create(struct server *server);

#endif
