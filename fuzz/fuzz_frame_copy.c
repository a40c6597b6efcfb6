/* libFuzzer target for the frame path: surface damage (surface and buffer
 * coordinates, any scale and transform), the copy of damaged rows into the
 * surface texture, buffer size changes, and the screen's placement of the
 * surface by present method over an output of any size.
 *
 * The bytes are read as a little program of well-formed requests, sent
 * through the real protocol to an in-process compositor (tests/unit/inproc.c),
 * so the fuzzer spends its time in the copy and damage code instead of in
 * the wire parser (fuzz_display covers that). Every frame the screen emits is
 * copied out whole by inproc, so a frame that points outside its memory
 * shows up under ASan. */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_common.h"
#include "inproc.h"

#define MAX_SIDE 300
#define MAX_OPS 48


/* Damage coordinates: mostly small, sometimes at the int32 extremes that
 * real clients send (Weston's GL renderer damages 0,0,INT32_MAX,INT32_MAX). */
static int32_t take_coordinate(struct fuzz_reader *r)
{
	uint32_t v = fuzz_take(r, 2);
	switch (v >> 13) {
	case 0:
		return INT32_MAX;
	case 1:
		return INT32_MIN;
	case 2:
		return -(int32_t)(v & 0x3ff);
	default:
		return (int32_t)(v & 0x1ff);
	}
}

static uint32_t pattern(int x, int y)
{
	return (uint32_t)(x * 2654435761u) ^ (uint32_t)(y * 40503u);
}

static void new_buffer(struct inproc *t, struct test_buffer *b, bool *live, struct fuzz_reader *r)
{
	if (*live)
		test_buffer_finish(b);
	int width = 1 + (int)(fuzz_take(r, 2) % MAX_SIDE);
	int height = 1 + (int)(fuzz_take(r, 2) % MAX_SIDE);
	uint32_t format = fuzz_take(r, 1) & 1 ? WL_SHM_FORMAT_ARGB8888 : WL_SHM_FORMAT_XRGB8888;
	test_buffer_init(t, b, width, height, format);
	test_buffer_fill(b, pattern);
	*live = true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_quiet_logs();
	struct fuzz_reader r = { data, size };
	int out_w = 1 + (int)(fuzz_take(&r, 2) % MAX_SIDE);
	int out_h = 1 + (int)(fuzz_take(&r, 2) % MAX_SIDE);

	struct inproc t;
	inproc_init(&t, out_w, out_h);
	t.surface = wl_compositor_create_surface(t.compositor);
	struct test_buffer buffer;
	bool buffer_live = false;
	new_buffer(&t, &buffer, &buffer_live, &r);

	for (int op = 0; op < MAX_OPS && r.size > 0 && !wl_display_get_error(t.display); op++) {
		switch (fuzz_take(&r, 1) % 12) {
		case 0:
			wl_surface_set_buffer_transform(t.surface, (int32_t)(fuzz_take(&r, 1) % 8));
			break;
		case 1:
			wl_surface_set_buffer_scale(t.surface, 1 + (int32_t)(fuzz_take(&r, 1) % 4));
			break;
		case 2: {
			int32_t x = take_coordinate(&r), y = take_coordinate(&r);
			int32_t w = take_coordinate(&r), h = take_coordinate(&r);
			wl_surface_damage(t.surface, x, y, w, h);
			break;
		}
		case 3:
			if (t.compositor_version >= 4) {
				int32_t x = take_coordinate(&r), y = take_coordinate(&r);
				int32_t w = take_coordinate(&r), h = take_coordinate(&r);
				wl_surface_damage_buffer(t.surface, x, y, w, h);
			}
			break;
		case 4:
			new_buffer(&t, &buffer, &buffer_live, &r);
			break;
		case 5:
		case 6:
			if (buffer_live)
				wl_surface_attach(t.surface, buffer.buffer, 0, 0);
			wl_surface_commit(t.surface);
			break;
		case 7:
			zwp_fullscreen_shell_v1_present_surface(t.shell, t.surface, fuzz_take(&r, 1) % 5,
								 t.output);
			break;
		case 8: {
			struct zwp_fullscreen_shell_mode_feedback_v1 *feedback =
				zwp_fullscreen_shell_v1_present_surface_for_mode(
					t.shell, t.surface, t.output, (int32_t)fuzz_take(&r, 2));
			/* Its events are not listened to; the proxy goes at once. */
			zwp_fullscreen_shell_mode_feedback_v1_destroy(feedback);
			break;
		}
		case 9:
			wl_surface_attach(t.surface, NULL, 0, 0);
			wl_surface_commit(t.surface);
			break;
		case 10:
			/* The client draws again: new content where it damages next. */
			if (buffer_live)
				for (size_t i = 0; i < buffer.size / 4; i += 97)
					buffer.pixels[i] ^= fuzz_take(&r, 1) * 0x010101u;
			break;
		default:
			inproc_roundtrip(&t);
			break;
		}
	}
	inproc_roundtrip(&t);
	inproc_run_for(&t, 3); /* frame callbacks and the pacer */
	if (buffer_live)
		test_buffer_finish(&buffer);
	inproc_finish(&t);
	return 0;
}
