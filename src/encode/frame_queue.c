#define LOG_MODULE "encode"
#include "frame_queue.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "yuv_convert.h"

struct pool_buffer {
	struct frame frame;
	uint8_t *pixels; /* the pooled memory: frame.data but for a dmabuf frame */
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
	bool to_i420;
	bool kicked;
	bool closed;
	/* Producer only. */
	uint64_t seq;                         /* accepted frames so far */
	struct frame history[DAMAGE_HISTORY]; /* damage of frame seq, at seq % DAMAGE_HISTORY */
};

struct frame_queue *frame_queue_create(int depth, bool to_i420)
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
	queue->to_i420 = to_i420;
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
	/* Deadlines are on the frames' clock, which a change of the wall
	 * clock must not move. */
	pthread_condattr_t attr;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&queue->cond, &attr);
	pthread_condattr_destroy(&attr);
	return queue;
}

void frame_queue_destroy(struct frame_queue *queue)
{
	if (!queue)
		return;
	for (int i = 0; i < queue->buffer_count; i++) {
		free(queue->buffers[i].pixels);
		wl_record_buffer_unlock(queue->buffers[i].frame.buffer);
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

/* The part of `buffer` that differs from `frame`: all of it unless the
 * buffer holds an earlier frame of the same size and every frame since says
 * what it changed. */
static struct frame_damage stale_rect(const struct frame_queue *queue,
				      const struct pool_buffer *buffer, const struct frame *frame,
				      int width, int height)
{
	struct frame_damage all = {0, 0, width, height};
	if (!buffer->content_seq || buffer->frame.width != width ||
	    buffer->frame.height != height || !frame->damage_known ||
	    queue->seq - buffer->content_seq >= DAMAGE_HISTORY - 1)
		return all;
	struct frame changed = *frame;
	for (uint64_t seq = buffer->content_seq + 1; seq <= queue->seq; seq++)
		frame_damage_merge(&changed, &queue->history[seq % DAMAGE_HISTORY]);
	if (!changed.damage_known)
		return all;
	struct frame_damage rect = {
		changed.damage.x1 < 0 ? 0 : changed.damage.x1,
		changed.damage.y1 < 0 ? 0 : changed.damage.y1,
		changed.damage.x2 > width ? width : changed.damage.x2,
		changed.damage.y2 > height ? height : changed.damage.y2,
	};
	if (rect.x1 >= rect.x2 || rect.y1 >= rect.y2)
		return (struct frame_damage){0, 0, 0, 0};
	return rect;
}

/* Brings `buffer` up to `frame` where `stale` says it differs: whole rows of
 * pixels, or the rectangle converted to I420. */
static int update_pixels(struct pool_buffer *buffer, const struct frame *frame,
			 struct frame_damage stale)
{
	if (buffer->frame.format == FRAME_I420) {
		uint8_t *planes[3];
		int strides[3];
		frame_i420_planes(&buffer->frame, planes, strides);
		return yuv_convert_rect(frame, planes, strides, buffer->frame.width,
					buffer->frame.height, stale);
	}
	frame_copy_rows(frame, buffer->frame.data, buffer->frame.stride, stale.y1, stale.y2);
	return 0;
}

bool frame_queue_queued_size(const struct frame_queue *queue, const struct frame *frame,
			     int *width, int *height)
{
	if (frame->width <= 0 || frame->height <= 0 || frame->stride < frame->width * 4)
		return false;
	bool to_i420 = queue->to_i420 && !frame_in_buffer_only(frame);
	/* Converted to I420, a frame one pixel wide or high is nothing once
	 * cropped to even. */
	if (to_i420 && (frame->width < 2 || frame->height < 2))
		return false;
	*width = to_i420 ? frame->width & ~1 : frame->width;
	*height = to_i420 ? frame->height & ~1 : frame->height;
	return true;
}

bool frame_queue_push(struct frame_queue *queue, const struct frame *frame)
{
	int width, height;
	if (!frame_queue_queued_size(queue, frame, &width, &height))
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

	if (frame_in_buffer_only(frame)) {
		/* Zero-copy: the queue locks the client's buffer, no pixels
		 * (the pooled pixels stay allocated, unused, for later frames). */
		buffer->frame.buffer = wl_record_buffer_lock(frame->buffer);
		buffer->frame.data = NULL;
		buffer->frame.format = FRAME_XRGB8888;
		buffer->frame.width = frame->width;
		buffer->frame.height = frame->height;
		buffer->frame.stride = frame->width * 4;
		buffer->frame.pts_ns = frame->pts_ns;
		/* The consumer converts it where it lies, and may build on the
		 * previous picture it converted (the frames reach it in order). */
		buffer->frame.damage_known = frame->damage_known;
		buffer->frame.damage = frame->damage;
		/* Its pixels were not copied: later frames cannot build on it. */
		uint64_t seq = ++queue->seq;
		queue->history[seq % DAMAGE_HISTORY] = (struct frame){ .damage_known = false };
		buffer->content_seq = 0;
		goto queue;
	}
	/* The copy happens outside the lock: the buffer belongs to this thread
	 * until it is queued, so the consumer is never held up by it. An I420
	 * picture is cropped to even, as the encoder needs. */
	enum frame_format format = queue->to_i420 ? FRAME_I420 : FRAME_XRGB8888;
	int stride = format == FRAME_I420 ? width : width * 4;
	size_t needed = (size_t)stride * (size_t)height;
	if (format == FRAME_I420)
		needed += needed / 2;
	if (buffer->capacity < needed) {
		uint8_t *data = malloc(needed);
		if (!data) {
			LOG_ERRNO("frame buffer of %zu bytes", needed);
			pthread_mutex_lock(&queue->mutex);
			return_to_pool_locked(queue, buffer);
			pthread_mutex_unlock(&queue->mutex);
			return false;
		}
		free(buffer->pixels);
		buffer->pixels = data;
		buffer->capacity = needed;
		buffer->content_seq = 0; /* fresh memory holds no frame */
	}
	struct frame_damage stale = stale_rect(queue, buffer, frame, width, height);
	buffer->frame.data = buffer->pixels;
	buffer->frame.buffer = NULL;
	buffer->frame.format = format;
	buffer->frame.width = width;
	buffer->frame.height = height;
	buffer->frame.stride = stride;
	if (update_pixels(buffer, frame, stale) < 0) {
		LOG_ERR("cannot convert a %dx%d frame", frame->width, frame->height);
		buffer->content_seq = 0;
		pthread_mutex_lock(&queue->mutex);
		return_to_pool_locked(queue, buffer);
		pthread_mutex_unlock(&queue->mutex);
		return false;
	}
	uint64_t seq = ++queue->seq;
	queue->history[seq % DAMAGE_HISTORY] = *frame;
	buffer->content_seq = seq;
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

enum frame_queue_event frame_queue_pop_until(struct frame_queue *queue, struct frame **frame,
					     int64_t deadline_ns)
{
	enum frame_queue_event event;
	struct timespec deadline = {
		.tv_sec = (time_t)(deadline_ns / 1000000000),
		.tv_nsec = (long)(deadline_ns % 1000000000),
	};
	bool timed_out = false;
	*frame = NULL;
	pthread_mutex_lock(&queue->mutex);
	while (!queue->head && !queue->kicked && !queue->closed && !timed_out) {
		if (deadline_ns == INT64_MAX)
			pthread_cond_wait(&queue->cond, &queue->mutex);
		else
			timed_out = pthread_cond_timedwait(&queue->cond, &queue->mutex,
							   &deadline) == ETIMEDOUT;
	}
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
	} else if (queue->closed) {
		event = FRAME_QUEUE_CLOSED;
	} else {
		event = FRAME_QUEUE_TIMEOUT;
	}
	pthread_mutex_unlock(&queue->mutex);
	return event;
}

enum frame_queue_event frame_queue_pop(struct frame_queue *queue, struct frame **frame)
{
	return frame_queue_pop_until(queue, frame, INT64_MAX);
}

void frame_queue_release(struct frame_queue *queue, struct frame *frame)
{
	if (!frame)
		return;
	wl_record_buffer_unlock(frame->buffer);
	frame->buffer = NULL;
	pthread_mutex_lock(&queue->mutex);
	return_to_pool_locked(queue, buffer_of(frame));
	pthread_mutex_unlock(&queue->mutex);
}
