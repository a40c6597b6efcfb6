/* libFuzzer target: hosted clients' requests to the nested compositor
 * (src/capture/) and the copy server (src/copy_server/), with the desktop's
 * input, selections and pastes in between: what fuzz-display's raw bytes
 * seldom reach. The seat (pointer, keyboard, touch, set_cursor with
 * surfaces of any size, --cursor drawing it), the clipboard and the
 * primary selection, drag and drop between two clients, ext-image-copy
 * sessions and frames on a screen that changes.
 *
 * Two clients speak the wire protocol over socketpairs: requests are built
 * from the protocols' own description (wl_message signatures) on live
 * objects, the server's events are decoded the same way, so the objects it
 * makes (data offers) and the serials it sends (enter, button, configure)
 * can be named by later requests. At connection every global is bound at
 * its highest version; more binds take a version from the input. The
 * desktop's side is called as cmd/window_setup.c wires it: input events
 * (seat_handle_input), its selections (selection_set_desktop) and pastes
 * (selection_desktop_receive); the seat's cursor images and the app's
 * selections and pastes go to sinks that read every byte and close every
 * fd. Every frame of the screen is read whole, as the copy server reads it.
 *
 * Input:
 *   byte 0      bit 0: no desktop (a recording: no input, no clipboards);
 *               bit 1: --cursor; bit 2: no fullscreen shell; bit 3:
 *               compose every toplevel; bit 4: no copy server
 *   byte 1, 2   the output's width and height (1 + value % 128)
 *   then up to MAX_OPS operations, 1 byte (value % N_OPS) and arguments:
 *   OP_REQUEST_0/1  a request of client 0/1: 1 byte interface (of
 *       request_interfaces[]), 1 byte object (the n-th newest live one of
 *       that interface), 1 byte request (modulo its count), then each
 *       argument: int/uint 1 byte (< 0xe0: that value; 0xe0-0xe7: the n-th
 *       newest serial the client was sent; 0xe8-0xef: -1 to -8; else 4
 *       bytes big-endian follow), fixed 1 byte (< 0xf0: that many whole
 *       units; else 4 bytes raw follow), string and array 1 byte length then the bytes (a nullable
 *       string of length 0xff is null), object 1 byte (bit 7 on a nullable
 *       one: null; else the n-th newest of its interface), fd 1 byte (<
 *       0x80: a memfd of 128 times that many bytes; 0x80-0xbf a pipe's
 *       write end, 0xc0-0xdf its read end; else a memfd of the size in the
 *       next 3 bytes). Requests newer than the object, or naming objects
 *       that do not exist, are not sent.
 *   OP_BIND_0/1     1 byte global (modulo the count), 1 byte version (1 +
 *       value % the global's)
 *   OP_INPUT        1 byte type (enum wl_record_input_type), its fields
 *   OP_DESKTOP_SELECTION  1 byte: bit 0 primary, the rest a count of mime
 *       types (up to 79), each 1 byte length and its bytes
 *   OP_DESKTOP_PASTE      1 byte kind, a mime type: pasted into a pipe
 *   OP_TIME         the event loop waits 1 ms (frame callbacks)
 *   OP_RECONNECT    1 byte client: disconnected, connected again
 *   OP_TRUNCATE     1 byte: the n-th newest memfd sent (of the first 16),
 *       1 byte: its new size in 64-byte units (the server's mapping faults)
 *
 * Every input ends with the copy server and the compositor torn down, so
 * ASan sees leaks and use-after-free. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <wayland-server.h>

#include "copy_server.h"
#include "data_device.h"
#include "fuzz_common.h"
#include "input_event.h"
#include "primary_selection.h"
#include "screen_source.h"
#include "seat.h"
#include "selection.h"
#include "server.h"
#include "shm.h"

#include "ext-image-capture-source-v1-server-protocol.h"
#include "ext-image-copy-capture-v1-server-protocol.h"
#include "fullscreen-shell-unstable-v1-server-protocol.h"
#include "linux-dmabuf-unstable-v1-server-protocol.h"
#include "primary-selection-unstable-v1-server-protocol.h"
#include "viewporter-server-protocol.h"
#include "xdg-shell-server-protocol.h"

#define MAX_OPS 160
#define MAX_FD_SIZE (1u << 20)
#define MAX_OBJECTS 512
#define MAX_GLOBALS 32
#define MAX_KEPT_FDS 64
#define MAX_MEMFDS 16
#define RX_SIZE 65536
#define SERIALS 8

/* Request opcodes (the server headers name only the events'). */
#define DISPLAY_GET_REGISTRY 1
#define REGISTRY_BIND 0

/* The interfaces whose requests the input sends. */
static const struct wl_interface *const request_interfaces[] = {
	&wl_seat_interface,
	&wl_pointer_interface,
	&wl_keyboard_interface,
	&wl_touch_interface,
	&wl_data_device_manager_interface,
	&wl_data_device_interface,
	&wl_data_source_interface,
	&wl_data_offer_interface,
	&zwp_primary_selection_device_manager_v1_interface,
	&zwp_primary_selection_device_v1_interface,
	&zwp_primary_selection_source_v1_interface,
	&zwp_primary_selection_offer_v1_interface,
	&ext_image_copy_capture_manager_v1_interface,
	&ext_output_image_capture_source_manager_v1_interface,
	&ext_image_capture_source_v1_interface,
	&ext_image_copy_capture_session_v1_interface,
	&ext_image_copy_capture_frame_v1_interface,
	&ext_image_copy_capture_cursor_session_v1_interface,
	&wl_compositor_interface,
	&wl_surface_interface,
	&wl_region_interface,
	&wl_shm_interface,
	&wl_shm_pool_interface,
	&wl_buffer_interface,
	&wl_subcompositor_interface,
	&wl_subsurface_interface,
	&xdg_wm_base_interface,
	&xdg_surface_interface,
	&xdg_toplevel_interface,
	&xdg_popup_interface,
	&xdg_positioner_interface,
	&zwp_fullscreen_shell_v1_interface,
	&zwp_linux_dmabuf_v1_interface,
	&zwp_linux_buffer_params_v1_interface,
	&wp_viewporter_interface,
	&wp_viewport_interface,
	&wl_output_interface,
	&wl_display_interface,
};
#define N_REQUEST_INTERFACES (sizeof(request_interfaces) / sizeof(request_interfaces[0]))

/* A global's interface by the name the registry gives (NULL: one the
 * requests above never name, left unbound). */
static const struct wl_interface *interface_named(const char *name)
{
	for (size_t i = 0; i < N_REQUEST_INTERFACES; i++)
		if (strcmp(request_interfaces[i]->name, name) == 0)
			return request_interfaces[i];
	return NULL;
}

enum op {
	OP_REQUEST_0,
	OP_REQUEST_1,
	OP_BIND_0,
	OP_BIND_1,
	OP_INPUT,
	OP_DESKTOP_SELECTION,
	OP_DESKTOP_PASTE,
	OP_TIME,
	OP_RECONNECT,
	OP_TRUNCATE,
	N_OPS,
};

struct object {
	uint32_t id;
	const struct wl_interface *interface;
	uint32_t version;
	bool alive;
};

struct global {
	uint32_t name;
	const struct wl_interface *interface;
	uint32_t version;
};

/* One client: our end of its socket, and what it knows. */
struct client {
	struct harness *harness;
	int fd; /* -1: not connected */
	struct wl_client *server_side;
	struct wl_listener destroy;
	struct object objects[MAX_OBJECTS];
	int n_objects;
	uint32_t next_id;
	struct global globals[MAX_GLOBALS];
	int n_globals;
	uint32_t serials[SERIALS]; /* newest first */
	uint8_t rx[RX_SIZE];
	size_t rx_len;
};

struct harness {
	struct server *server;
	struct copy_server *copy;
	struct client clients[2];
	struct wl_listener frame;
	uint64_t checksum;
	uint32_t time_ms;
	/* Our ends of the pipes handed over, closed at the end. */
	int kept_fds[MAX_KEPT_FDS];
	int n_kept_fds;
	/* The memfds sent, newest last, so that a client can shrink one the
	 * server has mapped (OP_TRUNCATE). */
	int memfds[MAX_MEMFDS];
	int n_memfds;
};

static uint32_t take_number(struct fuzz_reader *r, const struct client *c)
{
	uint32_t v = fuzz_take(r, 1);
	if (v < 0xe0)
		return v;
	if (v < 0xe8)
		return c->serials[v - 0xe0];
	if (v < 0xf0)
		return (uint32_t)-(int32_t)(v - 0xe7);
	return fuzz_take(r, 4);
}

static void keep_fd(struct harness *h, int fd)
{
	if (h->n_kept_fds < MAX_KEPT_FDS)
		h->kept_fds[h->n_kept_fds++] = fd;
	else
		close(fd);
}

static int make_memfd(uint32_t size)
{
	int fd = memfd_create("fuzz-client", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, size % MAX_FD_SIZE) < 0)
		abort();
	return fd;
}

/* What an fd argument asks for: a memfd of `size` bytes, or a pipe's end. */
struct fd_wish {
	bool pipe, write_end;
	uint32_t size;
};

static struct fd_wish take_fd_wish(struct fuzz_reader *r)
{
	uint32_t kind = fuzz_take(r, 1);
	if (kind < 0x80)
		return (struct fd_wish){ .size = kind * 128 };
	if (kind >= 0xe0)
		return (struct fd_wish){ .size = fuzz_take(r, 3) };
	return (struct fd_wish){ .pipe = true, .write_end = kind < 0xc0 };
}

/* The fd, or -1 when too many are open. */
static int make_fd(struct harness *h, struct fd_wish wish)
{
	if (!wish.pipe) {
		int fd = make_memfd(wish.size);
		if (h->n_memfds < MAX_MEMFDS) {
			int copy = dup(fd);
			if (copy >= 0)
				h->memfds[h->n_memfds++] = copy;
		}
		return fd;
	}
	int ends[2];
	if (h->n_kept_fds >= MAX_KEPT_FDS || pipe2(ends, O_CLOEXEC | O_NONBLOCK) < 0)
		return -1;
	keep_fd(h, ends[wish.write_end ? 0 : 1]);
	return ends[wish.write_end ? 1 : 0];
}

/* ---- the objects a client knows ---- */

static struct object *object_by_id(struct client *c, uint32_t id)
{
	for (int i = c->n_objects - 1; i >= 0; i--)
		if (c->objects[i].id == id)
			return &c->objects[i];
	return NULL;
}

static struct object *add_object(struct client *c, uint32_t id, const struct wl_interface *interface,
				 uint32_t version)
{
	struct object *old = object_by_id(c, id);
	if (old)
		old->alive = false; /* the server reused a server-side id */
	if (c->n_objects == MAX_OBJECTS)
		return NULL;
	struct object *o = &c->objects[c->n_objects++];
	*o = (struct object){ id, interface, version, true };
	return o;
}

/* The n-th newest live object of `interface` (any when NULL). */
static struct object *newest(struct client *c, const struct wl_interface *interface, unsigned n)
{
	for (int i = c->n_objects - 1; i >= 0; i--) {
		struct object *o = &c->objects[i];
		if (o->alive && (!interface || o->interface == interface) && n-- == 0)
			return o;
	}
	return NULL;
}

static int since(const struct wl_message *message)
{
	int v = 0;
	for (const char *s = message->signature; *s >= '0' && *s <= '9'; s++)
		v = v * 10 + (*s - '0');
	return v ? v : 1;
}

/* ---- events ---- */

/* Events whose first argument, a uint, is a serial a later request may need. */
static bool carries_serial(const struct wl_message *message)
{
	static const char *const names[] = { "enter", "leave", "button", "key", "modifiers",
					     "down", "up", "configure", "ping" };
	const char *s = message->signature;
	while (*s >= '0' && *s <= '9')
		s++;
	if (*s != 'u')
		return false;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(message->name, names[i]) == 0)
			return true;
	return false;
}

static uint32_t read_u32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static void handle_event(struct client *c, const uint8_t *msg, size_t size)
{
	uint32_t id = read_u32(msg), opcode = read_u32(msg + 4) & 0xffff;
	struct object *target = object_by_id(c, id);
	if (!target || opcode >= (uint32_t)target->interface->event_count)
		return;
	const struct wl_interface *interface = target->interface;
	uint32_t version = target->version;
	const struct wl_message *message = &interface->events[opcode];
	const uint8_t *p = msg + 8, *end = msg + size;
	if (interface == &wl_display_interface && opcode == WL_DISPLAY_DELETE_ID && end - p >= 4) {
		struct object *gone = object_by_id(c, read_u32(p));
		if (gone)
			gone->alive = false;
		return;
	}
	if (carries_serial(message) && end - p >= 4) {
		memmove(c->serials + 1, c->serials, sizeof(c->serials) - sizeof(c->serials[0]));
		c->serials[0] = read_u32(p);
	}
	if (interface == &wl_registry_interface && opcode == WL_REGISTRY_GLOBAL) {
		/* name, interface, version */
		if (end - p < 8)
			return;
		uint32_t name = read_u32(p), length = read_u32(p + 4);
		size_t padded = ((size_t)length + 3) & ~(size_t)3;
		if (length == 0 || (size_t)(end - p - 8) < padded + 4)
			return;
		char text[128];
		size_t n = length < sizeof(text) ? length : sizeof(text) - 1;
		memcpy(text, p + 8, n);
		text[n] = 0;
		const struct wl_interface *named = interface_named(text);
		if (named && c->n_globals < MAX_GLOBALS)
			c->globals[c->n_globals++] =
				(struct global){ name, named, read_u32(p + 8 + padded) };
		return;
	}
	/* Objects the server makes (data offers) take their parent's version. */
	int i = 0;
	for (const char *s = message->signature; *s; s++) {
		if (*s == '?' || (*s >= '0' && *s <= '9'))
			continue;
		if (*s == 'h') {
			i++;
			continue;
		}
		if (end - p < 4)
			return;
		uint32_t word = read_u32(p);
		if (*s == 's' || *s == 'a') {
			size_t padded = ((size_t)word + 3) & ~(size_t)3;
			if ((size_t)(end - p - 4) < padded)
				return;
			p += 4 + padded;
		} else {
			if (*s == 'n' && message->types[i])
				add_object(c, word, message->types[i], version);
			p += 4;
		}
		i++;
	}
}

static void close_received_fds(struct msghdr *msg)
{
	for (struct cmsghdr *cmsg = CMSG_FIRSTHDR(msg); cmsg; cmsg = CMSG_NXTHDR(msg, cmsg)) {
		if (cmsg->cmsg_level != SOL_SOCKET || cmsg->cmsg_type != SCM_RIGHTS)
			continue;
		size_t count = (cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		int fds[28];
		memcpy(fds, CMSG_DATA(cmsg), sizeof(int) * (count < 28 ? count : 28));
		for (size_t k = 0; k < count && k < 28; k++)
			close(fds[k]);
	}
}

/* Reads and decodes what the server sent; keymaps and pastes' fds are closed. */
static void receive_events(struct client *c)
{
	while (c->fd >= 0) {
		char control[CMSG_SPACE(sizeof(int) * 28)];
		struct iovec iov = { .iov_base = c->rx + c->rx_len, .iov_len = RX_SIZE - c->rx_len };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
				      .msg_control = control, .msg_controllen = sizeof(control) };
		ssize_t n = recvmsg(c->fd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (n <= 0)
			return;
		close_received_fds(&msg);
		c->rx_len += (size_t)n;
		size_t at = 0;
		while (c->rx_len - at >= 8) {
			size_t size = read_u32(c->rx + at + 4) >> 16;
			if (size < 8) {
				at = c->rx_len; /* garbled: drop it all */
				break;
			}
			if (c->rx_len - at < size)
				break;
			handle_event(c, c->rx + at, size);
			at += size;
		}
		memmove(c->rx, c->rx + at, c->rx_len - at);
		c->rx_len -= at;
		if (c->rx_len == RX_SIZE)
			c->rx_len = 0; /* a message larger than any the server sends */
	}
}

/* The server reads what was sent, answers, and the clients read that. */
static void turn(struct harness *h, int timeout_ms)
{
	wl_event_loop_dispatch(h->server->loop, timeout_ms);
	wl_display_flush_clients(h->server->display);
	for (int i = 0; i < 2; i++)
		receive_events(&h->clients[i]);
}

/* ---- requests ---- */

struct message_out {
	uint32_t words[1024];
	size_t n_words;
	int fds[8];
	int n_fds;
};

static void put_word(struct message_out *m, uint32_t word)
{
	if (m->n_words < sizeof(m->words) / sizeof(m->words[0]))
		m->words[m->n_words++] = word;
}

static void put_bytes(struct message_out *m, const uint8_t *bytes, size_t length)
{
	put_word(m, (uint32_t)length);
	size_t words = (length + 3) / 4;
	if (m->n_words + words > sizeof(m->words) / sizeof(m->words[0]))
		return;
	uint8_t *to = (uint8_t *)(m->words + m->n_words);
	memset(to, 0, words * 4);
	memcpy(to, bytes, length);
	m->n_words += words;
}

static void send_message(struct client *c, struct message_out *m, uint32_t id, uint32_t opcode)
{
	m->words[0] = id;
	m->words[1] = (uint32_t)(m->n_words * 4) << 16 | opcode;
	char control[CMSG_SPACE(sizeof(int) * 8)] = { 0 };
	struct iovec iov = { .iov_base = m->words, .iov_len = m->n_words * 4 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	if (m->n_fds > 0) {
		msg.msg_control = control;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)m->n_fds);
		struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)m->n_fds);
		memcpy(CMSG_DATA(cmsg), m->fds, sizeof(int) * (size_t)m->n_fds);
	}
	if (c->fd >= 0)
		(void)sendmsg(c->fd, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
	for (int i = 0; i < m->n_fds; i++)
		close(m->fds[i]);
	m->n_fds = 0;
}

static void send_request(struct harness *h, struct client *c, struct fuzz_reader *r)
{
	const struct wl_interface *interface =
		request_interfaces[fuzz_take(r, 1) % N_REQUEST_INTERFACES];
	struct object *target = newest(c, interface, fuzz_take(r, 1));
	uint32_t opcode = fuzz_take(r, 1);
	if (!interface->method_count)
		return;
	opcode %= (uint32_t)interface->method_count;
	const struct wl_message *message = &interface->methods[opcode];
	bool sendable = target && c->fd >= 0 && since(message) <= (int)target->version;
	uint32_t target_id = target ? target->id : 0, target_version = target ? target->version : 1;
	struct message_out m = { .n_words = 2 };
	/* New objects exist only once the request goes. */
	struct { uint32_t id; const struct wl_interface *interface; } made[4];
	int n_made = 0;
	bool nullable = false;
	int i = 0;
	for (const char *s = message->signature; *s; s++) {
		if (*s >= '0' && *s <= '9')
			continue;
		if (*s == '?') {
			nullable = true;
			continue;
		}
		switch (*s) {
		case 'i':
		case 'u':
			put_word(&m, take_number(r, c));
			break;
		case 'f': {
			uint32_t v = fuzz_take(r, 1);
			put_word(&m, v < 0xf0 ? v << 8 : fuzz_take(r, 4));
			break;
		}
		case 's': {
			uint32_t length = fuzz_take(r, 1);
			if (nullable && length == 0xff) {
				put_word(&m, 0);
				break;
			}
			uint8_t text[256];
			for (uint32_t k = 0; k < length; k++)
				text[k] = (uint8_t)fuzz_take(r, 1);
			text[length] = 0;
			put_bytes(&m, text, length + 1);
			break;
		}
		case 'a': {
			uint32_t length = fuzz_take(r, 1);
			uint8_t bytes[255];
			for (uint32_t k = 0; k < length; k++)
				bytes[k] = (uint8_t)fuzz_take(r, 1);
			put_bytes(&m, bytes, length);
			break;
		}
		case 'o': {
			uint32_t pick = fuzz_take(r, 1);
			struct object *object = NULL;
			if (!(nullable && (pick & 0x80)))
				object = newest(c, message->types[i], pick & 0x7f);
			if (!object && !nullable)
				sendable = false;
			put_word(&m, object ? object->id : 0);
			break;
		}
		case 'n':
			if (!message->types[i] || n_made == 4) {
				sendable = false;
				break;
			}
			made[n_made].id = c->next_id + (uint32_t)n_made;
			made[n_made].interface = message->types[i];
			put_word(&m, made[n_made].id);
			n_made++;
			break;
		case 'h': {
			struct fd_wish wish = take_fd_wish(r);
			int fd = sendable ? make_fd(h, wish) : -1;
			if (fd < 0)
				sendable = false;
			else if (m.n_fds < 8)
				m.fds[m.n_fds++] = fd;
			else
				close(fd);
			break;
		}
		}
		nullable = false;
		i++;
	}
	if (!sendable) {
		for (int k = 0; k < m.n_fds; k++)
			close(m.fds[k]);
		return;
	}
	send_message(c, &m, target_id, opcode);
	for (int k = 0; k < n_made; k++)
		add_object(c, made[k].id, made[k].interface, target_version);
	c->next_id += (uint32_t)n_made;
	if (strcmp(message->name, "destroy") == 0 || strcmp(message->name, "release") == 0)
		target->alive = false;
}

/* wl_registry.bind of the global `g` at `version`. */
static void bind_global(struct client *c, const struct global *g, uint32_t version)
{
	struct object *registry = newest(c, &wl_registry_interface, 0);
	if (!registry || c->fd < 0)
		return;
	struct message_out m = { .n_words = 2 };
	put_word(&m, g->name);
	const char *name = g->interface->name;
	put_bytes(&m, (const uint8_t *)name, strlen(name) + 1);
	put_word(&m, version);
	put_word(&m, c->next_id);
	send_message(c, &m, registry->id, REGISTRY_BIND);
	add_object(c, c->next_id++, g->interface, version);
}

/* ---- connections ---- */

static void client_gone(struct wl_listener *listener, void *data)
{
	struct client *c = wl_container_of(listener, c, destroy);
	wl_list_remove(&c->destroy.link);
	wl_list_init(&c->destroy.link);
	c->server_side = NULL;
}

static void client_disconnect(struct client *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	if (c->server_side) {
		/* The server sees the hang-up at its next dispatch; do not wait. */
		struct wl_client *server_side = c->server_side;
		client_gone(&c->destroy, NULL);
		wl_client_destroy(server_side);
	}
}

/* A new connection: the registry, then every global bound at its version. */
static void client_connect(struct harness *h, struct client *c)
{
	memset(c, 0, sizeof(*c));
	c->harness = h;
	c->fd = -1;
	c->next_id = 2;
	wl_list_init(&c->destroy.link);
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		abort();
	c->server_side = wl_client_create(h->server->display, sv[0]);
	if (!c->server_side)
		abort();
	c->fd = sv[1];
	c->destroy.notify = client_gone;
	wl_client_add_destroy_listener(c->server_side, &c->destroy);
	add_object(c, 1, &wl_display_interface, 1);
	struct message_out m = { .n_words = 2 };
	put_word(&m, c->next_id);
	send_message(c, &m, 1, DISPLAY_GET_REGISTRY);
	add_object(c, c->next_id++, &wl_registry_interface, 1);
	turn(h, 0);
	for (int i = 0; i < c->n_globals; i++)
		bind_global(c, &c->globals[i], c->globals[i].version);
	turn(h, 0);
}

/* ---- the desktop's side ---- */

static void read_cursor(void *data, const struct wl_record_cursor_image *image)
{
	struct harness *h = data;
	if (!image)
		return;
	for (int y = 0; y < image->height; y++)
		for (int x = 0; x < image->width * 4; x++)
			h->checksum += image->pixels[(size_t)y * (size_t)image->stride + (size_t)x];
}

static void app_selection(void *data, const char *const *mime_types, size_t count)
{
	struct harness *h = data;
	for (size_t i = 0; i < count; i++)
		h->checksum += strlen(mime_types[i]);
}

static void app_paste(void *data, const char *mime_type, int fd)
{
	struct harness *h = data;
	h->checksum += strlen(mime_type);
	close(fd);
}

static double take_coordinate(struct fuzz_reader *r)
{
	uint32_t v = fuzz_take(r, 1);
	if (v < 0xf0)
		return v / 2.0;
	return (int32_t)fuzz_take(r, 4) / 256.0;
}

/* Wheel and touchpad distances: small steps, or any 24.8 value. */
static double take_axis_value(struct fuzz_reader *r)
{
	uint32_t v = fuzz_take(r, 1);
	if (v < 0xf0)
		return (int8_t)v / 4.0;
	return (int32_t)fuzz_take(r, 4) / 256.0;
}

static void desktop_input(struct harness *h, struct fuzz_reader *r)
{
	const struct client *any = &h->clients[0];
	struct wl_record_input_event e = {
		.type = (enum wl_record_input_type)(fuzz_take(r, 1) %
						    (WL_RECORD_INPUT_TOUCH_ORIENTATION + 1)),
		.time_ms = h->time_ms += 7,
		.keymap_fd = -1,
	};
	uint32_t keys[16];
	int keymap = -1;
	switch (e.type) {
	case WL_RECORD_INPUT_POINTER_MOTION:
		e.x = take_coordinate(r);
		e.y = take_coordinate(r);
		break;
	case WL_RECORD_INPUT_POINTER_BUTTON: {
		uint32_t v = fuzz_take(r, 1);
		e.button = 0x110 + (v & 7); /* BTN_LEFT on */
		e.pressed = v & 0x80;
		break;
	}
	case WL_RECORD_INPUT_POINTER_AXIS:
		e.axis = fuzz_take(r, 1) % 3;
		e.value = take_axis_value(r);
		break;
	case WL_RECORD_INPUT_POINTER_AXIS_SOURCE:
		e.axis_source = take_number(r, any);
		break;
	case WL_RECORD_INPUT_POINTER_AXIS_STOP:
		e.axis = fuzz_take(r, 1) % 3;
		break;
	case WL_RECORD_INPUT_POINTER_AXIS_DISCRETE:
		e.axis = fuzz_take(r, 1) % 3;
		e.discrete = (int32_t)take_number(r, any);
		break;
	case WL_RECORD_INPUT_POINTER_AXIS_VALUE120:
		e.axis = fuzz_take(r, 1) % 3;
		e.value120 = (int32_t)take_number(r, any);
		break;
	case WL_RECORD_INPUT_KEYBOARD_KEYMAP: {
		uint32_t length = fuzz_take(r, 1);
		uint8_t text[255];
		for (uint32_t k = 0; k < length; k++)
			text[k] = (uint8_t)fuzz_take(r, 1);
		keymap = make_memfd(length);
		if (length && pwrite(keymap, text, length, 0) != (ssize_t)length)
			abort();
		e.keymap_fd = keymap;
		e.keymap_format = fuzz_take(r, 1) % 2;
		e.keymap_size = take_number(r, any); /* may lie */
		break;
	}
	case WL_RECORD_INPUT_KEYBOARD_ENTER:
		e.key_count = fuzz_take(r, 1) % 16;
		for (size_t k = 0; k < e.key_count; k++)
			keys[k] = take_number(r, any);
		e.keys = keys;
		break;
	case WL_RECORD_INPUT_KEYBOARD_KEY: {
		uint32_t v = fuzz_take(r, 1);
		e.key = v & 0x7f;
		e.pressed = v & 0x80;
		break;
	}
	case WL_RECORD_INPUT_KEYBOARD_MODIFIERS:
		e.mods_depressed = take_number(r, any);
		e.mods_latched = take_number(r, any);
		e.mods_locked = take_number(r, any);
		e.group = take_number(r, any);
		break;
	case WL_RECORD_INPUT_KEYBOARD_REPEAT:
		e.repeat_rate = (int32_t)take_number(r, any);
		e.repeat_delay = (int32_t)take_number(r, any);
		break;
	case WL_RECORD_INPUT_TOUCH_CAPABILITY:
		e.has_touch = fuzz_take(r, 1) & 1;
		break;
	case WL_RECORD_INPUT_TOUCH_DOWN:
	case WL_RECORD_INPUT_TOUCH_MOTION:
		e.touch_id = (int32_t)(fuzz_take(r, 1) % 12) - 1;
		e.x = take_coordinate(r);
		e.y = take_coordinate(r);
		break;
	case WL_RECORD_INPUT_TOUCH_UP:
		e.touch_id = (int32_t)(fuzz_take(r, 1) % 12) - 1;
		break;
	case WL_RECORD_INPUT_TOUCH_SHAPE:
		e.touch_id = (int32_t)(fuzz_take(r, 1) % 12) - 1;
		e.major = take_coordinate(r);
		e.minor = take_coordinate(r);
		break;
	case WL_RECORD_INPUT_TOUCH_ORIENTATION:
		e.touch_id = (int32_t)(fuzz_take(r, 1) % 12) - 1;
		e.orientation = take_coordinate(r) - 180;
		break;
	default:
		break;
	}
	seat_handle_input(h->server->seat, &e);
	if (keymap >= 0)
		close(keymap);
}

static struct selection *selection_of(struct harness *h, uint32_t kind)
{
	return kind & 1 ? h->server->primary_selection : h->server->data_device;
}

static void desktop_selection(struct harness *h, struct fuzz_reader *r)
{
	uint32_t kind = fuzz_take(r, 1);
	size_t count = (kind >> 1) % 80;
	static char texts[80][256];
	const char *mime_types[80];
	for (size_t i = 0; i < count; i++) {
		uint32_t length = fuzz_take(r, 1);
		for (uint32_t k = 0; k < length; k++)
			texts[i][k] = (char)fuzz_take(r, 1);
		texts[i][length] = 0;
		mime_types[i] = texts[i];
	}
	selection_set_desktop(selection_of(h, kind), mime_types, count);
}

static void desktop_paste(struct harness *h, struct fuzz_reader *r)
{
	uint32_t kind = fuzz_take(r, 1);
	char mime_type[256];
	uint32_t length = fuzz_take(r, 1);
	for (uint32_t k = 0; k < length; k++)
		mime_type[k] = (char)fuzz_take(r, 1);
	mime_type[length] = 0;
	int ends[2];
	if (h->n_kept_fds >= MAX_KEPT_FDS || pipe2(ends, O_CLOEXEC | O_NONBLOCK) < 0)
		return;
	keep_fd(h, ends[0]);
	selection_desktop_receive(selection_of(h, kind), mime_type, ends[1]);
}

/* Every pixel of each frame is read, as the copy server and the recorder
 * read them. */
static void frame_emitted(struct wl_listener *listener, void *data)
{
	struct harness *h = wl_container_of(listener, h, frame);
	const struct frame *frame = data;
	for (int y = 0; y < frame->height; y++) {
		const uint8_t *row = frame->data + (size_t)y * (size_t)frame->stride;
		for (int x = 0; x < frame->width * 4; x += 29)
			h->checksum += row[x];
		h->checksum += row[frame->width * 4 - 1];
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_quiet_logs();
	static bool once;
	if (!once) {
		/* A pipe whose reader went must not end the fuzzer. */
		signal(SIGPIPE, SIG_IGN);
		once = true;
	}
	struct fuzz_reader r = { data, size };
	if (size < 3)
		return 0;
	uint32_t flags = fuzz_take(&r, 1);
	bool desktop = !(flags & 1);
	struct server_config config = {
		.width = 1 + (int)(fuzz_take(&r, 1) % 128),
		.height = 1 + (int)(fuzz_take(&r, 1) % 128),
		.fps = 1000,
		.draw_cursor = flags & 2,
		.no_fullscreen_shell = flags & 4,
		.compose_all = flags & 8,
	};
	static struct harness h;
	memset(&h, 0, sizeof(h));
	h.server = server_create(&config);
	if (!h.server)
		abort();
	if (!(flags & 16)) {
		h.copy = copy_server_create(h.server->display, shm_buffer_writer(), config.width,
					    config.height);
		if (!h.copy)
			abort();
		copy_server_connect(h.copy, screen_frame_source(&h.server->screen));
	}
	h.frame.notify = frame_emitted;
	wl_signal_add(&h.server->screen.events.frame, &h.frame);
	if (desktop) {
		seat_set_cursor_handler(h.server->seat, read_cursor, &h);
		seat_enable_input(h.server->seat);
		struct wl_record_clipboard_peer peer = {
			.selection = app_selection, .receive = app_paste, .data = &h,
		};
		selection_set_peer(h.server->data_device, &peer);
		selection_set_peer(h.server->primary_selection, &peer);
		selection_enable(h.server->data_device);
		selection_enable(h.server->primary_selection);
	}
	for (int i = 0; i < 2; i++)
		client_connect(&h, &h.clients[i]);

	for (int ops = 0; ops < MAX_OPS && r.size > 0; ops++) {
		struct client *c;
		uint32_t op = fuzz_take(&r, 1) % N_OPS;
		switch (op) {
		case OP_REQUEST_0:
		case OP_REQUEST_1:
			send_request(&h, &h.clients[op == OP_REQUEST_1], &r);
			break;
		case OP_BIND_0:
		case OP_BIND_1: {
			c = &h.clients[op == OP_BIND_1];
			uint32_t pick = fuzz_take(&r, 1), version = fuzz_take(&r, 1);
			const struct global *g =
				c->n_globals ? &c->globals[pick % (uint32_t)c->n_globals] : NULL;
			if (g && g->version)
				bind_global(c, g, 1 + version % g->version);
			break;
		}
		case OP_INPUT:
			if (desktop)
				desktop_input(&h, &r);
			break;
		case OP_DESKTOP_SELECTION:
			if (desktop)
				desktop_selection(&h, &r);
			break;
		case OP_DESKTOP_PASTE:
			if (desktop)
				desktop_paste(&h, &r);
			break;
		case OP_TIME:
			turn(&h, 1);
			break;
		case OP_RECONNECT:
			c = &h.clients[fuzz_take(&r, 1) & 1];
			client_disconnect(c);
			turn(&h, 0);
			client_connect(&h, c);
			break;
		case OP_TRUNCATE: {
			uint32_t pick = fuzz_take(&r, 1), length = fuzz_take(&r, 1) * 64;
			if (h.n_memfds && ftruncate(h.memfds[h.n_memfds - 1 - pick % (uint32_t)h.n_memfds],
						    length) < 0)
				abort();
			break;
		}
		}
		turn(&h, 0);
	}

	/* As cmd/ ends: the desktop's side, the copy server (its clients still
	 * there, told their sessions stopped), then the compositor. */
	if (desktop) {
		seat_set_cursor_handler(h.server->seat, NULL, NULL);
		selection_set_peer(h.server->data_device, NULL);
		selection_set_peer(h.server->primary_selection, NULL);
	}
	copy_server_destroy(h.copy);
	turn(&h, 0);
	for (int i = 0; i < 2; i++)
		client_disconnect(&h.clients[i]);
	wl_list_remove(&h.frame.link);
	server_destroy(h.server);
	for (int i = 0; i < h.n_kept_fds; i++)
		close(h.kept_fds[i]);
	for (int i = 0; i < h.n_memfds; i++)
		close(h.memfds[i]);
	return 0;
}
