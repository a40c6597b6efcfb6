#ifndef WL_RECORD_TEST_RUNNER_H
#define WL_RECORD_TEST_RUNNER_H

/* The one runner of the C tests. A test file defines its cases with TEST()
 * and no main(): the runner's main() lists them (--list), runs the one its
 * argument names, or runs all of them one after the other, each in a child
 * process. meson reads the TEST(...) lines of the source to declare one
 * meson test per case, so a case's name is written once, in its file.
 *
 * TEST(pool_size_zero) is the case "pool-size-zero": identifiers cannot hold
 * '-', test names read better with it.
 *
 * TEST_P() is one case per element of a data array: TEST_P(round_trip,
 * containers, const struct container *c) runs its body once per element of
 * containers[], each run the case "round-trip/NAME" of its own, NAME the
 * element's `name` member. meson reads those names too: write each element
 * with a designated `.name = "..."` initializer, the array as
 * `NAME[] = {` ... `\n};`. */

#include <stdbool.h>
#include <stddef.h>

struct test_case {
	const char *id;       /* the C identifier */
	void (*run)(void);    /* a TEST() */
	/* A TEST_P(): the body run with element `index` of its array, the
	 * element's name, and the number of elements. */
	void (*run_element)(size_t index);
	const char *(*element_name)(size_t index);
	size_t count;
	struct test_case *next;
};

void test_register(struct test_case *test);

/* For the runner's main() (test-main.c). */
extern struct test_case *test_first_case;
void test_handle_watchdog(int sig);

/* Registered by a constructor, before main() runs. */
#define TEST_REGISTER_(ident)                                                              \
	__attribute__((constructor)) static void test_case_register_##ident(void)          \
	{                                                                                  \
		test_register(&test_case_entry_##ident);                                   \
	}

#define TEST(ident)                                                                        \
	static void test_case_##ident(void);                                               \
	static struct test_case test_case_entry_##ident = {                                \
		.id = #ident,                                                              \
		.run = test_case_##ident,                                                  \
	};                                                                                 \
	TEST_REGISTER_(ident)                                                              \
	static void test_case_##ident(void)

/* `param` declares the body's one parameter, a pointer to an element of
 * `array` (a compile error when the types disagree). */
#define TEST_P(ident, array, param)                                                        \
	static void test_case_##ident(param);                                              \
	static void test_case_run_##ident(size_t index)                                    \
	{                                                                                  \
		test_case_##ident(&(array)[index]);                                        \
	}                                                                                  \
	static const char *test_case_name_##ident(size_t index)                            \
	{                                                                                  \
		return (array)[index].name;                                                \
	}                                                                                  \
	static struct test_case test_case_entry_##ident = {                                \
		.id = #ident,                                                              \
		.run_element = test_case_run_##ident,                                      \
		.element_name = test_case_name_##ident,                                    \
		.count = sizeof(array) / sizeof((array)[0]),                               \
	};                                                                                 \
	TEST_REGISTER_(ident)                                                              \
	static void test_case_##ident(param)

/* The assertion of every test: on failure it prints file:line, the condition
 * and the optional printf-style message, runs the failure hook and ends the
 * case with status 1.
 *   test_assert(n == 3);
 *   test_assert(fd >= 0, "open %s: %s", path, strerror(errno)); */
#define test_assert(cond, ...)                                                             \
	do {                                                                               \
		if (!(cond))                                                               \
			test_fail(__FILE__, __LINE__, #cond, " " __VA_ARGS__);             \
	} while (0)

/* fmt starts with one space (so that test_assert(cond) has a format string
 * to check): the message is what follows it. */
_Noreturn void test_fail(const char *file, int line, const char *cond, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The case cannot get what it needs (a device, a program, a privilege):
 * prints the reason and exits 77, meson's "skipped". */
_Noreturn void test_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Hooks of a harness that owns more than this process (the hostile tests
 * start wl-record): on_failure runs before a case that failed or skipped
 * exits, on_watchdog
 * from the watchdog's signal handler, so it must be async-signal-safe. */
void test_set_hooks(void (*on_failure)(void), void (*on_watchdog)(void));

/* Whole-case time limit: each wait in a test is shorter; this catches a hang
 * anywhere else. meson's own timeout for these tests is longer. */
#define TEST_WATCHDOG_SECONDS 100

#endif
