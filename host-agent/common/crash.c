// SPDX-License-Identifier: GPL-2.0
/*
 * crash.c - the stack of a fatal signal on stderr (crash.h)
 *
 * The handler uses only what is safe in a signal handler once
 * backtrace() has been called before (its first call loads the unwinder,
 * which allocates): write(2), backtrace_symbols_fd(3), which writes
 * without allocating, sigaction(2) and raise(3). It runs on its own stack,
 * so a stack overflow is reported too, and at most once: the signal is
 * then reset to its default action and raised again.
 */
#include <execinfo.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "crash.h"

#define CRASH_FRAMES	64

static const int crash_sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };

static void say(const char *s)
{
	ssize_t n = write(STDERR_FILENO, s, strlen(s));

	(void)n;
}

static void on_crash(int sig)
{
	void *frames[CRASH_FRAMES];
	char num[12], *p = num + sizeof(num) - 1;
	int n, v = sig;

	*p = '\0';
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v && p > num);
	say("guestrelay: fatal signal ");
	say(p);
	say(" (");
	say(sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
	say("), the stack that took it:\n");
	n = backtrace(frames, CRASH_FRAMES);
	backtrace_symbols_fd(frames, n, STDERR_FILENO);
	signal(sig, SIG_DFL);
	raise(sig);
}

void gr_crash_report_install(void)
{
	static char altstack[64 * 1024];
	void *warm[1];
	struct sigaction sa;
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };
	size_t i;

	backtrace(warm, 1);	/* loads the unwinder now, not in the handler */
	sigaltstack(&ss, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_crash;
	sa.sa_flags = SA_ONSTACK | SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < ARRAY_SIZE(crash_sigs); i++)
		sigaction(crash_sigs[i], &sa, NULL);
}
