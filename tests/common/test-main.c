/* The runner's main(), an archive member of its own: an executable that
 * still has a main() of its own (a test not converted to TEST() yet) can
 * link the runner for test_assert() without two main()s. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test-runner.h"

/* The number of runs of a case: one, or one per element of a TEST_P(). */
static size_t case_runs(const struct test_case *test)
{
	return test->run_element ? test->count : 1;
}

/* "pool_size_zero" -> "pool-size-zero"; run `index` of TEST_P(round_trip,
 * ...) -> "round-trip/mkv". */
static void case_name(const struct test_case *test, size_t index, char *out, size_t size)
{
	snprintf(out, size, "%s", test->id);
	for (char *c = out; *c; c++)
		if (*c == '_')
			*c = '-';
	if (test->run_element) {
		size_t used = strlen(out);
		snprintf(out + used, size - used, "/%s", test->element_name(index));
	}
}

static int run_case(struct test_case *test, size_t index)
{
	signal(SIGALRM, test_handle_watchdog);
	signal(SIGTERM, test_handle_watchdog);
	signal(SIGINT, test_handle_watchdog);
	/* A peer dying under a test must show as a failed check, not kill it. */
	signal(SIGPIPE, SIG_IGN);
	alarm(TEST_WATCHDOG_SECONDS);
	char name[256];
	case_name(test, index, name, sizeof(name));
	printf("== %s\n", name);
	fflush(stdout);
	if (test->run_element)
		test->run_element(index);
	else
		test->run();
	alarm(0);
	printf("PASS %s\n", name);
	return 0;
}

/* Every case in a child of its own, so one failure neither hides the next
 * nor leaves state behind for it. */
static int run_all(void)
{
	int failed = 0, skipped = 0, passed = 0;
	for (struct test_case *test = test_first_case; test; test = test->next) {
		for (size_t index = 0; index < case_runs(test); index++) {
			fflush(NULL);
			pid_t pid = fork();
			if (pid < 0) {
				perror("fork");
				return 1;
			}
			/* exit(), not _exit(): what the case registered with
			 * atexit() (a temporary folder to remove) runs, as when
			 * meson runs the case alone. */
			if (pid == 0)
				exit(run_case(test, index));
			int status;
			if (waitpid(pid, &status, 0) != pid)
				status = 1 << 8;
			char name[256];
			case_name(test, index, name, sizeof(name));
			if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
				passed++;
			} else if (WIFEXITED(status) && WEXITSTATUS(status) == 77) {
				/* Named, not only counted: scripts/check-skips.py
				 * reads this line from a run that exits 0. */
				skipped++;
				fprintf(stderr, "case %s skipped\n", name);
			} else {
				failed++;
				fprintf(stderr, "case %s failed (wait status 0x%x)\n", name, status);
			}
		}
	}
	printf("%d passed, %d skipped, %d failed\n", passed, skipped, failed);
	return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 1)
		return run_all();
	if (argc == 2 && strcmp(argv[1], "--list") == 0) {
		char name[256];
		for (struct test_case *test = test_first_case; test; test = test->next) {
			for (size_t index = 0; index < case_runs(test); index++) {
				case_name(test, index, name, sizeof(name));
				printf("%s\n", name);
			}
		}
		return 0;
	}
	if (argc == 2 && argv[1][0] != '-') {
		char name[256];
		for (struct test_case *test = test_first_case; test; test = test->next) {
			for (size_t index = 0; index < case_runs(test); index++) {
				case_name(test, index, name, sizeof(name));
				if (strcmp(name, argv[1]) == 0 ||
				    (!test->run_element && strcmp(test->id, argv[1]) == 0))
					return run_case(test, index);
			}
		}
		fprintf(stderr, "%s: no case named '%s' (--list shows them)\n", argv[0], argv[1]);
		return 2;
	}
	fprintf(stderr, "usage: %s [--list | CASE]\n"
			"  with no argument, runs every case, each in a process of its own\n",
		argv[0]);
	return 2;
}
