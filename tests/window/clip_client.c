/* A hosted app for the --window clipboard tests: a grey xdg toplevel with
 * a keyboard, a wl_data_device and, when offered, a primary selection
 * device.
 *   clip-client PASTE_FILE TEXT
 * On the key "p" it pastes the selection it was offered
 * (text/plain;charset=utf-8, else text/plain) and writes it to PASTE_FILE
 * (whole: written aside, then renamed); on "c" it copies TEXT (sets its
 * own selection, offering both types). What it is offered is logged on
 * stdout ("offer MIME", "selection N types" or "selection none").
 * The same for the primary selection: "m" pastes it into
 * PASTE_FILE.primary, "n" sets it to "primary: TEXT"; logged with the
 * prefix "primary " ("primary offer MIME", "primary selection none"…). */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wayland-client.h>
#include <xkbcommon/xkbcommon.h>

#include "primary-selection-unstable-v1-client-protocol.h"
#include "xdg-shell-client-protocol.h"

#define UTF8_TEXT "text/plain;charset=utf-8"
#define PLAIN_TEXT "text/plain"

static struct wl_display *display;
static struct wl_compositor *compositor;
static struct wl_shm *shm;
static struct xdg_wm_base *wm_base;
static struct wl_seat *seat;
static struct wl_data_device_manager *data_manager;
static struct wl_data_device *data_device;
static struct wl_surface *surface;
static struct xdg_toplevel *toplevel;
static struct xkb_context *xkb;
static struct xkb_state *xkb_state;
static const char *paste_file, *copy_text;

/* The newest offer, and whether it is the selection with text. */
static struct wl_data_offer *newest_offer, *selection;
static bool newest_utf8, newest_plain, selection_utf8, selection_plain;
static int newest_types, selection_types;
static struct wl_data_source *source;

/* The same for the primary selection. */
static struct zwp_primary_selection_device_manager_v1 *primary_manager;
static struct zwp_primary_selection_device_v1 *primary_device;
static struct zwp_primary_selection_offer_v1 *primary_newest, *primary_selection;
static bool primary_newest_utf8, primary_selection_utf8;
static struct zwp_primary_selection_source_v1 *primary_source;
static char primary_text[4096];

static void buffer_release(void *data, struct wl_buffer *buffer)
{
	wl_buffer_destroy(buffer);
}

static const struct wl_buffer_listener buffer_listener = { buffer_release };

static void draw(int width, int height)
{
	size_t size = (size_t)width * (size_t)height * 4;
	int fd = memfd_create("clip-client", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)size) < 0) {
		perror("clip-client: memfd");
		exit(1);
	}
	uint32_t *pixels = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (pixels == MAP_FAILED) {
		perror("clip-client: mmap");
		exit(1);
	}
	for (size_t i = 0; i < size / 4; i++)
		pixels[i] = 0x808080;
	munmap(pixels, size);
	struct wl_shm_pool *pool = wl_shm_create_pool(shm, fd, (int32_t)size);
	struct wl_buffer *buffer = wl_shm_pool_create_buffer(pool, 0, width, height, width * 4,
							     WL_SHM_FORMAT_XRGB8888);
	wl_shm_pool_destroy(pool);
	close(fd);
	wl_buffer_add_listener(buffer, &buffer_listener, NULL);
	wl_surface_attach(surface, buffer, 0, 0);
	wl_surface_damage_buffer(surface, 0, 0, width, height);
	wl_surface_commit(surface);
}

/* ---- pasting ---- */

static void offer_offer(void *data, struct wl_data_offer *offer, const char *mime_type)
{
	printf("offer %s\n", mime_type);
	newest_types++;
	if (strcmp(mime_type, UTF8_TEXT) == 0)
		newest_utf8 = true;
	if (strcmp(mime_type, PLAIN_TEXT) == 0)
		newest_plain = true;
}

static void offer_source_actions(void *data, struct wl_data_offer *offer, uint32_t actions)
{
}

static void offer_action(void *data, struct wl_data_offer *offer, uint32_t action)
{
}

static const struct wl_data_offer_listener offer_listener = {
	offer_offer, offer_source_actions, offer_action,
};

static void device_data_offer(void *data, struct wl_data_device *device,
			      struct wl_data_offer *offer)
{
	if (newest_offer && newest_offer != selection)
		wl_data_offer_destroy(newest_offer);
	newest_offer = offer;
	newest_utf8 = newest_plain = false;
	newest_types = 0;
	wl_data_offer_add_listener(offer, &offer_listener, NULL);
}

static void device_enter(void *data, struct wl_data_device *device, uint32_t serial,
			 struct wl_surface *s, wl_fixed_t x, wl_fixed_t y,
			 struct wl_data_offer *offer)
{
}

static void device_leave(void *data, struct wl_data_device *device)
{
}

static void device_motion(void *data, struct wl_data_device *device, uint32_t time, wl_fixed_t x,
			  wl_fixed_t y)
{
}

static void device_drop(void *data, struct wl_data_device *device)
{
}

static void device_selection(void *data, struct wl_data_device *device,
			     struct wl_data_offer *offer)
{
	if (selection && selection != offer) {
		if (newest_offer == selection)
			newest_offer = NULL;
		wl_data_offer_destroy(selection);
	}
	selection = offer;
	selection_utf8 = offer && newest_utf8;
	selection_plain = offer && newest_plain;
	selection_types = offer ? newest_types : 0;
	if (offer)
		printf("selection %d types\n", selection_types);
	else
		printf("selection none\n");
	fflush(stdout);
}

static const struct wl_data_device_listener device_listener = {
	device_data_offer, device_enter, device_leave, device_motion, device_drop,
	device_selection,
};

/* What comes out of `fd` (closed here) goes whole into `path`. */
static void read_into_file(int fd, const char *path)
{
	char tmp[4096];
	snprintf(tmp, sizeof(tmp), "%s.part", path);
	FILE *out = fopen(tmp, "w");
	if (!out) {
		perror("clip-client: paste file");
		exit(1);
	}
	char chunk[4096];
	ssize_t n;
	size_t total = 0;
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		fwrite(chunk, 1, (size_t)n, out);
		total += (size_t)n;
	}
	close(fd);
	fclose(out);
	rename(tmp, path);
	printf("pasted %zu bytes\n", total);
}

static void make_pipe(int fds[2])
{
	if (pipe(fds) < 0) {
		perror("clip-client: pipe");
		exit(1);
	}
}

static void paste(void)
{
	if (!selection || !(selection_utf8 || selection_plain)) {
		printf("nothing to paste\n");
		return;
	}
	int fds[2];
	make_pipe(fds);
	wl_data_offer_receive(selection, selection_utf8 ? UTF8_TEXT : PLAIN_TEXT, fds[1]);
	close(fds[1]);
	wl_display_flush(display);
	read_into_file(fds[0], paste_file);
}

/* ---- the primary selection ---- */

static void primary_offer_offer(void *data, struct zwp_primary_selection_offer_v1 *offer,
				const char *mime_type)
{
	printf("primary offer %s\n", mime_type);
	if (strcmp(mime_type, UTF8_TEXT) == 0)
		primary_newest_utf8 = true;
}

static const struct zwp_primary_selection_offer_v1_listener primary_offer_listener = {
	primary_offer_offer,
};

static void primary_data_offer(void *data, struct zwp_primary_selection_device_v1 *device,
			       struct zwp_primary_selection_offer_v1 *offer)
{
	if (primary_newest && primary_newest != primary_selection)
		zwp_primary_selection_offer_v1_destroy(primary_newest);
	primary_newest = offer;
	primary_newest_utf8 = false;
	zwp_primary_selection_offer_v1_add_listener(offer, &primary_offer_listener, NULL);
}

static void primary_selection_event(void *data, struct zwp_primary_selection_device_v1 *device,
				    struct zwp_primary_selection_offer_v1 *offer)
{
	if (primary_selection && primary_selection != offer) {
		if (primary_newest == primary_selection)
			primary_newest = NULL;
		zwp_primary_selection_offer_v1_destroy(primary_selection);
	}
	primary_selection = offer;
	primary_selection_utf8 = offer && primary_newest_utf8;
	printf(offer ? "primary selection\n" : "primary selection none\n");
}

static const struct zwp_primary_selection_device_v1_listener primary_device_listener = {
	primary_data_offer, primary_selection_event,
};

static void primary_paste(void)
{
	if (!primary_selection || !primary_selection_utf8) {
		printf("nothing to paste from the primary selection\n");
		return;
	}
	int fds[2];
	make_pipe(fds);
	zwp_primary_selection_offer_v1_receive(primary_selection, UTF8_TEXT, fds[1]);
	close(fds[1]);
	wl_display_flush(display);
	char path[4096];
	snprintf(path, sizeof(path), "%s.primary", paste_file);
	read_into_file(fds[0], path);
}

/* ---- copying ---- */

static void source_target(void *data, struct wl_data_source *s, const char *mime_type)
{
}

static void write_all(int fd, const char *text)
{
	size_t left = strlen(text);
	while (left > 0) {
		ssize_t n = write(fd, text, left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		text += n;
		left -= (size_t)n;
	}
	close(fd);
}

static void source_send(void *data, struct wl_data_source *s, const char *mime_type, int32_t fd)
{
	printf("asked for %s\n", mime_type);
	write_all(fd, copy_text);
}

static void source_cancelled(void *data, struct wl_data_source *s)
{
	printf("copy cancelled\n");
	wl_data_source_destroy(s);
	if (source == s)
		source = NULL;
}

static void source_dnd_drop_performed(void *data, struct wl_data_source *s)
{
}

static void source_dnd_finished(void *data, struct wl_data_source *s)
{
}

static void source_action(void *data, struct wl_data_source *s, uint32_t action)
{
}

static const struct wl_data_source_listener source_listener = {
	source_target, source_send, source_cancelled, source_dnd_drop_performed,
	source_dnd_finished, source_action,
};

static void copy(uint32_t serial)
{
	if (source)
		wl_data_source_destroy(source);
	source = wl_data_device_manager_create_data_source(data_manager);
	wl_data_source_add_listener(source, &source_listener, NULL);
	wl_data_source_offer(source, UTF8_TEXT);
	wl_data_source_offer(source, PLAIN_TEXT);
	wl_data_device_set_selection(data_device, source, serial);
	printf("copied\n");
}

static void primary_source_send(void *data, struct zwp_primary_selection_source_v1 *s,
				const char *mime_type, int32_t fd)
{
	printf("primary asked for %s\n", mime_type);
	write_all(fd, primary_text);
}

static void primary_source_cancelled(void *data, struct zwp_primary_selection_source_v1 *s)
{
	printf("primary copy cancelled\n");
	zwp_primary_selection_source_v1_destroy(s);
	if (primary_source == s)
		primary_source = NULL;
}

static const struct zwp_primary_selection_source_v1_listener primary_source_listener = {
	primary_source_send, primary_source_cancelled,
};

static void primary_copy(uint32_t serial)
{
	if (!primary_device) {
		printf("no primary selection\n");
		return;
	}
	if (primary_source)
		zwp_primary_selection_source_v1_destroy(primary_source);
	primary_source = zwp_primary_selection_device_manager_v1_create_source(primary_manager);
	zwp_primary_selection_source_v1_add_listener(primary_source, &primary_source_listener,
						     NULL);
	zwp_primary_selection_source_v1_offer(primary_source, UTF8_TEXT);
	zwp_primary_selection_device_v1_set_selection(primary_device, primary_source, serial);
	printf("primary copied\n");
}

/* ---- keyboard ---- */

static void keyboard_keymap(void *data, struct wl_keyboard *keyboard, uint32_t format, int32_t fd,
			    uint32_t size)
{
	char *text = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (text == MAP_FAILED)
		return;
	struct xkb_keymap *map = xkb_keymap_new_from_string(xkb, text, XKB_KEYMAP_FORMAT_TEXT_V1,
							     XKB_KEYMAP_COMPILE_NO_FLAGS);
	munmap(text, size);
	if (!map)
		return;
	xkb_state_unref(xkb_state);
	xkb_state = xkb_state_new(map);
	xkb_keymap_unref(map);
}

static void keyboard_enter(void *data, struct wl_keyboard *keyboard, uint32_t serial,
			   struct wl_surface *s, struct wl_array *keys)
{
	printf("keyboard enter\n");
}

static void keyboard_leave(void *data, struct wl_keyboard *keyboard, uint32_t serial,
			   struct wl_surface *s)
{
	printf("keyboard leave\n");
}

static void keyboard_key(void *data, struct wl_keyboard *keyboard, uint32_t serial, uint32_t time,
			 uint32_t key, uint32_t state)
{
	if (state != WL_KEYBOARD_KEY_STATE_PRESSED || !xkb_state)
		return;
	xkb_keysym_t sym = xkb_state_key_get_one_sym(xkb_state, key + 8);
	printf("key 0x%x\n", sym);
	if (sym == XKB_KEY_p)
		paste();
	else if (sym == XKB_KEY_c)
		copy(serial);
	else if (sym == XKB_KEY_m)
		primary_paste();
	else if (sym == XKB_KEY_n)
		primary_copy(serial);
	fflush(stdout);
}

static void keyboard_modifiers(void *data, struct wl_keyboard *keyboard, uint32_t serial,
			       uint32_t depressed, uint32_t latched, uint32_t locked, uint32_t group)
{
	if (xkb_state)
		xkb_state_update_mask(xkb_state, depressed, latched, locked, 0, 0, group);
}

static void keyboard_repeat_info(void *data, struct wl_keyboard *keyboard, int32_t rate,
				 int32_t delay)
{
}

static const struct wl_keyboard_listener keyboard_listener = {
	keyboard_keymap, keyboard_enter, keyboard_leave, keyboard_key, keyboard_modifiers,
	keyboard_repeat_info,
};

/* ---- globals and the toplevel ---- */

static void registry_global(void *data, struct wl_registry *registry, uint32_t name,
			    const char *interface, uint32_t version)
{
	if (strcmp(interface, wl_compositor_interface.name) == 0)
		compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 4);
	else if (strcmp(interface, wl_shm_interface.name) == 0)
		shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	else if (strcmp(interface, xdg_wm_base_interface.name) == 0)
		wm_base = wl_registry_bind(registry, name, &xdg_wm_base_interface, 1);
	else if (strcmp(interface, wl_seat_interface.name) == 0 && !seat)
		seat = wl_registry_bind(registry, name, &wl_seat_interface, 5);
	else if (strcmp(interface, wl_data_device_manager_interface.name) == 0)
		data_manager = wl_registry_bind(registry, name, &wl_data_device_manager_interface,
						3);
	else if (strcmp(interface, zwp_primary_selection_device_manager_v1_interface.name) == 0)
		primary_manager = wl_registry_bind(
			registry, name, &zwp_primary_selection_device_manager_v1_interface, 1);
}

static void registry_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = {
	registry_global, registry_global_remove,
};

static void wm_base_ping(void *data, struct xdg_wm_base *base, uint32_t serial)
{
	xdg_wm_base_pong(base, serial);
}

static const struct xdg_wm_base_listener wm_base_listener = { wm_base_ping };

static int asked_width, asked_height;

static void xdg_surface_configure(void *data, struct xdg_surface *xdg, uint32_t serial)
{
	xdg_surface_ack_configure(xdg, serial);
	draw(asked_width > 0 ? asked_width : 320, asked_height > 0 ? asked_height : 240);
}

static const struct xdg_surface_listener xdg_surface_listener = { xdg_surface_configure };

static void toplevel_configure(void *data, struct xdg_toplevel *t, int32_t w, int32_t h,
			       struct wl_array *states)
{
	asked_width = w;
	asked_height = h;
}

static void toplevel_close(void *data, struct xdg_toplevel *t)
{
	exit(0);
}

static const struct xdg_toplevel_listener toplevel_listener = {
	.configure = toplevel_configure,
	.close = toplevel_close,
};

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: clip-client PASTE_FILE TEXT\n");
		return 2;
	}
	paste_file = argv[1];
	copy_text = argv[2];
	setvbuf(stdout, NULL, _IOLBF, 0);
	display = wl_display_connect(NULL);
	xkb = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
	if (!display || !xkb) {
		fprintf(stderr, "clip-client: no display\n");
		return 1;
	}
	struct wl_registry *registry = wl_display_get_registry(display);
	wl_registry_add_listener(registry, &registry_listener, NULL);
	wl_display_roundtrip(display);
	if (!compositor || !shm || !wm_base || !seat || !data_manager) {
		fprintf(stderr, "clip-client: missing globals%s\n",
			data_manager ? "" : " (no wl_data_device_manager)");
		return 1;
	}
	xdg_wm_base_add_listener(wm_base, &wm_base_listener, NULL);
	struct wl_keyboard *keyboard = wl_seat_get_keyboard(seat);
	wl_keyboard_add_listener(keyboard, &keyboard_listener, NULL);
	data_device = wl_data_device_manager_get_data_device(data_manager, seat);
	wl_data_device_add_listener(data_device, &device_listener, NULL);
	if (primary_manager) {
		primary_device = zwp_primary_selection_device_manager_v1_get_device(primary_manager,
										    seat);
		zwp_primary_selection_device_v1_add_listener(primary_device,
							     &primary_device_listener, NULL);
	}
	snprintf(primary_text, sizeof(primary_text), "primary: %s", copy_text);
	surface = wl_compositor_create_surface(compositor);
	struct xdg_surface *xdg = xdg_wm_base_get_xdg_surface(wm_base, surface);
	xdg_surface_add_listener(xdg, &xdg_surface_listener, NULL);
	toplevel = xdg_surface_get_toplevel(xdg);
	xdg_toplevel_add_listener(toplevel, &toplevel_listener, NULL);
	xdg_toplevel_set_title(toplevel, "clip-client");
	wl_surface_commit(surface);
	printf("ready\n");
	while (wl_display_dispatch(display) >= 0)
		;
	return 0;
}
