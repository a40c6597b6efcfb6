/* The output name is a file name, never a URL: libavformat given a name
 * reads "file:out.mkv" as out.mkv (truncated without -y) and
 * "rec-12:30.mkv" as protocol "rec-12". Relative names, as a user types
 * them (an absolute one starts with '/', which no protocol does). */
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "synth.h"

#define FRAMES 6

static int record_here(const char *name, bool overwrite)
{
	test_assert(chdir(synth_tmpdir()) == 0);
	struct recorder_config config = synth_config(name);
	config.overwrite = overwrite;
	int64_t pts[FRAMES];
	for (int i = 0; i < FRAMES; i++)
		pts[i] = (int64_t)i * 25 * NS_PER_MS;
	return synth_record(&config, 320, 240, FRAMES, pts, FRAMES * 25 * NS_PER_MS, NULL);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	test_assert(f && fputs(text, f) >= 0 && fclose(f) == 0);
}

static bool has_text(const char *path, const char *text)
{
	char buffer[64] = "";
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	size_t n = fread(buffer, 1, sizeof(buffer) - 1, f);
	fclose(f);
	buffer[n] = 0;
	return strcmp(buffer, text) == 0;
}

static void check_recording(const char *path)
{
	struct decoded_video video;
	test_assert(media_decode_video(path, &video) == 0);
	test_assert(video.frame_count == FRAMES);
	media_decoded_video_free(&video);
}

TEST(colon_in_name)
{
	test_assert(record_here("rec-12:30.mkv", false) == 0);
	check_recording(synth_path("rec-12:30.mkv"));
}

TEST(url_prefix_is_a_name)
{
	const char *kept = synth_path("out.mkv");
	write_text(kept, "precious");
	test_assert(record_here("file:out.mkv", false) == 0);
	test_assert(has_text(kept, "precious"));
	check_recording(synth_path("file:out.mkv"));
	/* That name existing now, it is refused without -y, and kept. */
	const char *named = synth_path("file:out.mkv");
	struct stat before, after;
	test_assert(stat(named, &before) == 0);
	test_assert(record_here("file:out.mkv", false) < 0);
	test_assert(stat(named, &after) == 0 && after.st_size == before.st_size);
	test_assert(has_text(kept, "precious"));
	/* With -y it is replaced, and out.mkv still kept. */
	test_assert(record_here("file:out.mkv", true) == 0);
	check_recording(named);
	test_assert(has_text(kept, "precious"));
}

/* An existing FIFO or device holds no recording to lose: written without
 * -y. A FIFO cannot seek back: the muxer writes it in one pass. */
TEST(existing_fifo_written)
{
	const char *fifo = synth_path("pipe.mkv");
	const char *copy = synth_path("copy.mkv");
	test_assert(mkfifo(fifo, 0600) == 0);
	fflush(stdout);
	pid_t reader = fork();
	test_assert(reader >= 0);
	if (reader == 0) {
		int in = open(fifo, O_RDONLY), out = open(copy, O_WRONLY | O_CREAT | O_EXCL, 0600);
		char buffer[65536];
		ssize_t n;
		while (in >= 0 && out >= 0 && (n = read(in, buffer, sizeof(buffer))) > 0)
			if (write(out, buffer, (size_t)n) != n)
				_exit(1);
		_exit(in >= 0 && out >= 0 ? 0 : 1);
	}
	test_assert(record_here("pipe.mkv", false) == 0);
	int status;
	test_assert(waitpid(reader, &status, 0) == reader && WIFEXITED(status) &&
		    WEXITSTATUS(status) == 0);
	check_recording(copy);
}

TEST(dev_null_written)
{
	test_assert(symlink("/dev/null", synth_path("null.mkv")) == 0);
	test_assert(record_here("null.mkv", false) == 0);
}
