/* The desktop's keymap passed to hosted apps (src/window/keymap_copy.c):
 * copied whole into a memfd of ours, sealed, so that a desktop shrinking
 * or rewriting its file cannot reach the apps; a file shorter than
 * announced is refused (issue 30 §3: "copy the desktop's keymap into a
 * sealed memfd of ours"). */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "keymap_copy.h"
#include "test-runner.h"

static const char keymap[] = "xkb_keymap {\n\txkb_keycodes { include \"evdev\" };\n};\n";

static int desktop_keymap(size_t length)
{
	int fd = memfd_create("desktop-keymap", MFD_CLOEXEC);
	test_assert(fd >= 0);
	test_assert(write(fd, keymap, length) == (ssize_t)length);
	return fd;
}

TEST(copy_is_whole_and_sealed)
{
	int fd = desktop_keymap(sizeof(keymap));
	const char *why = NULL;
	int copy = keymap_copy_sealed(fd, sizeof(keymap), &why);
	test_assert(copy >= 0, "refused: %s", why ? why : "?");
	test_assert(copy != fd);
	int seals = fcntl(copy, F_GET_SEALS);
	int wanted = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL;
	test_assert(seals >= 0 && (seals & wanted) == wanted, "seals 0x%x", seals);
	test_assert(lseek(copy, 0, SEEK_END) == (off_t)sizeof(keymap));

	/* The desktop shrinks and rewrites its file: the apps' copy stays. */
	test_assert(ftruncate(fd, 0) == 0);
	test_assert(write(fd, "garbage", 7) == 7);
	char *map = mmap(NULL, sizeof(keymap), PROT_READ, MAP_PRIVATE, copy, 0);
	test_assert(map != MAP_FAILED);
	test_assert(memcmp(map, keymap, sizeof(keymap)) == 0);
	munmap(map, sizeof(keymap));
	/* Nobody can shrink ours. */
	test_assert(ftruncate(copy, 0) < 0);
	close(copy);
	close(fd);
}

TEST(file_shorter_than_announced_is_refused)
{
	int fd = desktop_keymap(10);
	const char *why = NULL;
	test_assert(keymap_copy_sealed(fd, sizeof(keymap), &why) < 0);
	test_assert(why && strstr(why, "shorter"), "why: %s", why ? why : "(none)");
	close(fd);
}

TEST(empty_and_huge_sizes_are_refused)
{
	int fd = desktop_keymap(sizeof(keymap));
	const char *why = NULL;
	test_assert(keymap_copy_sealed(fd, 0, &why) < 0 && why);
	why = NULL;
	test_assert(keymap_copy_sealed(fd, KEYMAP_COPY_MAX_BYTES + 1, &why) < 0 && why);
	close(fd);
}
