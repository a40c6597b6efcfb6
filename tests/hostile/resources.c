/* Clients that use up resources or talk out of turn: a second presenting
 * client, requests on a released shell (raw wire bytes: libwayland-client
 * will not send them), a client that never reads its socket, thousands of
 * surfaces and pools, buffers destroyed while the encoder is behind. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "harness.h"

#define SIDE 64

/* wl-record's resident memory in KiB, from /proc. */
static long rss_kib(const struct recorder_process *rec)
{
	char path[64], line[256];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)rec->pid);
	FILE *f = fopen(path, "r");
	test_assert(f, "cannot read %s: %s", path, strerror(errno));
	long kib = -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
			break;
	fclose(f);
	test_assert(kib > 0, "no VmRSS in %s", path);
	return kib;
}

static int open_fds(const struct recorder_process *rec)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)rec->pid);
	int n = 0;
	FILE *p;
	char command[96];
	snprintf(command, sizeof(command), "ls %s | wc -l", path);
	p = popen(command, "r");
	test_assert(p && fscanf(p, "%d", &n) == 1, "cannot count %s", path);
	pclose(p);
	return n;
}

/* ---- a second presenting client ---- */

/* While one client presents, another one's present_surface is refused with
 * wl_display's implementation error; the first client goes on being
 * recorded, and the recording ends when it leaves. */
TEST(second_presenter)
{
	static const char *const args[] = { "--size", "64x64", NULL };
	struct recorder_process rec;
	recorder_start(&rec, "out.mkv", args);
	struct hostile_client *first = client_connect(&rec);
	struct wl_surface *surface = client_present_color(first, SIDE, SIDE, 0x20c040);

	struct hostile_client *second = client_connect(&rec);
	struct wl_surface *intruder = wl_compositor_create_surface(second->compositor);
	zwp_fullscreen_shell_v1_present_surface(second->shell, intruder,
						ZWP_FULLSCREEN_SHELL_V1_PRESENT_METHOD_DEFAULT, NULL);
	expect_protocol_error(second, &wl_display_interface, second->display,
				     WL_DISPLAY_ERROR_IMPLEMENTATION);
	test_assert(recorder_log_contains(&rec, "second presenting client"),
		"wl-record did not say why it refused the second client");
	recorder_require_alive(&rec, "after refusing a second presenter");

	/* The first one is still served. */
	struct wl_buffer *next = client_color_buffer(first, SIDE, SIDE, 0x4020c0);
	wl_surface_attach(surface, next, 0, 0);
	wl_surface_damage(surface, 0, 0, SIDE, SIDE);
	wl_surface_commit(surface);
	client_expect_no_error(first);
	client_disconnect(second);
	client_disconnect(first);
	recorder_expect_exit(&rec, 30000, 0);
	check_recording(rec.output, SIDE, SIDE, 1);
	recorder_finish(&rec);
}

/* present_surface_for_mode is refused the same way, before any mode
 * switch: the output keeps the first client's size. */
TEST(second_presenter_for_mode)
{
	static const char *const args[] = { "--screenshot", "--delay", "1", "--size", "64x64", NULL };
	struct recorder_process rec;
	recorder_start(&rec, "shot.png", args);
	struct hostile_client *first = client_connect(&rec);
	client_present_color(first, SIDE, SIDE, 0x20c040);
	struct hostile_client *second = client_connect(&rec);
	struct wl_surface *intruder = wl_compositor_create_surface(second->compositor);
	zwp_fullscreen_shell_v1_present_surface_for_mode(second->shell, intruder, second->output, 0);
	wl_surface_attach(intruder, client_color_buffer(second, 32, 32, 0xff0000), 0, 0);
	wl_surface_commit(intruder);
	expect_protocol_error(second, &wl_display_interface, second->display,
				     WL_DISPLAY_ERROR_IMPLEMENTATION);
	client_disconnect(second);
	recorder_expect_exit(&rec, 20000, 0);
	client_disconnect(first);
	check_png_uniform(rec.output, SIDE, SIDE, 0x20c040);
	recorder_finish(&rec);
}

/* ---- requests on a released shell ---- */

static void send_raw(struct hostile_client *c, const uint32_t *words, size_t count)
{
	test_assert(wl_display_flush(c->display) >= 0, "flush: %s", strerror(errno));
	ssize_t n = send(wl_display_get_fd(c->display), words, count * 4, MSG_NOSIGNAL);
	test_assert(n == (ssize_t)(count * 4), "raw send: %s", strerror(errno));
}

/* After zwp_fullscreen_shell_v1.release the object id is gone: a request on
 * it is wl_display.invalid_object, and nothing of the shell's runs. */
static void released_shell(uint32_t opcode)
{
	static const char *const args[] = { "--screenshot", "--size", "64x64", NULL };
	struct recorder_process rec;
	recorder_start(&rec, "shot.png", args);
	struct hostile_client *c = client_connect(&rec);
	uint32_t shell_id = wl_proxy_get_id((struct wl_proxy *)c->shell);
	struct wl_surface *surface = wl_compositor_create_surface(c->compositor);
	uint32_t surface_id = wl_proxy_get_id((struct wl_proxy *)surface);
	zwp_fullscreen_shell_v1_release(c->shell);
	c->shell = NULL;
	client_expect_no_error(c);
	if (opcode == 1) {
		/* present_surface(surface, method DEFAULT, output NULL) */
		const uint32_t msg[] = { shell_id, (5u * 4) << 16 | 1, surface_id, 0, 0 };
		send_raw(c, msg, 5);
	} else {
		/* present_surface_for_mode(surface, output, 0, new feedback) */
		uint32_t output_id = wl_proxy_get_id((struct wl_proxy *)c->output);
		const uint32_t msg[] = { shell_id, (6u * 4) << 16 | 2, surface_id, output_id, 0,
					 0xfe00 };
		send_raw(c, msg, 6);
	}
	/* libwayland-client reports wl_display.invalid_object as EINVAL, with
	 * no protocol error details. Only read: wl-record may have hung up
	 * already, and a roundtrip's sync would then fail to send (EPIPE)
	 * before the error event is read. */
	int64_t deadline = now_ms() + 5000;
	while (wl_display_get_error(c->display) == 0 && now_ms() < deadline) {
		struct pollfd in = { wl_display_get_fd(c->display), POLLIN, 0 };
		if (poll(&in, 1, 100) > 0 && wl_display_dispatch(c->display) < 0)
			break;
	}
	int err = wl_display_get_error(c->display);
	test_assert(err == EINVAL, "connection error %d (%s); expected wl_display.invalid_object "
		"(EINVAL)", err, strerror(err));
	client_disconnect(c);
	prove_screenshot_serves(&rec, SIDE, SIDE, 0x3060a0);
	recorder_finish(&rec);
}

TEST(released_shell_present)
{
	released_shell(1);
}

TEST(released_shell_present_for_mode)
{
	released_shell(2);
}

/* ---- a client that never reads ---- */

static int connect_raw(const struct recorder_process *rec)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/%s", rec->dir, rec->socket);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	test_assert(fd >= 0, "socket: %s", strerror(errno));
	test_assert(connect(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0, "connect: %s",
		strerror(errno));
	return fd;
}

/* A client sends wl_display.sync after sync and never reads the answers.
 * wl-record must neither block on it nor buffer its answers without bound:
 * it drops that client, keeps recording the presenting one (whose
 * roundtrips keep coming back), and its memory stays put. */
TEST(never_reads)
{
	static const char *const args[] = { "--size", "64x64", NULL };
	struct recorder_process rec;
	recorder_start(&rec, "out.mkv", args);
	struct hostile_client *presenter = client_connect(&rec);
	struct wl_surface *surface = client_present_color(presenter, SIDE, SIDE, 0x808080);
	long rss_before = rss_kib(&rec);

	int deaf = connect_raw(&rec);
	uint32_t next_id = 2;
	size_t sent = 0;
	bool dropped = false;
	int64_t start = now_ms();
	while (!dropped && now_ms() - start < 20000 && sent < (64u << 20)) {
		uint32_t batch[3 * 256];
		for (int i = 0; i < 256; i++) {
			batch[3 * i] = 1;                 /* wl_display */
			batch[3 * i + 1] = 12u << 16 | 0; /* sync, 12 bytes */
			batch[3 * i + 2] = next_id++;
		}
		ssize_t n = send(deaf, batch, sizeof(batch), MSG_NOSIGNAL);
		if (n > 0) {
			sent += (size_t)n;
		} else if (errno == EAGAIN) {
			/* Our send buffer is full: wl-record stopped reading us, or
			 * has not got round to it. The presenter must still be served. */
			test_assert(client_roundtrip(presenter, 1000) == 0,
				"the presenter's roundtrip did not come back within 1 s while "
				"another client does not read");
			wl_surface_damage(surface, 0, 0, SIDE, SIDE);
			wl_surface_commit(surface);
		} else {
			dropped = errno == EPIPE || errno == ECONNRESET;
			test_assert(dropped, "send: %s", strerror(errno));
		}
	}
	long rss_after = rss_kib(&rec);
	fprintf(stderr, "sent %zu bytes of sync requests in %lld ms; %s; wl-record RSS %ld -> %ld KiB\n",
		sent, (long long)(now_ms() - start), dropped ? "then wl-record hung up" : "still connected",
		rss_before, rss_after);
	test_assert(dropped, "wl-record still takes requests from a client that never reads after %zu "
		"bytes: its answers must be piling up", sent);
	test_assert(rss_after - rss_before < 64 * 1024, "wl-record grew by %ld KiB", rss_after - rss_before);
	close(deaf);

	client_expect_no_error(presenter);
	client_disconnect(presenter);
	recorder_expect_exit(&rec, 30000, 0);
	check_recording(rec.output, SIDE, SIDE, 1);
	recorder_finish(&rec);
}

/* ---- thousands of objects ---- */

#define MANY_SURFACES 5000
#define MANY_POOLS 3000

/* 5000 surfaces, each with a buffer committed, then all destroyed: no
 * error, and memory returns near where it was. */
TEST(thousands_of_surfaces)
{
	static const char *const args[] = { "--screenshot", "--size", "64x64", NULL };
	struct recorder_process rec;
	recorder_start(&rec, "shot.png", args);
	struct hostile_client *c = client_connect(&rec);
	client_expect_no_error(c);
	long rss_before = rss_kib(&rec);
	struct wl_buffer *buffer = client_color_buffer(c, 16, 16, 0x112233);
	struct wl_surface **surfaces = calloc(MANY_SURFACES, sizeof(*surfaces));
	test_assert(surfaces, "out of memory");
	for (int i = 0; i < MANY_SURFACES; i++) {
		surfaces[i] = wl_compositor_create_surface(c->compositor);
		wl_surface_attach(surfaces[i], buffer, 0, 0);
		wl_surface_damage(surfaces[i], 0, 0, 16, 16);
		wl_surface_commit(surfaces[i]);
		if (i % 500 == 499)
			client_expect_no_error(c);
	}
	client_expect_no_error(c);
	long rss_peak = rss_kib(&rec);
	for (int i = 0; i < MANY_SURFACES; i++)
		wl_surface_destroy(surfaces[i]);
	free(surfaces);
	client_expect_no_error(c);
	long rss_after = rss_kib(&rec);
	fprintf(stderr, "%d surfaces: wl-record RSS %ld -> %ld -> %ld KiB\n", MANY_SURFACES,
		rss_before, rss_peak, rss_after);
	test_assert(rss_peak - rss_before < 256 * 1024, "%d small surfaces took %ld KiB",
		MANY_SURFACES, rss_peak - rss_before);
	client_disconnect(c);
	prove_screenshot_serves(&rec, SIDE, SIDE, 0x3060a0);
	recorder_finish(&rec);
}

/* 3000 live pools of one client: all served, and wl-record holds no file
 * descriptor per pool (it did: 3000 pools meant 3000 fds, and at the usual
 * limit of 1024 no other client could connect). Another client is served
 * meanwhile. */
TEST(thousands_of_pools)
{
	static const char *const args[] = { "--screenshot", "--size", "64x64", NULL };
	struct recorder_process rec;
	recorder_start(&rec, "shot.png", args);
	struct hostile_client *c = client_connect(&rec);
	client_expect_no_error(c);
	int fds_before = open_fds(&rec);
	int fd = make_memfd(4096);
	struct wl_shm_pool **pools = calloc(MANY_POOLS, sizeof(*pools));
	test_assert(pools, "out of memory");
	int error = 0, made = 0;
	for (int i = 0; i < MANY_POOLS && !error; i++, made++) {
		pools[i] = wl_shm_create_pool(c->shm, fd, 4096);
		if (i % 100 == 99) {
			int r = client_roundtrip(c, 5000);
			test_assert(r != -2, "wl-record did not answer within 5 s after %d pools", i + 1);
			error = r;
		}
	}
	if (!error)
		error = client_roundtrip(c, 5000);
	int fds_peak = open_fds(&rec);
	fprintf(stderr, "%d pools sent: %s; wl-record fds %d -> %d\n", made,
		error ? "wl-record dropped the client" : "all served", fds_before, fds_peak);
	recorder_require_alive(&rec, "after thousands of pools");
	test_assert(!error, "wl-record dropped a client for making %d pools", made);
	test_assert(fds_peak < fds_before + 50, "wl-record holds %d fds for %d pools (had %d)", fds_peak,
		made, fds_before);
	/* Whatever happened to that client, another one is served meanwhile. */
	struct hostile_client *other = client_connect(&rec);
	client_expect_no_error(other);
	client_disconnect(other);
	if (!error) {
		for (int i = 0; i < made; i++)
			wl_shm_pool_destroy(pools[i]);
		client_expect_no_error(c);
	}
	client_disconnect(c);
	free(pools);
	close(fd);
	client_roundtrip(client_connect(&rec), 5000); /* let wl-record see the hang-up */
	int fds_after = open_fds(&rec);
	test_assert(fds_after <= fds_before + 2, "wl-record still holds %d fds (had %d)", fds_after,
		fds_before);
	prove_screenshot_serves(&rec, SIDE, SIDE, 0x3060a0);
	recorder_finish(&rec);
}

/* ---- buffers destroyed while the encoder is behind ---- */

/* A slow encoder (veryslow at 1280x720) lags behind while the client sends
 * a new buffer every commit and destroys it (and its pool and memory) at
 * once: the encoder works on wl-record's own copies, so nothing it reads is
 * freed under it (ASan watches), and the recording finishes and decodes. */
TEST(buffer_destroyed_while_encoding)
{
	static const char *const args[] = { "--size", "1280x720", "-p", "preset=veryslow", NULL };
	struct recorder_process rec;
	recorder_start(&rec, "out.mkv", args);
	struct hostile_client *c = client_connect(&rec);
	struct wl_surface *surface = wl_compositor_create_surface(c->compositor);
	zwp_fullscreen_shell_v1_present_surface(c->shell, surface,
						ZWP_FULLSCREEN_SHELL_V1_PRESENT_METHOD_DEFAULT, NULL);
	for (int i = 0; i < 60; i++) {
		struct wl_buffer *buffer =
			client_color_buffer(c, 1280, 720, 0x010203u * (uint32_t)(i * 4 + 1));
		wl_surface_attach(surface, buffer, 0, 0);
		wl_surface_damage(surface, 0, 0, 1280, 720);
		wl_surface_commit(surface);
		wl_buffer_destroy(buffer);
		if (i % 10 == 9)
			client_expect_no_error(c);
		usleep(16000);
	}
	client_expect_no_error(c);
	client_disconnect(c);
	recorder_expect_exit(&rec, 60000, 0);
	check_recording(rec.output, 1280, 720, 2);
	recorder_finish(&rec);
}

/* A w x h XRGB8888 buffer of noise (expensive to encode), in its own pool. */
static struct wl_buffer *noise_buffer(struct hostile_client *c, int width, int height, unsigned seed)
{
	size_t stride = (size_t)width * 4, size = stride * (size_t)height;
	int fd = make_memfd(size);
	uint32_t *pixels = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	test_assert(pixels != MAP_FAILED, "mmap: %s", strerror(errno));
	uint32_t x = seed * 2654435761u + 1;
	for (size_t i = 0; i < size / 4; i++) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		pixels[i] = x;
	}
	munmap(pixels, size);
	struct wl_shm_pool *pool = wl_shm_create_pool(c->shm, fd, (int32_t)size);
	struct wl_buffer *buffer = wl_shm_pool_create_buffer(pool, 0, width, height, (int32_t)stride,
							     WL_SHM_FORMAT_XRGB8888);
	wl_shm_pool_destroy(pool);
	close(fd);
	return buffer;
}

/* The encoder far behind (veryslow on noise): the compositor side must go
 * on answering. A second client's roundtrips are timed while the first
 * commits a new noise frame every 33 ms; each must come back within 1 s
 * (a bound against hangs, not a speed claim: the figures are printed). */
TEST(slow_encoder_responsive)
{
	static const char *const args[] = { "--size", "960x544", "-p", "preset=veryslow", NULL };
	struct recorder_process rec;
	recorder_start(&rec, "out.mkv", args);
	struct hostile_client *c = client_connect(&rec);
	struct hostile_client *probe = client_connect(&rec);
	struct wl_surface *surface = wl_compositor_create_surface(c->compositor);
	zwp_fullscreen_shell_v1_present_surface(c->shell, surface,
						ZWP_FULLSCREEN_SHELL_V1_PRESENT_METHOD_DEFAULT, NULL);
	struct wl_buffer *buffers[2] = { noise_buffer(c, 960, 544, 1), noise_buffer(c, 960, 544, 2) };
	int64_t worst = 0, total = 0;
	int probes = 0;
	for (int i = 0; i < 90; i++) {
		wl_surface_attach(surface, buffers[i % 2], 0, 0);
		wl_surface_damage(surface, 0, 0, 960, 544);
		wl_surface_commit(surface);
		test_assert(wl_display_flush(c->display) >= 0, "flush: %s", strerror(errno));
		int64_t t0 = now_ms();
		test_assert(client_roundtrip(probe, 1000) == 0,
			"a roundtrip took over 1 s while the encoder was behind (frame %d)", i);
		int64_t took = now_ms() - t0;
		total += took;
		probes++;
		if (took > worst)
			worst = took;
		if (took < 33)
			usleep((useconds_t)(33 - took) * 1000);
		wl_display_dispatch_pending(c->display);
	}
	client_expect_no_error(c);
	fprintf(stderr, "%d roundtrips while encoding fell behind: mean %.1f ms, slowest %lld ms\n",
		probes, (double)total / probes, (long long)worst);
	client_disconnect(probe);
	client_disconnect(c);
	recorder_expect_exit(&rec, 90000, 0);
	test_assert(recorder_log_contains(&rec, " dropped"), "no drop count in the summary");
	check_recording(rec.output, 960, 544, 1);
	recorder_finish(&rec);
}

