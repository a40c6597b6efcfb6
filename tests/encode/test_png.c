/* png_write_frame: 641x479 BGRX with a padded stride reads back exactly as
 * RGB; a bad path fails cleanly and no temporary file is left. */
#include <dirent.h>
#include <sys/stat.h>
#include <string.h>

#include "png_writer.h"
#include "synth.h"

int main(void)
{
	const int width = 641, height = 479;
	struct frame *frame = synth_frame(3, width, height, width * 4 + 60, 0);
	char *path = synth_path("still.png");
	CHECK(png_write_frame(path, frame) == 0);

	struct rgb_image read, expected;
	CHECK(media_read_png(path, &read) == 0);
	synth_expected(3, width, height, width, height, &expected);
	CHECK(read.width == width && read.height == height);
	CHECK(memcmp(read.rgb, expected.rgb, (size_t)width * height * 3) == 0);
	media_rgb_image_free(&read);
	media_rgb_image_free(&expected);

	/* Overwriting an existing file works (rename over it). */
	struct frame *other = synth_frame(9, width, height, 0, 0);
	CHECK(png_write_frame(path, other) == 0);
	CHECK(media_read_png(path, &read) == 0);
	synth_expected(9, width, height, width, height, &expected);
	CHECK(memcmp(read.rgb, expected.rgb, (size_t)width * height * 3) == 0);
	media_rgb_image_free(&read);
	media_rgb_image_free(&expected);

	CHECK(png_write_frame("/nonexistent-dir/x.png", frame) < 0);
	/* A directory in place of the target: the rename fails, temp removed. */
	char *dir_target = synth_path("adir");
	CHECK(mkdir(dir_target, 0755) == 0);
	CHECK(png_write_frame(dir_target, frame) < 0);

	DIR *dir = opendir(synth_tmpdir());
	CHECK(dir);
	struct dirent *entry;
	while ((entry = readdir(dir)))
		CHECK(!strstr(entry->d_name, ".tmp-"));
	closedir(dir);
	synth_frame_free(frame);
	synth_frame_free(other);
	free(path);
	free(dir_target);
	return 0;
}
