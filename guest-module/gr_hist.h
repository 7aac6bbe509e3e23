/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gr_hist.h - aggregation in the guest (spec 17, GR_F_HIST)
 *
 * ftrace's hist triggers, set by the host: up to GR_HIST_REQS requests in
 * the hist area of the region, each copied once into guest memory,
 * verified (gr_hist_read()), and, once accepted, run by the probes on
 * every record of its event, recorded or not (gr_hist_event()). Each
 * request counts into one map per CPU in the region, which only that CPU
 * writes, without atomics; the host reads the maps in place.
 *
 * Like gr_filter.c, gr_hist.c is kernel code that also builds in
 * userspace (tests/shim) for the unit tests.
 */
#ifndef _GR_HIST_H
#define _GR_HIST_H

#include "gr_env.h"
#include "gr_filter.h"
#include "guestrelay_abi.h"

/* The start table of a latency pair: 2^12 slots (spec 17.5) */
#define GR_HIST_START_LOG2	12
/* The fixed multiplier of the key and start-table hashes */
#define GR_HIST_HASH_MUL	0x9e3779b97f4a7c15ULL

/**
 * struct gr_hist_op - one key, value or match operand, host byte order
 * @src: GR_HS_*
 * @width: GR_HS_FIELD: bytes loaded
 * @flags: GR_HK_*
 * @xform: GR_HT_* (keys only)
 * @off: GR_HS_FIELD: payload offset
 * @arg: GR_HT_BUCKET width, GR_HS_CONST value
 */
struct gr_hist_op {
	u8 src;
	u8 width;
	u8 flags;
	u8 xform;
	u16 off;
	u64 arg;
};

/**
 * struct gr_hist_start - a pending start of a latency pair
 * @tag: the match value it was stored under
 * @ts: its event clock, 0 while the slot is empty or being written
 */
struct gr_hist_start {
	u64 tag;
	u64 ts;
};

/**
 * struct gr_hist_pcpu - what one CPU keeps private for one request
 * @busy: an update of this request's map runs on this CPU
 */
struct gr_hist_pcpu {
	u8 busy;
} ____cacheline_aligned_in_smp;

/**
 * struct gr_hist_prog - an accepted request, in guest memory
 * @gen: the request's generation
 * @event_id: its event (the start of a pair)
 * @end_event_id: the end of a pair, else @event_id
 * @start2_event_id: with @start2, a second start of the pair
 * @start2: GR_HIST_F_START2 (v1.6)
 * @kind: GR_HIST_PLAIN or GR_HIST_PAIR
 * @nr_keys: used entries of @key
 * @nr_vals: used entries of @val
 * @entries_log2: entries per CPU map, 2^n
 * @nr_cpus: maps, one per CPU
 * @key: the keys, evaluated on the (end) event's record
 * @val: the sums, likewise
 * @match: pairs: the start's and the end's match operand
 * @filter: the filter program on the (end) event, nr_insns 0 for none
 * @maps: CPU 0's map in the region; CPU c's is @map_bytes * c further
 * @map_bytes: gr_hist_map_bytes(@entries_log2)
 * @starts: pairs: 2^GR_HIST_START_LOG2 pending starts
 * @pcpu: @nr_cpus private per-CPU states
 */
struct gr_hist_prog {
	u64 gen;
	u16 event_id;
	u16 end_event_id;
	u16 start2_event_id;
	bool start2;
	u8 kind;
	u8 nr_keys;
	u8 nr_vals;
	u8 entries_log2;
	u32 nr_cpus;
	struct gr_hist_op key[GR_HIST_MAX_KEYS];
	struct gr_hist_op val[GR_HIST_MAX_VALS];
	struct gr_hist_op match[2];
	struct gr_filter_prog filter;
	u8 *maps;
	u64 map_bytes;
	struct gr_hist_start *starts;
	struct gr_hist_pcpu *pcpu;
};

/**
 * struct gr_hist_set - the requests the probes run, swapped whole (RCU)
 * @start_mask: per event id, bit i: request slot i starts a pair on it
 * @agg_mask: per event id, bit i: request slot i counts it (a plain
 *	request's event, a pair's end)
 * @progs: per slot, the accepted request or NULL
 * @mult: event clock ticks to nanoseconds (with @shift), 0: they are ns
 * @shift: see @mult
 * @pairs: a request is a latency pair (records need their time)
 */
struct gr_hist_set {
	u8 start_mask[GR_WIDE_MAX_EVENTS];
	u8 agg_mask[GR_WIDE_MAX_EVENTS];
	struct gr_hist_prog *progs[GR_HIST_REQS];
	u32 mult;
	u32 shift;
	bool pairs;
};

/**
 * struct gr_hist_err - why a request was refused
 * @reason: GR_HIST_E_*
 * @filter_reason: GR_HIST_E_FILTER: GR_FILTER_E_*
 * @bad: operand or instruction index
 */
struct gr_hist_err {
	u8 reason;
	u8 filter_reason;
	u16 bad;
};

/**
 * struct gr_hist_ctx - the guest's side of one hist area
 * @area: the hist area in the region
 * @size: its bytes
 * @nr_cpus: maps per request (the header's nr_cpus)
 * @nr_events: events the guest describes
 * @bounds: per event, what a filter or FIELD operand may read
 * @attach: attaches the probe of an event (NULL: nothing to attach)
 * @mult: see struct gr_hist_set
 * @shift: see struct gr_hist_set
 * @gen: per slot, the request generation processed (0: idle)
 * @raw: per slot, the copy of the request it was processed from
 * @progs: per slot, the request running, or NULL
 * @sets: the set in effect and a spare, free between control passes
 * @live: the set in effect, NULL for none
 */
struct gr_hist_ctx {
	u8 *area;
	u64 size;
	u32 nr_cpus;
	u32 nr_events;
	const struct gr_filter_bounds *bounds;
	int (*attach)(unsigned int id);
	u32 mult;
	u32 shift;
	u64 gen[GR_HIST_REQS];
	struct gr_hist_req raw[GR_HIST_REQS];
	struct gr_hist_prog *progs[GR_HIST_REQS];
	struct gr_hist_set sets[2];
	struct gr_hist_set *live;
};

/**
 * gr_hist_area_size() - bytes of the hist area a guest keeps
 * @region_size: bytes of the region
 * @kib: the module's wish (hist_kib), 0 = none
 *
 * Spec 17.1: at least GR_HIST_MIN_SIZE (a smaller wish is raised to it),
 * at most an eighth of the region, whole pages; 0 if that is impossible.
 *
 * Return: the bytes, 0 for no hist area.
 */
static inline u64 gr_hist_area_size(u64 region_size, u32 kib)
{
	u64 size = (u64)kib * 1024;

	if (!kib)
		return 0;
	if (size < GR_HIST_MIN_SIZE)
		size = GR_HIST_MIN_SIZE;
	if (size > region_size / 8)
		size = region_size / 8;
	size &= ~(u64)(GR_PAGE_SIZE - 1);
	return size >= GR_HIST_MIN_SIZE ? size : 0;
}

void gr_hist_ctx_init(struct gr_hist_ctx *ctx, u8 *area, u64 size,
		      u32 nr_cpus, u32 nr_events,
		      const struct gr_filter_bounds *bounds, u64 clock_freq,
		      int (*attach)(unsigned int id));
int gr_hist_verify(const struct gr_hist_req *raw, u32 nr_events,
		   const struct gr_filter_bounds *bounds, u64 hist_size,
		   u32 nr_cpus, struct gr_hist_prog *prog,
		   struct gr_hist_err *err);
bool gr_hist_apply(struct gr_hist_ctx *ctx, bool in_use);
void gr_hist_stop(struct gr_hist_ctx *ctx);
u32 gr_hist_running(const struct gr_hist_ctx *ctx);
void gr_hist_event(const struct gr_hist_set *set, unsigned int id,
		   const u8 *payload, u32 len, u32 tid, u32 cpu, u64 ts);

/* A key's transform (spec 17.2): GR_HT_LOG2, GR_HT_BUCKET */
static inline u64 gr_hist_log2(u64 v)
{
	return v <= 1 ? 0 : fls64(v - 1);
}

#endif /* _GR_HIST_H */
