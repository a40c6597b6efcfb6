#define LOG_MODULE "screencopy"
/* dmabuf_pool.h through libgbm. GBM is not thread-safe: every call on a
 * device (allocate, map, destroy) holds the node's lock, since a buffer's
 * last reference may go, and the CPU fallback read run, on the encoder
 * thread. */
#include "dmabuf_pool.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/dma-buf.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gbm.h>

#include "linux-dmabuf-unstable-v1-client-protocol.h"
#include "log.h"
#include "stale_damage.h"

/* drm_fourcc.h's, without libdrm's headers for two numbers. */
#define MOD_LINEAR 0ULL
#define MOD_INVALID 0x00ffffffffffffffULL

/* How long a CPU read waits for the compositor's copy to land (its write
 * fence), as the hosted path waits for a client's (capture/dmabuf_read.h). */
#define WRITE_WAIT_MS 100

struct dmabuf_node {
	atomic_int refs; /* the pool's, and one per buffer */
	pthread_mutex_t lock;
	int fd;
	struct gbm_device *gbm;
};

bool dmabuf_pool_available(void)
{
	return true;
}

static struct screencopy_dmabuf_buffer *screencopy_dmabuf_buffer_from(struct wl_record_buffer *base)
{
	struct screencopy_dmabuf_buffer *buffer = wl_container_of(base, buffer, base);
	return buffer;
}

static void node_unref(struct dmabuf_node *node)
{
	if (!node || atomic_fetch_sub(&node->refs, 1) != 1)
		return;
	gbm_device_destroy(node->gbm);
	close(node->fd);
	pthread_mutex_destroy(&node->lock);
	free(node);
}

bool dmabuf_pool_open(struct screencopy_dmabuf_pool *pool, const char *path, char *why,
		      size_t why_size)
{
	if (pool->node)
		return true;
	struct dmabuf_node *node = calloc(1, sizeof(*node));
	if (!node) {
		snprintf(why, why_size, "out of memory");
		return false;
	}
	node->fd = open(path, O_RDWR | O_CLOEXEC);
	if (node->fd < 0) {
		snprintf(why, why_size, "cannot open %s: %s", path, strerror(errno));
		free(node);
		return false;
	}
	node->gbm = gbm_create_device(node->fd);
	if (!node->gbm) {
		snprintf(why, why_size, "GBM cannot use %s", path);
		close(node->fd);
		free(node);
		return false;
	}
	atomic_init(&node->refs, 1);
	pthread_mutex_init(&node->lock, NULL);
	pool->node = node;
	return true;
}

static void sync_read(int fd, bool start)
{
	struct dma_buf_sync sync = {
		.flags = (start ? DMA_BUF_SYNC_START : DMA_BUF_SYNC_END) | DMA_BUF_SYNC_READ,
	};
	int ret;
	do {
		ret = ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync);
	} while (ret < 0 && (errno == EINTR || errno == EAGAIN));
}

/* A LINEAR buffer, mapped. No SIGBUS guard: the buffer is wl-record's own
 * allocation, whose size nobody can shrink (a client's shm pool can be, the
 * reason for capture/'s guard), and the rows read are checked against it. */
static bool read_linear(const struct dmabuf_attributes *a, uint8_t *dst, int dst_stride,
			char *why, size_t why_size)
{
	off_t end = lseek(a->fd[0], 0, SEEK_END);
	size_t size = (size_t)a->offset[0] + (size_t)a->stride[0] * (size_t)a->height;
	if (end < 0 || (size_t)end < size || a->stride[0] < (uint32_t)a->width * 4) {
		snprintf(why, why_size, "the LINEAR plane is smaller than %dx%d", a->width,
			 a->height);
		return false;
	}
	uint8_t *map = mmap(NULL, size, PROT_READ, MAP_SHARED, a->fd[0], 0);
	if (map == MAP_FAILED) {
		snprintf(why, why_size, "cannot mmap the LINEAR plane: %s", strerror(errno));
		return false;
	}
	sync_read(a->fd[0], true);
	size_t row = (size_t)a->width * 4;
	for (int y = 0; y < a->height; y++)
		memcpy(dst + (size_t)y * (size_t)dst_stride,
		       map + a->offset[0] + (size_t)y * a->stride[0], row);
	sync_read(a->fd[0], false);
	munmap(map, size);
	return true;
}

/* Any other layout, detiled by the driver. */
static bool read_mapped(struct screencopy_dmabuf_buffer *buffer, uint8_t *dst, int dst_stride,
			char *why, size_t why_size)
{
	pthread_mutex_lock(&buffer->node->lock);
	uint32_t stride = 0;
	void *map_data = NULL;
	uint8_t *map = gbm_bo_map(buffer->bo, 0, 0, (uint32_t)buffer->width,
				  (uint32_t)buffer->height, GBM_BO_TRANSFER_READ, &stride, &map_data);
	if (!map) {
		pthread_mutex_unlock(&buffer->node->lock);
		snprintf(why, why_size, "gbm_bo_map failed");
		return false;
	}
	size_t row = (size_t)buffer->width * 4;
	for (int y = 0; y < buffer->height; y++)
		memcpy(dst + (size_t)y * (size_t)dst_stride, map + (size_t)y * stride, row);
	gbm_bo_unmap(buffer->bo, map_data);
	pthread_mutex_unlock(&buffer->node->lock);
	return true;
}

static bool buffer_read(struct wl_record_buffer *base, uint8_t *dst, int dst_stride, char *why,
			size_t why_size)
{
	struct screencopy_dmabuf_buffer *buffer = screencopy_dmabuf_buffer_from(base);
	const struct dmabuf_attributes *a = &buffer->attributes;
	/* The compositor said `ready`; its GPU may still be writing. */
	struct pollfd pfd = { .fd = a->fd[0], .events = POLLIN };
	while (poll(&pfd, 1, WRITE_WAIT_MS) < 0 && errno == EINTR) {
	}
	if (a->modifier == MOD_LINEAR && a->n_planes == 1)
		return read_linear(a, dst, dst_stride, why, why_size);
	return read_mapped(buffer, dst, dst_stride, why, why_size);
}

/* The last reference (any thread). */
static void buffer_destroy(struct wl_record_buffer *base)
{
	struct screencopy_dmabuf_buffer *buffer = screencopy_dmabuf_buffer_from(base);
	pthread_mutex_lock(&buffer->node->lock);
	gbm_bo_destroy(buffer->bo);
	pthread_mutex_unlock(&buffer->node->lock);
	for (int i = 0; i < buffer->attributes.n_planes; i++)
		if (buffer->attributes.fd[i] >= 0)
			close(buffer->attributes.fd[i]);
	node_unref(buffer->node);
	free(buffer);
}

static const struct dmabuf_attributes *buffer_get_dmabuf(struct wl_record_buffer *base)
{
	return &screencopy_dmabuf_buffer_from(base)->attributes;
}

static const struct wl_record_buffer_impl buffer_impl = {
	.destroy = buffer_destroy,
	.get_dmabuf = buffer_get_dmabuf,
	.read = buffer_read,
};

static struct gbm_bo *allocate(struct dmabuf_node *node, const struct dmabuf_offer *offer)
{
	uint64_t modifiers[DMABUF_OFFER_MAX_MODIFIERS];
	int n = 0;
	for (int i = 0; i < offer->n_modifiers; i++)
		if (offer->modifiers[i] != MOD_INVALID)
			modifiers[n++] = offer->modifiers[i];
	struct gbm_bo *bo = NULL;
	uint32_t w = (uint32_t)offer->width, h = (uint32_t)offer->height;
	/* The compositor's modifiers first (it renders into them); LINEAR
	 * otherwise: every importer takes it and the CPU reads it. */
	if (n)
		bo = gbm_bo_create_with_modifiers2(node->gbm, w, h, offer->format, modifiers,
						   (unsigned)n, GBM_BO_USE_RENDERING);
	if (!bo)
		bo = gbm_bo_create(node->gbm, w, h, offer->format,
				   GBM_BO_USE_RENDERING | GBM_BO_USE_LINEAR);
	if (!bo)
		bo = gbm_bo_create(node->gbm, w, h, offer->format, GBM_BO_USE_LINEAR);
	return bo;
}

/* The pool's create: a buffer for the offer asked for (pool->asked),
 * with the reason of a failure in pool->why. */
static struct wl_record_buffer *buffer_create(void *data, int width, int height, uint32_t format)
{
	struct screencopy_dmabuf_pool *pool = data;
	const struct dmabuf_offer *offer = pool->asked;
	char *why = pool->why;
	size_t why_size = pool->why_size;
	struct dmabuf_node *node = pool->node;
	struct screencopy_dmabuf_buffer *buffer = calloc(1, sizeof(*buffer));
	if (!buffer) {
		snprintf(why, why_size, "out of memory");
		return NULL;
	}
	struct dmabuf_attributes a = {
		.width = offer->width,
		.height = offer->height,
		.format = offer->format,
		.fd = { -1, -1, -1, -1 },
	};
	pthread_mutex_lock(&node->lock);
	struct gbm_bo *bo = allocate(node, offer);
	if (!bo) {
		pthread_mutex_unlock(&node->lock);
		snprintf(why, why_size, "GBM cannot allocate a %dx%d buffer of format 0x%08x: %s",
			 offer->width, offer->height, offer->format, strerror(errno));
		free(buffer);
		return NULL;
	}
	a.modifier = gbm_bo_get_modifier(bo);
	a.n_planes = gbm_bo_get_plane_count(bo);
	bool exported = a.n_planes >= 1 && a.n_planes <= DMABUF_MAX_PLANES;
	for (int i = 0; exported && i < a.n_planes; i++) {
		a.fd[i] = gbm_bo_get_fd_for_plane(bo, i);
		a.offset[i] = gbm_bo_get_offset(bo, i);
		a.stride[i] = gbm_bo_get_stride_for_plane(bo, i);
		exported = a.fd[i] >= 0;
	}
	if (!exported) {
		for (int i = 0; i < DMABUF_MAX_PLANES; i++)
			if (a.fd[i] >= 0)
				close(a.fd[i]);
		gbm_bo_destroy(bo);
		pthread_mutex_unlock(&node->lock);
		snprintf(why, why_size, "GBM cannot export the buffer's planes");
		free(buffer);
		return NULL;
	}
	pthread_mutex_unlock(&node->lock);

	atomic_fetch_add(&node->refs, 1);
	buffer->node = node;
	buffer->bo = bo;
	buffer->width = offer->width;
	buffer->height = offer->height;
	buffer->format = offer->format;
	wl_record_buffer_init(&buffer->base, &buffer_impl, offer->width, offer->height,
			      offer->format);
	buffer->attributes = a;

	struct zwp_linux_buffer_params_v1 *params =
		zwp_linux_dmabuf_v1_create_params(pool->linux_dmabuf);
	for (int i = 0; i < a.n_planes; i++)
		zwp_linux_buffer_params_v1_add(params, a.fd[i], (uint32_t)i, a.offset[i], a.stride[i],
					       (uint32_t)(a.modifier >> 32),
					       (uint32_t)(a.modifier & 0xffffffff));
	/* A buffer the compositor refuses fails the copy (its `failed`): the
	 * source then copies into shm (screencopy_dmabuf_failed). */
	buffer->wl_buffer = zwp_linux_buffer_params_v1_create_immed(params, offer->width,
								   offer->height, offer->format, 0);
	zwp_linux_buffer_params_v1_destroy(params);
	LOG_DBG("dmabuf %dx%d format 0x%08x modifier 0x%016llx, %d plane(s)", offer->width,
		offer->height, offer->format, (unsigned long long)a.modifier, a.n_planes);
	return &buffer->base;
}

/* The pool lets go of a buffer (main thread): its wl_buffer goes now, the
 * GBM object and fds when no frame or cache keeps it. */
static void buffer_retire(struct wl_record_buffer *base, void *data)
{
	struct screencopy_dmabuf_buffer *buffer = screencopy_dmabuf_buffer_from(base);
	if (buffer->wl_buffer)
		wl_buffer_destroy(buffer->wl_buffer);
	buffer->wl_buffer = NULL;
}

void dmabuf_pool_init(struct screencopy_dmabuf_pool *pool)
{
	wl_record_buffer_pool_init(&pool->buffers, DMABUF_POOL_MAX_BUFFERS, buffer_create, pool);
	wl_record_buffer_pool_set_retire(&pool->buffers, buffer_retire);
}

struct screencopy_dmabuf_buffer *dmabuf_pool_buffer_for(struct screencopy_dmabuf_pool *pool,
							const struct dmabuf_offer *offer,
							char *why, size_t why_size)
{
	why[0] = 0;
	if (!pool->node || !pool->linux_dmabuf) {
		snprintf(why, why_size, "no render node open");
		return NULL;
	}
	pool->asked = offer;
	pool->why = why;
	pool->why_size = why_size;
	struct wl_record_buffer *buffer = wl_record_buffer_pool_acquire(
		&pool->buffers, offer->width, offer->height, offer->format, NULL);
	pool->asked = NULL;
	pool->why = NULL;
	return buffer ? screencopy_dmabuf_buffer_from(buffer) : NULL;
}

bool dmabuf_pool_full(const struct screencopy_dmabuf_pool *pool)
{
	return wl_record_buffer_pool_full(&pool->buffers);
}

struct dmabuf_stale_note {
	const struct screencopy_dmabuf_buffer *filled;
	bool known;
	const struct frame_damage *damage;
};

static void note_stale(struct wl_record_buffer *base, void *data)
{
	struct screencopy_dmabuf_buffer *b = screencopy_dmabuf_buffer_from(base);
	const struct dmabuf_stale_note *note = data;
	stale_damage_note(&b->stale_known, &b->stale, b == note->filled, note->known,
			  note->damage);
}

void dmabuf_pool_note_copy(struct screencopy_dmabuf_pool *pool,
			   struct screencopy_dmabuf_buffer *filled, bool known,
			   const struct frame_damage *damage)
{
	struct dmabuf_stale_note note = { filled, known, damage };
	wl_record_buffer_pool_for_each(&pool->buffers, note_stale, &note);
}

void dmabuf_pool_finish(struct screencopy_dmabuf_pool *pool)
{
	wl_record_buffer_pool_finish(&pool->buffers);
	node_unref(pool->node);
	pool->node = NULL;
}
