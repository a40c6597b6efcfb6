/* A desktop's linux-dmabuf v4 format table (src/window/dmabuf_format_table.c):
 * a whole table read, and the lies a desktop can tell about it refused
 * without a SIGBUS (an empty memfd announced as 4096 bytes killed
 * wl-record when the table was mapped). */
#include <drm_fourcc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dmabuf_format_table.h"
#include "test-runner.h"

static int table_fd(const void *bytes, size_t length)
{
	int fd = memfd_create("format-table", MFD_CLOEXEC);
	test_assert(fd >= 0);
	if (length)
		test_assert(write(fd, bytes, length) == (ssize_t)length);
	return fd;
}

static void put_entry(uint8_t *at, uint32_t format, uint64_t modifier)
{
	memset(at, 0xee, 16); /* the padding is not read */
	memcpy(at, &format, 4);
	memcpy(at + 8, &modifier, 8);
}

TEST(whole_table_is_read)
{
	uint8_t bytes[3 * 16];
	put_entry(bytes, DRM_FORMAT_XRGB8888, DRM_FORMAT_MOD_LINEAR);
	put_entry(bytes + 16, DRM_FORMAT_ARGB8888, DRM_FORMAT_MOD_INVALID);
	put_entry(bytes + 32, DRM_FORMAT_NV12, 0x0100000000000002ull);
	int fd = table_fd(bytes, sizeof(bytes));
	struct dmabuf_format_modifier *table;
	size_t count;
	test_assert(dmabuf_format_table_read(fd, sizeof(bytes), &table, &count) == NULL);
	test_assert(count == 3);
	test_assert(table[0].format == DRM_FORMAT_XRGB8888 && table[0].modifier == DRM_FORMAT_MOD_LINEAR);
	test_assert(table[1].format == DRM_FORMAT_ARGB8888 && table[1].modifier == DRM_FORMAT_MOD_INVALID);
	test_assert(table[2].format == DRM_FORMAT_NV12 && table[2].modifier == 0x0100000000000002ull);
	free(table);
	close(fd);
}

TEST(empty_file_announced_as_4096_bytes_is_refused)
{
	int fd = table_fd(NULL, 0);
	struct dmabuf_format_modifier *table = (void *)1;
	size_t count = 7;
	const char *why = dmabuf_format_table_read(fd, 4096, &table, &count);
	test_assert(why && strstr(why, "shorter"));
	test_assert(table == NULL && count == 0);
	close(fd);
}

TEST(table_shorter_than_announced_is_refused)
{
	uint8_t bytes[2 * 16];
	put_entry(bytes, DRM_FORMAT_XRGB8888, DRM_FORMAT_MOD_LINEAR);
	put_entry(bytes + 16, DRM_FORMAT_XRGB8888, DRM_FORMAT_MOD_LINEAR);
	int fd = table_fd(bytes, sizeof(bytes));
	struct dmabuf_format_modifier *table;
	size_t count;
	test_assert(dmabuf_format_table_read(fd, 3 * 16, &table, &count) != NULL);
	test_assert(table == NULL && count == 0);
	close(fd);
}

TEST(odd_and_huge_sizes_are_refused)
{
	uint8_t bytes[32] = { 0 };
	int fd = table_fd(bytes, sizeof(bytes));
	struct dmabuf_format_modifier *table;
	size_t count;
	test_assert(dmabuf_format_table_read(fd, 0, &table, &count) != NULL);
	test_assert(dmabuf_format_table_read(fd, 24, &table, &count) != NULL);
	test_assert(dmabuf_format_table_read(fd, UINT32_MAX - 15, &table, &count) != NULL);
	test_assert(table == NULL && count == 0);
	close(fd);
}

TEST(pipe_is_refused_not_waited_on)
{
	/* A descriptor that cannot be read at an offset (a pipe) is refused at
	 * once. */
	int fds[2];
	test_assert(pipe(fds) == 0);
	struct dmabuf_format_modifier *table;
	size_t count;
	test_assert(dmabuf_format_table_read(fds[0], 16, &table, &count) != NULL);
	close(fds[0]);
	close(fds[1]);
}
