/* SPDX-License-Identifier: GPL-2.0 */
/*
 * crash.h - a fatal signal (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT) is
 * said on stderr with the stack that took it, then delivered as before
 * (exit status and core dump unchanged): a daemon that dies in a test or
 * on an operator's host leaves the place where it died in its log
 */
#ifndef GR_CRASH_H
#define GR_CRASH_H

void gr_crash_report_install(void);

#endif
