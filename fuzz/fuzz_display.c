/* libFuzzer target: arbitrary bytes and file descriptors sent to an
 * in-process wl-record compositor as one client's requests.
 *
 * Input (fuzz/wire_from_log.py writes seeds in this format from real
 * conversations):
 *   byte 0        number of file descriptors to pass, modulo 5
 *   4 bytes each  little-endian size of each memfd (modulo 8 MiB)
 *   the rest      wire bytes, sent as they are
 *
 * Each input gets a fresh server (a small output) and client connection;
 * the server dispatches until it has read everything or dropped the client,
 * its timers get a few turns, then everything is torn down, so ASan sees
 * every leak and use-after-free of one conversation. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "server.h"

#define MAX_FDS 4
#define MAX_FD_SIZE (8u << 20)

struct conversation {
	struct server *server;
	struct wl_client *client;
	struct wl_listener client_destroy;
	struct wl_listener frame;
	uint64_t frame_checksum;
};

static void client_destroyed(struct wl_listener *listener, void *data)
{
	struct conversation *c = wl_container_of(listener, c, client_destroy);
	wl_list_remove(&c->client_destroy.link);
	wl_list_init(&c->client_destroy.link);
	c->client = NULL;
}

/* Reads every pixel of each frame, so a frame that points outside its
 * memory shows up under ASan. */
static void frame_emitted(struct wl_listener *listener, void *data)
{
	struct conversation *c = wl_container_of(listener, c, frame);
	const struct frame *frame = data;
	for (int y = 0; y < frame->height; y++) {
		const uint8_t *row = frame->data + (size_t)y * frame->stride;
		for (int x = 0; x < frame->width * 4; x += 61)
			c->frame_checksum += row[x];
		c->frame_checksum += row[frame->width * 4 - 1];
	}
}

static uint32_t read_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int make_fd(uint32_t size)
{
	int fd = memfd_create("fuzz-pool", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	if (ftruncate(fd, size % MAX_FD_SIZE) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Sends `fds` with the first byte of `bytes` (SCM_RIGHTS needs data). */
static bool send_with_fds(int sock, const uint8_t *bytes, size_t size, const int *fds, int n_fds)
{
	char control[CMSG_SPACE(sizeof(int) * MAX_FDS)] = { 0 };
	struct iovec iov = { .iov_base = (void *)bytes, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	if (n_fds > 0) {
		msg.msg_control = control;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * n_fds);
		struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(sizeof(int) * n_fds);
		memcpy(CMSG_DATA(cmsg), fds, sizeof(int) * n_fds);
	}
	return size > 0 && sendmsg(sock, &msg, MSG_DONTWAIT | MSG_NOSIGNAL) == 1;
}

static void drain(int sock)
{
	char sink[4096];
	for (;;) {
		char control[CMSG_SPACE(sizeof(int) * 28)];
		struct iovec iov = { .iov_base = sink, .iov_len = sizeof(sink) };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
				      .msg_control = control, .msg_controllen = sizeof(control) };
		ssize_t n = recvmsg(sock, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (n <= 0)
			return;
		/* The server passes no fds today; close any so none leak. */
		for (struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg); cmsg; cmsg = CMSG_NXTHDR(&msg, cmsg)) {
			if (cmsg->cmsg_level != SOL_SOCKET || cmsg->cmsg_type != SCM_RIGHTS)
				continue;
			size_t count = (cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			int *received = (int *)CMSG_DATA(cmsg);
			for (size_t i = 0; i < count; i++)
				close(received[i]);
		}
	}
}

static void turn(struct conversation *c, int sock)
{
	wl_event_loop_dispatch(c->server->loop, 0);
	wl_display_flush_clients(c->server->display);
	drain(sock);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_quiet_logs();
	if (size < 1)
		return 0;
	int n_fds = data[0] % (MAX_FDS + 1);
	size_t offset = 1 + 4 * (size_t)n_fds;
	if (size <= offset)
		return 0;

	struct server_config config = { .width = 64, .height = 48, .fps = 1000 };
	struct conversation c = { .server = server_create(&config) };
	if (!c.server)
		abort();
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		abort();
	c.client = server_adopt_client_fd(c.server, sv[0]);
	if (!c.client)
		abort();
	c.client_destroy.notify = client_destroyed;
	wl_client_add_destroy_listener(c.client, &c.client_destroy);
	c.frame.notify = frame_emitted;
	wl_signal_add(&c.server->screen.events.frame, &c.frame);

	int fds[MAX_FDS];
	for (int i = 0; i < n_fds; i++)
		fds[i] = make_fd(read_le32(data + 1 + 4 * i));
	int good_fds = 0;
	while (good_fds < n_fds && fds[good_fds] >= 0)
		good_fds++;

	const uint8_t *wire = data + offset;
	size_t remaining = size - offset;
	if (send_with_fds(sv[1], wire, remaining, fds, good_fds)) {
		wire++;
		remaining--;
	}
	for (int i = 0; i < n_fds; i++)
		if (fds[i] >= 0)
			close(fds[i]);

	/* Feed the rest as the socket takes it; the server reads in between. */
	while (remaining > 0 && c.client) {
		ssize_t n = send(sv[1], wire, remaining, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
			break;
		if (n > 0) {
			wire += n;
			remaining -= (size_t)n;
		}
		turn(&c, sv[1]);
	}
	/* A few more turns: the last requests, then timers (frame callbacks
	 * on the 1 ms grid, the pacer) with the client still connected. */
	for (int i = 0; i < 4 && c.client; i++) {
		turn(&c, sv[1]);
		if (i >= 2)
			wl_event_loop_dispatch(c.server->loop, 2);
	}

	close(sv[1]);
	for (int i = 0; i < 4 && c.client; i++)
		wl_event_loop_dispatch(c.server->loop, 0);
	wl_list_remove(&c.frame.link);
	wl_list_remove(&c.client_destroy.link);
	server_destroy(c.server);
	return 0;
}
