#ifndef WL_RECORD_DATA_DEVICE_H
#define WL_RECORD_DATA_DEVICE_H

struct server;
struct selection;

/* The clipboard of the nested compositor: wl_data_device_manager (version
 * 3), selection only (a drag is cancelled at once), with the rules and the
 * calls of selection.h. */
struct selection *data_device_create(struct server *server);

#endif
