/* recorder.h for the program: each call goes to wl-record-encoder.so,
 * loaded on the first (recorder_api.h says why it is a module).
 *
 * Where the module is: beside the build's own program when this is it,
 * else WL_RECORD_MODULE_FROM_BINDIR from the program's folder (an install
 * moved under another prefix or staged with DESTDIR still finds its own),
 * else the configured install folder. Only files of this build are
 * accepted: the version and the three structures' sizes must match. */
#define LOG_MODULE "encode"
#include "recorder_api.h"

#include <assert.h>
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

#define MODULE_NAME "wl-record-encoder.so"

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static const struct recorder_api *loaded;

/* The folder of the running program, or "" when /proc cannot say. */
static void program_dir(char *out, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", out, size - 1);
	out[n > 0 ? n : 0] = 0;
	char *slash = strrchr(out, '/');
	if (slash)
		*slash = 0;
	else
		out[0] = 0;
}

static const struct recorder_api *load_from(const char *path, char *why, size_t why_size)
{
	void *module = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!module) {
		snprintf(why, why_size, "%s", dlerror());
		return NULL;
	}
	recorder_api_fn entry = (recorder_api_fn)dlsym(module, RECORDER_API_SYMBOL);
	const struct recorder_api *api = entry ? entry() : NULL;
	if (!api || strcmp(api->version, WL_RECORD_VERSION) != 0 ||
	    api->config_size != sizeof(struct recorder_config) ||
	    api->stats_size != sizeof(struct recorder_stats) ||
	    api->api_size != sizeof(struct recorder_api)) {
		snprintf(why, why_size, "%s: not the encoder module of wl-record %s", path,
			 WL_RECORD_VERSION);
		dlclose(module);
		return NULL;
	}
	return api; /* kept loaded until the program ends */
}

static void load(void)
{
	char dir[PATH_MAX], path[PATH_MAX + 64], why[512] = "";
	program_dir(dir, sizeof(dir));
	char program[PATH_MAX + 16], build_program[PATH_MAX];
	snprintf(program, sizeof(program), "%s/wl-record", dir);
	/* /proc/self/exe has no symbolic links: neither may the build's path. */
	if (realpath(WL_RECORD_BUILD_PROGRAM, build_program) &&
	    strcmp(program, build_program) == 0) {
		loaded = load_from(WL_RECORD_BUILD_MODULE, why, sizeof(why));
	} else {
		if (dir[0]) {
			snprintf(path, sizeof(path), "%s/%s/%s", dir, WL_RECORD_MODULE_FROM_BINDIR,
				 MODULE_NAME);
			if (access(path, F_OK) == 0)
				loaded = load_from(path, why, sizeof(why));
		}
		if (!loaded && !why[0])
			loaded = load_from(WL_RECORD_MODULE_DIR "/" MODULE_NAME, why, sizeof(why));
	}
	if (!loaded)
		LOG_ERR("cannot load the encoders: %s", why);
}

static const struct recorder_api *api(void)
{
	pthread_once(&load_once, load);
	return loaded;
}

enum recorder_error recorder_check(const struct recorder_config *config)
{
	return api() ? loaded->check(config) : RECORDER_ERROR_RUNTIME;
}

struct recorder *recorder_create(const struct recorder_config *config, enum recorder_error *error)
{
	if (!api()) {
		if (error)
			*error = RECORDER_ERROR_RUNTIME;
		return NULL;
	}
	return loaded->create(config, error);
}

/* A recorder exists only when the module loaded. */
bool recorder_submit(struct recorder *recorder, const struct frame *frame)
{
	assert(loaded);
	return loaded->submit(recorder, frame);
}

void recorder_submit_audio(struct recorder *recorder, int source, const struct audio_chunk *chunk)
{
	assert(loaded);
	loaded->submit_audio(recorder, source, chunk);
}

void recorder_end_audio_at(struct recorder *recorder, int64_t end_ns)
{
	assert(loaded);
	loaded->end_audio_at(recorder, end_ns);
}

void recorder_set_audio_title(struct recorder *recorder, int source, const char *title)
{
	assert(loaded);
	loaded->set_audio_title(recorder, source, title);
}

bool recorder_request_still(struct recorder *recorder, const char *path,
			    const struct frame *picture)
{
	assert(loaded);
	return loaded->request_still(recorder, path, picture);
}

int recorder_get_fd(struct recorder *recorder)
{
	assert(loaded);
	return loaded->get_fd(recorder);
}

bool recorder_failed(struct recorder *recorder)
{
	assert(loaded);
	return loaded->failed(recorder);
}

void recorder_get_stats(struct recorder *recorder, struct recorder_stats *stats)
{
	assert(loaded);
	loaded->get_stats(recorder, stats);
}

int recorder_finish(struct recorder *recorder, int64_t end_pts_ns, struct recorder_stats *stats)
{
	if (!recorder)
		return 0;
	assert(loaded);
	return loaded->finish(recorder, end_pts_ns, stats);
}

bool recorder_list_encoders(void)
{
	return api() && loaded->list_encoders();
}

void recorder_print_libraries(FILE *out)
{
	if (api())
		loaded->print_libraries(out);
}
