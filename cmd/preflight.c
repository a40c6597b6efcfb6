#define LOG_MODULE ""
#include "preflight.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app.h"
#include "log.h"
#include "recorder.h"
#include "server.h"

/* The folder `path` is created in: "." for a bare name. */
static void folder_of(const char *path, char *out, size_t size)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		snprintf(out, size, ".");
	else if (slash == path)
		snprintf(out, size, "/");
	else
		snprintf(out, size, "%.*s", (int)(slash - path), path);
}

static int check_output_folder(const char *path)
{
	char folder[PATH_MAX];
	folder_of(path, folder, sizeof(folder));
	struct stat st;
	if (stat(folder, &st) < 0) {
		LOG_ERR("cannot write %s: folder %s: %s", path, folder, strerror(errno));
		return EXIT_FAILED;
	}
	if (!S_ISDIR(st.st_mode)) {
		LOG_ERR("cannot write %s: %s is not a folder", path, folder);
		return EXIT_FAILED;
	}
	if (access(folder, W_OK | X_OK) < 0) {
		LOG_ERR("cannot write %s: folder %s: %s", path, folder, strerror(errno));
		return EXIT_FAILED;
	}
	return EXIT_OK;
}

int preflight_check(const struct app *app)
{
	const struct options *options = app->options;
	const char *path = app->output_path;
	bool to_stdout = strcmp(path, "-") == 0;

	if (!to_stdout) {
		int status = check_output_folder(path);
		if (status != EXIT_OK)
			return status;
		/* The writers refuse too, atomically; this is for the message's
		 * timing, before an app has run for nothing. */
		if (!app_may_replace_output(app) && access(path, F_OK) == 0) {
			LOG_ERR("%s already exists: give --overwrite (-y) to replace it", path);
			return EXIT_FAILED;
		}
	}
	if (!options->screenshot) {
		struct recorder_config config = {
			.path = path, .codec = options->codec,
			.audio_sources = options->audio_source_count,
			.audio_codec = options->audio_codec, .audio_bitrate = options->audio_bitrate,
		};
		switch (recorder_check(&config)) {
		case RECORDER_ERROR_NONE:
			break;
		case RECORDER_ERROR_CONFIG:
			return EXIT_USAGE;
		case RECORDER_ERROR_RUNTIME: /* the encoder module cannot be loaded */
			return EXIT_FAILED;
		}
	}
	/* Weston's screen-share hands over a connected socket: no folder needed. */
	if (!getenv("WAYLAND_SERVER_SOCKET") && !server_runtime_dir_is_safe())
		return EXIT_FAILED;
	return EXIT_OK;
}
