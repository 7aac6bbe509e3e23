/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Relay channels over the guestrelay shared region: the core
 *
 * The interface of kernel relay (relay_open(), relay_switch_subbuf(),
 * relay_subbufs_consumed(), ...) with a gr_ prefix, over memory the host
 * shares: each ring lives where spec/guestrelay_abi.h's addressing helpers
 * put it, the host consumes sub-buffers in place and says so through
 * gr_ring.cons.consumed. The states of a sub-buffer (FREE, BEING_WRITTEN,
 * PRODUCED) are the ABI header's enum gr_subbuf_state; gr_relay.c says
 * who moves them.
 *
 * As kernel relay does with relay_write(), the writers' fast path is
 * inline here; a sub-buffer switch and every drop are out of line in
 * gr_relay.c. What builds on the core lives in files of its own:
 *
 *   gr_ctf_packet.[ch]    subbuf_start callbacks: sub-buffers as CTF packets
 *   gr_record.[ch]        the record API of the probes, filter dispatch
 *   gr_relay_client.[ch]  kernel relay's client calls (relay_write(),
 *                         relay_reserve(), buffer-only channels)
 *   gr_relay_api.c        the exported client API over them
 *                         (include/guestrelay/relay.h), gr_relay_file.c
 *                         its relay files and klog
 *
 * The structures are shown for the inline fast path and so that callers
 * can read them (and tests can check them); only the functions of this
 * file and gr_relay.c write them.
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
 * @subbuf_start: a sub-buffer switch is about to happen (kernel relay's
 *	subbuf_start): @prev_subbuf (NULL if none) was just finished with
 *	@prev_padding unused bytes at its end; @subbuf is offered. Return 1
 *	to start @subbuf, 0 to refuse (stream mode, every slot PRODUCED).
 *	Before it writes into @subbuf it calls gr_subbuf_start_reserve().
 *	NULL means relay's default: no header, refuse only when
 *	gr_buf_full() in GR_MODE_STREAM. gr_ctf_subbuf_start() makes
 *	sub-buffers CTF packets.
 * @doorbell: the host wants to hear about the sub-buffer just produced:
 *	ring GR_VEC_DATA. Runs in the writer's context (interrupts off,
 *	possibly NMI): it must not sleep or take locks. May be NULL.
 */
struct gr_callbacks {
	int (*subbuf_start)(struct gr_buf *buf, void *subbuf,
			    void *prev_subbuf, size_t prev_padding);
	void (*doorbell)(struct gr_buf *buf);
};

/**
 * struct gr_buf - the guest-private state of one ring
 * @start: the sub-buffer BEING_WRITTEN
 * @offset: write offset in @start; subbuf_size + 1 while the ring has no
 *	sub-buffer BEING_WRITTEN (the last switch was refused)
 * @subbuf_size: the layout's, cached for the writers
 * @max_event_size: the layout's, cached for the writers
 * @nesting: non-zero while the ring's CPU is inside the ring (a per-CPU
 *	ring; a global ring uses the channel's per-CPU guards)
 * @global: the channel's one ring for all CPUs
 * @events: events written, free-running; prod.events is published from
 *	it by gr_chan_publish_events(), never per event
 * @last_ts: the ring's last timestamp; its clock never goes back (spec
 *	6.9); during a switch, the switch's timestamp
 * @chan: the channel
 * @last_record: the last record reserved in @start, NULL if none (or it
 *	was taken back): rec.last_record at the commit (spec 3.8, G40); one
 *	plain store per record of the pointer the write computes anyway
 * @index: ring index (the CPU, or 0 for the global ring)
 * @hdr_reserved: bytes subbuf_start reserved at the start of @start
 * @produced: sub-buffers PRODUCED; the one BEING_WRITTEN has this number
 * @consumed: last valid value of the host's cons.consumed
 * @published: value of prod.produced the host may see
 * @ring: shared counters
 * @recs: commit records of this ring
 * @data: first sub-buffer of this ring
 * @cons_event: value of prod.cons_event
 * @lost_full: events dropped for lack of a FREE sub-buffer, free-running
 * @lost_too_big: events dropped for their size, free-running
 * @lost_nested: events dropped for nesting, free-running (NMI safe)
 * @overwritten: PRODUCED sub-buffers restarted unconsumed (flight mode)
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
	u64 events;
	u64 last_ts;
	struct gr_chan *chan;
	u8 *last_record;

	u32 index;
	size_t hdr_reserved;
	u64 produced;
	u64 consumed;
	u64 published;
	struct gr_ring *ring;
	struct gr_subbuf_rec *recs;
	u8 *data;

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
 * @region: the region the rings live in (its first byte, the header)
 * @mode: GR_MODE_STREAM or GR_MODE_FLIGHT, read at every switch
 * @event_idx: GR_F_EVENT_IDX is in use (both sides implement it)
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
	u8 *region;
	u32 mode;
	bool event_idx;
};

/* Channel management */
int gr_chan_open(struct gr_chan **chanp, void *region,
		 const struct gr_layout *layout,
		 const struct gr_callbacks *cb, void *private_data);
void gr_chan_close(struct gr_chan *chan);
void gr_chan_flush(struct gr_chan *chan);
int gr_chan_flush_this_cpu(struct gr_chan *chan);
int gr_chan_flush_ring(struct gr_chan *chan, u32 ring);
void gr_chan_flush_idle(struct gr_chan *chan);
void gr_chan_reset(struct gr_chan *chan);
int gr_chan_set_mode(struct gr_chan *chan, u32 mode);
void gr_chan_set_event_idx(struct gr_chan *chan, bool on);
int gr_chan_set_online(struct gr_chan *chan, u32 ring, bool online);
u64 gr_chan_consumed_errors(struct gr_chan *chan);
u64 gr_chan_filtered(struct gr_chan *chan, unsigned int slot);
void gr_chan_publish_events(struct gr_chan *chan);
int gr_subbufs_consumed(struct gr_chan *chan, u32 ring);

/* For subbuf_start callbacks */
int gr_buf_full(struct gr_buf *buf);
void gr_subbuf_start_reserve(struct gr_buf *buf, size_t length);
bool gr_buf_need_doorbell(struct gr_buf *buf, u64 old, u64 new_idx);

/* For gr_relay_client.c: moving a ring between regions */
void gr_buf_bind(struct gr_buf *buf);
void gr_buf_init_recs(struct gr_buf *buf);
void gr_buf_publish_counters(struct gr_buf *buf);
void gr_buf_publish_produced(struct gr_buf *buf);

/* Slow paths of the writers, out of line in gr_relay.c */
int gr_buf_alloc_slow(struct gr_buf *buf, size_t length, u8 **slot,
		      bool ts_held);
void gr_buf_lost_too_big(struct gr_buf *buf);
void gr_buf_lost_nested(struct gr_buf *buf);

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

/* The slot of packet number @c in @buf's ring (spec 6.1, G8) */
static inline u32 gr_buf_slot(const struct gr_buf *buf, u64 c)
{
	return gr_subbuf_slot(c, buf->chan->layout.n_subbufs);
}

/* The sub-buffer in slot @slot of @buf's ring */
static inline u8 *gr_buf_subbuf(const struct gr_buf *buf, u32 slot)
{
	return buf->data + (size_t)slot * buf->chan->layout.subbuf_size;
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

	/* the commit's rec.last_record (spec G40) */
	buf->last_record = p;
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
	/* once: the barrier below would load it again for the lock test */
	bool global = chan->global;
	struct gr_buf *buf;
	unsigned long flags;
	u32 *guard;

	/* Cannot happen (nr_cpus is nr_cpu_ids); never index past the guards */
	if (unlikely(cpu >= chan->nr_cpus))
		return NULL;
	/* The nesting guard of this CPU (spec 6.10) */
	if (likely(!global)) {
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
	if (global) {
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
	/* Pairs with the compiler barrier in __gr_buf_enter() */
	barrier();
	WRITE_ONCE(chan->cpus[smp_processor_id()].nesting, 0);
}

/*
 * The least max_event_size of any channel: the spec's value (4.2) for the
 * smallest sub-buffer; gr_layout_check() holds every channel to it.
 */
#define GR_MIN_EVENT_LIMIT \
	(GR_MIN_SUBBUF_SIZE - sizeof(struct gr_packet_header))

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

#endif /* _GR_RELAY_H */
