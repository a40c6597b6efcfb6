/* linux-dmabuf through the real protocol, server and client in one process:
 * what the global advertises (v3 events, v4 feedback), LINEAR buffers made of
 * memfds shown pixel for pixel, every params error with its exact code, fds
 * closed on every path (counted in /proc/self/fd), a plane truncated after
 * creation, and locks (the zero-copy path's hold on a buffer) released
 * from another thread. One case per run: the case name is argv[1]. */
#include <dirent.h>
#include <drm_fourcc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "buffer.h"
#include "dmabuf_buffer.h"
#include "dmabuf_client.h"
#include "inproc.h"
#include "pattern.h"

#define E(name) ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_##name

struct fixture {
	struct inproc t;
	struct dmabuf_client c;
};

static bool roundtrip(void *data)
{
	return inproc_roundtrip(data);
}

static int count_fds(void)
{
	DIR *dir = opendir("/proc/self/fd");
	test_assert(dir);
	int n = 0;
	while (readdir(dir))
		n++;
	closedir(dir);
	return n;
}

static void setup(struct fixture *f, uint32_t version)
{
	inproc_init(&f->t, 320, 240);
	test_assert(dmabuf_client_bind(&f->c, f->t.display, version, roundtrip, &f->t));
	test_assert(f->c.version == version);
}

static void teardown(struct fixture *f)
{
	dmabuf_client_finish(&f->c);
	inproc_finish(&f->t);
}

/* A memfd of `size` bytes as plane `plane`; our own fd is closed after. */
static void add_memfd(struct zwp_linux_buffer_params_v1 *params, size_t size, uint32_t plane,
		      uint32_t offset, uint32_t stride, uint64_t modifier)
{
	void *pixels;
	bool udmabuf;
	int fd = dmabuf_client_make_fd(size, true, &pixels, &udmabuf);
	zwp_linux_buffer_params_v1_add(params, fd, plane, offset, stride, (uint32_t)(modifier >> 32),
				       (uint32_t)modifier);
	munmap(pixels, size);
	close(fd);
}

/* --- what is advertised ------------------------------------------------- */

static bool first_render_node(dev_t *device)
{
	DIR *dir = opendir("/dev/dri");
	if (!dir)
		return false;
	char best[300] = "";
	struct dirent *entry;
	while ((entry = readdir(dir)))
		if (strncmp(entry->d_name, "renderD", 7) == 0 &&
		    (!best[0] || strcmp(entry->d_name, best) < 0))
			snprintf(best, sizeof(best), "%s", entry->d_name);
	closedir(dir);
	char path[320];
	snprintf(path, sizeof(path), "/dev/dri/%s", best);
	struct stat info;
	if (!best[0] || stat(path, &info) != 0)
		return false;
	*device = info.st_rdev;
	return true;
}

/* Every format wl-record reads, on wl_shm and linux-dmabuf alike. */
static const uint32_t read_formats[] = {
	DRM_FORMAT_XRGB8888, DRM_FORMAT_ARGB8888, DRM_FORMAT_XBGR8888, DRM_FORMAT_ABGR8888,
	DRM_FORMAT_XRGB2101010, DRM_FORMAT_ARGB2101010, DRM_FORMAT_XBGR2101010,
	DRM_FORMAT_ABGR2101010,
};
#define READ_FORMAT_COUNT (int)(sizeof(read_formats) / sizeof(read_formats[0]))

/* Each of read_formats once among `formats`, with a LINEAR modifier in
 * `modifiers` when given (that one the CPU reads on any machine). */
static void assert_read_formats(const uint32_t *formats, const uint64_t *modifiers, int n,
				const char *what)
{
	for (int f = 0; f < READ_FORMAT_COUNT; f++) {
		bool found = false;
		for (int i = 0; i < n && !found; i++)
			found = formats[i] == read_formats[f] &&
				(!modifiers || modifiers[i] == DRM_FORMAT_MOD_LINEAR);
		test_assert(found, "%s: no format 0x%08x%s", what, read_formats[f],
			    modifiers ? " with the LINEAR modifier" : "");
	}
}

TEST(v3_formats)
{
	struct fixture f;
	setup(&f, 3);
	test_assert(f.c.n_format_events == READ_FORMAT_COUNT, "%d format events",
		    f.c.n_format_events);
	test_assert(f.c.n_modifier_events <= DMABUF_CLIENT_MAX_FORMATS);
	assert_read_formats(f.c.formats, f.c.modifiers, f.c.n_modifier_events, "v3 modifier events");
	printf("v3: %d format events, %d modifier events\n", f.c.n_format_events,
	       f.c.n_modifier_events);
	teardown(&f);
}

struct shm_formats {
	struct wl_shm *shm;
	uint32_t codes[64];
	int n;
};

static void shm_format(void *data, struct wl_shm *shm, uint32_t code)
{
	struct shm_formats *formats = data;
	if (formats->n < 64)
		formats->codes[formats->n] = code;
	formats->n++;
}

static const struct wl_shm_listener shm_listener = { .format = shm_format };

static void shm_global(void *data, struct wl_registry *registry, uint32_t name,
		       const char *interface, uint32_t version)
{
	struct shm_formats *formats = data;
	if (strcmp(interface, wl_shm_interface.name) != 0)
		return;
	formats->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	wl_shm_add_listener(formats->shm, &shm_listener, formats);
}

static void shm_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener shm_registry_listener = {
	.global = shm_global, .global_remove = shm_global_remove,
};

/* wl_shm offers the same formats, in its own codes for ARGB/XRGB8888. */
TEST(shm_formats)
{
	struct fixture f;
	setup(&f, 4);
	struct shm_formats formats = { 0 };
	struct wl_registry *registry = wl_display_get_registry(f.t.display);
	wl_registry_add_listener(registry, &shm_registry_listener, &formats);
	test_assert(inproc_roundtrip(&f.t) && formats.shm);
	test_assert(inproc_roundtrip(&f.t));
	test_assert(formats.n == READ_FORMAT_COUNT, "%d wl_shm format events", formats.n);
	uint32_t as_drm[64];
	for (int i = 0; i < formats.n; i++)
		as_drm[i] = formats.codes[i] == WL_SHM_FORMAT_ARGB8888   ? DRM_FORMAT_ARGB8888
			    : formats.codes[i] == WL_SHM_FORMAT_XRGB8888 ? DRM_FORMAT_XRGB8888
									 : formats.codes[i];
	assert_read_formats(as_drm, NULL, formats.n, "wl_shm format events");
	printf("wl_shm: %d formats\n", formats.n);
	wl_shm_destroy(formats.shm);
	wl_registry_destroy(registry);
	teardown(&f);
}

static void check_feedback(struct fixture *f, struct wl_surface *surface)
{
	struct zwp_linux_dmabuf_feedback_v1 *feedback = dmabuf_client_get_feedback(&f->c, surface);
	test_assert(inproc_roundtrip(&f->t));
	test_assert(f->c.feedback_done && f->c.tranches == 1);
	test_assert(f->c.n_table >= READ_FORMAT_COUNT && f->c.n_table <= DMABUF_CLIENT_MAX_FORMATS &&
		    f->c.n_tranche_indices == f->c.n_table);
	uint32_t formats[DMABUF_CLIENT_MAX_FORMATS];
	uint64_t modifiers[DMABUF_CLIENT_MAX_FORMATS];
	for (int i = 0; i < f->c.n_tranche_indices; i++) {
		int k = f->c.tranche_indices[i];
		test_assert(k < f->c.n_table);
		formats[i] = f->c.table_format[k];
		modifiers[i] = f->c.table_modifier[k];
	}
	assert_read_formats(formats, modifiers, f->c.n_tranche_indices, "v4 feedback tranche");
	test_assert(f->c.has_main_device && f->c.has_target_device);
	dev_t node;
	if (first_render_node(&node)) {
		test_assert(f->c.main_device == node && f->c.target_device == node);
		printf("feedback: main_device is the render node %u:%u\n", major(node), minor(node));
	} else {
		test_assert(f->c.main_device == 0 && f->c.target_device == 0);
		printf("feedback: no render node here, main_device is dev_t 0 (0:0)\n");
	}
	zwp_linux_dmabuf_feedback_v1_destroy(feedback);
	f->c.feedback_done = false;
	f->c.tranches = 0;
	f->c.n_tranche_indices = 0;
}

TEST(v4_feedback)
{
	struct fixture f;
	setup(&f, 4);
	test_assert(f.c.n_format_events == 0 && f.c.n_modifier_events == 0);
	check_feedback(&f, NULL);
	f.t.surface = wl_compositor_create_surface(f.t.compositor);
	check_feedback(&f, f.t.surface);
	teardown(&f);
}

/* --- LINEAR buffers through the fullscreen shell ------------------------ */

struct create_result {
	struct wl_buffer *buffer;
	bool failed;
};

static void params_created(void *data, struct zwp_linux_buffer_params_v1 *params,
			   struct wl_buffer *buffer)
{
	((struct create_result *)data)->buffer = buffer;
}

static void params_failed(void *data, struct zwp_linux_buffer_params_v1 *params)
{
	((struct create_result *)data)->failed = true;
}

static const struct zwp_linux_buffer_params_v1_listener params_listener = {
	.created = params_created, .failed = params_failed,
};

static void buffer_release(void *data, struct wl_buffer *buffer)
{
	(*(int *)data)++;
}

static const struct wl_buffer_listener buffer_listener = { .release = buffer_release };

struct linear_buffer {
	struct wl_buffer *buffer;
	int fd;
	void *pixels;
	size_t size;
	int width, height, stride, offset;
	int released;
};

static void linear_buffer_create(struct fixture *f, struct linear_buffer *b, int width, int height,
				 uint32_t format, bool immed, bool shrinkable, int frame_index)
{
	*b = (struct linear_buffer){ .width = width, .height = height, .offset = 256,
				     .stride = width * 4 + 64 };
	b->size = (size_t)b->offset + (size_t)b->stride * (size_t)height;
	bool udmabuf;
	b->fd = dmabuf_client_make_fd(b->size, shrinkable, &b->pixels, &udmabuf);
	pattern_fill_format((uint8_t *)b->pixels + b->offset, b->stride, frame_index, width, height,
			    format);
	struct zwp_linux_buffer_params_v1 *params = zwp_linux_dmabuf_v1_create_params(f->c.dmabuf);
	zwp_linux_buffer_params_v1_add(params, b->fd, 0, (uint32_t)b->offset, (uint32_t)b->stride,
				       0, 0);
	if (immed) {
		b->buffer = zwp_linux_buffer_params_v1_create_immed(params, width, height, format, 0);
	} else {
		struct create_result result = { 0 };
		zwp_linux_buffer_params_v1_add_listener(params, &params_listener, &result);
		zwp_linux_buffer_params_v1_create(params, width, height, format, 0);
		test_assert(inproc_roundtrip(&f->t));
		test_assert(result.buffer && !result.failed);
		b->buffer = result.buffer;
	}
	zwp_linux_buffer_params_v1_destroy(params);
	wl_buffer_add_listener(b->buffer, &buffer_listener, &b->released);
	printf("%s buffer %dx%d format 0x%08x (%s)\n", immed ? "create_immed" : "create", width,
	       height, format, udmabuf ? "udmabuf" : "memfd");
}

static void linear_buffer_finish(struct linear_buffer *b)
{
	if (b->buffer)
		wl_buffer_destroy(b->buffer);
	munmap(b->pixels, b->size);
	close(b->fd);
}

static void commit(struct wl_surface *surface, struct linear_buffer *b)
{
	wl_surface_attach(surface, b->buffer, 0, 0);
	wl_surface_damage_buffer(surface, 0, 0, b->width, b->height);
	wl_surface_commit(surface);
}

static void present_case(uint32_t version, bool immed, uint32_t format)
{
	int fds_before = count_fds();
	struct fixture f;
	setup(&f, version);
	f.t.surface = wl_compositor_create_surface(f.t.compositor);
	struct zwp_fullscreen_shell_mode_feedback_v1 *mode =
		zwp_fullscreen_shell_v1_present_surface_for_mode(f.t.shell, f.t.surface,
								 f.t.output, 0);
	const int w = 173, h = 97; /* odd on purpose */
	struct linear_buffer b;
	linear_buffer_create(&f, &b, w, h, format, immed, false, 3);
	commit(f.t.surface, &b);
	test_assert(inproc_roundtrip(&f.t));
	test_assert(f.t.frames == 1 && f.t.frame_width == w && f.t.frame_height == h);
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++)
			test_assert_pixel(&f.t, x, y, pattern_pixel(3, x, y, w, h));
	test_assert(b.released == 1);

	/* New content in the same buffer: a second frame with it. */
	pattern_fill_format((uint8_t *)b.pixels + b.offset, b.stride, 4, w, h, format);
	commit(f.t.surface, &b);
	test_assert(inproc_roundtrip(&f.t));
	test_assert(f.t.frames == 2);
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++)
			test_assert_pixel(&f.t, x, y, pattern_pixel(4, x, y, w, h));
	test_assert(b.released == 2);
	printf("%d x %d pixels match the pattern in 2 frames\n", w, h);

	zwp_fullscreen_shell_mode_feedback_v1_destroy(mode);
	linear_buffer_finish(&b);
	teardown(&f);
	test_assert(count_fds() == fds_before);
}

TEST(present_v3_create_xrgb) { present_case(3, false, DRM_FORMAT_XRGB8888); }
TEST(present_v3_immed_argb) { present_case(3, true, DRM_FORMAT_ARGB8888); }
TEST(present_v4_create_argb) { present_case(4, false, DRM_FORMAT_ARGB8888); }
TEST(present_v4_immed_xrgb) { present_case(4, true, DRM_FORMAT_XRGB8888); }
/* The other formats are converted as they are copied: still exact. */
TEST(present_v4_immed_xbgr) { present_case(4, true, DRM_FORMAT_XBGR8888); }
TEST(present_v3_create_abgr) { present_case(3, false, DRM_FORMAT_ABGR8888); }
TEST(present_v4_create_xrgb2101010) { present_case(4, false, DRM_FORMAT_XRGB2101010); }
TEST(present_v3_immed_argb2101010) { present_case(3, true, DRM_FORMAT_ARGB2101010); }
TEST(present_v4_immed_xbgr2101010) { present_case(4, true, DRM_FORMAT_XBGR2101010); }
TEST(present_v4_create_abgr2101010) { present_case(4, false, DRM_FORMAT_ABGR2101010); }

/* The same through wl_shm, at an offset and a stride that are not
 * multiples of 4 when `unaligned` (valid for wl_shm: the rows are then not
 * whole 32-bit words). */
static void shm_present_case(uint32_t format, bool unaligned)
{
	struct fixture f;
	setup(&f, 4);
	f.t.surface = wl_compositor_create_surface(f.t.compositor);
	struct zwp_fullscreen_shell_mode_feedback_v1 *mode =
		zwp_fullscreen_shell_v1_present_surface_for_mode(f.t.shell, f.t.surface,
								 f.t.output, 0);
	const int w = 173, h = 97;
	int offset = unaligned ? 3 : 0, stride = w * 4 + (unaligned ? 5 : 0);
	size_t size = (size_t)offset + (size_t)stride * h + 4;
	int fd = memfd_create("shm-format", MFD_CLOEXEC);
	test_assert(fd >= 0 && ftruncate(fd, (off_t)size) == 0);
	uint8_t *pixels = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	test_assert(pixels != MAP_FAILED);
	/* Drawn aligned, then moved to the offset. */
	uint8_t *aligned = malloc((size_t)stride * h + 4);
	test_assert(aligned);
	pattern_fill_format(aligned, stride - stride % 4, 3, w, h, format);
	for (int y = 0; y < h; y++)
		memcpy(pixels + offset + (size_t)y * stride,
		       aligned + (size_t)y * (size_t)(stride - stride % 4), (size_t)w * 4);
	free(aligned);
	struct wl_shm_pool *pool = wl_shm_create_pool(f.t.shm, fd, (int32_t)size);
	uint32_t code = format == DRM_FORMAT_ARGB8888   ? WL_SHM_FORMAT_ARGB8888
			: format == DRM_FORMAT_XRGB8888 ? WL_SHM_FORMAT_XRGB8888
							: format;
	struct wl_buffer *buffer = wl_shm_pool_create_buffer(pool, offset, w, h, stride, code);
	wl_shm_pool_destroy(pool);
	wl_surface_attach(f.t.surface, buffer, 0, 0);
	wl_surface_damage_buffer(f.t.surface, 0, 0, w, h);
	wl_surface_commit(f.t.surface);
	test_assert(inproc_roundtrip(&f.t));
	test_assert(f.t.frames == 1 && f.t.frame_width == w && f.t.frame_height == h);
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++)
			test_assert_pixel(&f.t, x, y, pattern_pixel(3, x, y, w, h));
	printf("wl_shm 0x%08x%s: %d x %d pixels match the pattern\n", format,
	       unaligned ? " (offset 3, odd stride)" : "", w, h);
	zwp_fullscreen_shell_mode_feedback_v1_destroy(mode);
	wl_buffer_destroy(buffer);
	munmap(pixels, size);
	close(fd);
	teardown(&f);
}

TEST(shm_present_xbgr) { shm_present_case(DRM_FORMAT_XBGR8888, false); }
TEST(shm_present_abgr_unaligned) { shm_present_case(DRM_FORMAT_ABGR8888, true); }
TEST(shm_present_xrgb2101010_unaligned) { shm_present_case(DRM_FORMAT_XRGB2101010, true); }
TEST(shm_present_argb2101010) { shm_present_case(DRM_FORMAT_ARGB2101010, false); }
TEST(shm_present_xbgr2101010) { shm_present_case(DRM_FORMAT_XBGR2101010, false); }
TEST(shm_present_abgr2101010) { shm_present_case(DRM_FORMAT_ABGR2101010, false); }
TEST(shm_present_xrgb_unaligned) { shm_present_case(DRM_FORMAT_XRGB8888, true); }

/* The server holds one fd per live buffer and none once it is destroyed. */
TEST(fds_follow_buffers)
{
	int fds_before = count_fds();
	struct fixture f;
	setup(&f, 4);
	int fds_bound = count_fds();
	struct linear_buffer b;
	linear_buffer_create(&f, &b, 16, 16, DRM_FORMAT_XRGB8888, true, false, 0);
	test_assert(inproc_roundtrip(&f.t));
	/* Ours, and the server's copy. */
	test_assert(count_fds() == fds_bound + 2);
	wl_buffer_destroy(b.buffer);
	b.buffer = NULL;
	test_assert(inproc_roundtrip(&f.t));
	test_assert(count_fds() == fds_bound + 1);
	linear_buffer_finish(&b);
	teardown(&f);
	test_assert(count_fds() == fds_before);
}

/* The client shrinks the memfd after the buffer was made: the read faults,
 * the SIGBUS guard turns it into a protocol error, we live on. */
TEST(truncated_after_create)
{
	int fds_before = count_fds();
	struct fixture f;
	setup(&f, 4);
	f.t.surface = wl_compositor_create_surface(f.t.compositor);
	zwp_fullscreen_shell_v1_present_surface(f.t.shell, f.t.surface,
						ZWP_FULLSCREEN_SHELL_V1_PRESENT_METHOD_DEFAULT,
						f.t.output);
	struct linear_buffer b;
	linear_buffer_create(&f, &b, 64, 64, DRM_FORMAT_XRGB8888, true, true, 0);
	test_assert(inproc_roundtrip(&f.t));
	munmap(b.pixels, b.size);
	b.pixels = mmap(NULL, b.size, PROT_READ, MAP_SHARED, b.fd, 0); /* for finish */
	test_assert(ftruncate(b.fd, 0) == 0);
	commit(f.t.surface, &b);
	expect_protocol_error(&f.t, &wl_buffer_interface, b.buffer, E(OUT_OF_BOUNDS));
	test_assert(f.t.frames == 0);
	linear_buffer_finish(&b);
	teardown(&f);
	test_assert(count_fds() == fds_before);
}

/* y_invert is not consumed: create gets `failed`, create_immed an error. */
static void flags_case(bool immed)
{
	int fds_before = count_fds();
	struct fixture f;
	setup(&f, 4);
	struct zwp_linux_buffer_params_v1 *params = zwp_linux_dmabuf_v1_create_params(f.c.dmabuf);
	add_memfd(params, 64 * 64 * 4, 0, 0, 256, DRM_FORMAT_MOD_LINEAR);
	if (immed) {
		struct wl_buffer *buffer = zwp_linux_buffer_params_v1_create_immed(
			params, 64, 64, DRM_FORMAT_XRGB8888,
			ZWP_LINUX_BUFFER_PARAMS_V1_FLAGS_Y_INVERT);
		expect_protocol_error(&f.t, &zwp_linux_buffer_params_v1_interface, params,
				      E(INVALID_WL_BUFFER));
		wl_buffer_destroy(buffer);
	} else {
		struct create_result result = { 0 };
		zwp_linux_buffer_params_v1_add_listener(params, &params_listener, &result);
		zwp_linux_buffer_params_v1_create(params, 64, 64, DRM_FORMAT_XRGB8888,
						  ZWP_LINUX_BUFFER_PARAMS_V1_FLAGS_Y_INVERT);
		test_assert(inproc_roundtrip(&f.t));
		test_assert(result.failed && !result.buffer);
		printf("create with y_invert: failed event\n");
	}
	zwp_linux_buffer_params_v1_destroy(params);
	teardown(&f);
	test_assert(count_fds() == fds_before);
}

TEST(flags_create_failed) { flags_case(false); }
TEST(flags_immed_error) { flags_case(true); }

/* --- params errors ------------------------------------------------------ */

/* A buffer `created` before the error came is the client's to destroy. */
static void destroy_created(void *data, struct zwp_linux_buffer_params_v1 *params,
			    struct wl_buffer *buffer)
{
	wl_buffer_destroy(buffer);
}

static void ignore_failed(void *data, struct zwp_linux_buffer_params_v1 *params)
{
}

static const struct zwp_linux_buffer_params_v1_listener destroy_created_listener = {
	.created = destroy_created, .failed = ignore_failed,
};

typedef void (*params_script)(struct zwp_linux_buffer_params_v1 *params);

static struct inproc *current; /* for scripts that need a roundtrip */

static void error_case(uint32_t version, params_script script, uint32_t code)
{
	int fds_before = count_fds();
	struct fixture f;
	setup(&f, version);
	struct zwp_linux_buffer_params_v1 *params = zwp_linux_dmabuf_v1_create_params(f.c.dmabuf);
	zwp_linux_buffer_params_v1_add_listener(params, &destroy_created_listener, NULL);
	current = &f.t;
	script(params);
	expect_protocol_error(&f.t, &zwp_linux_buffer_params_v1_interface, params, code);
	zwp_linux_buffer_params_v1_destroy(params);
	teardown(&f);
	/* Every fd the server received was closed, whatever the error. */
	test_assert(count_fds() == fds_before);
}

#define XR DRM_FORMAT_XRGB8888
#define LIN DRM_FORMAT_MOD_LINEAR
#define BUFFER_64 (64 * 64 * 4)

static void s_used_add(struct zwp_linux_buffer_params_v1 *p)
{
	add_memfd(p, BUFFER_64, 0, 0, 256, LIN);
	wl_buffer_destroy(zwp_linux_buffer_params_v1_create_immed(p, 64, 64, XR, 0));
	add_memfd(p, BUFFER_64, 1, 0, 256, LIN);
}
static void s_used_create(struct zwp_linux_buffer_params_v1 *p)
{
	add_memfd(p, BUFFER_64, 0, 0, 256, LIN);
	zwp_linux_buffer_params_v1_create(p, 64, 64, XR, 0);
	test_assert(inproc_roundtrip(current)); /* `created`, and the buffer destroyed */
	zwp_linux_buffer_params_v1_create(p, 64, 64, XR, 0);
}
static void s_plane_idx(struct zwp_linux_buffer_params_v1 *p) { add_memfd(p, BUFFER_64, 4, 0, 256, LIN); }
static void s_plane_set(struct zwp_linux_buffer_params_v1 *p)
{
	add_memfd(p, BUFFER_64, 0, 0, 256, LIN);
	add_memfd(p, BUFFER_64, 0, 0, 256, LIN);
}
static void s_incomplete_none(struct zwp_linux_buffer_params_v1 *p)
{
	zwp_linux_buffer_params_v1_create(p, 64, 64, XR, 0);
}
static void s_incomplete_no_plane0(struct zwp_linux_buffer_params_v1 *p)
{
	add_memfd(p, BUFFER_64, 1, 0, 256, LIN);
	zwp_linux_buffer_params_v1_create(p, 64, 64, XR, 0);
}
static void s_incomplete_hole(struct zwp_linux_buffer_params_v1 *p)
{
	add_memfd(p, BUFFER_64, 0, 0, 256, LIN);
	add_memfd(p, BUFFER_64, 2, 0, 256, LIN);
	zwp_linux_buffer_params_v1_create(p, 64, 64, XR, 0);
}
static void s_format_unknown(struct zwp_linux_buffer_params_v1 *p)
{
	add_memfd(p, BUFFER_64, 0, 0, 256, LIN);
	zwp_linux_buffer_params_v1_create(p, 64, 64, DRM_FORMAT_RGB565, 0);
}
static void s_format_two_planes(struct zwp_linux_buffer_params_v1 *p)
{
	add_memfd(p, BUFFER_64, 0, 0, 256, LIN);
	add_memfd(p, BUFFER_64, 1, 0, 256, LIN);
	zwp_linux_buffer_params_v1_create(p, 64, 64, XR, 0);
}
static void s_format_modifier(struct zwp_linux_buffer_params_v1 *p)
{
	add_memfd(p, BUFFER_64, 0, 0, 256, I915_FORMAT_MOD_X_TILED);
	wl_buffer_destroy(zwp_linux_buffer_params_v1_create_immed(p, 64, 64, XR, 0));
}
static void s_format_implicit_modifier(struct zwp_linux_buffer_params_v1 *p)
{
	add_memfd(p, BUFFER_64, 0, 0, 256, DRM_FORMAT_MOD_INVALID);
	zwp_linux_buffer_params_v1_create(p, 64, 64, XR, 0);
}
static void s_format_mixed_modifiers(struct zwp_linux_buffer_params_v1 *p)
{
	add_memfd(p, BUFFER_64, 0, 0, 256, LIN);
	add_memfd(p, BUFFER_64, 1, 0, 256, I915_FORMAT_MOD_X_TILED);
}
static void s_dimensions_zero(struct zwp_linux_buffer_params_v1 *p)
{
	add_memfd(p, BUFFER_64, 0, 0, 256, LIN);
	zwp_linux_buffer_params_v1_create(p, 0, 64, XR, 0);
}
static void s_dimensions_negative(struct zwp_linux_buffer_params_v1 *p)
{
	add_memfd(p, BUFFER_64, 0, 0, 256, LIN);
	wl_buffer_destroy(zwp_linux_buffer_params_v1_create_immed(p, 64, -1, XR, 0));
}
static void s_dimensions_huge(struct zwp_linux_buffer_params_v1 *p)
{
	add_memfd(p, BUFFER_64, 0, 0, 256, LIN);
	zwp_linux_buffer_params_v1_create(p, 100000, 1, XR, 0);
}
static void s_bounds_offset_stride_overflow(struct zwp_linux_buffer_params_v1 *p)
{
	add_memfd(p, BUFFER_64, 0, 0xffffff00u, 0x200, LIN);
	zwp_linux_buffer_params_v1_create(p, 64, 1, XR, 0);
}
static void s_bounds_stride_height_overflow(struct zwp_linux_buffer_params_v1 *p)
{
	add_memfd(p, BUFFER_64, 0, 0, 0x100000, LIN);
	zwp_linux_buffer_params_v1_create(p, 64, 8192, XR, 0);
}
static void s_bounds_past_fd(struct zwp_linux_buffer_params_v1 *p)
{
	add_memfd(p, BUFFER_64 - 1, 0, 0, 256, LIN);
	zwp_linux_buffer_params_v1_create(p, 64, 64, XR, 0);
}
static void s_bounds_offset_past_fd(struct zwp_linux_buffer_params_v1 *p)
{
	add_memfd(p, BUFFER_64, 0, BUFFER_64, 256, LIN);
	wl_buffer_destroy(zwp_linux_buffer_params_v1_create_immed(p, 1, 1, XR, 0));
}
static void s_bounds_offset_rows_past_fd(struct zwp_linux_buffer_params_v1 *p)
{
	add_memfd(p, BUFFER_64, 0, 256, 256, LIN);
	zwp_linux_buffer_params_v1_create(p, 64, 64, XR, 0);
}
static void s_bounds_stride_short(struct zwp_linux_buffer_params_v1 *p)
{
	add_memfd(p, BUFFER_64, 0, 0, 252, LIN);
	zwp_linux_buffer_params_v1_create(p, 64, 64, XR, 0);
}

/* --- locks (the zero-copy path's leases) ------------------------------- */

static struct client_buffer *server_buffer(struct fixture *f, struct wl_buffer *buffer)
{
	struct wl_list *clients = wl_display_get_client_list(f->t.server->display);
	struct wl_client *client = wl_client_from_link(clients->next);
	struct wl_resource *resource =
		wl_client_get_object(client, wl_proxy_get_id((struct wl_proxy *)buffer));
	test_assert(resource);
	return client_buffer_from_resource(resource);
}

static void *unref_in_thread(void *lease)
{
	wl_record_buffer_unlock(lease);
	return NULL;
}

TEST(lease_release_from_thread)
{
	int fds_before = count_fds();
	struct fixture f;
	setup(&f, 4);
	struct linear_buffer b;
	linear_buffer_create(&f, &b, 32, 32, DRM_FORMAT_XRGB8888, true, false, 0);
	test_assert(inproc_roundtrip(&f.t));
	struct wl_record_buffer *lease = dmabuf_buffer_lock(server_buffer(&f, b.buffer));
	test_assert(lease);
	const struct dmabuf_attributes *a = wl_record_buffer_get_dmabuf(lease);
	test_assert(a->width == 32 && a->height == 32 && a->format == DRM_FORMAT_XRGB8888 &&
	      a->n_planes == 1 && a->modifier == DRM_FORMAT_MOD_LINEAR && a->fd[0] >= 0);
	struct wl_record_buffer *second = dmabuf_buffer_lock(server_buffer(&f, b.buffer));
	test_assert(second == lease); /* one buffer, one id, however often locked */

	/* Held: no release. One lease ended: still held by the other. */
	wl_record_buffer_lock(lease);
	wl_record_buffer_unlock(lease);
	wl_record_buffer_unlock(second);
	test_assert(inproc_roundtrip(&f.t));
	test_assert(b.released == 0);
	/* The last one ends on another thread (the encoder's): released on
	 * the main loop. */
	pthread_t thread;
	test_assert(pthread_create(&thread, NULL, unref_in_thread, lease) == 0);
	test_assert(pthread_join(thread, NULL) == 0);
	test_assert(inproc_roundtrip(&f.t));
	test_assert(b.released == 1);
	printf("released once, after the last lease ended on another thread\n");

	/* Committed again, unlocked on the encoder's thread and committed
	 * once more before the main loop saw it: the stale unlock releases
	 * nothing, the last one does. */
	lease = dmabuf_buffer_lock(server_buffer(&f, b.buffer));
	test_assert(pthread_create(&thread, NULL, unref_in_thread, lease) == 0);
	test_assert(pthread_join(thread, NULL) == 0);
	lease = dmabuf_buffer_lock(server_buffer(&f, b.buffer));
	test_assert(inproc_roundtrip(&f.t));
	test_assert(b.released == 1);
	wl_record_buffer_unlock(lease);
	test_assert(inproc_roundtrip(&f.t));
	test_assert(b.released == 2);

	/* A shm buffer has no lease. */
	struct test_buffer shm;
	test_buffer_init(&f.t, &shm, 8, 8, WL_SHM_FORMAT_XRGB8888);
	test_assert(inproc_roundtrip(&f.t));
	test_assert(dmabuf_buffer_lock(server_buffer(&f, shm.buffer)) == NULL);
	test_buffer_finish(&shm);

	linear_buffer_finish(&b);
	teardown(&f);
	test_assert(count_fds() == fds_before);
}

/* Only XRGB8888/ARGB8888 dmabufs are lent (the encoder reads and maps
 * those only); the other formats are copied and converted. */
TEST(lease_native_formats_only)
{
	struct fixture f;
	setup(&f, 4);
	for (int i = 0; i < READ_FORMAT_COUNT; i++) {
		struct linear_buffer b;
		linear_buffer_create(&f, &b, 16, 16, read_formats[i], true, false, 0);
		test_assert(inproc_roundtrip(&f.t));
		struct wl_record_buffer *lease = dmabuf_buffer_lock(server_buffer(&f, b.buffer));
		bool native = read_formats[i] == DRM_FORMAT_XRGB8888 ||
			      read_formats[i] == DRM_FORMAT_ARGB8888;
		test_assert(native == (lease != NULL), "format 0x%08x: %s", read_formats[i],
			    lease ? "lent" : "not lent");
		if (lease)
			wl_record_buffer_unlock(lease);
		test_assert(inproc_roundtrip(&f.t));
		linear_buffer_finish(&b);
	}
	teardown(&f);
}

/* The client destroys the buffer while the encoder still reads it: the
 * planes stay open until the lease ends, then close; nothing is released. */
TEST(lease_outlives_buffer)
{
	int fds_before = count_fds();
	struct fixture f;
	setup(&f, 4);
	int fds_bound = count_fds();
	struct linear_buffer b;
	linear_buffer_create(&f, &b, 32, 32, DRM_FORMAT_ARGB8888, false, false, 0);
	struct wl_record_buffer *lease = dmabuf_buffer_lock(server_buffer(&f, b.buffer));
	test_assert(lease);
	wl_buffer_destroy(b.buffer);
	b.buffer = NULL;
	test_assert(inproc_roundtrip(&f.t));
	test_assert(count_fds() == fds_bound + 2); /* ours + the plane the lease keeps */
	test_assert(wl_record_buffer_get_dmabuf(lease)->fd[0] >= 0);
	pthread_t thread;
	test_assert(pthread_create(&thread, NULL, unref_in_thread, lease) == 0);
	test_assert(pthread_join(thread, NULL) == 0);
	test_assert(inproc_roundtrip(&f.t));
	test_assert(count_fds() == fds_bound + 1);
	test_assert(b.released == 0);
	linear_buffer_finish(&b);

	/* And a lease still held when the compositor goes away. */
	linear_buffer_create(&f, &b, 16, 16, DRM_FORMAT_XRGB8888, true, false, 0);
	test_assert(inproc_roundtrip(&f.t));
	lease = dmabuf_buffer_lock(server_buffer(&f, b.buffer));
	test_assert(lease);
	linear_buffer_finish(&b);
	teardown(&f);
	test_assert(count_fds() == fds_before + 1);
	wl_record_buffer_unlock(lease);
	test_assert(count_fds() == fds_before);
}

TEST(already_used_add) { error_case(4, s_used_add, E(ALREADY_USED)); }
TEST(already_used_create) { error_case(3, s_used_create, E(ALREADY_USED)); }
TEST(plane_idx) { error_case(4, s_plane_idx, E(PLANE_IDX)); }
TEST(plane_set) { error_case(3, s_plane_set, E(PLANE_SET)); }
TEST(incomplete_no_planes) { error_case(4, s_incomplete_none, E(INCOMPLETE)); }
TEST(incomplete_no_plane0) { error_case(3, s_incomplete_no_plane0, E(INCOMPLETE)); }
TEST(incomplete_hole) { error_case(4, s_incomplete_hole, E(INCOMPLETE)); }
TEST(invalid_format_unknown) { error_case(4, s_format_unknown, E(INVALID_FORMAT)); }
TEST(invalid_format_plane_count) { error_case(3, s_format_two_planes, E(INVALID_FORMAT)); }
TEST(invalid_format_modifier) { error_case(4, s_format_modifier, E(INVALID_FORMAT)); }
TEST(invalid_format_implicit_modifier) { error_case(3, s_format_implicit_modifier, E(INVALID_FORMAT)); }
TEST(invalid_format_mixed_modifiers) { error_case(4, s_format_mixed_modifiers, E(INVALID_FORMAT)); }
TEST(invalid_dimensions_zero) { error_case(3, s_dimensions_zero, E(INVALID_DIMENSIONS)); }
TEST(invalid_dimensions_negative) { error_case(4, s_dimensions_negative, E(INVALID_DIMENSIONS)); }
TEST(invalid_dimensions_huge) { error_case(4, s_dimensions_huge, E(INVALID_DIMENSIONS)); }
TEST(out_of_bounds_offset_stride_overflow) { error_case(4, s_bounds_offset_stride_overflow, E(OUT_OF_BOUNDS)); }
TEST(out_of_bounds_stride_height_overflow) { error_case(3, s_bounds_stride_height_overflow, E(OUT_OF_BOUNDS)); }
TEST(out_of_bounds_past_fd) { error_case(4, s_bounds_past_fd, E(OUT_OF_BOUNDS)); }
TEST(out_of_bounds_offset_past_fd) { error_case(4, s_bounds_offset_past_fd, E(OUT_OF_BOUNDS)); }
TEST(out_of_bounds_offset_rows_past_fd) { error_case(3, s_bounds_offset_rows_past_fd, E(OUT_OF_BOUNDS)); }
TEST(out_of_bounds_stride_short) { error_case(4, s_bounds_stride_short, E(OUT_OF_BOUNDS)); }
