/* A write error (here EFBIG from RLIMIT_FSIZE, as a full disk would give)
 * stops the recording: recorder_failed(), the fd becomes readable,
 * recorder_finish() fails, and what was written before still plays. */
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "synth.h"

#define LIMIT (256 * 1024)

/* Noisy frames so the output grows fast. */
static void add_noise(struct frame *frame, unsigned seed)
{
	for (int y = 0; y < frame->height; y++)
		for (int x = 0; x < frame->width * 4; x++) {
			seed = seed * 1103515245u + 12345u;
			frame->data[y * frame->stride + x] ^= (uint8_t)(seed >> 24) & 0x3f;
		}
}

static int child(const char *path)
{
	signal(SIGXFSZ, SIG_IGN);
	struct rlimit limit = {LIMIT, LIMIT};
	test_assert(setrlimit(RLIMIT_FSIZE, &limit) == 0);
	struct recorder_config config = synth_config(path);
	struct recorder *recorder = recorder_create(&config, NULL);
	test_assert(recorder);
	int fd = recorder_get_fd(recorder);
	test_assert(poll(&(struct pollfd){.fd = fd, .events = POLLIN}, 1, 0) == 0);
	int i;
	for (i = 0; i < 600 && !recorder_failed(recorder); i++) {
		struct frame *frame = synth_frame(i, 320, 240, 0, (int64_t)i * 20 * NS_PER_MS);
		add_noise(frame, (unsigned)i);
		recorder_submit(recorder, frame);
		synth_frame_free(frame);
		nanosleep(&(struct timespec){0, 5000000}, NULL);
	}
	printf("failed after %d frames submitted\n", i);
	test_assert(recorder_failed(recorder));
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	test_assert(poll(&pfd, 1, 1000) == 1 && (pfd.revents & POLLIN));
	/* Frames offered after the failure are refused without blocking. */
	struct frame *frame = synth_frame(0, 320, 240, 0, INT64_C(99) * 1000 * NS_PER_MS);
	test_assert(!recorder_submit(recorder, frame));
	synth_frame_free(frame);
	test_assert(recorder_finish(recorder, (int64_t)i * 20 * NS_PER_MS, NULL) < 0);
	return 0;
}

TEST(efbig_stops_recording)
{
	const char *path = synth_path("full.mkv");
	fflush(stdout);
	pid_t pid = fork();
	test_assert(pid >= 0);
	if (pid == 0)
		_exit(child(path));
	int status;
	test_assert(waitpid(pid, &status, 0) == pid);
	test_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	struct decoded_video video;
	test_assert(media_decode_video(path, &video) == 0);
	printf("truncated file: %d frames decode\n", video.frame_count);
	test_assert(video.frame_count > 0);
	media_decoded_video_free(&video);
}
