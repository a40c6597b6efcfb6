#ifndef WL_RECORD_SOURCE_SELECT_H
#define WL_RECORD_SOURCE_SELECT_H

#include <stdbool.h>

#include "capture_source.h"
#include "source_choice.h"

/* What the choice of source is made from: the command line and the
 * environment, as the program read them. */
struct source_select_request {
	enum capture_method capture; /* --capture */
	const char *pipewire_node;   /* --capture pipewire=NODE */
	const char *output_name;     /* -o; NULL: the first output */
	bool region;                 /* -g, in the desktop's logical coordinates */
	int region_x, region_y, region_width, region_height;
	bool no_cursor;              /* --no-cursor */
	bool still;                  /* --screenshot: pixels are wanted */
	const char *codec;           /* --codec; NULL: automatic */
	const char *device;          /* --device; NULL: automatic */
	bool server_socket;          /* WAYLAND_SERVER_SOCKET is set */
	bool command;                /* -- COMMAND given */
	bool socket_name;            /* --socket given */
	const char *wayland_display; /* $WAYLAND_DISPLAY; NULL or "" when unset */
	/* Makes the hosted compositor's source (capture/): the program makes
	 * the compositor itself, after the choice. */
	struct capture_source *(*host)(void);
};

/* Chooses where frames come from (source_choice.h) and says so: the
 * desktop on WAYLAND_DISPLAY (connected, its output chosen, not yet
 * copying), a PipeWire node or the portal's stream (found, not yet
 * linked), else request->host(). NULL (logged) when a forced source cannot
 * be had: --capture screencopy, PipeWire or its node, the portal; or -o
 * and -g name no part of the desktop, `*bad_usage` then true for a region
 * no output holds (a bad command line). */
struct capture_source *source_select(const struct source_select_request *request,
				     bool *bad_usage);

/* --list-outputs: the outputs of the desktop on `display` ($WAYLAND_DISPLAY),
 * one a line, on stdout. False (logged) when there is none to list. */
bool source_list_outputs(const char *display);

/* --forget-portal: drops the remembered portal choice. False (logged) when
 * it cannot. */
bool source_forget_portal(void);

#endif
