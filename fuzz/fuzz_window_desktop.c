/* libFuzzer target: the --window's side of the user's desktop (src/window/),
 * the real desktop_window talking to a compositor that says what the input
 * says, over a socketpair (WAYLAND_SOCKET).
 *
 * The fuzzer's in-process server is generic: every global the window binds
 * is advertised (some left out by the input), every request is taken by
 * one dispatcher that creates the objects it names and closes the fds it
 * gets (wl_shm is libwayland's own, so the window's buffers are real), and
 * every event is an operation of the input, built from the protocol's own
 * description (wl_message signatures) and posted with
 * wl_resource_post_event_array on a live object of its interface: seat
 * capabilities, the keymap (an fd of any size, a size that lies), pointer,
 * keyboard and touch input, selection offers (as many mime types as the
 * input gives), dmabuf feedback (a format table fd and size that lie,
 * tranche indices out of range), configures, frame callbacks, releases.
 *
 * Input:
 *   byte 0       globals left out: bit 0 wp_viewporter, 1 wl_subcompositor,
 *                2 wl_seat, 3 wl_data_device_manager, 4 the primary
 *                selection, 5 zwp_linux_dmabuf_v1, 6 xdg-decoration;
 *                bit 7: zwp_linux_dmabuf_v1 version 3 (else 4)
 *   byte 1       the recording's width, byte 2 its height (1 + value % 128)
 *   then up to MAX_OPS operations: 1 byte (value % N_OPS) and its
 *   arguments (see run_op). An event: 1 byte interface (of
 *   event_interfaces[]), 1 byte event (modulo its count), then each
 *   argument: int/uint/fixed 1 byte (< 0xf0: that value, else 4 bytes
 *   big-endian follow), string and array 1 byte length then the bytes, an
 *   object 1 byte (bit 7 on a nullable one: null; else the n-th newest of
 *   its interface), an fd 2 bytes size (times 16) and 1 byte length of a
 *   pattern it is filled with, then the pattern. Events newer than the
 *   object's version, or naming objects that do not exist, are not sent.
 *
 * Every input ends with desktop_window_destroy() and the server torn down,
 * so ASan sees leaks and use-after-free. The input sink reads the keys held
 * at enter and the keymap (as much of the size said as the file holds); the clipboard peer closes every fd it gets. */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <wayland-server.h>

#include "desktop_window.h"
#include "fuzz_common.h"

#include "linux-dmabuf-unstable-v1-server-protocol.h"
#include "primary-selection-unstable-v1-server-protocol.h"
#include "viewporter-server-protocol.h"
#include "xdg-decoration-unstable-v1-server-protocol.h"
#include "xdg-shell-server-protocol.h"

#define MAX_OPS 96
#define MAX_FD_SIZE (1u << 20)


static uint32_t take_number(struct fuzz_reader *r)
{
	uint32_t v = fuzz_take(r, 1);
	return v < 0xf0 ? v : fuzz_take(r, 4);
}

/* The interfaces whose events the input sends. */
static const struct wl_interface *const event_interfaces[] = {
	&wl_seat_interface,
	&wl_keyboard_interface,
	&wl_pointer_interface,
	&wl_touch_interface,
	&wl_data_device_interface,
	&wl_data_offer_interface,
	&wl_data_source_interface,
	&zwp_primary_selection_device_v1_interface,
	&zwp_primary_selection_offer_v1_interface,
	&zwp_primary_selection_source_v1_interface,
	&zwp_linux_dmabuf_v1_interface,
	&zwp_linux_dmabuf_feedback_v1_interface,
	&zwp_linux_buffer_params_v1_interface,
	&xdg_wm_base_interface,
	&xdg_surface_interface,
	&xdg_toplevel_interface,
	&zxdg_toplevel_decoration_v1_interface,
	&wl_callback_interface,
	&wl_buffer_interface,
	&wl_surface_interface,
};
#define N_EVENT_INTERFACES (sizeof(event_interfaces) / sizeof(event_interfaces[0]))

/* Every resource of the client, newest last. */
struct tracked {
	struct wl_resource *resource;
	struct wl_listener destroy;
	struct wl_list link;
};

struct fuzz_server {
	struct wl_display *display;
	struct wl_event_loop *loop;
	struct wl_client *client;
	struct wl_listener client_destroy;
	struct wl_listener resource_created;
	struct wl_list resources; /* tracked.link */
};

static void untrack(struct wl_listener *listener, void *data)
{
	struct tracked *t = wl_container_of(listener, t, destroy);
	wl_list_remove(&t->link);
	wl_list_remove(&t->destroy.link);
	free(t);
}

static void resource_created(struct wl_listener *listener, void *data)
{
	struct fuzz_server *s = wl_container_of(listener, s, resource_created);
	struct tracked *t = calloc(1, sizeof(*t));
	if (!t)
		abort();
	t->resource = data;
	t->destroy.notify = untrack;
	wl_resource_add_destroy_listener(t->resource, &t->destroy);
	wl_list_insert(s->resources.prev, &t->link);
}

/* The n-th newest live resource of `interface` (NULL: none). */
static struct wl_resource *newest(struct fuzz_server *s, const struct wl_interface *interface,
				  unsigned n)
{
	struct tracked *t;
	wl_list_for_each_reverse(t, &s->resources, link) {
		if (strcmp(wl_resource_get_class(t->resource), interface->name) == 0 && n-- == 0)
			return t->resource;
	}
	return NULL;
}

static int dispatch(const void *implementation, void *target, uint32_t opcode,
		    const struct wl_message *message, union wl_argument *args);

static struct wl_resource *create(struct wl_client *client, const struct wl_interface *interface,
				  int version, uint32_t id)
{
	struct wl_resource *resource = wl_resource_create(client, interface, version, id);
	if (!resource) {
		wl_client_post_no_memory(client);
		return NULL;
	}
	wl_resource_set_dispatcher(resource, dispatch, NULL, NULL, NULL);
	return resource;
}

/* Every request: the objects it makes exist, its fds are closed, a
 * destructor destroys. */
static int dispatch(const void *implementation, void *target, uint32_t opcode,
		    const struct wl_message *message, union wl_argument *args)
{
	struct wl_resource *resource = target;
	struct wl_client *client = wl_resource_get_client(resource);
	int i = 0;
	for (const char *c = message->signature; *c; c++) {
		if (*c == '?' || (*c >= '0' && *c <= '9'))
			continue;
		if (*c == 'n' && message->types[i])
			create(client, message->types[i], wl_resource_get_version(resource), args[i].n);
		else if (*c == 'h')
			close(args[i].h);
		i++;
	}
	if (strcmp(message->name, "destroy") == 0 || strcmp(message->name, "release") == 0)
		wl_resource_destroy(resource);
	return 0;
}

struct global_info {
	const struct wl_interface *interface;
	int version;
};

static void bind_generic(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	const struct global_info *info = data;
	create(client, info->interface, (int)version, id);
}

static void client_destroyed(struct wl_listener *listener, void *data)
{
	struct fuzz_server *s = wl_container_of(listener, s, client_destroy);
	wl_list_remove(&s->client_destroy.link);
	wl_list_init(&s->client_destroy.link);
	wl_list_remove(&s->resource_created.link);
	wl_list_init(&s->resource_created.link);
	s->client = NULL;
}

static struct global_info globals[] = {
	{ &wl_compositor_interface, 4 },
	{ &xdg_wm_base_interface, 1 },
	{ &wp_viewporter_interface, 1 },
	{ &wl_subcompositor_interface, 1 },
	{ &wl_seat_interface, 8 },
	{ &wl_data_device_manager_interface, 3 },
	{ &zwp_primary_selection_device_manager_v1_interface, 1 },
	{ &zwp_linux_dmabuf_v1_interface, 4 },
	{ &zxdg_decoration_manager_v1_interface, 1 },
};

static bool server_init(struct fuzz_server *s, uint8_t left_out)
{
	*s = (struct fuzz_server){ 0 };
	wl_list_init(&s->resources);
	s->display = wl_display_create();
	if (!s->display || wl_display_init_shm(s->display) < 0)
		return false;
	s->loop = wl_display_get_event_loop(s->display);
	for (size_t i = 0; i < sizeof(globals) / sizeof(globals[0]); i++) {
		/* The first two are always there; bits 0-6 leave out the rest. */
		if (i >= 2 && (left_out & (1u << (i - 2))))
			continue;
		int version = globals[i].version;
		if (globals[i].interface == &zwp_linux_dmabuf_v1_interface && (left_out & 0x80))
			version = 3;
		if (!wl_global_create(s->display, globals[i].interface, version, &globals[i],
				      bind_generic))
			return false;
	}
	return true;
}

/* The second thread, only while the window connects. */
struct serving {
	struct fuzz_server *server;
	atomic_bool stop;
};

static int stop_serving(int fd, uint32_t mask, void *data)
{
	struct serving *serving = data;
	atomic_store(&serving->stop, true);
	return 0;
}

static void *serve(void *data)
{
	struct serving *serving = data;
	while (!atomic_load(&serving->stop)) {
		wl_display_flush_clients(serving->server->display);
		wl_event_loop_dispatch(serving->server->loop, -1);
	}
	wl_display_flush_clients(serving->server->display);
	return NULL;
}

static struct desktop_window *connect_window(struct fuzz_server *s)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		abort();
	s->client = wl_client_create(s->display, sv[0]);
	if (!s->client)
		abort();
	s->client_destroy.notify = client_destroyed;
	wl_client_add_destroy_listener(s->client, &s->client_destroy);
	s->resource_created.notify = resource_created;
	wl_client_add_resource_created_listener(s->client, &s->resource_created);

	struct serving serving = { .server = s };
	int stop_fd = eventfd(0, EFD_CLOEXEC);
	if (stop_fd < 0)
		abort();
	struct wl_event_source *stop = wl_event_loop_add_fd(s->loop, stop_fd, WL_EVENT_READABLE,
							    stop_serving, &serving);
	pthread_t thread;
	if (!stop || pthread_create(&thread, NULL, serve, &serving) != 0)
		abort();
	char fd_text[16], why[256];
	snprintf(fd_text, sizeof(fd_text), "%d", sv[1]);
	setenv("WAYLAND_SOCKET", fd_text, 1); /* taken (and unset) by wl_display_connect */
	struct desktop_window *window = desktop_window_connect(NULL, why, sizeof(why));
	uint64_t one = 1;
	if (write(stop_fd, &one, sizeof(one)) != sizeof(one))
		abort();
	pthread_join(thread, NULL);
	unsetenv("WAYLAND_SOCKET");
	wl_event_source_remove(stop);
	close(stop_fd);
	return window;
}

/* An fd of the size the input says, filled with its pattern. */
static int make_fd(struct fuzz_reader *r)
{
	uint32_t size = (fuzz_take(r, 2) * 16u) % MAX_FD_SIZE;
	uint8_t pattern[255];
	size_t n = fuzz_take(r, 1);
	for (size_t i = 0; i < n; i++)
		pattern[i] = (uint8_t)fuzz_take(r, 1);
	int fd = memfd_create("fuzz-desktop", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, size) < 0)
		abort();
	if (n && size) {
		uint8_t *p = mmap(NULL, size, PROT_WRITE, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED)
			abort();
		for (uint32_t i = 0; i < size; i++)
			p[i] = pattern[i % n];
		munmap(p, size);
	}
	return fd;
}

/* Argument storage for one event. */
struct event_args {
	union wl_argument args[20];
	char strings[20][256];
	struct wl_array arrays[20];
	int fds[20];
	int n_fds, n_arrays;
};

static int since(const struct wl_message *message)
{
	int v = 0;
	for (const char *c = message->signature; *c >= '0' && *c <= '9'; c++)
		v = v * 10 + (*c - '0');
	return v ? v : 1;
}

static void send_event(struct fuzz_server *s, struct fuzz_reader *r)
{
	const struct wl_interface *interface = event_interfaces[fuzz_take(r, 1) % N_EVENT_INTERFACES];
	if (!interface->event_count)
		return;
	uint32_t opcode = fuzz_take(r, 1) % (uint32_t)interface->event_count;
	const struct wl_message *message = &interface->events[opcode];
	struct wl_resource *target = s->client ? newest(s, interface, fuzz_take(r, 1) % 4) : NULL;
	struct event_args e = { .n_fds = 0 };
	bool sendable = target && since(message) <= wl_resource_get_version(target);
	bool nullable = false;
	int i = 0;
	for (const char *c = message->signature; *c && i < 20; c++) {
		if (*c >= '0' && *c <= '9')
			continue;
		if (*c == '?') {
			nullable = true;
			continue;
		}
		switch (*c) {
		case 'i':
		case 'u':
			e.args[i].u = take_number(r);
			break;
		case 'f':
			e.args[i].f = (wl_fixed_t)(take_number(r) << 4);
			break;
		case 's': {
			size_t n = fuzz_take(r, 1);
			for (size_t k = 0; k < n; k++) {
				char ch = (char)fuzz_take(r, 1);
				e.strings[i][k] = ch ? ch : 'x';
			}
			e.strings[i][n] = 0;
			e.args[i].s = nullable && n == 0 ? NULL : e.strings[i];
			break;
		}
		case 'a': {
			struct wl_array *a = &e.arrays[e.n_arrays++];
			wl_array_init(a);
			size_t n = fuzz_take(r, 1);
			uint8_t *p = wl_array_add(a, n ? n : 1);
			if (!p)
				abort();
			a->size = n;
			for (size_t k = 0; k < n; k++)
				p[k] = (uint8_t)fuzz_take(r, 1);
			e.args[i].a = a;
			break;
		}
		case 'o': {
			uint32_t pick = fuzz_take(r, 1);
			struct wl_resource *object = NULL;
			if (!(nullable && (pick & 0x80)) && message->types[i] && s->client)
				object = newest(s, message->types[i], pick % 4);
			if (!object && !nullable)
				sendable = false;
			e.args[i].o = (struct wl_object *)object;
			break;
		}
		case 'n':
			/* Made below, only when the event goes. */
			e.args[i].o = NULL;
			if (!message->types[i])
				sendable = false;
			break;
		case 'h':
			e.fds[e.n_fds] = make_fd(r);
			e.args[i].h = e.fds[e.n_fds++];
			break;
		}
		nullable = false;
		i++;
	}
	if (sendable) {
		i = 0;
		for (const char *c = message->signature; *c; c++) {
			if ((*c >= '0' && *c <= '9') || *c == '?')
				continue;
			if (*c == 'n') {
				struct wl_resource *made = create(s->client, message->types[i],
								  wl_resource_get_version(target), 0);
				if (!made) {
					sendable = false;
					break;
				}
				e.args[i].o = (struct wl_object *)made;
			}
			i++;
		}
	}
	if (sendable)
		wl_resource_post_event_array(target, opcode, e.args);
	for (int k = 0; k < e.n_fds; k++)
		close(e.fds[k]);
	for (int k = 0; k < e.n_arrays; k++)
		wl_array_release(&e.arrays[k]);
}

/* Many mime types on the newest offer of either kind. */
static void send_many_offers(struct fuzz_server *s, struct fuzz_reader *r)
{
	uint32_t count = fuzz_take(r, 1) * 4;
	bool primary = count & 4;
	struct wl_resource *offer = s->client
		? newest(s, primary ? &zwp_primary_selection_offer_v1_interface
				    : &wl_data_offer_interface, 0)
		: NULL;
	if (!offer)
		return;
	for (uint32_t i = 0; i < count; i++) {
		char mime[48];
		snprintf(mime, sizeof(mime), "application/x-fuzz-%u", i);
		if (primary)
			zwp_primary_selection_offer_v1_send_offer(offer, mime);
		else
			wl_data_offer_send_offer(offer, mime);
	}
}

/* What the window hands on. */
static volatile uint64_t checksum;

static void input_event(void *data, const struct wl_record_input_event *event)
{
	if (event->type == WL_RECORD_INPUT_KEYBOARD_ENTER)
		for (size_t i = 0; i < event->key_count; i++)
			checksum += event->keys[i];
	if (event->type != WL_RECORD_INPUT_KEYBOARD_KEYMAP)
		return;
	struct stat st;
	if (fstat(event->keymap_fd, &st) < 0)
		abort(); /* lent for the call: must be open */
	/* What a hosted app maps: the bytes the file holds of the size said. */
	size_t size = event->keymap_size < (uint64_t)st.st_size ? event->keymap_size
							       : (size_t)st.st_size;
	if (size) {
		uint8_t *p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, event->keymap_fd, 0);
		if (p != MAP_FAILED) {
			checksum += p[0] + p[size - 1];
			munmap(p, size);
		}
	}
}

static void peer_selection(void *data, const char *const *mime_types, size_t count)
{
	for (size_t i = 0; i < count; i++)
		checksum += strlen(mime_types[i]);
}

static void peer_receive(void *data, const char *mime_type, int fd)
{
	checksum += strlen(mime_type);
	close(fd);
}

static void window_closed(void *data)
{
}

static void window_gone(void *data, const char *why)
{
	bool *gone = data;
	*gone = true;
}

struct run {
	struct fuzz_server *server;
	struct desktop_window *window;
	struct wl_event_loop *client_loop;
	struct frame_source frames;
	int width, height;
	bool gone;
	int picture;
};

static void turn(struct run *run)
{
	for (int i = 0; i < 2; i++) {
		wl_display_flush_clients(run->server->display);
		wl_event_loop_dispatch(run->client_loop, 0);
		wl_event_loop_dispatch(run->server->loop, 0);
	}
}

/* A picture of the recording (ours: no buffer), damaged where the input
 * says. */
static void emit_frame(struct run *run, struct fuzz_reader *r)
{
	size_t stride = (size_t)run->width * 4;
	uint8_t *pixels = malloc(stride * (size_t)run->height);
	if (!pixels)
		abort();
	memset(pixels, (int)(++run->picture * 37), stride * (size_t)run->height);
	uint32_t d = fuzz_take(r, 2);
	struct frame frame = {
		.data = pixels,
		.width = run->width,
		.height = run->height,
		.stride = (int)stride,
		.pts_ns = run->picture,
		.damage_known = d & 1,
		.damage = { 0, 0, 1 + (int)((d >> 1) % (unsigned)run->width),
			    1 + (int)((d >> 8) % (unsigned)run->height) },
	};
	frame_source_emit(&run->frames, &frame);
	free(pixels);
}

static const char *const app_mimes[] = { "text/plain", "text/plain;charset=utf-8", "image/png",
					 "UTF8_STRING" };

enum {
	OP_TURN,
	OP_EVENT,
	OP_EVENT2, /* events are most of a program */
	OP_EVENT3,
	OP_MANY_OFFERS,
	OP_FRAME,
	OP_APP_SELECTION,
	OP_APP_PASTE,
	OP_CURSOR,
	OP_DISCONNECT,
	N_OPS,
};

static void run_op(struct run *run, struct fuzz_reader *r)
{
	struct fuzz_server *s = run->server;
	switch (fuzz_take(r, 1) % N_OPS) {
	case OP_TURN:
		turn(run);
		break;
	case OP_EVENT:
	case OP_EVENT2:
	case OP_EVENT3:
		send_event(s, r);
		break;
	case OP_MANY_OFFERS:
		send_many_offers(s, r);
		break;
	case OP_FRAME:
		emit_frame(run, r);
		break;
	case OP_APP_SELECTION: {
		uint32_t v = fuzz_take(r, 1);
		desktop_window_clipboard_selection(run->window, v & 1 ? WL_RECORD_SELECTION_PRIMARY
								       : WL_RECORD_SELECTION_CLIPBOARD,
						   app_mimes, (v >> 1) % 5);
		break;
	}
	case OP_APP_PASTE: {
		uint32_t v = fuzz_take(r, 1);
		int p[2];
		if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
			abort();
		desktop_window_clipboard_receive(run->window, v & 1 ? WL_RECORD_SELECTION_PRIMARY
								     : WL_RECORD_SELECTION_CLIPBOARD,
						 app_mimes[(v >> 1) % 4], p[1]);
		close(p[0]);
		break;
	}
	case OP_CURSOR: {
		uint32_t v = fuzz_take(r, 2);
		int width = 1 + (int)(v % 64), height = 1 + (int)((v >> 6) % 64);
		uint8_t *pixels = calloc((size_t)width * 4, (size_t)height);
		if (!pixels)
			abort();
		struct wl_record_cursor_image image = { pixels, width, height, width * 4,
							(int)(v >> 12), 1 };
		desktop_window_set_cursor(run->window, v & 0x8000 ? NULL : &image);
		free(pixels);
		break;
	}
	case OP_DISCONNECT:
		if (s->client)
			wl_client_destroy(s->client);
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_quiet_logs();
	struct fuzz_reader r = { data, size };
	uint8_t left_out = (uint8_t)fuzz_take(&r, 1);
	struct run run = { .width = 1 + (int)(fuzz_take(&r, 1) % 128),
			   .height = 1 + (int)(fuzz_take(&r, 1) % 128) };

	struct fuzz_server server;
	if (!server_init(&server, left_out))
		abort();
	run.server = &server;
	run.window = connect_window(&server);
	if (!run.window)
		goto done;
	struct wl_record_input_sink input = { .event = input_event };
	desktop_window_set_input_sink(run.window, &input);
	struct wl_record_clipboard_peer peer = { .selection = peer_selection,
						 .receive = peer_receive };
	desktop_window_set_clipboard_peer(run.window, WL_RECORD_SELECTION_CLIPBOARD, &peer);
	desktop_window_set_clipboard_peer(run.window, WL_RECORD_SELECTION_PRIMARY, &peer);
	frame_source_init(&run.frames);
	desktop_window_connect_source(run.window, &run.frames);
	run.client_loop = wl_event_loop_create();
	if (!run.client_loop)
		abort();
	struct desktop_window_events events = { .closed = window_closed, .gone = window_gone,
						.data = &run.gone };
	if (desktop_window_open(run.window, run.client_loop, "fuzz", run.width, run.height,
				&events)) {
		turn(&run);
		for (int op = 0; op < MAX_OPS && r.size > 0 && !run.gone; op++)
			run_op(&run, &r);
		if (!run.gone)
			turn(&run);
	}
	desktop_window_destroy(run.window);
	frame_source_finish(&run.frames);
	wl_event_loop_destroy(run.client_loop);

done:
	for (int i = 0; i < 2 && server.client; i++)
		wl_event_loop_dispatch(server.loop, 0);
	if (server.client)
		wl_client_destroy(server.client);
	wl_display_destroy(server.display);
	return 0;
}
