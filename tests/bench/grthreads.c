// SPDX-License-Identifier: GPL-2.0
/*
 * grthreads.c - N idle threads for the state dump's benchmark
 *
 *   grthreads N     starts N threads (16 KiB stacks) that sleep in
 *                   pause(), prints "GR: threads N" and sleeps too
 *
 * Built static by tests/bench/bench_statedump.sh and run in the test guest.
 */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void *idle(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	long i, n = argc > 1 ? atol(argv[1]) : 10000;
	pthread_attr_t attr;
	pthread_t t;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, PTHREAD_STACK_MIN);
	for (i = 0; i < n; i++) {
		if (pthread_create(&t, &attr, idle, NULL)) {
			printf("GR: threads %ld (create failed)\n", i);
			fflush(stdout);
			break;
		}
	}
	if (i == n)
		printf("GR: threads %ld\n", n);
	fflush(stdout);
	for (;;)
		pause();
	return 0;
}
