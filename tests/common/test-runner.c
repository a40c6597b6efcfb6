#include "test-runner.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct test_case *test_first_case;
static struct test_case **last_case = &test_first_case;
static void (*failure_hook)(void);
static void (*watchdog_hook)(void);

void test_register(struct test_case *test)
{
	/* Appended: --list shows the cases in the order of the file. */
	test->next = NULL;
	*last_case = test;
	last_case = &test->next;
}

void test_set_hooks(void (*on_failure)(void), void (*on_watchdog)(void))
{
	failure_hook = on_failure;
	watchdog_hook = on_watchdog;
}

void test_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
	fflush(stdout);
	fprintf(stderr, "FAIL %s:%d: %s", file, line, cond);
	if (fmt[0] == ' ' && fmt[1]) {
		fprintf(stderr, ": ");
		va_list ap;
		va_start(ap, fmt);
		vfprintf(stderr, fmt + 1, ap);
		va_end(ap);
	}
	fprintf(stderr, "\n");
	void (*hook)(void) = failure_hook;
	failure_hook = NULL; /* a check failing inside the hook ends here */
	if (hook)
		hook();
	exit(1);
}

void test_skip(const char *fmt, ...)
{
	fflush(stdout);
	fprintf(stderr, "SKIP: ");
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	void (*hook)(void) = failure_hook;
	failure_hook = NULL;
	if (hook)
		hook(); /* the case stops here: what it started must stop too */
	exit(77);
}

void test_handle_watchdog(int sig)
{
	static const char msg[] = "FAIL: watchdog: the case hung or was told to stop\n";
	ssize_t unused = write(STDERR_FILENO, msg, sizeof(msg) - 1);
	(void)unused;
	if (watchdog_hook)
		watchdog_hook();
	_exit(1);
}
