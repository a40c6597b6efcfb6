#define LOG_MODULE "sigbus"
#include "sigbus_guard.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "log.h"

struct guarded_read {
	void *mapping;
	size_t size;
	int prot; /* of the zero pages that replace it */
	volatile sig_atomic_t faulted;
};

/* Guards nest: a copy from one client's memory into another's is guarded
 * for both, and a read begun inside a write must not end the write's guard.
 * Deeper nesting than this is a programming error. */
#define SIGBUS_GUARD_DEPTH 4

/* Per thread, so a guarded read on one thread never excuses a fault on another. */
static _Thread_local struct guarded_read guarded[SIGBUS_GUARD_DEPTH];
static _Thread_local volatile sig_atomic_t guarded_depth;
static struct sigaction previous_action;

static void handle_sigbus(int sig, siginfo_t *info, void *context)
{
	uintptr_t fault = (uintptr_t)info->si_addr;
	for (int i = (int)guarded_depth - 1; i >= 0; i--) {
		struct guarded_read *read = &guarded[i];
		uintptr_t start = (uintptr_t)read->mapping;
		if (fault < start || fault - start >= read->size)
			continue;
		/* Only async-signal-safe calls here: mmap is one. Zero pages keep
		 * the interrupted copy going; the caller discards its result. */
		if (mmap(read->mapping, read->size, read->prot,
			 MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) != MAP_FAILED) {
			read->faulted = 1;
			return;
		}
		break;
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
	int depth = (int)guarded_depth;
	if (depth == SIGBUS_GUARD_DEPTH) {
		LOG_ERR("SIGBUS guards nested deeper than %d: a bug in wl-record", SIGBUS_GUARD_DEPTH);
		abort();
	}
	guarded[depth] = (struct guarded_read){ .mapping = mapping, .size = size, .prot = prot };
	/* The entry is whole before the handler can see it. */
	atomic_signal_fence(memory_order_seq_cst);
	guarded_depth = depth + 1;
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
	int depth = (int)guarded_depth;
	if (depth == 0) {
		LOG_ERR("a SIGBUS guard ended that never began: a bug in wl-record");
		abort();
	}
	guarded_depth = depth - 1;
	atomic_signal_fence(memory_order_seq_cst);
	return !guarded[depth - 1].faulted;
}
