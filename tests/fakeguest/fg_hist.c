// SPDX-License-Identifier: GPL-2.0
/*
 * fg_hist.c - aggregation in the fake guest (spec 17, GR_F_HIST)
 *
 * The guest's own gr_hist.c runs the host's hist requests, as the module
 * runs them: the hist area is placed by gr_layout_compute() (--hist-kib,
 * sized by gr_hist_area_size(), only when the host offers GR_F_HIST),
 * gr_hist_ctx_init() zeroes it before the publication, gr_hist_apply()
 * runs in every control pass that applies a host block (gr_pass.c's
 * order), gr_hist_stop() at the end. The writers run gr_hist_event() on
 * every record of an event a request counts, recorded or not.
 *
 * gr_hist.c swaps the set the writers run through gr_rec_set_hist(),
 * which gr_record.c implements in the module; here it is the writers'
 * side: the set is published with release, then the control thread waits
 * until no writer is inside a write that began before (fg_quiesce()),
 * the grace period the shim's synchronize_rcu() does not give.
 */
#include "fakeguest.h"

/* One fake guest per process: the writers' set and whose writers */
static struct gr_hist_set *fg_hist_live;
static struct fakeguest *fg_hist_owner;

/**
 * gr_rec_set_hist() - install the hist requests writers count records by
 * @set: a filled set (gr_hist.c), or NULL for none
 *
 * Returns once no writer can still run the set before (a grace period).
 *
 * Context: control thread, under pass_lock (or main before the threads).
 */
void gr_rec_set_hist(struct gr_hist_set *set)
{
	/* Pairs with the fences of fg_writer_enter() and fg_quiesce() */
	__atomic_store_n(&fg_hist_live, set, __ATOMIC_SEQ_CST);
	if (fg_hist_owner)
		fg_quiesce(fg_hist_owner);
}

/**
 * fg_hist_init() - the hist area of a new publication
 * @fg: the fake guest: layout computed, events built
 *
 * The bounds of what requests may read of each event (as the module's
 * gr_pass_init_bounds(): a VARLEN record has at least the bytes up to its
 * string's NUL), then gr_hist_ctx_init() over the layout's hist area.
 *
 * Context: main thread, before the publication and the threads.
 */
void fg_hist_init(struct fakeguest *fg)
{
	const struct fg_event *ev;
	unsigned int id;

	for (id = 0; id < fg->nr_events; id++) {
		ev = &fg->events[id];
		fg->bounds[id].max = ev->payload_size;
		fg->bounds[id].fixed = ev->payload_size;
		if ((ev->flags & GR_EVENT_F_VARLEN) && ev->nr_fields)
			fg->bounds[id].fixed =
				ev->fields[ev->nr_fields - 1].offset + 1;
	}
	fg_hist_owner = fg;
	gr_hist_ctx_init(&fg->hist, fg->lay.hist_size ?
			 fg->region + fg->lay.hist_offset : NULL,
			 fg->lay.hist_size, fg->lay.nr_cpus, fg->nr_events,
			 fg->bounds, FG_NSEC, NULL);
}

/**
 * fg_hist_apply() - the hist requests of a control pass (spec 17.3)
 * @fg: the fake guest
 * @in_use: GR_F_HIST is in use by the block applied; false: none runs
 *
 * A change is logged as the module logs it: "hist: N running, M refused".
 *
 * Context: control pass (under pass_lock), or publication.
 */
void fg_hist_apply(struct fakeguest *fg, bool in_use)
{
	u32 i, refused = 0;

	if (!gr_hist_apply(&fg->hist, in_use))
		return;
	for (i = 0; i < GR_HIST_REQS; i++)
		refused += fg->hist.gen[i] && !fg->hist.progs[i];
	fg_log("hist: %u running, %u refused",
	       __builtin_popcount(gr_hist_running(&fg->hist)), refused);
	/* a request may count while recording is off: writers tick */
	fg_wake_writers(fg);
}

/**
 * fg_hist_stop() - no request runs any more (the module's gr_pass_stop())
 * @fg: the fake guest
 *
 * Context: main thread at the end, the control thread joined.
 */
void fg_hist_stop(struct fakeguest *fg)
{
	gr_hist_stop(&fg->hist);
}

/**
 * fg_hist_on() - does a hist request run?
 *
 * Context: a writer (inside its ring, or deciding whether to tick).
 * Return: true if a set is in effect.
 */
bool fg_hist_on(void)
{
	return __atomic_load_n(&fg_hist_live, __ATOMIC_RELAXED);
}

/**
 * fg_hist_counts() - does a request count (or start a pair on) event @id?
 * @id: event id
 *
 * Context: a writer, inside (fg_writer_enter()).
 * Return: true if records of @id are to be aggregated.
 */
bool fg_hist_counts(unsigned int id)
{
	const struct gr_hist_set *set;

	set = __atomic_load_n(&fg_hist_live, __ATOMIC_ACQUIRE);
	return set && id < GR_WIDE_MAX_EVENTS &&
	       (set->agg_mask[id] | set->start_mask[id]);
}

/**
 * fg_hist_record() - gr_hist_event() on one record, as gr_record.c does
 * @id: its event
 * @payload: its payload (in the ring, or a scratch buffer)
 * @len: its bytes
 * @cpu: the writer's CPU
 * @ts: the record's event clock (its header's, or gr_clock())
 *
 * Context: a writer, inside (fg_writer_enter()): the set it loads stays
 * until it leaves.
 */
void fg_hist_record(unsigned int id, const u8 *payload, u32 len,
		    unsigned int cpu, u64 ts)
{
	const struct gr_hist_set *set;

	set = __atomic_load_n(&fg_hist_live, __ATOMIC_ACQUIRE);
	if (set && id < GR_WIDE_MAX_EVENTS)
		gr_hist_event(set, id, payload, len, gr_current_tid(), cpu,
			      ts);
}
