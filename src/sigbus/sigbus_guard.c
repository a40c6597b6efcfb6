#define LOG_MODULE "sigbus"
#include "sigbus_guard.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "log.h"

struct guarded_read {
	void *mapping;
	size_t size;
	int prot; /* of the zero pages that replace it */
	volatile sig_atomic_t active;
	volatile sig_atomic_t faulted;
};

/* Per thread, so a guarded read on one thread never excuses a fault on another. */
static _Thread_local struct guarded_read current_read;
static struct sigaction previous_action;

static void handle_sigbus(int sig, siginfo_t *info, void *context)
{
	struct guarded_read *read = &current_read;
	uintptr_t fault = (uintptr_t)info->si_addr;
	uintptr_t start = (uintptr_t)read->mapping;

	if (read->active && fault >= start && fault - start < read->size) {
		/* Only async-signal-safe calls here: mmap is one. Zero pages keep
		 * the interrupted copy going; the caller discards its result. */
		if (mmap(read->mapping, read->size, read->prot,
			 MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) != MAP_FAILED) {
			read->faulted = 1;
			return;
		}
	}

	/* Not ours: behave as if we had never been installed. */
	if (previous_action.sa_flags & SA_SIGINFO) {
		previous_action.sa_sigaction(sig, info, context);
		return;
	}
	if (previous_action.sa_handler != SIG_DFL && previous_action.sa_handler != SIG_IGN) {
		previous_action.sa_handler(sig);
		return;
	}
	signal(SIGBUS, SIG_DFL);
	raise(SIGBUS);
}

bool sigbus_guard_install(void)
{
	static bool installed;
	if (installed)
		return true;

	struct sigaction action = {
		.sa_sigaction = handle_sigbus,
		.sa_flags = SA_SIGINFO | SA_NODEFER,
	};
	sigemptyset(&action.sa_mask);
	if (sigaction(SIGBUS, &action, &previous_action) < 0) {
		LOG_ERRNO("cannot install the SIGBUS handler");
		return false;
	}
	installed = true;
	return true;
}

static void guard_begin(void *mapping, size_t size, int prot)
{
	current_read.mapping = mapping;
	current_read.size = size;
	current_read.prot = prot;
	current_read.faulted = 0;
	atomic_signal_fence(memory_order_seq_cst);
	current_read.active = 1;
}

void sigbus_guard_begin(void *mapping, size_t size)
{
	guard_begin(mapping, size, PROT_READ);
}

void sigbus_guard_begin_write(void *mapping, size_t size)
{
	guard_begin(mapping, size, PROT_READ | PROT_WRITE);
}

bool sigbus_guard_end(void)
{
	current_read.active = 0;
	atomic_signal_fence(memory_order_seq_cst);
	return !current_read.faulted;
}
