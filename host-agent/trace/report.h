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

int gr_report(const char *dir, FILE *out, FILE *err,
	      const struct gr_report_opts *opts);
int gr_report_summary(const char *dir, FILE *out, FILE *err);

#endif /* GR_REPORT_H */
