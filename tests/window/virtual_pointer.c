/* A pointer for a desktop without input devices (sway headless): one
 * wlr virtual pointer, held until stdin ends, driven by commands on stdin,
 * one a line; "ok LINE" on stdout once the desktop has handled each,
 * after "sent NS LINE": the CLOCK_MONOTONIC time (ns) the requests went
 * out (scripts/bench-input-latency measures from it).
 *
 *   move X Y       absolute position on the output (the extent given)
 *   press BUTTON   (linux input code, 272 left, 273 right, 274 middle)
 *   release BUTTON
 *   click BUTTON   press and release
 *   scroll STEPS   vertical wheel steps
 *
 * usage: virtual-pointer WIDTH HEIGHT COMMANDS (WIDTH x HEIGHT: the
 * output's size, the extent of motion_absolute). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wayland-client.h>

#include "wlr-virtual-pointer-unstable-v1-client-protocol.h"

static struct zwlr_virtual_pointer_manager_v1 *manager;
static struct wl_seat *seat;

static void global(void *data, struct wl_registry *registry, uint32_t name,
		   const char *interface, uint32_t version)
{
	if (strcmp(interface, zwlr_virtual_pointer_manager_v1_interface.name) == 0)
		manager = wl_registry_bind(registry, name,
					   &zwlr_virtual_pointer_manager_v1_interface, 1);
	else if (strcmp(interface, wl_seat_interface.name) == 0 && !seat)
		seat = wl_registry_bind(registry, name, &wl_seat_interface, 1);
}

static void global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = { global, global_remove };

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: %s WIDTH HEIGHT COMMANDS\n", argv[0]);
		return 2;
	}
	FILE *commands = fopen(argv[3], "r");
	if (!commands) {
		perror("virtual-pointer: cannot open the commands");
		return 1;
	}
	uint32_t width = (uint32_t)atoi(argv[1]), height = (uint32_t)atoi(argv[2]);
	struct wl_display *display = wl_display_connect(NULL);
	if (!display) {
		fprintf(stderr, "virtual-pointer: cannot connect to the desktop\n");
		return 1;
	}
	struct wl_registry *registry = wl_display_get_registry(display);
	wl_registry_add_listener(registry, &registry_listener, NULL);
	wl_display_roundtrip(display);
	if (!manager) {
		fprintf(stderr, "virtual-pointer: no zwlr_virtual_pointer_manager_v1\n");
		return 77;
	}
	struct zwlr_virtual_pointer_v1 *pointer =
		zwlr_virtual_pointer_manager_v1_create_virtual_pointer(manager, seat);
	wl_display_roundtrip(display);
	printf("ready\n");
	fflush(stdout);
	char line[256];
	uint32_t time = 1;
	while (fgets(line, sizeof(line), commands)) {
		line[strcspn(line, "\n")] = 0;
		unsigned a = 0, b = 0;
		int steps = 0;
		time += 10;
		if (sscanf(line, "move %u %u", &a, &b) == 2) {
			zwlr_virtual_pointer_v1_motion_absolute(pointer, time, a, b, width, height);
		} else if (sscanf(line, "press %u", &a) == 1) {
			zwlr_virtual_pointer_v1_button(pointer, time, a, WL_POINTER_BUTTON_STATE_PRESSED);
		} else if (sscanf(line, "release %u", &a) == 1) {
			zwlr_virtual_pointer_v1_button(pointer, time, a,
						       WL_POINTER_BUTTON_STATE_RELEASED);
		} else if (sscanf(line, "click %u", &a) == 1) {
			zwlr_virtual_pointer_v1_button(pointer, time, a, WL_POINTER_BUTTON_STATE_PRESSED);
			zwlr_virtual_pointer_v1_frame(pointer);
			zwlr_virtual_pointer_v1_button(pointer, time + 5, a,
						       WL_POINTER_BUTTON_STATE_RELEASED);
		} else if (sscanf(line, "scroll %d", &steps) == 1) {
			zwlr_virtual_pointer_v1_axis_source(pointer, WL_POINTER_AXIS_SOURCE_WHEEL);
			zwlr_virtual_pointer_v1_axis_discrete(pointer, time,
							      WL_POINTER_AXIS_VERTICAL_SCROLL,
							      wl_fixed_from_int(15 * steps), steps);
		} else {
			fprintf(stderr, "virtual-pointer: unknown command '%s'\n", line);
			continue;
		}
		zwlr_virtual_pointer_v1_frame(pointer);
		struct timespec sent;
		clock_gettime(CLOCK_MONOTONIC, &sent);
		if (wl_display_roundtrip(display) < 0) {
			fprintf(stderr, "virtual-pointer: the desktop went away\n");
			return 1;
		}
		printf("sent %lld %s\n", (long long)sent.tv_sec * 1000000000LL + sent.tv_nsec, line);
		printf("ok %s\n", line);
		fflush(stdout);
	}
	zwlr_virtual_pointer_v1_destroy(pointer);
	wl_display_roundtrip(display);
	wl_display_disconnect(display);
	return 0;
}
