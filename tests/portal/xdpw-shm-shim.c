/* Preloaded into xdg-desktop-portal-wlr 0.7 by the portal tests only.
 *
 * xdpw 0.7 starts a cast only once a wlr-screencopy frame has announced
 * both an shm buffer and, the portal interface being version 3 or more, a
 * linux_dmabuf one (src/screencast/screencast.c, start_screencast:
 * "unable to receive a valid format from wlr_screencopy"). sway 1.7 with
 * the pixman renderer (no GPU) announces shm only, so xdpw refuses every
 * cast (xdpw issue #289). This shim repeats the frame's shm announcement as
 * its dmabuf announcement just before buffer_done. xdpw then passes the
 * check; it still offers PipeWire shm buffers only (without a GBM device
 * it has no dmabuf modifiers to offer) and copies through wl_shm, so the
 * pixels reaching wl-record are sway's own, copied the normal way.
 *
 * How: libwayland-client's wl_proxy_add_listener is wrapped; for a
 * zwlr_screencopy_frame_v1 the listener is swapped for one whose buffer
 * and buffer_done handlers note the shm format and call xdpw's linux_dmabuf
 * handler before its buffer_done. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct wl_proxy;
const char *wl_proxy_get_class(struct wl_proxy *proxy);
int wl_proxy_add_listener(struct wl_proxy *proxy, void (**implementation)(void), void *data);

/* zwlr_screencopy_frame_v1's events, in the protocol's order. */
enum { EVENT_BUFFER, EVENT_FLAGS, EVENT_READY, EVENT_FAILED, EVENT_DAMAGE,
       EVENT_LINUX_DMABUF, EVENT_BUFFER_DONE, EVENT_COUNT };

typedef void (*buffer_fn)(void *data, struct wl_proxy *frame, uint32_t format, uint32_t width,
			  uint32_t height, uint32_t stride);
typedef void (*linux_dmabuf_fn)(void *data, struct wl_proxy *frame, uint32_t format,
				uint32_t width, uint32_t height);
typedef void (*buffer_done_fn)(void *data, struct wl_proxy *frame);

/* xdpw has one listener for all its frames, and one thread. */
static void (**xdpw_listener)(void);
static void (*shim_listener[EVENT_COUNT])(void);
static uint32_t shm_format, shm_width, shm_height;

/* wl_shm's two numbered formats; the others are DRM fourccs already. */
static uint32_t drm_fourcc_of_shm(uint32_t format)
{
	if (format == 0)
		return 0x34325241; /* 'AR24' ARGB8888 */
	if (format == 1)
		return 0x34325258; /* 'XR24' XRGB8888 */
	return format;
}

static void shim_buffer(void *data, struct wl_proxy *frame, uint32_t format, uint32_t width,
			uint32_t height, uint32_t stride)
{
	shm_format = drm_fourcc_of_shm(format);
	shm_width = width;
	shm_height = height;
	((buffer_fn)xdpw_listener[EVENT_BUFFER])(data, frame, format, width, height, stride);
}

static void shim_buffer_done(void *data, struct wl_proxy *frame)
{
	if (shm_format)
		((linux_dmabuf_fn)xdpw_listener[EVENT_LINUX_DMABUF])(data, frame, shm_format,
								    shm_width, shm_height);
	((buffer_done_fn)xdpw_listener[EVENT_BUFFER_DONE])(data, frame);
}

int wl_proxy_add_listener(struct wl_proxy *proxy, void (**implementation)(void), void *data)
{
	static int (*real)(struct wl_proxy *, void (**)(void), void *);
	if (!real)
		real = (int (*)(struct wl_proxy *, void (**)(void), void *))
			dlsym(RTLD_NEXT, "wl_proxy_add_listener");
	if (strcmp(wl_proxy_get_class(proxy), "zwlr_screencopy_frame_v1") == 0) {
		if (!xdpw_listener) {
			xdpw_listener = implementation;
			memcpy(shim_listener, implementation, sizeof(shim_listener));
			shim_listener[EVENT_BUFFER] = (void (*)(void))shim_buffer;
			shim_listener[EVENT_BUFFER_DONE] = (void (*)(void))shim_buffer_done;
			fprintf(stderr, "xdpw-shm-shim: announcing shm frames as dmabuf ones too\n");
		}
		if (implementation == xdpw_listener)
			implementation = shim_listener;
	}
	return real(proxy, implementation, data);
}
