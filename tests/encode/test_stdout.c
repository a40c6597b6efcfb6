/* "-" writes Matroska to stdout (here redirected into a file). */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "synth.h"

TEST(matroska_to_stdout)
{
	const char *path = synth_path("stdout.bin");
	int file = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	test_assert(file >= 0);
	fflush(stdout);
	int saved = dup(STDOUT_FILENO);
	test_assert(saved >= 0 && dup2(file, STDOUT_FILENO) == STDOUT_FILENO);
	struct recorder_config config = synth_config("-");
	int64_t pts[8];
	for (int i = 0; i < 8; i++)
		pts[i] = (int64_t)i * 25 * NS_PER_MS;
	int ret = synth_record(&config, 320, 240, 8, pts, 200 * NS_PER_MS, NULL);
	test_assert(dup2(saved, STDOUT_FILENO) == STDOUT_FILENO);
	close(saved);
	close(file);
	test_assert(ret == 0);

	struct decoded_video video;
	test_assert(media_decode_video(path, &video) == 0);
	test_assert(strstr(video.container, "matroska"));
	test_assert(video.frame_count == 8);
	test_assert(synth_min_psnr(&video, 320, 240) >= 35.0);
	media_decoded_video_free(&video);
}
