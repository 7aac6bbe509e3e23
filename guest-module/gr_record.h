/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gr_record.h - the record API the tracepoint probes use
 *
 * Built on the relay core (gr_relay.h): the active channel, the events
 * being recorded, and the dispatch to the event filters (spec 14) and the
 * follow filter (spec 15) at commit. The fast path is inline here; the
 * rest is in gr_record.c.
 */
#ifndef _GR_RECORD_H
#define _GR_RECORD_H

#include "gr_relay.h"

struct gr_hist_set;

/* The record API's channel and events (gr_record.c) */
void gr_rec_set_events(const u64 *enable);
struct gr_filter_set *gr_rec_set_filters(struct gr_filter_set *set);
struct gr_follow *gr_rec_set_follow(struct gr_follow *f);
void gr_rec_set_hist(struct gr_hist_set *set);
int gr_rec_scratch_init(u32 size);
void gr_rec_scratch_exit(void);
void gr_rec_activate(struct gr_chan *chan);
void gr_rec_deactivate(void);
int gr_rec_flush_this_cpu(void);

/* ---------------------------------------------------------------------- */
/* The record API: what tracepoint probes use                             */
/*
 * A probe records in place, with no staging copy, into the active
 * channel (gr_rec_activate()):
 *
 *	struct gr_rec rec;
 *	struct gr_ev_foo *ev;
 *
 *	ev = gr_rec_begin(&rec, id, sizeof(*ev));
 *	if (!ev)
 *		return;
 *	ev->a = ...;			(fill every byte of the payload)
 *	gr_rec_commit(&rec);
 *
 * A probe whose payload size depends on its data splits the begin:
 * gr_rec_open() (event test, interrupts off, nesting guard), then the
 * size, then gr_rec_reserve(), which undoes gr_rec_open() if it fails.
 *
 * The event is tested once, in gr_rec_open(), in one bitmap that already
 * folds in whether recording is on, before interrupts are saved (an event
 * that is off costs one load and a branch). A tracepoint calls its probes
 * with preemption disabled, an RCU read-side critical section that covers
 * the test and the write, so whoever clears a bit or the channel pointer
 * and then calls synchronize_rcu() knows that no writer that saw the old
 * value is still running (spec 9.2: an ack of "tracing 0" or of a cleared
 * enable bit is true). Callers outside a tracepoint disable preemption
 * around gr_rec_begin() ... gr_rec_commit() themselves.
 *
 * Aggregation (spec 17): while a hist request runs (the static key
 * gr_rec_hist_on), an event that is not recorded, or whose record the
 * ring dropped, is written into a per-CPU scratch buffer instead, and
 * gr_rec_commit() runs the requests on it; a recorded event that a
 * request counts has its filtered bit set, and gr_rec_filter() runs the
 * requests on the record in the ring. Until the first request the
 * static key is off: not one instruction more on any path; afterwards
 * (it stays on, see gr_rec_set_hist()) a predicted branch in
 * gr_rec_reserve() while no request runs.
 */

#define GR_REC_WORD_BITS	(8 * sizeof(unsigned long))
#define GR_REC_WORDS		(GR_WIDE_MAX_EVENTS / GR_REC_WORD_BITS)

/**
 * struct gr_rec_bits - what a probe tests first, guest-private (spec 19.2
 *	W5): GR_WIDE_MAX_EVENTS bits each, one load and one bit test per
 *	probe as with 256 bits; an id's two words are 128 bytes apart, in
 *	two cache lines (one line with 256 bits, before v1.13)
 * @enabled: bit n: event n is recorded (enabled and recording on)
 * @filtered: bit n: event n may have a filter program, or a follow
 *	filter is in effect (spec 14.5, 15.4)
 */
struct gr_rec_bits {
	unsigned long enabled[GR_REC_WORDS];
	unsigned long filtered[GR_REC_WORDS];
} ____cacheline_aligned_in_smp;

extern struct gr_chan __rcu *gr_rec_chan;
extern struct gr_rec_bits gr_rec_bits;
extern struct gr_filter_set __rcu *gr_rec_filters;
extern struct gr_follow __rcu *gr_rec_follow;
extern struct gr_hist_set __rcu *gr_rec_hist;
DECLARE_STATIC_KEY_FALSE(gr_rec_hist_on);

/**
 * struct gr_rec - one record being written; lives on the probe's stack
 * @flags: saved interrupt flags
 * @buf: the ring the record is reserved in; NULL: a scratch record
 *	(spec 17: aggregated, not recorded)
 * @payload: the reserved payload
 * @ts: a scratch record's event clock
 * @len: its bytes, as reserved (private: what a filter may read)
 * @id: the event
 * @filter: the event may have a filter program or a hist request: go
 *	through gr_rec_filter() at commit
 */
struct gr_rec {
	unsigned long flags;
	struct gr_buf *buf;
	u8 *payload;
	u64 ts;
	u32 len;
	u16 id;
	bool filter;
};

/**
 * gr_event_on() - is event @id being recorded?
 * @id: event id
 *
 * Context: any; lock-free, one load.
 * Return: true if recording is on and @id is enabled.
 */
static __always_inline notrace bool gr_event_on(unsigned int id)
{
	return id < GR_WIDE_MAX_EVENTS &&
	       (READ_ONCE(gr_rec_bits.enabled[id / GR_REC_WORD_BITS]) >>
		(id % GR_REC_WORD_BITS)) & 1;
}

/*
 * Is event @id (< GR_WIDE_MAX_EVENTS) filtered? An event without a
 * program pays one bit test (spec G33)
 */
static __always_inline notrace bool gr_event_filtered(unsigned int id)
{
	return (READ_ONCE(gr_rec_bits.filtered[id / GR_REC_WORD_BITS]) >>
		(id % GR_REC_WORD_BITS)) & 1;
}

bool gr_rec_filter(struct gr_rec *rec);
bool gr_rec_open_scratch(struct gr_rec *rec, unsigned int id);
void *gr_rec_reserve_scratch(struct gr_rec *rec, size_t len);
void *gr_rec_reopen_scratch(struct gr_rec *rec, size_t len);

/**
 * gr_rec_open() - start a record of event @id on this CPU
 * @rec: the caller's record state
 * @id: event id
 *
 * Context: preemption disabled (as a tracepoint calls its probes), any
 * context including hard irq and NMI; never sleeps. On success local
 * interrupts stay disabled until gr_rec_reserve() fails or
 * gr_rec_commit().
 * Return: true to go on with gr_rec_reserve(); false if the event is off,
 * no channel is active or the write would nest (counted in lost_nested),
 * and no hist request wants the event (else: a scratch record).
 */
static __always_inline notrace bool gr_rec_open(struct gr_rec *rec,
						unsigned int id)
{
	struct gr_chan *chan;

	/* off: no irq save/restore (probes stay attached while off) */
	if (!gr_event_on(id))
		goto hist;
	/* The RCU reader of the comment above; no code on a production kernel */
	lockdep_assert_preemption_disabled();
	chan = rcu_dereference_sched(gr_rec_chan);
	if (unlikely(!chan))
		goto hist;
	local_irq_save(rec->flags);
	rec->buf = __gr_buf_enter(chan, true);
	if (likely(rec->buf)) {
		rec->id = id;
		rec->filter = gr_event_filtered(id);
		return true;
	}
	local_irq_restore(rec->flags);
hist:
	/* spec 17: aggregated even when not recorded */
	if (static_branch_unlikely(&gr_rec_hist_on))
		return gr_rec_open_scratch(rec, id);
	return false;
}

/**
 * gr_rec_reserve() - reserve the payload of a record opened by gr_rec_open()
 * @rec: the record state
 * @len: payload bytes (the header is added)
 *
 * Context: after a successful gr_rec_open().
 * Return: the payload (@len bytes the caller must fill; the tail padding
 * up to 8 bytes is already zeroed), or NULL if dropped (counted by cause
 * in the ring); then the record is closed as if gr_rec_commit() ran.
 */
static __always_inline notrace void *gr_rec_reserve(struct gr_rec *rec,
						    size_t len)
{
	void *payload;

	if (static_branch_unlikely(&gr_rec_hist_on) && !rec->buf)
		return gr_rec_reserve_scratch(rec, len);
	if (likely(!__gr_event_reserve(rec->buf, rec->id, len, &payload))) {
		rec->payload = payload;
		rec->len = len;
		return payload;
	}
	gr_buf_exit(rec->buf);
	local_irq_restore(rec->flags);
	/* spec 17: the ring dropped it, the hist requests still count it */
	if (static_branch_unlikely(&gr_rec_hist_on) && rec->filter)
		return gr_rec_reopen_scratch(rec, len);
	return NULL;
}

/**
 * gr_rec_begin() - gr_rec_open() and gr_rec_reserve() in one
 * @rec: the caller's record state
 * @id: event id
 * @len: payload bytes
 *
 * Context: any, including hard irq and NMI; never sleeps.
 * Return: the payload to fill, then gr_rec_commit(); NULL if the event is
 * off or dropped.
 */
static __always_inline notrace void *gr_rec_begin(struct gr_rec *rec,
						  unsigned int id, size_t len)
{
	if (!gr_rec_open(rec, id))
		return NULL;
	return gr_rec_reserve(rec, len);
}

/**
 * gr_rec_commit() - finish the record whose payload the caller filled
 * @rec: the record state
 *
 * An event with a filter program runs it here, before the ring is left:
 * a record it rejects is taken back (spec G32, 14.5). An event without
 * one pays the test of @rec->filter (G33). A scratch record (spec 17)
 * always goes through gr_rec_filter(), which aggregates it.
 *
 * Context: the context of the matching gr_rec_begin() or gr_rec_reserve().
 */
static __always_inline notrace void gr_rec_commit(struct gr_rec *rec)
{
	if (unlikely(rec->filter) && unlikely(!gr_rec_filter(rec))) {
		local_irq_restore(rec->flags);
		return;
	}
	gr_buf_exit(rec->buf);
	local_irq_restore(rec->flags);
}

/**
 * gr_rec_chan_panic() - the channel writers use, for the panic path
 *
 * Context: panic notifier (other CPUs stopped, interrupts off).
 * Return: the active channel, or NULL while it is being reset or torn
 * down (then its state must not be touched).
 */
static inline struct gr_chan *gr_rec_chan_panic(void)
{
	return rcu_dereference_sched(gr_rec_chan);
}

#endif /* _GR_RECORD_H */
