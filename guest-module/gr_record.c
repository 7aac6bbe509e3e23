// SPDX-License-Identifier: GPL-2.0
/*
 * gr_record.c - the record API's channel, events and filter dispatch
 *
 * What the probes' inline fast path (gr_record.h) reads: the active
 * channel, one cache line of per-event bits, the filter programs and the
 * follow filter, each published with RCU by the control pass; and the
 * out-of-line filter dispatch at commit, which takes a rejected record
 * back out of its ring.
 */

#include "gr_hist.h"
#include "gr_record.h"

/* The channel probes write to; NULL while it is reset or torn down */
struct gr_chan __rcu *gr_rec_chan;
/* Bit n: event n is recorded / may be filtered; one cache line */
struct gr_rec_bits gr_rec_bits;
/* The filter programs in effect, NULL for none (spec 14.5) */
struct gr_filter_set __rcu *gr_rec_filters;
/* The follow filter in effect, NULL for none (spec 15.4) */
struct gr_follow __rcu *gr_rec_follow;
/* The hist requests in effect, NULL for none (spec 17) */
struct gr_hist_set __rcu *gr_rec_hist;
/* On while gr_rec_hist is not NULL: the probes' paths to aggregation */
DEFINE_STATIC_KEY_FALSE(gr_rec_hist_on);

/*
 * The scratch buffers of records that are aggregated but not recorded
 * (spec 17): per CPU, a cache line whose first byte says the buffer is in
 * use, then gr_rec_scratch_size bytes. The line's last 16 bytes take the
 * record header a probe may write in front of its payload (the family
 * member id of sys_enter and sys_exit, gr_events.c).
 */
static u8 *gr_rec_scratch;
static u32 gr_rec_scratch_size;
#define GR_REC_SCRATCH_HDR	64

/**
 * gr_rec_set_events() - choose the events gr_rec_open() accepts
 * @enable: GR_WIDE_MAX_EVENTS bits, bit n for event n; NULL for none (recording
 *	off)
 *
 * Each word is stored at once; a probe sees the old or the new value of
 * its own bit. The caller calls synchronize_rcu() afterwards if it must
 * know that writers of cleared events have finished (spec 9.2).
 *
 * Context: any; callers serialize among themselves (the control pass),
 * except the panic path, which only clears.
 */
void gr_rec_set_events(const u64 *enable)
{
	unsigned long word;
	unsigned int w, b, id;

	for (w = 0; w < GR_REC_WORDS; w++) {
		word = 0;
		for (b = 0; enable && b < GR_REC_WORD_BITS; b++) {
			id = w * GR_REC_WORD_BITS + b;
			if ((enable[id / 64] >> (id % 64)) & 1)
				word |= 1UL << b;
		}
		WRITE_ONCE(gr_rec_bits.enabled[w], word);
	}
}

/*
 * Bit n of the filtered words: event n has a program or a hist request,
 * or a follow filter is in effect (then every event goes through
 * gr_rec_filter()). From the three pointers in effect.
 */
static void gr_rec_set_filtered_bits(void)
{
	const struct gr_filter_set *set;
	const struct gr_hist_set *hist;
	unsigned long word;
	unsigned int w, b, id;
	bool follow;

	set = rcu_dereference_protected(gr_rec_filters, true);
	hist = rcu_dereference_protected(gr_rec_hist, true);
	follow = !!rcu_dereference_protected(gr_rec_follow, true);
	for (w = 0; w < GR_REC_WORDS; w++) {
		word = follow ? ~0UL : 0;
		for (b = 0; b < GR_REC_WORD_BITS; b++) {
			id = w * GR_REC_WORD_BITS + b;
			if ((set && set->slot_of[id] != GR_FILTER_NONE) ||
			    (hist && (hist->agg_mask[id] |
				      hist->start_mask[id])))
				word |= 1UL << b;
		}
		WRITE_ONCE(gr_rec_bits.filtered[w], word);
	}
}

/**
 * gr_rec_set_filters() - install the filter programs records are judged by
 * @set: verified programs (gr_filter_read_area()), or NULL for none
 *
 * Publishes @set whole, then points the per-event bits at it: a probe
 * whose bit is set finds @set or the set before it, each complete, and an
 * event whose bit is clear is recorded unfiltered. The caller waits for a
 * grace period (synchronize_rcu()) before it reuses or frees what this
 * returns and before it acknowledges the change (spec G31): then every
 * record is judged by @set.
 *
 * Context: process context; callers serialize (the control pass).
 * Return: the set that was in effect, or NULL.
 */
struct gr_filter_set *gr_rec_set_filters(struct gr_filter_set *set)
{
	struct gr_filter_set *old;

	old = rcu_dereference_protected(gr_rec_filters, true);
	/* Pairs with rcu_dereference_sched() in gr_rec_filter() */
	rcu_assign_pointer(gr_rec_filters, set);
	gr_rec_set_filtered_bits();
	return old;
}

/**
 * gr_rec_set_follow() - install the follow filter records are judged by
 * @f: a follow set, filled, or NULL for none
 *
 * As gr_rec_set_filters(), for the follow filter (spec 15.4): publishes
 * @f, then sends every event through gr_rec_filter() while one is in
 * effect. The caller waits for a grace period before it frees what this
 * returns and before it acknowledges the change.
 *
 * Context: process context; callers serialize (the control pass).
 * Return: the follow set that was in effect, or NULL.
 */
struct gr_follow *gr_rec_set_follow(struct gr_follow *f)
{
	struct gr_follow *old;

	old = rcu_dereference_protected(gr_rec_follow, true);
	/* Pairs with rcu_dereference_sched() in gr_rec_filter() */
	rcu_assign_pointer(gr_rec_follow, f);
	gr_rec_set_filtered_bits();
	return old;
}

/**
 * gr_rec_set_hist() - install the hist requests records are counted by
 * @set: a filled set (gr_hist.c), or NULL for none
 *
 * As gr_rec_set_filters(), for aggregation (spec 17): publishes @set,
 * sends the events it counts through gr_rec_filter(), and turns the
 * scratch path on. The caller waits for a grace period
 * before it reuses the set this replaced.
 *
 * Context: process context (static key); callers serialize (the control
 * pass).
 */
void gr_rec_set_hist(struct gr_hist_set *set)
{
	/* Pairs with rcu_dereference_sched() in gr_rec_filter() */
	rcu_assign_pointer(gr_rec_hist, set);
	gr_rec_set_filtered_bits();
	/*
	 * On with the first request, then on until unload, as a probe stays
	 * attached: patching kernel text under load freezes multi-threaded
	 * TCG guests (DESIGN.md), and a probe between gr_rec_open() and
	 * gr_rec_reserve() must see the key it opened a scratch record with.
	 * With no request the paths it opens cost a predicted branch.
	 */
	if (set)
		static_branch_enable(&gr_rec_hist_on);
}

/**
 * gr_rec_scratch_init() - allocate the per-CPU scratch buffers
 * @size: bytes of the largest payload any event has
 *
 * Context: process context, at load, before any hist request runs.
 * Return: 0 or -ENOMEM (then nothing is aggregated that is not recorded).
 */
int gr_rec_scratch_init(u32 size)
{
	size = ALIGN(size, 64U);
	gr_rec_scratch = kvcalloc(nr_cpu_ids, GR_REC_SCRATCH_HDR + size,
				  GFP_KERNEL);
	if (!gr_rec_scratch)
		return -ENOMEM;
	gr_rec_scratch_size = size;
	return 0;
}

/**
 * gr_rec_scratch_exit() - free the scratch buffers
 *
 * Context: process context, at unload, no hist request in effect.
 */
void gr_rec_scratch_exit(void)
{
	kvfree(gr_rec_scratch);
	gr_rec_scratch = NULL;
	gr_rec_scratch_size = 0;
}

static __always_inline u8 *gr_rec_scratch_cpu(unsigned int cpu)
{
	return gr_rec_scratch +
	       (size_t)cpu * (GR_REC_SCRATCH_HDR + gr_rec_scratch_size);
}

/**
 * gr_rec_open_scratch() - open a scratch record of event @id
 * @rec: the caller's record state
 * @id: event id
 *
 * Spec 17: a hist request counts @id, which is not being recorded (or
 * whose ring refused it): the probe fills this CPU's scratch buffer
 * instead, and gr_rec_commit() aggregates it. If the buffer is in use by
 * the context this one interrupted, the requests count nested.
 *
 * Context: as gr_rec_open(), whose slow path this is.
 * Return: true with interrupts off and the buffer taken, as gr_rec_open().
 */
notrace bool gr_rec_open_scratch(struct gr_rec *rec, unsigned int id)
{
	const struct gr_hist_set *set = rcu_dereference_sched(gr_rec_hist);
	unsigned int cpu;
	u8 *s;

	if (!set || id >= GR_WIDE_MAX_EVENTS || !gr_rec_scratch ||
	    !(set->agg_mask[id] | set->start_mask[id]))
		return false;
	local_irq_save(rec->flags);
	cpu = smp_processor_id();
	s = gr_rec_scratch_cpu(cpu);
	if (READ_ONCE(*s)) {
		gr_hist_event(set, id, NULL, 0, 0, cpu, 0);
		local_irq_restore(rec->flags);
		return false;
	}
	WRITE_ONCE(*s, 1);
	barrier();
	rec->buf = NULL;
	rec->payload = s + GR_REC_SCRATCH_HDR;
	rec->len = 0;
	rec->id = id;
	rec->filter = true;
	/* the time only for a latency pair: a clock read less */
	rec->ts = set->pairs ? gr_clock() : 0;
	return true;
}

/* Give the scratch buffer of a record back */
static notrace void gr_rec_scratch_put(struct gr_rec *rec)
{
	barrier();
	WRITE_ONCE(*(rec->payload - GR_REC_SCRATCH_HDR), 0);
}

/**
 * gr_rec_reserve_scratch() - gr_rec_reserve() of a scratch record
 * @rec: a record gr_rec_open_scratch() opened
 * @len: payload bytes
 *
 * Context: as gr_rec_reserve().
 * Return: the scratch payload; NULL (record closed) if @len is larger
 * than any event's payload.
 */
notrace void *gr_rec_reserve_scratch(struct gr_rec *rec, size_t len)
{
	if (unlikely(len > gr_rec_scratch_size)) {
		gr_rec_scratch_put(rec);
		local_irq_restore(rec->flags);
		return NULL;
	}
	rec->len = len;
	return rec->payload;
}

/**
 * gr_rec_reopen_scratch() - a scratch record for one the ring dropped
 * @rec: the record gr_rec_reserve() could not reserve, closed
 * @len: payload bytes
 *
 * Context: as gr_rec_reserve().
 * Return: as gr_rec_reserve_scratch(), NULL if no request counts the event.
 */
notrace void *gr_rec_reopen_scratch(struct gr_rec *rec, size_t len)
{
	if (!gr_rec_open_scratch(rec, rec->id))
		return NULL;
	return gr_rec_reserve_scratch(rec, len);
}

/* Spec 17: the hist requests of the record's event, on its payload */
static notrace void gr_rec_hist_run(struct gr_rec *rec, u32 tid)
{
	const struct gr_hist_set *set = rcu_dereference_sched(gr_rec_hist);
	const struct gr_event_header *eh;
	u64 ts = rec->ts;

	if (!set)
		return;
	if (rec->buf) {
		eh = (const struct gr_event_header *)
		     (rec->payload - sizeof(*eh));
		ts = le64_to_cpu(READ_ONCE(eh->timestamp));
	}
	gr_hist_event(set, rec->id, rec->payload, rec->len, tid,
		      smp_processor_id(), ts);
}

/* Take back the record @rec: it was never there (see gr_rec_filter()) */
static notrace void gr_rec_take_back(struct gr_rec *rec, unsigned int slot)
{
	struct gr_buf *buf = rec->buf;

	buf->offset = rec->payload - sizeof(struct gr_event_header) -
		      buf->start;
	/* the record before is not known: the commit says 0 (spec G40) */
	buf->last_record = NULL;
	buf->events--;
	buf->filtered[slot]++;
}

/**
 * gr_rec_filter() - run the event's filter program on a filled record
 * @rec: the record, reserved and filled, its ring still entered (or a
 *	scratch record)
 *
 * First the hist requests of the event aggregate it (spec 17); a scratch
 * record ends there.
 * Out of line: only events with a program get here. If the program
 * rejects the record, the ring's offset goes back to the record's start.
 * Nothing can have been written behind it: the ring is entered on this
 * CPU with interrupts off (or under the global ring's lock) and the
 * nesting guard up. If reserving the record switched sub-buffers, the new
 * one is left empty, which a flush and the next switch handle (spec 6.7).
 * The record then never existed: it leaves @events as it was and counts
 * in the ring's @filtered of the program's slot. With a follow filter in
 * effect every event comes here and a record of a task not followed is
 * taken back first, counted in @filtered[GR_FOLLOW_SLOT] (spec 15.4).
 *
 * Context: between gr_rec_reserve() and the end of gr_rec_commit().
 * Return: true if a ring was entered (the caller leaves it), false for a
 * scratch record (given back here).
 */
notrace bool gr_rec_filter(struct gr_rec *rec)
{
	const struct gr_filter_prog *prog;
	struct gr_filter_set *set;
	struct gr_follow *fol;
	u32 tid = gr_current_tid();
	u8 idx;

	/* spec 17: aggregation sees every record, before any filter */
	if (!rec->buf) {
		gr_rec_hist_run(rec, tid);
		gr_rec_scratch_put(rec);
		return false;
	}
	if (static_branch_unlikely(&gr_rec_hist_on))
		gr_rec_hist_run(rec, tid);
	/* The tracepoint's RCU-sched read side covers all (gr_rec_open()) */
	fol = rcu_dereference_sched(gr_rec_follow);
	if (fol && !gr_follow_keep(fol, rec->id, rec->payload, rec->len,
				   tid)) {
		gr_rec_take_back(rec, GR_FOLLOW_SLOT);
		return true;
	}
	set = rcu_dereference_sched(gr_rec_filters);
	if (!set)
		return true;
	idx = set->slot_of[rec->id];
	if (idx >= set->nr_progs)
		return true;
	prog = &set->progs[idx];
	if (!gr_filter_match(prog, rec->payload, rec->len, tid,
			     smp_processor_id()))
		gr_rec_take_back(rec, prog->slot);
	return true;
}

/**
 * gr_rec_activate() - let writers into a channel
 * @chan: the channel, fully initialized
 *
 * Context: process context, serialized with gr_rec_deactivate().
 */
void gr_rec_activate(struct gr_chan *chan)
{
	/* Pairs with rcu_dereference_sched() in gr_rec_open() */
	rcu_assign_pointer(gr_rec_chan, chan);
}

/**
 * gr_rec_deactivate() - keep new writers out of the channel
 *
 * Writers already inside may still run: the caller waits for them with
 * synchronize_rcu() before it touches the channel
 * (gr_dev_writers_pause(), gr_dev_deactivate()), and owns it then until
 * gr_rec_activate(). gr_dev.c alone opens and closes this gate.
 *
 * Context: process context.
 */
void gr_rec_deactivate(void)
{
	RCU_INIT_POINTER(gr_rec_chan, NULL);
}

/**
 * gr_rec_flush_this_cpu() - deliver this CPU's partial sub-buffer
 *
 * gr_chan_flush_this_cpu() of the active channel, if any: for a global
 * channel, the shared ring.
 *
 * Context: any except NMI; disables local interrupts.
 * Return: 0 (also when no channel is active); -EBUSY if this interrupted
 * a writer on this CPU, which the next flush catches up on.
 */
int gr_rec_flush_this_cpu(void)
{
	struct gr_chan *chan;
	unsigned long flags;
	int ret = 0;

	local_irq_save(flags);
	chan = rcu_dereference_sched(gr_rec_chan);
	if (chan)
		ret = gr_chan_flush_this_cpu(chan);
	local_irq_restore(flags);
	return ret;
}
