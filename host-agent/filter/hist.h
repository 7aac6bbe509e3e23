/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hist.h - ftrace hist trigger requests compiled to guest aggregation
 * requests (spec 17)
 *
 * The operator writes what ftrace's events/<sys>/<event>/trigger takes
 * after "hist:" (Documentation/trace/histogram.rst):
 *
 *	keys=FIELD[.MOD][,FIELD[.MOD]]
 *	  [:vals=FIELD[,FIELD]...]   (hitcount is always kept)
 *	  [:sort=FIELD[.descending|.ascending][,...]]
 *	  [:size=N]                  (entries per CPU map, rounded up to 2^n)
 *	  [:name=NAME]               (the table's name in output and metrics)
 *
 * with FIELD a field of the event's descriptor, common_pid (alias
 * common_tid), common_cpu or hitcount (sort and vals only), MOD one of
 * .log2, .buckets=N, .hex, .sym, .execname (display only) and the
 * filter, as for `guestrelay filter`, separate (ftrace's "if ..." part).
 * gr_hist_parse() checks the text against the event's descriptor and fills
 * a struct gr_hist_spec: the wire request (gen left 0: the agent numbers
 * requests) and what the host needs to print and serve the result. Every
 * refusal says where: the offending token's position and a message.
 *
 * gr_hist_latency() builds the four latency requests (spec 17.5): "runq"
 * (sched_wakeup -> sched_switch, by woken pid), "syscall" (sys_enter ->
 * sys_exit by thread, keyed by call id), "block" (block_rq_issue ->
 * block_rq_complete by dev and sector, keyed by dev) and "irq"
 * (irq_handler_entry -> irq_handler_exit by CPU, keyed by irq): each a
 * log2 histogram of the delay in nanoseconds.
 */
#ifndef _GR_HIST_HOST_H
#define _GR_HIST_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "guestrelay_abi.h"
#include "filter.h"
#include "validate.h"

#define GR_HIST_NAME_LEN	32	/* table name: [a-z_][a-z0-9_]* */
#define GR_HIST_TEXT_LEN	512	/* the request as the operator wrote it */
#define GR_HIST_COL_LEN		(GR_LONG_FIELD_NAME_LEN + 8)

/* Display modifiers of a key (host only; the guest never sees them) */
#define GR_HD_HEX		0x1	/* .hex */
#define GR_HD_SYM		0x2	/* .sym: a kernel address */
#define GR_HD_EXECNAME		0x4	/* .execname: a pid shown with its comm */
#define GR_HD_NSECS		0x8	/* the key is a time in ns (a delta) */
#define GR_HD_RWBS		0x10	/* a block event's rwbs flags: letters */

/* Sort columns: hitcount, a key or a value */
#define GR_HIST_SORT_HITCOUNT	(-1)
#define GR_HIST_SORT_KEY(i)	(i)		/* 0..GR_HIST_MAX_KEYS-1 */
#define GR_HIST_SORT_VAL(i)	(16 + (i))	/* 0..GR_HIST_MAX_VALS-1 */
#define GR_HIST_MAX_SORT	2

/**
 * struct gr_hist_sort - one sort column
 * @col: GR_HIST_SORT_*
 * @descending: largest first
 */
struct gr_hist_sort {
	int col;
	bool descending;
};

/**
 * struct gr_hist_spec - one aggregation request, host side
 * @req: the wire request for a struct gr_hist_req slot, @req.gen 0
 * @name: table name (name=, else the event's or the preset's name)
 * @event: the event ("sys_enter"), for a pair "start->end"
 * @key_name: column title of each key ("prev_pid", "common_pid", "delta")
 * @key_display: GR_HD_* of each key
 * @val_name: column title of each value
 * @sort: sort columns, in order; @nr_sort 0 = hitcount ascending
 *	(ftrace's default)
 * @nr_sort: used entries of @sort
 * @text: the request as given (keys=...), for status and output
 * @filter: the filter expression as given, "" = none
 */
struct gr_hist_spec {
	struct gr_hist_req req;
	char name[GR_HIST_NAME_LEN];
	char event[2 * GR_LONG_NAME_LEN + 2];
	char key_name[GR_HIST_MAX_KEYS][GR_HIST_COL_LEN];
	uint8_t key_display[GR_HIST_MAX_KEYS];
	char val_name[GR_HIST_MAX_VALS][GR_HIST_COL_LEN];
	struct gr_hist_sort sort[GR_HIST_MAX_SORT];
	int nr_sort;
	char text[GR_HIST_TEXT_LEN];
	char filter[GR_FX_MAX_LEN];
};

/**
 * gr_hist_parse() - compile an ftrace hist request for one event
 * @text: "keys=...[:vals=...][:sort=...][:size=N][:name=...]"
 * @filter: filter expression (filter.h's language), NULL or "" = none
 * @ev: the event, as the guest described it
 * @max_entries_log2: the largest map the hist area allows per CPU
 *	(a size= above it is an error; without size= this is the size)
 * @out: receives the request
 * @err: receives the offending token and a message (positions index
 *	@text; a filter error is reported with its own position in
 *	@err->msg: @err->pos 0, @err->len the length of @text, and a
 *	message "filter: MESSAGE (column A-B)", so that
 *	gr_fx_error_from_line(@err->msg + 8, &e) gives the position in
 *	@filter back for gr_fx_format_error(buf, size, @filter, &e))
 *
 * A pair's keys are fields of its end event (the update runs there).
 *
 * Return: 0, -EINVAL with @err filled, or -ENOMEM.
 */
int gr_hist_parse(const char *text, const char *filter,
		  const struct gr_event_view *ev,
		  unsigned int max_entries_log2, struct gr_hist_spec *out,
		  struct gr_fx_error *err);

/**
 * gr_hist_latency() - one of the four latency requests
 * @preset: "runq", "syscall", "block" or "irq"
 * @events: the guest's events
 * @nr_events: entries of @events
 * @max_entries_log2: as for gr_hist_parse()
 * @out: receives the request (GR_HIST_PAIR)
 * @err: receives why not (unknown preset, an event or field missing)
 * @errlen: size of @err
 *
 * runq matches sched_wakeup's "pid" or, in this guest's table, "tid" with
 * sched_switch's "next_pid" or "next_tid". The request is sorted by its
 * keys; the delay key is named "delta" (GR_HD_NSECS).
 *
 * Return: 0, -EINVAL (unknown preset, or @max_entries_log2 below
 * GR_HIST_MIN_ENTRIES_LOG2) or -ENOENT (the guest lacks an event or field
 * the preset needs), with @err filled.
 */
int gr_hist_latency(const char *preset, const struct gr_event_view *events,
		    unsigned int nr_events, unsigned int max_entries_log2,
		    struct gr_hist_spec *out, char *err, size_t errlen);
bool gr_hist_latency_start2(const char *preset,
			    const struct gr_event_view *events,
			    unsigned int nr_events, struct gr_hist_spec *out);

int gr_hist_filter(const char *filter, const struct gr_event_view *ev,
		   struct gr_hist_spec *out, struct gr_fx_error *err);

/**
 * gr_hist_max_entries_log2() - the largest per-CPU map a slot holds
 * @hist_size: bytes of the hist area (checked, spec 17.1)
 * @nr_cpus: the guest's possible CPUs
 *
 * Return: n in [GR_HIST_MIN_ENTRIES_LOG2, GR_HIST_MAX_ENTRIES_LOG2] with
 * @nr_cpus maps of 2^n entries fitting one slot, -EINVAL for 0 CPUs, or
 * -ENOSPC.
 */
int gr_hist_max_entries_log2(uint64_t hist_size, uint32_t nr_cpus);

/**
 * gr_hist_latency_key() - the key of a request that is a log2 time
 * @s: the request
 *
 * A latency table: a key that is a time in ns (GR_HD_NSECS) under .log2,
 * as the latency presets and keys=delta.log2 make. /metrics shows such a
 * table as a histogram (metrics/expo_hist.c), status sums it up
 * (agent/vm_hist.c).
 *
 * Context: any.
 * Return: the key's index, or -1 if no key is a log2 time.
 */
static inline int gr_hist_latency_key(const struct gr_hist_spec *s)
{
	unsigned int i;

	for (i = 0; i < s->req.nr_keys && i < GR_HIST_MAX_KEYS; i++)
		if ((s->key_display[i] & GR_HD_NSECS) &&
		    s->req.key[i].xform == GR_HT_LOG2)
			return (int)i;
	return -1;
}

#endif /* _GR_HIST_HOST_H */
