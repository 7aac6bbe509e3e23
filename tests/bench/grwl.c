// SPDX-License-Identifier: GPL-2.0
/*
 * grwl.c - the guest workloads of bench_workload.sh: a tiny static program
 * run inside the test guest (packed into its initramfs as /bin/grwl)
 *
 *   grwl pingpong N   two processes pinned to CPU 0 pass one byte back and
 *                     forth over two pipes N times: every round trip is two
 *                     context switches (sched_switch, sched_wakeup) and
 *                     four syscalls (read, write in each process)
 *   grwl getppid N    N getppid() system calls in a loop, pinned to CPU 0
 *
 * Prints one line: "workload=W ops=N ns=T ops_per_s=R" (CLOCK_MONOTONIC
 * around the loop only; the fork and the pinning are outside it).
 * Exit 0 on success, 1 on a failed system call, 2 on bad usage.
 *
 * Build (on the host): cc -static -O2 -o grwl grwl.c
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL +
	       (unsigned long long)ts.tv_nsec;
}

static int pin_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("grwl: sched_setaffinity");
		return -1;
	}
	return 0;
}

static void report(const char *w, unsigned long n, unsigned long long ns)
{
	printf("workload=%s ops=%lu ns=%llu ops_per_s=%.1f\n", w, n, ns,
	       ns ? n * 1e9 / (double)ns : 0.0);
}

/* The child echoes every byte it reads from @in to @out, @n times. */
static int echo_loop(int in, int out, unsigned long n)
{
	unsigned long i;
	char c;

	for (i = 0; i < n; i++) {
		if (read(in, &c, 1) != 1 || write(out, &c, 1) != 1)
			return 1;
	}
	return 0;
}

static int pingpong(unsigned long n)
{
	unsigned long long t0 = 0, t1;
	int to_child[2], to_parent[2], st;
	unsigned long i;
	pid_t pid;
	char c = 'x';

	if (pipe(to_child) || pipe(to_parent)) {
		perror("grwl: pipe");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("grwl: fork");
		return 1;
	}
	if (pid == 0) {
		close(to_child[1]);
		close(to_parent[0]);
		_exit(echo_loop(to_child[0], to_parent[1], n + 1));
	}
	close(to_child[0]);
	close(to_parent[1]);
	/* one round trip outside the timing: the child runs and is pinned */
	for (i = 0; i <= n; i++) {
		if (i == 1)
			t0 = now_ns();
		if (write(to_child[1], &c, 1) != 1 ||
		    read(to_parent[0], &c, 1) != 1) {
			perror("grwl: pipe i/o");
			return 1;
		}
	}
	t1 = now_ns();
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st)) {
		fprintf(stderr, "grwl: the echoing child failed\n");
		return 1;
	}
	report("pingpong", n, t1 - t0);
	return 0;
}

static int getppid_loop(unsigned long n)
{
	unsigned long long t0, t1;
	unsigned long i;

	t0 = now_ns();
	for (i = 0; i < n; i++)
		syscall(SYS_getppid);	/* no libc caching, always a syscall */
	t1 = now_ns();
	report("getppid", n, t1 - t0);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long n;
	char *end;

	if (argc != 3) {
		fprintf(stderr, "usage: grwl pingpong|getppid N\n");
		return 2;
	}
	n = strtoul(argv[2], &end, 0);
	if (*end || !n) {
		fprintf(stderr, "grwl: bad N '%s'\n", argv[2]);
		return 2;
	}
	/* the pinning is inherited by the pingpong child */
	if (pin_cpu0())
		return 1;
	if (!strcmp(argv[1], "pingpong"))
		return pingpong(n);
	if (!strcmp(argv[1], "getppid"))
		return getppid_loop(n);
	fprintf(stderr, "grwl: unknown workload '%s'\n", argv[1]);
	return 2;
}
