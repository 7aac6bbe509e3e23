/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Relay channels over the guestrelay shared region
 *
 * The interface of kernel relay (relay_open(), relay_write(), ...) with a
 * gr_ prefix, over memory the host shares: each ring lives at the place
 * spec/guestrelay_abi.h gives it, the host consumes sub-buffers in place
 * and says so through gr_ring.cons.consumed. See gr_relay.c for the states
 * of a sub-buffer and who moves them.
 *
 * As kernel relay does with relay_write(), the writers' fast path is
 * inline here (a sub-buffer switch and every drop are out of line in
 * gr_relay.c), and so is the record API the tracepoint probes use
 * (gr_rec_begin() ... gr_rec_commit()). The structures are shown for that
 * and so that callers can read them (and tests can check them); only the
 * functions of this file and gr_relay.c write them.
 */
#ifndef _GR_RELAY_H
#define _GR_RELAY_H

#include "gr_env.h"
#include "gr_filter.h"
#include "gr_layout.h"
#include "guestrelay_abi.h"

struct gr_buf;

/**
 * struct gr_callbacks - what a channel calls back
 * @subbuf_start: a sub-buffer switch is about to happen; see
 *	gr_ctf_subbuf_start(). NULL means gr_ctf_subbuf_start().
 * @buf_mapped: the host attached to this ring (may be NULL)
 * @buf_unmapped: the host detached from this ring (may be NULL)
 * @doorbell: the host wants to hear about the sub-buffer just produced:
 *	ring GR_VEC_DATA. Runs in the writer's context (interrupts off,
 *	possibly NMI): it must not sleep or take locks. May be NULL.
 */
struct gr_callbacks {
	int (*subbuf_start)(struct gr_buf *buf, void *subbuf,
			    void *prev_subbuf, size_t prev_padding);
	void (*buf_mapped)(struct gr_buf *buf);
	void (*buf_unmapped)(struct gr_buf *buf);
	void (*doorbell)(struct gr_buf *buf);
};

/**
 * struct gr_buf - the guest-private state of one ring
 * @start: sub-buffer being filled
 * @offset: write offset in @start; subbuf_size + 1 while no sub-buffer is
 *	being filled (the last switch was refused)
 * @subbuf_size: the layout's, cached for the writers
 * @max_event_size: the layout's, cached for the writers
 * @nesting: non-zero while the ring's CPU is inside the ring (a per-CPU
 *	ring; a global ring uses the channel's per-CPU guards)
 * @global: the channel's one ring for all CPUs
 * @ts_held: a write took @last_ts for its record: a switch it causes uses
 *	the same reading (one clock read per write, spec 6.9)
 * @events: events written, free-running; prod.events is published from
 *	it by gr_chan_publish_events(), never per event
 * @last_ts: the ring's last timestamp; its clock never goes back (spec 6.9)
 * @chan: the channel
 * @index: ring index (the CPU, or 0 for the global ring)
 * @hdr_reserved: bytes reserved at the start of @start
 * @produced: sub-buffers finished; the one being filled has this number
 * @consumed: last valid value of the host's cons.consumed
 * @published: value of prod.produced the host may see
 * @ring: shared counters
 * @recs: commit records of this ring
 * @data: first sub-buffer of this ring
 * @new_subbuf: during a switch: the sub-buffer offered to subbuf_start
 * @new_idx: during a switch: slot of @new_subbuf
 * @new_reserve: during a switch: bytes gr_subbuf_start_reserve() asked
 * @new_busy: during a switch: the record of @new_subbuf says GR_SEQ_BUSY
 * @in_switch: subbuf_start is running
 * @commit_pending: a finished sub-buffer awaits gr_subbuf_commit()
 * @commit_bytes: content bytes of that sub-buffer
 * @cons_event: value of prod.cons_event
 * @lost_full: events dropped for lack of a free sub-buffer, free-running
 * @lost_too_big: events dropped for their size, free-running
 * @lost_nested: events dropped for nesting, free-running (NMI safe)
 * @overwritten: sub-buffers overwritten before the host consumed them
 * @lost_full_base: @lost_full at the last reset
 * @lost_too_big_base: @lost_too_big at the last reset
 * @lost_nested_base: @lost_nested at the last reset
 * @overwritten_base: @overwritten at the last reset
 * @consumed_errors: invalid values of cons.consumed ignored
 * @doorbells: times the doorbell decision said "ring"
 * @filtered: per filter slot, records its programs took back, free-running
 *	(spec 14.5); summed into status.filtered by gr_chan_filtered(); entry
 *	GR_FOLLOW_SLOT: records the follow filter took back (spec 15.4)
 *
 * The members up to @chan are all a write touches on the fast path, in
 * the structure's first cache line (the structure is cache-line aligned
 * and each CPU has its own). Every counter the guest publishes in the
 * ring's prod half is kept here and only stored there: a value the guest
 * wrote to the region is never read back as input (spec G26).
 */
struct gr_buf {
	u8 *start;
	size_t offset;
	u32 subbuf_size;
	u32 max_event_size;
	u32 nesting;
	bool global;
	bool ts_held;
	u64 events;
	u64 last_ts;
	struct gr_chan *chan;

	u32 index;
	size_t hdr_reserved;
	u64 produced;
	u64 consumed;
	u64 published;
	struct gr_ring *ring;
	struct gr_subbuf_rec *recs;
	u8 *data;

	u8 *new_subbuf;
	u32 new_idx;
	size_t new_reserve;
	bool new_busy;
	bool in_switch;
	bool commit_pending;
	u32 commit_bytes;

	u64 cons_event;
	u64 lost_full;
	u64 lost_too_big;
	atomic64_t lost_nested;
	u64 overwritten;
	u64 lost_full_base;
	u64 lost_too_big_base;
	u64 lost_nested_base;
	u64 overwritten_base;
	u64 consumed_errors;
	u64 doorbells;
	u64 filtered[GR_FOLLOW_SLOT + 1];
} ____cacheline_aligned_in_smp;

/**
 * struct gr_cpu - per-CPU nesting guard of a global channel
 * @nesting: non-zero while this CPU is inside the channel
 */
struct gr_cpu {
	u32 nesting;
} ____cacheline_aligned_in_smp;

/**
 * struct gr_chan - a relay channel
 * @bufs: one per ring
 * @cpus: one nesting guard per CPU for a global channel, else NULL (a
 *	per-CPU ring holds its CPU's guard)
 * @nr_cpus: the layout's, cached for the writers
 * @global: one ring for all CPUs
 * @lock: serializes writers of the global ring
 * @lock_flags: interrupt state saved by the holder of @lock
 * @layout: geometry and layout of the region
 * @cb: callbacks, defaults filled in
 * @private_data: the caller's pointer from gr_chan_open()
 * @mem: where the rings are: the region, or private memory
 * @mem_off: region offset that @mem stands for
 * @priv_mem: private memory of a buffer-only channel, else NULL
 * @mode: GR_MODE_STREAM or GR_MODE_FLIGHT, read at every switch
 * @event_idx: GR_F_EVENT_IDX is in use (both sides implement it)
 * @mapped: the host is attached
 *
 * The members up to @lock_flags are what a writer reads to find its ring,
 * in the structure's first cache line.
 */
struct gr_chan {
	struct gr_buf *bufs;
	struct gr_cpu *cpus;
	u32 nr_cpus;
	bool global;
	raw_spinlock_t lock;
	unsigned long lock_flags;

	struct gr_layout layout ____cacheline_aligned_in_smp;
	struct gr_callbacks cb;
	void *private_data;
	u8 *mem;
	u64 mem_off;
	void *priv_mem;
	u32 mode;
	bool event_idx;
	bool mapped;
};

/* Channel management */
int gr_chan_open(struct gr_chan **chanp, void *region,
		 const struct gr_layout *layout,
		 const struct gr_callbacks *cb, void *private_data);
int gr_chan_late_setup(struct gr_chan *chan, void *region);
void gr_chan_close(struct gr_chan *chan);
void gr_chan_flush(struct gr_chan *chan);
int gr_chan_flush_this_cpu(struct gr_chan *chan);
void gr_chan_reset(struct gr_chan *chan);
int gr_chan_set_mode(struct gr_chan *chan, u32 mode);
void gr_chan_set_event_idx(struct gr_chan *chan, bool on);
int gr_chan_set_online(struct gr_chan *chan, u32 ring, bool online);
u64 gr_chan_consumed_errors(struct gr_chan *chan);
u64 gr_chan_filtered(struct gr_chan *chan, unsigned int slot);
void gr_chan_publish_events(struct gr_chan *chan);
int gr_subbufs_consumed(struct gr_chan *chan, u32 ring);
void gr_buf_mapped(struct gr_chan *chan);
void gr_buf_unmapped(struct gr_chan *chan);

/* Slow paths of the writers, out of line in gr_relay.c */
int gr_buf_alloc_slow(struct gr_buf *buf, size_t length, u8 **slot,
		      bool ts_held);
void gr_buf_lost_too_big(struct gr_buf *buf);
void gr_buf_lost_nested(struct gr_buf *buf);
int gr_event_write(struct gr_chan *chan, u16 id, const void *payload,
		   size_t payload_len);

/* The record API's channel and events (gr_rec_*() below) */
void gr_rec_set_events(const u64 *enable);
struct gr_filter_set *gr_rec_set_filters(struct gr_filter_set *set);
struct gr_follow *gr_rec_set_follow(struct gr_follow *f);
void gr_rec_activate(struct gr_chan *chan);
void gr_rec_deactivate(void);
int gr_rec_flush_this_cpu(void);
void gr_chan_flush_idle(struct gr_chan *chan);

/* ---------------------------------------------------------------------- */
/* Writing: the fast path, inline as kernel relay's relay_write()          */
/*
 * Every function below runs in the writer's context with no call of ours
 * out of line unless the event is dropped or a sub-buffer switch is due
 * (unlikely; gr_buf_alloc_slow() and the gr_buf_lost_*() counters).
 */

static inline void gr_put64(__le64 *field, u64 val)
{
	WRITE_ONCE(*field, cpu_to_le64(val));
}

/*
 * The ring's clock: the event clock, but never behind the ring's previous
 * reading, so records and packets of a ring are in time order even if
 * ktime_get_mono_fast_ns() steps back a little across a timekeeping
 * update (spec G14; CTF readers reject a stream whose time goes back).
 * Called with the ring entered (interrupts off, or the global lock held).
 */
static __always_inline notrace u64 gr_buf_clock(struct gr_buf *buf)
{
	u64 now = gr_clock();

	if (unlikely(now < buf->last_ts))
		now = buf->last_ts;
	buf->last_ts = now;
	return now;
}

/* Take @len bytes (a multiple of GR_RECORD_ALIGN) that fit at the offset */
static __always_inline notrace u8 *gr_buf_take(struct gr_buf *buf, size_t len)
{
	u8 *p = buf->start + buf->offset;

	buf->offset += len;
	/* private: prod.events is published by gr_chan_publish_events() */
	buf->events++;
	return p;
}

/*
 * Zero the padding after the first @length bytes of a record, if there is
 * any; the caller fills those bytes. A constant @length that is a
 * multiple of GR_RECORD_ALIGN (most probes' records) costs nothing.
 */
static __always_inline notrace void gr_zero_tail(u8 *slot, size_t length)
{
	if (length % GR_RECORD_ALIGN)
		memset(slot + ALIGN(length, (size_t)GR_RECORD_ALIGN) -
		       GR_RECORD_ALIGN, 0, GR_RECORD_ALIGN);
}

/*
 * Reserve @len bytes, a multiple of GR_RECORD_ALIGN that the caller has
 * checked against max_event_size (once: spec 6.4 step 1), in an entered
 * ring; a record is never split (spec G13). @ts_held: the write took the
 * ring's clock already, a switch reuses that reading (spec 6.9).
 */
static __always_inline notrace int gr_buf_alloc(struct gr_buf *buf,
						size_t len, u8 **slot,
						bool ts_held)
{
	if (likely(buf->offset + len <= buf->subbuf_size)) {
		*slot = gr_buf_take(buf, len);
		return 0;
	}
	return gr_buf_alloc_slow(buf, len, slot, ts_held);
}

static __always_inline notrace struct gr_buf *
__gr_buf_enter(struct gr_chan *chan, bool count)
{
	u32 cpu = smp_processor_id();
	struct gr_buf *buf;
	unsigned long flags;
	u32 *guard;

	/* Cannot happen (nr_cpus is nr_cpu_ids); never index past the guards */
	if (unlikely(cpu >= chan->nr_cpus))
		return NULL;
	/* The nesting guard of this CPU (spec 6.10) */
	if (likely(!chan->global)) {
		buf = &chan->bufs[cpu];
		guard = &buf->nesting;
	} else {
		buf = chan->bufs;
		guard = &chan->cpus[cpu].nesting;
	}
	if (unlikely(READ_ONCE(*guard))) {
		/* spec G15, 6.10: a nested write is dropped and counted */
		if (count)
			gr_buf_lost_nested(buf);
		return NULL;
	}
	WRITE_ONCE(*guard, 1);
	/*
	 * The guard is up before the ring is touched. Only code that runs on
	 * this CPU (an interrupt or NMI nesting here) reads it: a compiler
	 * barrier is enough, and it pairs with the one in gr_buf_exit().
	 */
	barrier();
	if (chan->global) {
		raw_spin_lock_irqsave(&chan->lock, flags);
		chan->lock_flags = flags;
	}
	return buf;
}

/**
 * gr_buf_enter() - enter this CPU's ring for writing
 * @chan: the channel
 *
 * Raises this CPU's nesting guard and, for a global channel, takes the
 * channel's lock (interrupts off while it is held). A caller writes in
 * place with:
 *
 *	local_irq_save(flags);
 *	buf = gr_buf_enter(chan);
 *	if (buf) {
 *		p = gr_event_reserve(buf, id, sizeof(*p));
 *		if (p)
 *			p->field = value;	(every payload byte)
 *		gr_buf_exit(buf);
 *	}
 *	local_irq_restore(flags);
 *
 * Context: interrupts (or at least preemption) disabled by the caller; any
 * context including NMI.
 * Return: the ring to write to, or NULL if this CPU is already inside the
 * channel (an interrupt or NMI nesting on a writer): the event is dropped
 * and counted in prod.lost_nested.
 */
static __always_inline notrace struct gr_buf *
gr_buf_enter(struct gr_chan *chan)
{
	return __gr_buf_enter(chan, true);
}

/**
 * gr_buf_exit() - leave the ring entered with gr_buf_enter()
 * @buf: what gr_buf_enter() returned
 *
 * Context: the context of the matching gr_buf_enter(), same CPU.
 */
static __always_inline notrace void gr_buf_exit(struct gr_buf *buf)
{
	struct gr_chan *chan;
	unsigned long flags;

	if (likely(!buf->global)) {
		/* Pairs with the compiler barrier in __gr_buf_enter() */
		barrier();
		WRITE_ONCE(buf->nesting, 0);
		return;
	}
	chan = buf->chan;
	flags = chan->lock_flags;
	raw_spin_unlock_irqrestore(&chan->lock, flags);
	barrier();
	WRITE_ONCE(chan->cpus[smp_processor_id()].nesting, 0);
}

/*
 * The least max_event_size of any channel: the spec's value (4.2) for the
 * smallest sub-buffer; gr_layout_check() holds every channel to it.
 */
#define GR_MIN_EVENT_LIMIT \
	(GR_MIN_SUBBUF_SIZE - sizeof(struct gr_packet_header))

/* spec 6.4 step 1, the only size check of a write: 0, -EINVAL or -E2BIG */
static __always_inline notrace int gr_buf_check_size(struct gr_buf *buf,
						     size_t length)
{
	if (unlikely(!length))
		return -EINVAL;
	if (unlikely(length > buf->max_event_size)) {
		gr_buf_lost_too_big(buf);
		return -E2BIG;
	}
	return 0;
}

static __always_inline notrace int gr_write(struct gr_chan *chan,
					    const void *data, size_t length)
{
	struct gr_buf *buf = __gr_buf_enter(chan, true);
	u8 *slot;
	int ret;

	if (unlikely(!buf))
		return -EBUSY;
	ret = gr_buf_check_size(buf, length);
	if (likely(!ret))
		ret = gr_buf_alloc(buf, ALIGN(length, (size_t)GR_RECORD_ALIGN),
				   &slot, false);
	if (likely(!ret)) {
		gr_zero_tail(slot, length);
		memcpy(slot, data, length);
	}
	gr_buf_exit(buf);
	return ret;
}

/**
 * gr_relay_write() - write a message to this CPU's ring
 * @chan: the channel
 * @data: the message
 * @length: its bytes; the record takes @length rounded up to 8
 *
 * The message is never split: if it does not fit in the current
 * sub-buffer the core switches to the next one first. For a global
 * channel the write holds the channel's spinlock (taken irqsave).
 *
 * Context: any, including hard irq and NMI; disables local interrupts.
 * Return: 0; -ENOSPC if no sub-buffer is free (stream mode; counted in
 * lost_full); -E2BIG if @length exceeds max_event_size (counted in
 * lost_too_big); -EBUSY if nested on this CPU (counted in lost_nested);
 * -EINVAL if @length is 0.
 */
static __always_inline notrace int gr_relay_write(struct gr_chan *chan,
						  const void *data,
						  size_t length)
{
	unsigned long flags;
	int ret;

	local_irq_save(flags);
	ret = gr_write(chan, data, length);
	local_irq_restore(flags);
	return ret;
}

/**
 * __gr_relay_write() - gr_relay_write() for callers that never race an
 * interrupt handler writing to the same channel
 * @chan: the channel
 * @data: the message
 * @length: its bytes
 *
 * Only disables preemption. A writer in an interrupt that does arrive
 * meanwhile finds the nesting guard up and drops its event.
 *
 * Context: process or softirq context.
 * Return: as gr_relay_write().
 */
static __always_inline notrace int __gr_relay_write(struct gr_chan *chan,
						    const void *data,
						    size_t length)
{
	int ret;

	preempt_disable();
	ret = gr_write(chan, data, length);
	preempt_enable();
	return ret;
}

/**
 * gr_relay_reserve() - reserve a slot in this CPU's ring
 * @chan: the channel
 * @length: bytes; the slot is @length rounded up to 8, its tail zeroed
 *
 * No protection at all: the caller keeps other writers of the ring (and
 * the nesting guard's users) away, and fills the slot before anything
 * else can finish the sub-buffer.
 *
 * Context: the ring's writer context, provided by the caller: on this
 * CPU with interrupts off for a per-CPU ring, under its own lock for a
 * global one.
 * Return: the slot, or NULL (dropped and counted as gr_relay_write()).
 */
static __always_inline notrace void *gr_relay_reserve(struct gr_chan *chan,
						      size_t length)
{
	u32 cpu = smp_processor_id();
	struct gr_buf *buf;
	u8 *slot;

	if (unlikely(cpu >= chan->nr_cpus))
		return NULL;
	buf = chan->global ? chan->bufs : &chan->bufs[cpu];
	if (gr_buf_check_size(buf, length) ||
	    gr_buf_alloc(buf, ALIGN(length, (size_t)GR_RECORD_ALIGN), &slot,
			 false))
		return NULL;
	gr_zero_tail(slot, length);
	return slot;
}

static __always_inline notrace int
__gr_event_reserve(struct gr_buf *buf, u16 id, size_t payload_len,
		   void **payload)
{
	struct gr_event_header *eh;
	size_t len = ALIGN(sizeof(*eh) + payload_len, (size_t)GR_RECORD_ALIGN);
	u8 *slot;
	u64 ts;
	int ret;

	/*
	 * max_event_size is a multiple of 8 (spec 4.2): len fits if it does.
	 * It is at least GR_MIN_EVENT_LIMIT, so a probe's fixed payload that
	 * fits that needs no check at run time.
	 */
	if (!(__builtin_constant_p(payload_len) &&
	      payload_len <= GR_MIN_EVENT_LIMIT - sizeof(*eh)) &&
	    unlikely(payload_len > buf->max_event_size - sizeof(*eh))) {
		gr_buf_lost_too_big(buf);
		return -E2BIG;
	}
	/* One clock read per write, shared with the switch it may cause */
	ts = gr_buf_clock(buf);
	ret = gr_buf_alloc(buf, len, &slot, true);
	if (unlikely(ret))
		return ret;
	gr_zero_tail(slot, sizeof(*eh) + payload_len);
	eh = (struct gr_event_header *)slot;
	eh->id = cpu_to_le16(id);
	eh->size = cpu_to_le16((u16)len);
	eh->tid = cpu_to_le32(gr_current_tid());
	eh->timestamp = cpu_to_le64(ts);
	*payload = eh + 1;
	return 0;
}

/**
 * gr_event_reserve() - reserve an event record in an entered ring
 * @buf: from gr_buf_enter()
 * @id: event id (descriptor index)
 * @payload_len: payload bytes after struct gr_event_header
 *
 * Fills the struct gr_event_header (id, size = ALIGN(16 + @payload_len,
 * 8), tid, timestamp from the event clock) and zeroes the tail padding.
 *
 * Context: between gr_buf_enter() and gr_buf_exit().
 * Return: the payload, which the caller fills completely before
 * gr_buf_exit(); NULL if dropped (counted in lost_full or lost_too_big).
 */
static __always_inline notrace void *gr_event_reserve(struct gr_buf *buf,
						      u16 id,
						      size_t payload_len)
{
	void *payload;

	if (__gr_event_reserve(buf, id, payload_len, &payload))
		return NULL;
	return payload;
}

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
 */

#define GR_REC_WORD_BITS	(8 * sizeof(unsigned long))
#define GR_REC_WORDS		(GR_MAX_EVENTS / GR_REC_WORD_BITS)

/**
 * struct gr_rec_bits - what a probe tests first, in one cache line
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

/**
 * struct gr_rec - one record being written; lives on the probe's stack
 * @flags: saved interrupt flags
 * @buf: the ring the record is reserved in
 * @payload: the reserved payload
 * @len: its bytes, as reserved (private: what a filter may read)
 * @id: the event
 * @filter: the event may have a filter program: run it at commit
 */
struct gr_rec {
	unsigned long flags;
	struct gr_buf *buf;
	u8 *payload;
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
	return id < GR_MAX_EVENTS &&
	       (READ_ONCE(gr_rec_bits.enabled[id / GR_REC_WORD_BITS]) >>
		(id % GR_REC_WORD_BITS)) & 1;
}

/*
 * Is event @id (< GR_MAX_EVENTS) filtered? The enabled word's cache line:
 * an event without a program pays one bit test (spec G33)
 */
static __always_inline notrace bool gr_event_filtered(unsigned int id)
{
	return (READ_ONCE(gr_rec_bits.filtered[id / GR_REC_WORD_BITS]) >>
		(id % GR_REC_WORD_BITS)) & 1;
}

void gr_rec_filter(struct gr_rec *rec);

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
 * no channel is active or the write would nest (counted in lost_nested).
 */
static __always_inline notrace bool gr_rec_open(struct gr_rec *rec,
						unsigned int id)
{
	struct gr_chan *chan;

	/* off: no irq save/restore (probes stay attached while off) */
	if (!gr_event_on(id))
		return false;
	/* The RCU reader of the comment above; no code on a production kernel */
	lockdep_assert_preemption_disabled();
	chan = rcu_dereference_sched(gr_rec_chan);
	if (unlikely(!chan))
		return false;
	local_irq_save(rec->flags);
	rec->buf = __gr_buf_enter(chan, true);
	if (likely(rec->buf)) {
		rec->id = id;
		rec->filter = gr_event_filtered(id);
		return true;
	}
	local_irq_restore(rec->flags);
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

	if (likely(!__gr_event_reserve(rec->buf, rec->id, len, &payload))) {
		rec->payload = payload;
		rec->len = len;
		return payload;
	}
	gr_buf_exit(rec->buf);
	local_irq_restore(rec->flags);
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
 * one pays the test of @rec->filter (G33).
 *
 * Context: the context of the matching gr_rec_begin() or gr_rec_reserve().
 */
static __always_inline notrace void gr_rec_commit(struct gr_rec *rec)
{
	if (unlikely(rec->filter))
		gr_rec_filter(rec);
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

/* For subbuf_start callbacks */
int gr_buf_full(struct gr_buf *buf);
void gr_subbuf_start_reserve(struct gr_buf *buf, size_t length);
void gr_subbuf_commit(struct gr_buf *buf);
bool gr_buf_need_doorbell(struct gr_buf *buf, u64 old, u64 new_idx);
int gr_ctf_subbuf_start(struct gr_buf *buf, void *subbuf,
			void *prev_subbuf, size_t prev_padding);
int gr_ctf_subbuf_start_stream(struct gr_buf *buf, void *subbuf,
			       void *prev_subbuf, size_t prev_padding);
int gr_ctf_subbuf_start_flight(struct gr_buf *buf, void *subbuf,
			       void *prev_subbuf, size_t prev_padding);

#endif /* _GR_RELAY_H */
