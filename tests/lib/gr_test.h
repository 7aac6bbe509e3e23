/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gr_test.h - the one CUnit runner of guestrelay's test programs
 *
 * A test program lists its tests in a table and hands it to
 * gr_test_main(), which registers, runs and reports them the same way in
 * every program:
 *
 *	static const struct gr_test tests[] = {
 *		GR_TEST(test_something_behaves),
 *		...
 *	};
 *
 *	int main(void)
 *	{
 *		return gr_test_main("relay", tests, ARRAY_SIZE(tests),
 *				    NULL, NULL);
 *	}
 *
 * Exit status: 0 when every test passed, 1 when any assertion, test or
 * suite set-up failed, 77 (gr_test_skip()) when the program cannot run
 * here; scripts/run-tests.sh counts CUnit's summary lines, and a skip is
 * never a pass.
 */
#ifndef GR_TEST_H
#define GR_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <CUnit/Basic.h>

#include "common.h"		/* ARRAY_SIZE, container_of, NSEC_PER_SEC */

/* the old name, for test_relay.c, test_guest_ctl.c and test_fakeguest.c
 * (other owners) until they say ARRAY_SIZE */
#define GR_ARRAY_SIZE(a)	ARRAY_SIZE(a)

/* exit status of a program that cannot run here (printed reason first) */
#define GR_TEST_SKIP_EXIT	77

struct gr_test {
	const char *name;
	CU_TestFunc fn;
	bool root_only;		/* registered only when run as root */
};

#define GR_TEST(fn)		{ #fn, fn, false }
#define GR_TEST_ROOT(fn)	{ #fn, fn, true }
#define GR_TEST_NAMED(name, fn)	{ name, fn, false }

/* a program with several suites: gr_test_run() */
struct gr_test_suite {
	const char *name;
	const struct gr_test *tests;
	size_t n;
	CU_InitializeFunc init;		/* or NULL */
	CU_CleanupFunc clean;		/* or NULL */
};

#define GR_SUITE(name, tests, init, clean) \
	{ name, tests, ARRAY_SIZE(tests), init, clean }

/**
 * gr_test_main() - register one suite of @n tests and run it
 * @suite: the suite's name
 * @tests: the tests, run in table order
 * @n: entries in @tests
 * @init: suite set-up, or NULL
 * @clean: suite tear-down, or NULL
 *
 * A root-only test is not registered when not run as root; it is listed
 * as "SKIP test NAME: needs root", a line scripts/run-tests.sh counts as
 * a skipped test, so that a missing test is never a pass.
 *
 * Return: the program's exit status (0 or 1).
 */
int gr_test_main(const char *suite, const struct gr_test *tests, size_t n,
		 CU_InitializeFunc init, CU_CleanupFunc clean);

/**
 * gr_test_run() - register @n suites and run them all
 * @suites: the suites, run in table order
 * @n: entries in @suites
 *
 * As gr_test_main(), for a program whose tests form several suites.
 *
 * Return: the program's exit status (0 or 1).
 */
int gr_test_run(const struct gr_test_suite *suites, size_t n);

/**
 * gr_test_skip() - say why this program cannot run here
 * @fmt: printf format of the reason
 *
 * Return: GR_TEST_SKIP_EXIT, for main() to return.
 */
int gr_test_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/**
 * gr_test_seed() - the seed of a program's random tests
 * @prog: the program's name, printed with the seed
 *
 * GR_TEST_SEED replays a run; otherwise the time. Printed, never 0.
 */
uint64_t gr_test_seed(const char *prog);

/* xorshift64*: a reproducible stream from *state (never 0) */
uint64_t gr_test_rand(uint64_t *state);

/**
 * gr_test_tool_ok() - can this command run here?
 * @argv: the command, NULL-terminated; run with its output discarded
 *
 * Return: true if it ran and exited 0.
 */
bool gr_test_tool_ok(char *const argv[]);

/**
 * gr_test_tmpdir() - a fresh temporary directory under $TMPDIR or /tmp
 * @buf: receives the path
 * @len: size of @buf
 * @prog: the program's name, the directory's prefix
 *
 * Return: 0, or -errno.
 */
int gr_test_tmpdir(char *buf, size_t len, const char *prog);

/* remove @path and everything below it; errors are ignored */
void gr_test_rm_tree(const char *path);

/**
 * gr_test_read_text() - the start of a text file, NUL-terminated
 * @dirfd: directory @name is relative to, or AT_FDCWD
 * @name: the file
 * @buf: receives at most @len - 1 bytes and a NUL
 * @len: size of @buf
 *
 * Return: bytes read (> 0), or -1 if the file cannot be read or is empty.
 */
ssize_t gr_test_read_text(int dirfd, const char *name, char *buf, size_t len);

#endif /* GR_TEST_H */
