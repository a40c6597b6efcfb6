/* "-" writes Matroska to stdout (here redirected into a file). */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "synth.h"

int main(void)
{
	char *path = synth_path("stdout.bin");
	int file = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(file >= 0);
	fflush(stdout);
	int saved = dup(STDOUT_FILENO);
	CHECK(saved >= 0 && dup2(file, STDOUT_FILENO) == STDOUT_FILENO);
	struct recorder_config config = synth_config("-");
	int64_t pts[8];
	for (int i = 0; i < 8; i++)
		pts[i] = (int64_t)i * 25 * NS_PER_MS;
	int ret = synth_record(&config, 320, 240, 8, pts, 200 * NS_PER_MS, NULL);
	CHECK(dup2(saved, STDOUT_FILENO) == STDOUT_FILENO);
	close(saved);
	close(file);
	CHECK(ret == 0);

	struct decoded_video video;
	CHECK(media_decode_video(path, &video) == 0);
	CHECK(strstr(video.container, "matroska"));
	CHECK(video.frame_count == 8);
	CHECK(synth_min_psnr(&video, 320, 240) >= 35.0);
	media_decoded_video_free(&video);
	free(path);
	return 0;
}
