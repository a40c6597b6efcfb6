/* libFuzzer target for the command-line parser: the bytes, split at NUL
 * bytes, are argv[1..]. Each argument is its own allocation so that reading
 * past one, or keeping a pointer into a previous run's arguments, shows up
 * under ASan. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "options.h"

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_quiet_logs();
	char *argv[MAX_ARGS + 2];
	int argc = 0;
	argv[argc++] = strdup("wl-record");
	size_t start = 0;
	for (size_t i = 0; i <= size && argc <= MAX_ARGS; i++) {
		if (i == size || data[i] == 0) {
			char *arg = malloc(i - start + 1);
			if (!arg)
				abort();
			memcpy(arg, data + start, i - start);
			arg[i - start] = 0;
			argv[argc++] = arg;
			start = i + 1;
		}
	}
	argv[argc] = NULL;
	/* getopt permutes argv: keep the allocations to free them. */
	char *owned[MAX_ARGS + 2];
	memcpy(owned, argv, sizeof(char *) * (size_t)argc);

	struct options options;
	enum options_result result = options_parse(argc, argv, &options);
	if (result == OPTIONS_RUN) {
		/* What the parser returns must point into live arguments. */
		volatile size_t sink = 0;
		if (options.output)
			sink += strlen(options.output);
		if (options.codec)
			sink += strlen(options.codec);
		if (options.socket_name)
			sink += strlen(options.socket_name);
		for (int i = 0; options.codec_params[i]; i++)
			sink += strlen(options.codec_params[i]);
		for (int i = 0; options.command && options.command[i]; i++)
			sink += strlen(options.command[i]);
		(void)sink;
	}
	fflush(stdout);
	for (int i = 0; i < argc; i++)
		free(owned[i]);
	return 0;
}
