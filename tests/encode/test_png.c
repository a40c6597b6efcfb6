/* png_write_frame: 641x479 BGRX with a padded stride reads back exactly as
 * RGB; the file is well formed to the last byte (every chunk's CRC, the
 * zlib stream inflated whole with its Adler-32: a reader that stops at the
 * last row, as libpng does, would not notice a wrong one); a bad path
 * fails cleanly and no temporary file is left. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>

#include <zlib.h>

#include "png_writer.h"
#include "synth.h"

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Every chunk's CRC, the IDATs' zlib stream inflated to its end (which
 * checks its Adler-32) and exactly height rows of 1 + 3 * width bytes. */
static void check_well_formed(const char *path, int width, int height)
{
	FILE *file = fopen(path, "rb");
	test_assert(file);
	uint8_t *bytes = malloc(64 << 20);
	test_assert(bytes);
	size_t size = fread(bytes, 1, 64 << 20, file);
	fclose(file);
	test_assert(size > 8 && memcmp(bytes, "\x89PNG\r\n\x1a\n", 8) == 0);
	size_t raw_size = (size_t)height * (1 + 3 * (size_t)width);
	uint8_t *raw = malloc(raw_size + 1);
	test_assert(raw);
	z_stream z = { 0 };
	test_assert(inflateInit(&z) == Z_OK);
	z.next_out = raw;
	z.avail_out = (uInt)raw_size + 1;
	int inflated = Z_OK, idat_chunks = 0;
	bool end = false;
	for (size_t at = 8; at < size && !end;) {
		test_assert(at + 12 <= size);
		uint32_t length = be32(bytes + at);
		test_assert(at + 12 + length <= size);
		const uint8_t *type = bytes + at + 4;
		test_assert((uint32_t)crc32(0, type, 4 + length) == be32(bytes + at + 8 + length));
		if (memcmp(type, "IDAT", 4) == 0) {
			idat_chunks++;
			z.next_in = (uint8_t *)type + 4;
			z.avail_in = length;
			inflated = inflate(&z, Z_NO_FLUSH);
			test_assert(inflated == Z_OK || inflated == Z_STREAM_END);
		}
		end = memcmp(type, "IEND", 4) == 0;
		at += 12 + length;
	}
	test_assert(end && idat_chunks > 0);
	test_assert(inflated == Z_STREAM_END); /* the Adler-32 matched */
	test_assert(z.total_out == raw_size);
	inflateEnd(&z);
	free(raw);
	free(bytes);
}

/* No file of the temporary directory is a writer's temporary. */
static void check_no_temporary(void)
{
	DIR *dir = opendir(synth_tmpdir());
	test_assert(dir);
	struct dirent *entry;
	while ((entry = readdir(dir)))
		test_assert(!strstr(entry->d_name, ".tmp-"), "%s left", entry->d_name);
	closedir(dir);
}

#define WIDTH 641
#define HEIGHT 479

/* Read back exactly, well formed, and overwritten in place. */
TEST(exact_and_well_formed)
{
	const int width = WIDTH, height = HEIGHT;
	struct frame *frame = synth_frame(3, width, height, width * 4 + 60, 0);
	const char *path = synth_path("still.png");
	test_assert(png_write_frame(path, frame) == 0);

	struct rgb_image read, expected;
	test_assert(media_read_png(path, &read) == 0);
	synth_expected(3, width, height, width, height, &expected);
	test_assert(read.width == width && read.height == height);
	test_assert(memcmp(read.rgb, expected.rgb, (size_t)width * height * 3) == 0);
	media_rgb_image_free(&read);
	media_rgb_image_free(&expected);
	check_well_formed(path, width, height);

	/* Overwriting an existing file works (rename over it). */
	struct frame *other = synth_frame(9, width, height, 0, 0);
	test_assert(png_write_frame(path, other) == 0);
	test_assert(media_read_png(path, &read) == 0);
	synth_expected(9, width, height, width, height, &expected);
	test_assert(memcmp(read.rgb, expected.rgb, (size_t)width * height * 3) == 0);
	media_rgb_image_free(&read);
	media_rgb_image_free(&expected);
	check_no_temporary();
	synth_frame_free(frame);
	synth_frame_free(other);
}

/* A bad path fails cleanly and no temporary file is left. */
TEST(failure_leaves_no_temporary)
{
	struct frame *frame = synth_frame(3, WIDTH, HEIGHT, WIDTH * 4 + 60, 0);
	test_assert(png_write_frame("/nonexistent-dir/x.png", frame) < 0);
	/* A directory in place of the target: the rename fails, temp removed. */
	const char *dir_target = synth_path("adir");
	test_assert(mkdir(dir_target, 0755) == 0);
	test_assert(png_write_frame(dir_target, frame) < 0);

	check_no_temporary();
	synth_frame_free(frame);
}
