/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report.h - `guestrelay report`: a stored trace as text
 *
 * Reads a trace directory (see ctf.h) without parsing TSDL: the event
 * layouts come from the .guestrelay file, re-validated on every read, and
 * the events from the stream files, whole sub-buffers of packet_size
 * bytes. Nothing read from disk is trusted: a damaged spot produces one
 * diagnostic line, and the reader goes on with the next packet.
 */
#ifndef GR_REPORT_H
#define GR_REPORT_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/**
 * struct gr_report_opts - what gr_report() prints
 * @cpu: print only events and diagnostics of this CPU; -1 for all
 * @events: comma-separated list of event names, systems ("sched") or
 *	"system:event"; NULL or "" for all events
 * @host_time: print host wall-clock time (seconds since the Epoch) through
 *	the clock offset stored with the trace, instead of guest clock time
 */
struct gr_report_opts {
	int cpu;
	const char *events;
	int host_time;
};

/* the longest rwbs text, "FDEFASM", and its NUL */
#define GR_RWBS_TEXT_LEN	8

char *gr_rwbs_text(char *buf, size_t len, uint64_t flags);

int gr_report(const char *dir, FILE *out, FILE *err,
	      const struct gr_report_opts *opts);
int gr_report_summary(const char *dir, FILE *out, FILE *err);
int gr_report_host(const char *dir, FILE *out, FILE *err,
		   const struct gr_report_opts *opts, int summary);

#define GR_FOLLOW_POLL_MS	100	/* index files read */
#define GR_FOLLOW_ASK_MS	500	/* the VM's current session asked */

/**
 * gr_follow_ask_fn - which session is the followed VM's current one
 * @arg: the caller's
 * @dir: receives its trace directory, "" if the VM has none now
 * @len: size of @dir
 * @timer_us: receives the VM's switch timer (0 = off)
 *
 * Return: 0 (@dir and @timer_us filled), 1 (not known now: the session
 * followed stays the current one), or -errno to stop following (said
 * on stderr by the function).
 */
typedef int (*gr_follow_ask_fn)(void *arg, char *dir, size_t len,
				uint32_t *timer_us);

int gr_report_follow(gr_follow_ask_fn ask, void *arg, FILE *out, FILE *err,
		     const struct gr_report_opts *opts,
		     const volatile sig_atomic_t *stop);

#endif /* GR_REPORT_H */
