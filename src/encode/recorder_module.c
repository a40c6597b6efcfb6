/* The entry point of wl-record-encoder.so (recorder_api.h). */
#include "recorder_api.h"

static const struct recorder_api api = {
	.version = WL_RECORD_VERSION,
	.config_size = sizeof(struct recorder_config),
	.stats_size = sizeof(struct recorder_stats),
	.api_size = sizeof(struct recorder_api),
	.check = recorder_check,
	.create = recorder_create,
	.submit = recorder_submit,
	.submit_audio = recorder_submit_audio,
	.set_audio_title = recorder_set_audio_title,
	.end_audio_at = recorder_end_audio_at,
	.request_still = recorder_request_still,
	.get_fd = recorder_get_fd,
	.failed = recorder_failed,
	.get_stats = recorder_get_stats,
	.finish = recorder_finish,
	.list_encoders = recorder_list_encoders,
	.print_libraries = recorder_print_libraries,
};

__attribute__((visibility("default"))) const struct recorder_api *wl_record_recorder_api(void)
{
	return &api;
}
