/* The SIGBUS guard (src/sigbus): a fault inside a guarded mapping is
 * survived and reported, nested guards each keep theirs, and a guard
 * ending inside another leaves the outer one in force (issue 30 §3.1: the
 * copy server's write into a client's buffer lost its guard when a read of
 * the screen began and ended inside it, and a truncated memfd then killed
 * wl-record). Each mapping is a memfd shrunk behind our back, as a hostile
 * client does. */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sigbus_guard.h"
#include "test-runner.h"

#define PAGE 4096
#define SIZE (4 * PAGE)

static volatile uint8_t sink;

/* A shared mapping of a memfd of SIZE bytes; *fd stays open so the case
 * can shrink the file. */
static uint8_t *shrinkable_mapping(int *fd)
{
	*fd = memfd_create("sigbus-guard", MFD_CLOEXEC);
	test_assert(*fd >= 0);
	test_assert(ftruncate(*fd, SIZE) == 0);
	uint8_t *map = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
	test_assert(map != MAP_FAILED);
	memset(map, 0x5a, SIZE);
	return map;
}

static void read_all(const uint8_t *map)
{
	for (size_t i = 0; i < SIZE; i += PAGE)
		sink += map[i];
}

TEST(fault_inside_a_guard_is_reported)
{
	test_assert(sigbus_guard_install());
	int fd;
	uint8_t *map = shrinkable_mapping(&fd);
	sigbus_guard_begin(map, SIZE);
	read_all(map);
	test_assert(sigbus_guard_end());

	test_assert(ftruncate(fd, 0) == 0);
	sigbus_guard_begin(map, SIZE);
	read_all(map);
	test_assert(!sigbus_guard_end());
	munmap(map, SIZE);
	close(fd);
}

TEST(outer_write_guard_survives_an_inner_read)
{
	/* The copy server's order: begin the write into the client's buffer,
	 * read the screen (its own guard, begun and ended), then write. */
	test_assert(sigbus_guard_install());
	int screen_fd, client_fd;
	uint8_t *screen = shrinkable_mapping(&screen_fd);
	uint8_t *client = shrinkable_mapping(&client_fd);
	static uint8_t scratch[SIZE];

	sigbus_guard_begin_write(client, SIZE);
	sigbus_guard_begin(screen, SIZE);
	memcpy(scratch, screen, SIZE);
	test_assert(sigbus_guard_end()); /* the screen read well */
	test_assert(ftruncate(client_fd, 0) == 0); /* the client shrinks its pool */
	memcpy(client, scratch, SIZE); /* still guarded: no death */
	test_assert(!sigbus_guard_end());

	munmap(screen, SIZE);
	munmap(client, SIZE);
	close(screen_fd);
	close(client_fd);
}

TEST(nested_faults_are_told_to_their_own_guard)
{
	test_assert(sigbus_guard_install());
	int outer_fd, inner_fd;
	uint8_t *outer = shrinkable_mapping(&outer_fd);
	uint8_t *inner = shrinkable_mapping(&inner_fd);

	sigbus_guard_begin(outer, SIZE);
	sigbus_guard_begin(inner, SIZE);
	test_assert(ftruncate(outer_fd, 0) == 0);
	read_all(outer); /* the outer one faults while the inner is open */
	read_all(inner);
	test_assert(sigbus_guard_end()); /* inner: read well */
	test_assert(!sigbus_guard_end()); /* outer: faulted */

	munmap(outer, SIZE);
	munmap(inner, SIZE);
	close(outer_fd);
	close(inner_fd);
}

TEST(a_guard_ended_is_clean_for_the_next)
{
	test_assert(sigbus_guard_install());
	int fd;
	uint8_t *map = shrinkable_mapping(&fd);
	test_assert(ftruncate(fd, 0) == 0);
	sigbus_guard_begin(map, SIZE);
	read_all(map);
	test_assert(!sigbus_guard_end());
	/* The zero pages stay; a new guard over them starts unfaulted. */
	sigbus_guard_begin(map, SIZE);
	read_all(map);
	test_assert(sigbus_guard_end());
	munmap(map, SIZE);
	close(fd);
}
