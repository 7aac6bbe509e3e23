// SPDX-License-Identifier: GPL-2.0
/*
 * gr_test.c - the one CUnit runner of guestrelay's test programs
 *
 * See gr_test.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gr_test.h"

int gr_test_run(const struct gr_test_suite *suites, size_t n)
{
	bool root = geteuid() == 0;
	unsigned int failed, skipped = 0;
	size_t i, k;
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS) {
		fprintf(stderr, "CU_initialize_registry: %s\n",
			CU_get_error_msg());
		return 1;
	}
	for (k = 0; k < n; k++) {
		const struct gr_test_suite *su = &suites[k];

		s = CU_add_suite(su->name, su->init, su->clean);
		if (!s)
			goto fail;
		for (i = 0; i < su->n; i++) {
			if (su->tests[i].root_only && !root) {
				printf("SKIP test %s: needs root\n",
				       su->tests[i].name);
				skipped++;
				continue;
			}
			if (!CU_add_test(s, su->tests[i].name, su->tests[i].fn))
				goto fail;
		}
	}
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed() +
		 CU_get_number_of_suites_failed();
	CU_cleanup_registry();
	if (skipped)
		printf("%u test(s) skipped, listed above\n", skipped);
	return failed ? 1 : 0;

fail:
	fprintf(stderr, "CUnit: %s\n", CU_get_error_msg());
	CU_cleanup_registry();
	return 1;
}

int gr_test_main(const char *suite, const struct gr_test *tests, size_t n,
		 CU_InitializeFunc init, CU_CleanupFunc clean)
{
	const struct gr_test_suite one = { suite, tests, n, init, clean };

	return gr_test_run(&one, 1);
}

int gr_test_skip(const char *fmt, ...)
{
	va_list ap;

	fputs("SKIP: ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	return GR_TEST_SKIP_EXIT;
}

uint64_t gr_test_seed(const char *prog)
{
	const char *env = getenv("GR_TEST_SEED");
	uint64_t seed;

	seed = env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL);
	if (!seed)
		seed = 1;
	printf("%s: random seed %#llx (GR_TEST_SEED to replay)\n", prog,
	       (unsigned long long)seed);
	return seed;
}

uint64_t gr_test_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

bool gr_test_tool_ok(char *const argv[])
{
	int status, fd;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return false;
	if (!pid) {
		fd = open("/dev/null", O_RDWR);
		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return false;
	return WIFEXITED(status) && !WEXITSTATUS(status);
}

int gr_test_tmpdir(char *buf, size_t len, const char *prog)
{
	const char *tmp = getenv("TMPDIR");
	int n;

	n = snprintf(buf, len, "%s/%s.XXXXXX", tmp && *tmp ? tmp : "/tmp",
		     prog);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return mkdtemp(buf) ? 0 : -errno;
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

void gr_test_rm_tree(const char *path)
{
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

ssize_t gr_test_read_text(int dirfd, const char *name, char *buf, size_t len)
{
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0 || !len)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return n;
}
