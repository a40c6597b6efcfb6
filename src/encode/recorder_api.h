#ifndef WL_RECORD_RECORDER_API_H
#define WL_RECORD_RECORDER_API_H

#include "recorder.h"

/* The encoders live in a module the program loads when it records a video
 * (wl-record-encoder.so): linking FFmpeg, with the 130 libraries Debian's
 * build pulls in, costs every run about 80 ms of start-up (measured: an
 * empty program linked to libavcodec, libavformat, libavutil and libswscale
 * takes 80 ms, alone 0), so a still, --stop, --snap or --toggle would be
 * slower than grim for nothing. The module exports this table; the program
 * calls recorder.h through recorder_loader.c, which fills it on first use.
 * The module's logging, frames and PNG writing are the program's own (it
 * exports them), so there is one log, one frame reference count. */
struct recorder_api {
	const char *version; /* WL_RECORD_VERSION of the module's build */
	size_t config_size, stats_size, api_size; /* a module of another build is refused */
	__typeof__(&recorder_check) check;
	__typeof__(&recorder_create) create;
	__typeof__(&recorder_submit) submit;
	__typeof__(&recorder_submit_audio) submit_audio;
	__typeof__(&recorder_set_audio_title) set_audio_title;
	__typeof__(&recorder_end_audio_at) end_audio_at;
	__typeof__(&recorder_request_still) request_still;
	__typeof__(&recorder_get_fd) get_fd;
	__typeof__(&recorder_failed) failed;
	__typeof__(&recorder_get_stats) get_stats;
	__typeof__(&recorder_finish) finish;
	__typeof__(&recorder_list_encoders) list_encoders;
	__typeof__(&recorder_print_libraries) print_libraries;
};

#define RECORDER_API_SYMBOL "wl_record_recorder_api"
typedef const struct recorder_api *(*recorder_api_fn)(void);

/* Defined by the module. */
const struct recorder_api *wl_record_recorder_api(void);

#endif
