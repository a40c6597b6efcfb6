#ifndef WL_RECORD_WINDOW_DMABUF_H
#define WL_RECORD_WINDOW_DMABUF_H

#include <stdbool.h>
#include <stdint.h>

struct wl_record_buffer;
struct wl_registry;
struct wl_surface;

/* --window without a copy: when the frame is a hosted client's dmabuf (its
 * wl_record_buffer) and the desktop offers zwp_linux_dmabuf_v1 (version 3 modifiers or
 * version 4 feedback) with that exact format and modifier, the desktop is
 * given a wl_buffer on the same planes instead of a copy in shm.
 *
 * One desktop wl_buffer per client buffer (wl_record_buffer.id), made
 * with zwp_linux_buffer_params_v1.create (a refusal is a `failed` event,
 * not a protocol error) and kept while the client's buffer exists. While
 * the desktop holds it (attached, not yet released) it is locked, so the
 * hosted client cannot draw into what the desktop shows; nothing ever waits
 * for the desktop. A buffer the desktop refused, or a format it does not
 * offer, is remembered and copied from then on (said once under -v). */

struct window_dmabuf;

/* Main thread, like the rest of the window. `ready` is called when the
 * desktop answered a buffer creation (made or refused): a picture that was
 * put off for it can be drawn now. */
struct window_dmabuf *window_dmabuf_create(void (*ready)(void *data), void *data);

/* For the registry listener: takes the global when `interface` is
 * zwp_linux_dmabuf_v1 (versions 3 and 4; older ones give no modifiers and
 * are left alone). True when it was that interface. */
bool window_dmabuf_global(struct window_dmabuf *dmabuf, struct wl_registry *registry,
			  uint32_t name, const char *interface, uint32_t version);

/* True when the global was bound: its formats come with the next round trip. */
bool window_dmabuf_bound(const struct window_dmabuf *dmabuf);

enum window_dmabuf_result {
	WINDOW_DMABUF_ATTACHED, /* the desktop's buffer is attached to the surface */
	WINDOW_DMABUF_PENDING,  /* asked for; `ready` comes with the answer */
	WINDOW_DMABUF_COPY,     /* not possible (now): copy the pixels */
};

/* Attaches the desktop's wl_buffer for `buffer` to `surface`, locking it
 * until the desktop releases it. A buffer not yet asked for is asked
 * for: PENDING, or COPY when `may_wait` is false (the picture is needed
 * now). `whole_damage` is set when the frame's damage cannot be trusted in
 * the buffer's coordinates (a y-inverted buffer). NULL `dmabuf`, or a
 * `buffer` that is no dmabuf: COPY. */
enum window_dmabuf_result window_dmabuf_attach(struct window_dmabuf *dmabuf,
					       struct wl_surface *surface,
					       struct wl_record_buffer *buffer, bool may_wait,
					       bool *whole_damage);

/* True when the desktop holds a client buffer (attached, not released)
 * and not `buffer`: the client may need that buffer back to draw. Only a
 * commit of another buffer makes the desktop release it, so such a picture
 * should go without waiting for the desktop's frame callback (a hidden
 * window gets none). NULL `buffer` (a picture in memory): any held. */
bool window_dmabuf_holds_another(const struct window_dmabuf *dmabuf,
				 const struct wl_record_buffer *buffer);

/* Drops the desktop's buffers of client buffers that are gone (only our
 * reference keeps them: wl_record_buffer_unused), unless pending or held by the desktop:
 * their memory is freed without waiting for the next dmabuf frame. */
void window_dmabuf_sweep(struct window_dmabuf *dmabuf);

/* The desktop's connection is gone: no release will come, so what it held
 * is given back to the hosted clients now. */
void window_dmabuf_desktop_gone(struct window_dmabuf *dmabuf);

/* Destroys the desktop's buffers and drops every lock and reference held.
 * NULL is accepted. */
void window_dmabuf_destroy(struct window_dmabuf *dmabuf);

#endif
