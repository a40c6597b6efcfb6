/* The two import paths that need a GPU, run where one exists and skipped
 * (exit 77, with the reason) where not:
 *  egl-import  Mesa EGL import of a LINEAR udmabuf + GL readback, pixel-exact;
 *  vaapi-map   a LINEAR udmabuf mapped into VA-API (DRM_PRIME -> VAAPI),
 *              converted to NV12 by scale_vaapi, downloaded and compared
 *              with the pattern (PSNR).
 * Both need /dev/udmabuf to make a real dma-buf without a GPU client. */
#include <dirent.h>
#include <drm_fourcc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <libavutil/hwcontext.h>
#include <math.h>

#include "dmabuf_buffer.h"
#include "dmabuf_client.h"
#include "egl_import.h"
#include "inproc.h"
#include "pattern.h"
#include "vaapi_map.h"

#define W 256
#define H 128

/* Mesa's drivers keep allocations for the life of the process; LeakSanitizer
 * is not about them. */
void __lsan_disable(void) __attribute__((weak));

static bool first_render_node(char *path, size_t size)
{
	DIR *dir = opendir("/dev/dri");
	if (!dir)
		return false;
	char best[256] = "";
	struct dirent *entry;
	while ((entry = readdir(dir)))
		if (strncmp(entry->d_name, "renderD", 7) == 0 &&
		    (!best[0] || strcmp(entry->d_name, best) < 0))
			snprintf(best, sizeof(best), "%s", entry->d_name);
	closedir(dir);
	if (!best[0])
		return false;
	snprintf(path, size, "/dev/dri/%s", best);
	return true;
}

/* A udmabuf holding pattern frame 0, as attributes wl-record would get. */
static bool make_udmabuf(struct dmabuf_attributes *a, void **pixels)
{
	bool udmabuf;
	int fd = dmabuf_client_make_fd((size_t)W * H * 4, false, pixels, &udmabuf);
	if (!udmabuf) {
		close(fd);
		munmap(*pixels, (size_t)W * H * 4);
		return false;
	}
	pattern_fill(*pixels, W * 4, 0, W, H, 0);
	dmabuf_attributes_init(a);
	a->width = W;
	a->height = H;
	a->format = DRM_FORMAT_XRGB8888;
	a->modifier = DRM_FORMAT_MOD_LINEAR;
	a->n_planes = 1;
	a->fd[0] = fd;
	a->stride[0] = W * 4;
	return true;
}

TEST(egl_import)
{
	if (__lsan_disable)
		__lsan_disable();
	char node[300];
	bool have_node = first_render_node(node, sizeof(node));
	char why[256] = "";
	struct egl_importer *importer = egl_importer_create(have_node ? node : NULL, why, sizeof(why));
	if (!importer)
		test_skip("EGL dmabuf import unavailable: %s", why);
	struct dmabuf_attributes a;
	void *pixels;
	if (!make_udmabuf(&a, &pixels)) {
		egl_importer_destroy(importer);
		test_skip("no /dev/udmabuf to make a dma-buf with");
	}
	uint32_t *out = calloc((size_t)W * H, 4);
	test_assert(out);
	test_assert(egl_importer_check(importer, &a, why, sizeof(why)));
	test_assert(egl_importer_read(importer, &a, (uint8_t *)out, W * 4, why, sizeof(why)));
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
			test_assert((out[y * W + x] & 0xffffff) == pattern_pixel(0, x, y, W, H));
	printf("EGL import + readback of a LINEAR udmabuf: %dx%d pixel-exact\n", W, H);
	free(out);
	dmabuf_attributes_close(&a);
	munmap(pixels, (size_t)W * H * 4);
	egl_importer_destroy(importer);
}

static bool roundtrip(void *data)
{
	return inproc_roundtrip(data);
}

TEST(vaapi_map)
{
	char node[300];
	if (!first_render_node(node, sizeof(node)))
		test_skip("no render node in /dev/dri: no VA-API here");
	AVBufferRef *device = NULL;
	int ret = av_hwdevice_ctx_create(&device, AV_HWDEVICE_TYPE_VAAPI, node, NULL, 0);
	if (ret < 0)
		test_skip("cannot open VA-API on %s: %s", node, av_err2str(ret));
	if (access("/dev/udmabuf", R_OK | W_OK) != 0) {
		av_buffer_unref(&device);
		test_skip("no /dev/udmabuf to make a dma-buf with");
	}
	/* A client dmabuf needs a buffer made through the protocol. */
	struct inproc t;
	inproc_init(&t, W, H);
	struct dmabuf_client c;
	test_assert(dmabuf_client_bind(&c, t.display, 4, roundtrip, &t));
	void *pixels;
	bool udmabuf;
	int fd = dmabuf_client_make_fd((size_t)W * H * 4, false, &pixels, &udmabuf);
	test_assert(udmabuf);
	pattern_fill(pixels, W * 4, 0, W, H, 0);
	struct zwp_linux_buffer_params_v1 *params = zwp_linux_dmabuf_v1_create_params(c.dmabuf);
	zwp_linux_buffer_params_v1_add(params, fd, 0, 0, W * 4, 0, 0);
	struct wl_buffer *buffer =
		zwp_linux_buffer_params_v1_create_immed(params, W, H, DRM_FORMAT_XRGB8888, 0);
	zwp_linux_buffer_params_v1_destroy(params);
	test_assert(inproc_roundtrip(&t));
	struct wl_client *client =
		wl_client_from_link(wl_display_get_client_list(t.server->display)->next);
	struct wl_resource *resource =
		wl_client_get_object(client, wl_proxy_get_id((struct wl_proxy *)buffer));
	struct wl_record_buffer *lease = dmabuf_buffer_lock(client_buffer_from_resource(resource));
	test_assert(lease);

	struct vaapi_map *map = vaapi_map_create(device);
	test_assert(map);
	AVFrame *nv12 = av_frame_alloc(), *downloaded = av_frame_alloc();
	test_assert(nv12 && downloaded);
	char why[256] = "";
	ret = vaapi_map_convert(map, lease, W, H, nv12, why, sizeof(why));
	test_assert(ret >= 0, "vaapi_map_convert: %s", why);
	test_assert(nv12->format == AV_PIX_FMT_VAAPI && nv12->width == W && nv12->height == H);
	test_assert(av_hwframe_transfer_data(downloaded, nv12, 0) >= 0);
	/* Luma of the pattern's first row against the downloaded NV12. */
	double error = 0;
	for (int x = 0; x < W; x++) {
		uint32_t p = pattern_pixel(0, x, H / 2, W, H);
		double r = p >> 16 & 0xff, g = p >> 8 & 0xff, b = p & 0xff;
		double y = 16 + (0.2126 * r + 0.7152 * g + 0.0722 * b) * 219 / 255;
		double d = y - downloaded->data[0][(H / 2) * downloaded->linesize[0] + x];
		error += d * d;
	}
	double rms = sqrt(error / W);
	printf("VA-API map + scale_vaapi of a LINEAR udmabuf: luma RMS error %.2f\n", rms);
	test_assert(rms < 4);
	struct vaapi_map_hops hops;
	vaapi_map_get_hops(map, &hops);
	test_assert(hops.imported && hops.mapped && hops.converted);

	av_frame_free(&nv12);
	av_frame_free(&downloaded);
	vaapi_map_destroy(map);
	wl_record_buffer_unlock(lease);
	av_buffer_unref(&device);
	wl_buffer_destroy(buffer);
	munmap(pixels, (size_t)W * H * 4);
	close(fd);
	dmabuf_client_finish(&c);
	inproc_finish(&t);
}
