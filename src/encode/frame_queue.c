#define LOG_MODULE "encode"
#include "frame_queue.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dmabuf_lease.h"
#include "log.h"

struct pool_buffer {
	struct frame frame;
	size_t capacity;
	struct pool_buffer *next; /* in the free list or the queue */
	uint64_t content_seq;     /* producer only: the accepted frame it holds, 0 none */
};

/* Damage of the last accepted frames, so a buffer that comes back to the
 * producer is brought up to date by copying only what changed since the
 * frame it holds. More than the pool size: a buffer is never older. */
#define DAMAGE_HISTORY 64

struct frame_queue {
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	struct pool_buffer *buffers;
	int buffer_count;
	struct pool_buffer *free_list;
	struct pool_buffer *head, *tail; /* queued, oldest first */
	int queued;
	int depth;
	bool kicked;
	bool closed;
	/* Producer only. */
	uint64_t seq;                         /* accepted frames so far */
	struct frame history[DAMAGE_HISTORY]; /* damage of frame seq, at seq % DAMAGE_HISTORY */
};

struct frame_queue *frame_queue_create(int depth)
{
	struct frame_queue *queue = calloc(1, sizeof(*queue));
	if (!queue) {
		LOG_ERRNO("frame queue");
		return NULL;
	}
	if (depth + 1 >= DAMAGE_HISTORY) {
		LOG_ERR("frame queue depth %d: at most %d", depth, DAMAGE_HISTORY - 2);
		free(queue);
		return NULL;
	}
	queue->depth = depth;
	queue->buffer_count = depth + 1;
	queue->buffers = calloc((size_t)queue->buffer_count, sizeof(*queue->buffers));
	if (!queue->buffers) {
		LOG_ERRNO("frame queue");
		free(queue);
		return NULL;
	}
	for (int i = 0; i < queue->buffer_count; i++) {
		queue->buffers[i].next = queue->free_list;
		queue->free_list = &queue->buffers[i];
	}
	pthread_mutex_init(&queue->mutex, NULL);
	pthread_cond_init(&queue->cond, NULL);
	return queue;
}

void frame_queue_destroy(struct frame_queue *queue)
{
	if (!queue)
		return;
	for (int i = 0; i < queue->buffer_count; i++) {
		free(queue->buffers[i].frame.data);
		dmabuf_lease_unref(queue->buffers[i].frame.dmabuf);
	}
	free(queue->buffers);
	pthread_cond_destroy(&queue->cond);
	pthread_mutex_destroy(&queue->mutex);
	free(queue);
}

static struct pool_buffer *buffer_of(struct frame *frame)
{
	return (struct pool_buffer *)((char *)frame - offsetof(struct pool_buffer, frame));
}

static void return_to_pool_locked(struct frame_queue *queue, struct pool_buffer *buffer)
{
	buffer->next = queue->free_list;
	queue->free_list = buffer;
}

/* Rows of `buffer` that differ from `frame`: all of them unless the buffer
 * holds an earlier frame of the same size and every frame since says what
 * it changed. */
static void stale_rows(const struct frame_queue *queue, const struct pool_buffer *buffer,
		       const struct frame *frame, int *y1, int *y2)
{
	if (!buffer->content_seq || buffer->frame.width != frame->width ||
	    buffer->frame.height != frame->height || !frame->damage_known ||
	    queue->seq - buffer->content_seq >= DAMAGE_HISTORY - 1)
		return;
	struct frame changed = *frame;
	for (uint64_t seq = buffer->content_seq + 1; seq <= queue->seq; seq++)
		frame_damage_merge(&changed, &queue->history[seq % DAMAGE_HISTORY]);
	if (!changed.damage_known)
		return;
	int top = changed.damage.y1 < 0 ? 0 : changed.damage.y1;
	int bottom = changed.damage.y2 > frame->height ? frame->height : changed.damage.y2;
	*y1 = top < bottom ? top : 0;
	*y2 = top < bottom ? bottom : 0;
}

bool frame_queue_push(struct frame_queue *queue, const struct frame *frame)
{
	if (frame->width <= 0 || frame->height <= 0 || frame->stride < frame->width * 4)
		return false;

	pthread_mutex_lock(&queue->mutex);
	struct pool_buffer *buffer = NULL;
	if (!queue->closed && queue->queued < queue->depth && queue->free_list) {
		buffer = queue->free_list;
		queue->free_list = buffer->next;
	}
	pthread_mutex_unlock(&queue->mutex);
	if (!buffer)
		return false;

	if (frame->dmabuf) {
		/* Zero-copy: the queue holds the client's buffer, not pixels
		 * (the pooled pixels stay allocated, unused, for later frames). */
		buffer->frame.dmabuf = dmabuf_lease_ref(frame->dmabuf);
		buffer->frame.width = frame->width;
		buffer->frame.height = frame->height;
		buffer->frame.stride = frame->width * 4;
		buffer->frame.pts_ns = frame->pts_ns;
		buffer->frame.damage_known = false;
		/* Its pixels were not copied: later frames cannot build on it. */
		uint64_t seq = ++queue->seq;
		queue->history[seq % DAMAGE_HISTORY] = (struct frame){ .damage_known = false };
		buffer->content_seq = 0;
		goto queue;
	}
	/* The copy happens outside the lock: the buffer belongs to this thread
	 * until it is queued, so the consumer is never held up by it. */
	size_t row = (size_t)frame->width * 4;
	size_t needed = row * (size_t)frame->height;
	if (buffer->capacity < needed) {
		uint8_t *data = malloc(needed);
		if (!data) {
			LOG_ERRNO("frame buffer of %zu bytes", needed);
			pthread_mutex_lock(&queue->mutex);
			return_to_pool_locked(queue, buffer);
			pthread_mutex_unlock(&queue->mutex);
			return false;
		}
		free(buffer->frame.data);
		buffer->frame.data = data;
		buffer->capacity = needed;
		buffer->content_seq = 0; /* fresh memory holds no frame */
	}
	int y1 = 0, y2 = frame->height;
	stale_rows(queue, buffer, frame, &y1, &y2);
	if ((size_t)frame->stride == row) {
		memcpy(buffer->frame.data + row * (size_t)y1,
		       frame->data + row * (size_t)y1, row * (size_t)(y2 - y1));
	} else {
		for (int y = y1; y < y2; y++)
			memcpy(buffer->frame.data + row * (size_t)y,
			       frame->data + (size_t)frame->stride * (size_t)y, row);
	}
	uint64_t seq = ++queue->seq;
	queue->history[seq % DAMAGE_HISTORY] = *frame;
	buffer->content_seq = seq;
	buffer->frame.width = frame->width;
	buffer->frame.height = frame->height;
	buffer->frame.stride = (int)row;
	buffer->frame.pts_ns = frame->pts_ns;
	buffer->frame.damage_known = frame->damage_known;
	buffer->frame.damage = frame->damage;
queue:
	buffer->next = NULL;

	pthread_mutex_lock(&queue->mutex);
	if (queue->tail)
		queue->tail->next = buffer;
	else
		queue->head = buffer;
	queue->tail = buffer;
	queue->queued++;
	pthread_cond_signal(&queue->cond);
	pthread_mutex_unlock(&queue->mutex);
	return true;
}

void frame_queue_kick(struct frame_queue *queue)
{
	pthread_mutex_lock(&queue->mutex);
	queue->kicked = true;
	pthread_cond_signal(&queue->cond);
	pthread_mutex_unlock(&queue->mutex);
}

void frame_queue_close(struct frame_queue *queue)
{
	pthread_mutex_lock(&queue->mutex);
	queue->closed = true;
	pthread_cond_signal(&queue->cond);
	pthread_mutex_unlock(&queue->mutex);
}

enum frame_queue_event frame_queue_pop(struct frame_queue *queue, struct frame **frame)
{
	enum frame_queue_event event;
	*frame = NULL;
	pthread_mutex_lock(&queue->mutex);
	while (!queue->head && !queue->kicked && !queue->closed)
		pthread_cond_wait(&queue->cond, &queue->mutex);
	if (queue->head) {
		struct pool_buffer *buffer = queue->head;
		queue->head = buffer->next;
		if (!queue->head)
			queue->tail = NULL;
		queue->queued--;
		*frame = &buffer->frame;
		event = FRAME_QUEUE_FRAME;
	} else if (queue->kicked) {
		queue->kicked = false;
		event = FRAME_QUEUE_KICKED;
	} else {
		event = FRAME_QUEUE_CLOSED;
	}
	pthread_mutex_unlock(&queue->mutex);
	return event;
}

void frame_queue_release(struct frame_queue *queue, struct frame *frame)
{
	if (!frame)
		return;
	dmabuf_lease_unref(frame->dmabuf);
	frame->dmabuf = NULL;
	pthread_mutex_lock(&queue->mutex);
	return_to_pool_locked(queue, buffer_of(frame));
	pthread_mutex_unlock(&queue->mutex);
}
