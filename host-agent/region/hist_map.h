/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hist_map.h - reading a guest's aggregation maps in place (spec 17.4)
 *
 * The maps are guest memory the host does not trust. gr_hist_read() reads
 * one request slot's per-CPU maps in the mapped region, zero copy: every
 * entry between two loads of its seq (a torn entry is retried once, then
 * left out and counted), every count checked, and merges the CPUs' entries
 * by key into a table in host memory. The entry count per map comes from
 * the request the host wrote, never from the map; a map stamped with
 * another gen is left out; a map whose counts went backwards against the
 * previous read of the same gen is refused whole and counted.
 */
#ifndef _GR_HIST_MAP_H
#define _GR_HIST_MAP_H

#include <stdbool.h>
#include <stdint.h>

#include "guestrelay_abi.h"

/**
 * struct gr_hist_row - one key, summed over CPUs
 * @key: the key values (after the guest's transform)
 * @hitcount: events under the key
 * @val: sums
 */
struct gr_hist_row {
	uint64_t key[GR_HIST_MAX_KEYS];
	uint64_t hitcount;
	uint64_t val[GR_HIST_MAX_VALS];
};

/**
 * struct gr_hist_table - one request's maps, read and merged
 * @gen: the request generation the rows count for
 * @hits: events the guest's program accepted, all CPUs
 * @dropped: accepted with no free entry (ftrace's "Dropped")
 * @nested: skipped because an update was interrupted on its CPU
 * @unmatched: pairs: ends without a start
 * @torn: entries left out because the guest was writing them twice
 * @bad_maps: CPU maps refused (went backwards, bad seq or used word)
 * @stale_maps: CPU maps stamped with another gen (not zeroed yet)
 * @nr_rows: rows used
 * @cap: rows allocated
 * @rows: the rows, in no order (gr_hist_sort_rows() orders them)
 * @cpu_hits: per CPU, map hits at this read (for the next read's
 *	backwards check); @nr_cpus entries
 * @nr_cpus: entries of @cpu_hits
 * @key_signed: per key, compare and print as signed (a signed field the
 *	request did not log2-transform); set from the request
 */
struct gr_hist_table {
	uint64_t gen;
	uint64_t hits;
	uint64_t dropped;
	uint64_t nested;
	uint64_t unmatched;
	uint64_t torn;
	uint64_t bad_maps;
	uint64_t stale_maps;
	uint32_t nr_rows;
	uint32_t cap;
	struct gr_hist_row *rows;
	uint64_t *cpu_hits;
	uint32_t nr_cpus;
	bool key_signed[GR_HIST_MAX_KEYS];
};

/**
 * gr_hist_read() - read and merge one slot's maps
 * @hist: the mapped hist area (region + hist_offset, checked)
 * @hist_size: its bytes (checked: gr_check_region_hdr())
 * @nr_cpus: the header's nr_cpus (checked)
 * @slot: request slot, < GR_HIST_REQS
 * @req: the host's own copy of the request it wrote in @slot
 * @prev: the previous read of the same slot, for the backwards check;
 *	NULL, or one of another gen, checks nothing
 * @out: receives the table (rows allocated here; gr_hist_table_free())
 *
 * Return: 0, -EINVAL (arguments outside the checked geometry: a bug of
 * the caller, nothing read) or -ENOMEM.
 */
int gr_hist_read(const void *hist, uint64_t hist_size, uint32_t nr_cpus,
		 uint32_t slot, const struct gr_hist_req *req,
		 const struct gr_hist_table *prev, struct gr_hist_table *out);

/* Free what gr_hist_read() allocated; the table becomes empty */
void gr_hist_table_free(struct gr_hist_table *t);

/**
 * gr_hist_read_state() - one slot's state, read once and checked
 * @hist: the mapped hist area
 * @slot: request slot, < GR_HIST_REQS
 * @state: receives a copy (fields CPU-endian; an unknown state or reason
 *	becomes GR_HIST_REFUSED with reason GR_HIST_E_NONE)
 */
void gr_hist_read_state(const void *hist, uint32_t slot,
			struct gr_hist_state *state);

/**
 * gr_hist_sort_rows() - order rows by columns (filter/hist.h's
 * GR_HIST_SORT_*), ties broken by the keys, ascending
 * @t: the table
 * @cols: sort columns; @nr 0 = hitcount ascending (ftrace's default)
 * @desc: per column, descending
 * @nr: entries of @cols and @desc
 */
void gr_hist_sort_rows(struct gr_hist_table *t, const int *cols,
		       const bool *desc, int nr);

/**
 * gr_hist_log2_quantile() - a quantile of a table keyed by a log2 time
 * @t: the table (rows in any order)
 * @key: the index of the log2 key: row key k counts the delays d with
 *	2^(k-1) < d <= 2^k ns (k 0: d <= 1 ns); other keys are summed over
 * @permille: the quantile in thousandths, 1 to 1000 (500: the median)
 *
 * The answer is the upper bound 2^k ns of the bucket where the cumulative
 * count of events, buckets in increasing k, first reaches
 * ceil(@permille / 1000 x events): the bound Prometheus calls le
 * (metrics/expo_hist.c), not an interpolation inside the bucket. Counts
 * add saturating at 2^64 - 1; a key above 64 (no delay of 64 bits has
 * one) counts as 64.
 *
 * Context: any.
 * Return: that bound in seconds, or -1 if @t has no events (or @key or
 * @permille is out of range).
 */
double gr_hist_log2_quantile(const struct gr_hist_table *t, unsigned int key,
			     unsigned int permille);

#endif /* _GR_HIST_MAP_H */
