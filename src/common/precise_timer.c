#define LOG_MODULE "timer"
#include "precise_timer.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "log.h"

static int handle_readable(int fd, uint32_t mask, void *data)
{
	struct precise_timer *timer = data;
	uint64_t expirations;
	if (read(fd, &expirations, sizeof(expirations)) != sizeof(expirations))
		return 0; /* spurious wake-up after a re-arm: nothing expired */
	timer->fire(timer->data);
	return 0;
}

bool precise_timer_init(struct precise_timer *timer, struct wl_event_loop *loop,
			void (*fire)(void *data), void *data)
{
	*timer = (struct precise_timer){ .fd = -1, .fire = fire, .data = data };
	timer->fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (timer->fd < 0) {
		LOG_ERRNO("cannot create a timer");
		return false;
	}
	timer->source = wl_event_loop_add_fd(loop, timer->fd, WL_EVENT_READABLE, handle_readable,
					     timer);
	if (!timer->source) {
		LOG_ERR("cannot watch a timer");
		close(timer->fd);
		timer->fd = -1;
		return false;
	}
	return true;
}

void precise_timer_finish(struct precise_timer *timer)
{
	/* A zeroed, never initialised timer owns nothing (its fd 0 is not ours). */
	if (!timer->source)
		return;
	wl_event_source_remove(timer->source);
	close(timer->fd);
	timer->source = NULL;
	timer->fd = -1;
}

void precise_timer_arm_at(struct precise_timer *timer, int64_t deadline_ns)
{
	/* An absolute deadline of 0 would disarm; 1 ns is long past. */
	if (deadline_ns < 1)
		deadline_ns = 1;
	struct itimerspec spec = {
		.it_value = { .tv_sec = deadline_ns / 1000000000, .tv_nsec = deadline_ns % 1000000000 },
	};
	if (timerfd_settime(timer->fd, TFD_TIMER_ABSTIME, &spec, NULL) < 0)
		LOG_ERRNO("cannot arm a timer");
}
