/* Runs a libFuzzer target's LLVMFuzzerTestOneInput on files, without
 * libFuzzer: the regression inputs and seeds of fuzz/ replayed as tests in
 * every build (gcc too; fuzz/meson.build). Each argument is a file or a
 * folder of them (in name order); each input is an allocation of exactly
 * its size, as libFuzzer gives it. Exits 0 after them all; a crash is the
 * failure. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_common.h"

static int replay_file(const char *path)
{
	FILE *file = fopen(path, "rb");
	if (!file) {
		fprintf(stderr, "replay: cannot open %s\n", path);
		return 1;
	}
	size_t size = 0, capacity = 4096;
	uint8_t *data = malloc(capacity);
	size_t n;
	while (data && (n = fread(data + size, 1, capacity - size, file)) > 0) {
		size += n;
		if (size == capacity)
			data = realloc(data, capacity *= 2);
	}
	fclose(file);
	if (!data)
		return 1;
	uint8_t *exact = malloc(size ? size : 1);
	if (!exact)
		return 1;
	memcpy(exact, data, size);
	free(data);
	LLVMFuzzerTestOneInput(exact, size);
	free(exact);
	printf("replayed %s\n", path);
	return 0;
}

static int compare_names(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

int main(int argc, char **argv)
{
	int failed = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, "replay: no %s\n", argv[i]);
			failed = 1;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			failed |= replay_file(argv[i]);
			continue;
		}
		struct dirent **names;
		int count = scandir(argv[i], &names, NULL, compare_names);
		for (int k = 0; k < count; k++) {
			char path[4096];
			snprintf(path, sizeof(path), "%s/%s", argv[i], names[k]->d_name);
			if (names[k]->d_name[0] != '.' && stat(path, &st) == 0 && S_ISREG(st.st_mode))
				failed |= replay_file(path);
			free(names[k]);
		}
		free(names);
	}
	return failed;
}
