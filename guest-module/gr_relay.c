// SPDX-License-Identifier: GPL-2.0
/*
 * Relay channels over the guestrelay shared region: the core
 *
 * A ring is n sub-buffers. The sub-buffer numbered c (c = the value of
 * produced when it was started; CTF's packet_seq_num) lives in slot
 * gr_subbuf_slot(c, n), and moves through the states of spec 6.2 (enum
 * gr_subbuf_state in guestrelay_abi.h, with the picture): the guest moves
 * it FREE -> BEING_WRITTEN -> PRODUCED, the host PRODUCED -> FREE by
 * advancing cons.consumed. Here:
 *
 *   FREE -> BEING_WRITTEN   gr_buf_switch() offers the slot to
 *                           subbuf_start, which accepts it and reserves
 *                           its header: rec.seq := GR_SEQ_BUSY, smp_wmb()
 *   BEING_WRITTEN           writers reserve records at buf->offset (the
 *                           fast path, gr_relay.h); reset restarts it
 *   BEING_WRITTEN -> PRODUCED
 *                           the next gr_buf_switch() (full, flush, timer,
 *                           close): subbuf_start finalizes the header,
 *                           then gr_buf_commit(): rec.bytes, release of
 *                           rec.seq = c, release of produced = c + 1
 *   PRODUCED -> BEING_WRITTEN
 *                           flight mode only: the switch restarts the
 *                           oldest slot unconsumed, counted in
 *                           prod.overwritten
 *
 * Stream mode (no overwrite): the guest starts slot (produced % n) only if
 * produced - consumed < n. Otherwise the switch is refused: the ring has
 * no sub-buffer BEING_WRITTEN, every write is dropped and counted in
 * lost_full, and every later write tries the switch again, reading
 * cons.consumed once - never a loop.
 *
 * Flight mode (overwrite): the switch always happens. A host snapshotting
 * such a ring reads rec.seq, copies, smp_rmb(), reads rec.seq again: the
 * BUSY marking tells the host it raced.
 *
 * Each side trusts nothing the other wrote: slot numbers come from
 * guest-private counters, and a consumed value outside [consumed mirror,
 * produced] is ignored and counted.
 *
 * Writers of a per-CPU ring are the code running on that CPU: process
 * context, interrupts and NMIs nest on it. A per-CPU nesting guard drops
 * (and counts) a write that interrupts another one, so the ring's private
 * state has a single writer at any time. The global ring adds a spinlock,
 * taken with interrupts off, after the guard: an NMI never spins on a lock
 * its own CPU holds.
 */

#include "gr_relay.h"

/* ---------------------------------------------------------------------- */
/* Addressing and counters                                                */

static void *gr_chan_at(const struct gr_chan *chan, u64 off)
{
	return chan->region + off;
}

/**
 * gr_buf_bind() - point a ring at its place in the channel's region
 * @buf: the ring, its @chan and @index set
 *
 * Sets @ring, @recs and @data from the ABI's addressing helpers.
 *
 * Context: process context; no writer on the ring.
 */
void gr_buf_bind(struct gr_buf *buf)
{
	const struct gr_chan *chan = buf->chan;
	const struct gr_layout *lay = &chan->layout;

	buf->ring = gr_chan_at(chan, gr_ring_off(lay->ring_offset,
						 buf->index));
	buf->recs = gr_chan_at(chan, gr_subbuf_rec_off(lay->subbuf_rec_offset,
						       lay->n_subbufs,
						       buf->index, 0));
	buf->data = gr_chan_at(chan, gr_subbuf_off(lay->data_offset,
						   lay->n_subbufs,
						   lay->subbuf_size,
						   buf->index, 0));
}

static void gr_put_lost_nested(struct gr_buf *buf)
{
	u64 lost = (u64)atomic64_read(&buf->lost_nested);

	gr_put64(&buf->ring->prod.lost_nested,
		 lost - READ_ONCE(buf->lost_nested_base));
}

/**
 * gr_buf_publish_counters() - store the ring's lost and event counters
 * @buf: the ring
 *
 * Context: the ring's writer context, or no writer on the ring.
 */
void gr_buf_publish_counters(struct gr_buf *buf)
{
	struct gr_ring_prod *prod = &buf->ring->prod;

	gr_put64(&prod->lost_full, buf->lost_full - buf->lost_full_base);
	gr_put64(&prod->lost_too_big,
		 buf->lost_too_big - buf->lost_too_big_base);
	gr_put_lost_nested(buf);
	gr_put64(&prod->overwritten, buf->overwritten - buf->overwritten_base);
	gr_put64(&prod->events, buf->events);
	gr_put64(&prod->cons_event, buf->cons_event);
}

/*
 * Read the host's consumed once and keep it if it lies in
 * [consumed mirror, published produced]: the host cannot have consumed
 * what it was not shown. Otherwise keep the mirror and count the error
 * (spec G9). Only a load: the cons half is the host's (spec G4).
 */
static int gr_buf_read_consumed(struct gr_buf *buf)
{
	u64 c;

	/*
	 * Pairs (spec 10 #7) with the host's smp_store_release() of
	 * consumed, made after it finished reading those sub-buffers: our
	 * later writes into the FREE slots cannot pass this load.
	 */
	c = le64_to_cpu(smp_load_acquire(&buf->ring->cons.consumed));
	if (buf->published - c > buf->published - buf->consumed) {
		WRITE_ONCE(buf->consumed_errors, buf->consumed_errors + 1);
		return -EINVAL;
	}
	buf->consumed = c;
	return 0;
}

/**
 * gr_buf_lost_too_big() - count an event dropped for its size
 * @buf: the ring, entered
 *
 * Context: the ring's writer context.
 */
void gr_buf_lost_too_big(struct gr_buf *buf)
{
	buf->lost_too_big++;
	gr_put64(&buf->ring->prod.lost_too_big,
		 buf->lost_too_big - buf->lost_too_big_base);
}

/*
 * A record dropped because every sub-buffer is PRODUCED (stream mode).
 * No GR_VEC_CONSUMED is asked for (cons_event stays below consumed, spec
 * 8.3): its handler could only count it, since every later write and the
 * switch timer re-read cons.consumed before a switch anyway (6.6), so
 * each request bought the guest an interrupt that woke nothing.
 */
static void gr_buf_lost_full(struct gr_buf *buf)
{
	buf->lost_full++;
	gr_put64(&buf->ring->prod.lost_full,
		 buf->lost_full - buf->lost_full_base);
}

/**
 * gr_buf_lost_nested() - count an event dropped for nesting (spec 6.10)
 * @buf: the ring the event was for, not entered
 *
 * Atomic: NMIs on several CPUs may drop events of the global ring at once.
 *
 * Context: any, including NMI.
 */
void gr_buf_lost_nested(struct gr_buf *buf)
{
	atomic64_inc(&buf->lost_nested);
	gr_put_lost_nested(buf);
}

/**
 * gr_buf_need_doorbell() - must the guest ring GR_VEC_DATA?
 * @buf: the ring whose produced just moved
 * @old: produced before
 * @new_idx: produced after, already stored with release semantics
 *
 * Without GR_F_EVENT_IDX every move of produced rings. With it, the host
 * asks through cons.prod_event (read once) to be woken past an index, as
 * virtio's used_event; a wrong value from the host only costs or saves a
 * doorbell, and the host tolerates both.
 *
 * Context: the ring's writer context.
 * Return: true if the doorbell should ring.
 */
bool gr_buf_need_doorbell(struct gr_buf *buf, u64 old, u64 new_idx)
{
	u64 event;

	if (!READ_ONCE(buf->chan->event_idx))
		return new_idx != old;
	/*
	 * Orders our store of produced before our load of prod_event; pairs
	 * (spec 10 #8) with the host's smp_mb() between its store of
	 * prod_event and its re-read of produced: either it sees the new
	 * produced or we see its new prod_event (spec G22).
	 */
	smp_mb();
	event = le64_to_cpu(READ_ONCE(buf->ring->cons.prod_event));
	return gr_need_event(event, new_idx, old);
}

/**
 * gr_buf_publish_produced() - let the host see every PRODUCED sub-buffer
 * @buf: the ring
 *
 * Stores prod.produced with release semantics and rings the doorbell if
 * gr_buf_need_doorbell() says so.
 *
 * Context: the ring's writer context, or no writer on the ring.
 */
void gr_buf_publish_produced(struct gr_buf *buf)
{
	struct gr_chan *chan = buf->chan;
	u64 old = buf->published;

	buf->published = buf->produced;
	/*
	 * Pairs (spec 10 #6) with the host's smp_load_acquire() of produced:
	 * the commit record and the packet are visible before the
	 * sub-buffer is.
	 */
	smp_store_release(&buf->ring->prod.produced,
			  cpu_to_le64(buf->produced));
	if (gr_buf_need_doorbell(buf, old, buf->produced)) {
		buf->doorbells++;
		if (chan->cb.doorbell)
			chan->cb.doorbell(buf);
	}
}

/* ---------------------------------------------------------------------- */
/* The sub-buffer switch                                                  */

/* The slot of packet @c starts BEING_WRITTEN: mark it before any data */
static void gr_buf_mark_busy(struct gr_buf *buf, u64 c)
{
	WRITE_ONCE(buf->recs[gr_buf_slot(buf, c)].seq,
		   cpu_to_le64(GR_SEQ_BUSY));
	/*
	 * BUSY is visible before any byte of the sub-buffer changes; pairs
	 * (spec 10 #4) with the host's smp_rmb() between copying a
	 * sub-buffer and re-reading its rec.seq (the flight-recorder
	 * seqlock). Spec G12.
	 */
	smp_wmb();
}

/*
 * Packet @c, @bytes of content whose last record starts at @last (0: none
 * or not known), goes from BEING_WRITTEN to PRODUCED
 */
static void gr_buf_commit(struct gr_buf *buf, u64 c, u32 bytes, u32 last)
{
	struct gr_subbuf_rec *rec = &buf->recs[gr_buf_slot(buf, c)];

	WRITE_ONCE(rec->bytes, cpu_to_le32(bytes));
	/* spec 3.8, G40 (GR_F_LAST_RECORD): from private state, before seq */
	WRITE_ONCE(rec->last_record, cpu_to_le32(last));
	/*
	 * Pairs (spec 10 #5) with the host's smp_load_acquire() of rec.seq:
	 * the packet, rec.bytes and rec.last_record are visible before the
	 * record says "finished"; then produced, with release (spec G11).
	 */
	smp_store_release(&rec->seq, cpu_to_le64(c));
	gr_buf_publish_produced(buf);
}

/**
 * gr_buf_full() - is every sub-buffer of the ring PRODUCED?
 * @buf: the ring
 *
 * Uses the consumed mirror, which the switch refreshes from cons.consumed
 * just before it calls subbuf_start.
 *
 * Context: the ring's writer context; normally subbuf_start.
 * Return: 1 if produced - consumed >= n_subbufs, else 0.
 */
int gr_buf_full(struct gr_buf *buf)
{
	return buf->produced - buf->consumed >= buf->chan->layout.n_subbufs;
}

/**
 * gr_subbuf_start_reserve() - reserve the header of the offered sub-buffer
 * @buf: the ring
 * @length: bytes to reserve at the start of the new sub-buffer
 *
 * Kernel relay's subbuf_start_reserve(). subbuf_start calls it once it
 * accepts the switch, before it writes into the new sub-buffer: it first
 * marks the sub-buffer's commit record GR_SEQ_BUSY (BEING_WRITTEN).
 * @length is rounded up to GR_RECORD_ALIGN.
 *
 * Context: subbuf_start only.
 */
void gr_subbuf_start_reserve(struct gr_buf *buf, size_t length)
{
	size_t len = ALIGN(length, (size_t)GR_RECORD_ALIGN);

	if (WARN_ON_ONCE(len < length ||
			 len > buf->chan->layout.subbuf_size - GR_RECORD_ALIGN))
		return;
	gr_buf_mark_busy(buf, buf->produced);
	buf->offset = len;
}

/* Kernel relay's default subbuf_start: no header, refuse when full */
static int gr_subbuf_start_default(struct gr_buf *buf,
				   void *subbuf __always_unused,
				   void *prev_subbuf __always_unused,
				   size_t prev_padding __always_unused)
{
	return READ_ONCE(buf->chan->mode) == GR_MODE_FLIGHT ||
	       !gr_buf_full(buf);
}

/*
 * gr_buf_switch() - kernel relay's relay_switch_subbuf()
 * @buf: the ring, entered (or no writer on the channel)
 * @ts_held: buf->last_ts is the calling write's clock reading, which the
 *	switch shares (spec 6.9); else the switch reads the clock once
 * @discard: restart the sub-buffer BEING_WRITTEN empty instead of
 *	finishing it (reset, spec 6.13)
 *
 * The one place a sub-buffer changes state in the guest, with all of its
 * state in locals. The sub-buffer BEING_WRITTEN, if any, is finished:
 * subbuf_start gets it as @prev_subbuf to finalize its header, then it is
 * committed (PRODUCED). The slot of the next packet number is offered to
 * subbuf_start; accepted, it is BEING_WRITTEN from the offset subbuf_start
 * reserved. Refused, the ring has no sub-buffer BEING_WRITTEN until a
 * later switch succeeds.
 *
 * Return: true if a sub-buffer is BEING_WRITTEN afterwards.
 */
static bool gr_buf_switch(struct gr_buf *buf, bool ts_held, bool discard)
{
	struct gr_chan *chan = buf->chan;
	u32 size = chan->layout.subbuf_size;
	bool writing = buf->offset <= size;
	bool finish = writing && !discard;
	u8 *prev = NULL;
	size_t padding = 0;
	u32 bytes = 0, last = 0;
	u8 *next;
	int ok;

	if (!ts_held)
		gr_buf_clock(buf);
	if (finish) {
		prev = buf->start;
		bytes = buf->offset;
		/* NULL since the start, unless a record was reserved since */
		if (buf->last_record)
			last = (u32)(buf->last_record - buf->start);
		padding = size - bytes;
		buf->produced++;
	}
	gr_buf_read_consumed(buf);
	next = gr_buf_subbuf(buf, gr_buf_slot(buf, buf->produced));
	/* subbuf_start's gr_subbuf_start_reserve() sets the offset */
	buf->offset = 0;
	ok = chan->cb.subbuf_start(buf, next, prev, padding);
	buf->last_record = NULL;
	if (finish)
		gr_buf_commit(buf, buf->produced - 1, bytes, last);
	if (!ok) {
		buf->offset = size + 1;
		return false;
	}
	if (!buf->offset)
		gr_buf_mark_busy(buf, buf->produced);
	/*
	 * spec G10: a PRODUCED slot restarted unconsumed (flight mode) is
	 * counted; a discarded sub-buffer restarts in its own slot.
	 */
	if (!(discard && writing) &&
	    buf->produced - buf->consumed >= chan->layout.n_subbufs) {
		buf->overwritten++;
		gr_put64(&buf->ring->prod.overwritten,
			 buf->overwritten - buf->overwritten_base);
	}
	buf->start = next;
	buf->hdr_reserved = buf->offset;
	return true;
}

/**
 * gr_buf_alloc_slow() - the slow path of gr_buf_alloc()
 * @buf: the ring, entered
 * @len: bytes to reserve, a multiple of GR_RECORD_ALIGN, at most
 *	max_event_size (the caller checked)
 * @slot: receives the reserved bytes
 * @ts_held: the write holds a reading of the ring's clock (buf->last_ts)
 *	that a switch must reuse (spec 6.9)
 *
 * Switches to the next sub-buffer, at most once (spec G15): the record
 * does not fit in the current one. Drops and counts the record when no
 * sub-buffer is FREE, or when subbuf_start reserved so much of the new
 * one that it still does not fit.
 *
 * Context: the ring's writer context.
 * Return: 0; -ENOSPC (counted in lost_full), -E2BIG (counted in
 * lost_too_big).
 */
int gr_buf_alloc_slow(struct gr_buf *buf, size_t len, u8 **slot,
		      bool ts_held)
{
	if (!gr_buf_switch(buf, ts_held, false)) {
		gr_buf_lost_full(buf);
		return -ENOSPC;
	}
	/* Only if subbuf_start reserved more than a packet header */
	if (buf->offset + len > buf->subbuf_size) {
		gr_buf_lost_too_big(buf);
		return -E2BIG;
	}
	*slot = gr_buf_take(buf, len);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Channel management                                                     */

/**
 * gr_buf_init_recs() - mark every commit record of a ring GR_SEQ_BUSY
 * @buf: the ring, bound
 *
 * No sub-buffer of a new instance is PRODUCED yet (spec G6).
 *
 * Context: process context; no writer on the ring.
 */
void gr_buf_init_recs(struct gr_buf *buf)
{
	u32 i;

	for (i = 0; i < buf->chan->layout.n_subbufs; i++) {
		WRITE_ONCE(buf->recs[i].seq, cpu_to_le64(GR_SEQ_BUSY));
		WRITE_ONCE(buf->recs[i].bytes, cpu_to_le32(0));
		WRITE_ONCE(buf->recs[i].last_record, cpu_to_le32(0));
	}
}

/*
 * Counters never restart: they continue from the host's consumed, whatever
 * its value.
 */
static void gr_buf_init(struct gr_chan *chan, u32 index)
{
	struct gr_buf *buf = &chan->bufs[index];
	struct gr_ring_prod *prod;
	u64 c;

	buf->chan = chan;
	buf->index = index;
	buf->subbuf_size = chan->layout.subbuf_size;
	buf->max_event_size = chan->layout.max_event_size;
	buf->global = chan->global;
	gr_buf_bind(buf);
	gr_buf_init_recs(buf);
	prod = &buf->ring->prod;
	/* Pairs (spec 10 #7) with the host's smp_store_release() of consumed */
	c = le64_to_cpu(smp_load_acquire(&buf->ring->cons.consumed));
	buf->produced = c;
	buf->consumed = c;
	buf->published = c;
	/* Never a GR_VEC_CONSUMED: see gr_buf_lost_full() */
	buf->cons_event = c - 1;
	gr_put64(&prod->produced, c);
	gr_buf_publish_counters(buf);
	WRITE_ONCE(prod->flags, cpu_to_le32(GR_RING_F_ONLINE));
	WRITE_ONCE(prod->reserved, cpu_to_le32(0));
	buf->offset = chan->layout.subbuf_size + 1;
	gr_buf_switch(buf, false, false);
}

/**
 * gr_chan_open() - create a channel over a region
 * @chanp: receives the channel
 * @region: the region's first byte (its header), laid out as @layout
 * @layout: from gr_layout_compute(); copied
 * @cb: callbacks (copied; NULL or a NULL member for the defaults)
 * @private_data: the caller's, in chan->private_data
 *
 * Initializes every ring: commit records BUSY, produced and the consumed
 * mirror set to the host's cons.consumed, lost counters 0, flags ONLINE,
 * and subbuf_start called for the first sub-buffer with prev_subbuf NULL.
 * The channel starts in GR_MODE_STREAM without event index. The caller
 * publishes the region header afterwards.
 *
 * Context: process context; may sleep.
 * Return: 0; -EINVAL if @layout is inconsistent or @region NULL; -ENOMEM.
 */
int gr_chan_open(struct gr_chan **chanp, void *region,
		 const struct gr_layout *layout,
		 const struct gr_callbacks *cb, void *private_data)
{
	struct gr_chan *chan;
	u32 i;
	int ret;

	if (!region)
		return -EINVAL;
	ret = gr_layout_check(layout);
	if (ret)
		return ret;
	chan = kzalloc(sizeof(*chan), GFP_KERNEL);
	if (!chan)
		return -ENOMEM;
	chan->layout = *layout;
	if (cb)
		chan->cb = *cb;
	if (!chan->cb.subbuf_start)
		chan->cb.subbuf_start = gr_subbuf_start_default;
	chan->private_data = private_data;
	chan->region = region;
	chan->mode = GR_MODE_STREAM;
	chan->global = layout->flags & GR_HDR_GLOBAL;
	chan->nr_cpus = layout->nr_cpus;
	raw_spin_lock_init(&chan->lock);

	ret = -ENOMEM;
	chan->bufs = kvcalloc(layout->nr_rings, sizeof(*chan->bufs),
			      GFP_KERNEL);
	if (!chan->bufs)
		goto out_free_chan;
	if (chan->global) {
		chan->cpus = kvcalloc(layout->nr_cpus, sizeof(*chan->cpus),
				      GFP_KERNEL);
		if (!chan->cpus)
			goto out_free_bufs;
	}

	for (i = 0; i < layout->nr_rings; i++)
		gr_buf_init(chan, i);
	*chanp = chan;
	return 0;

out_free_bufs:
	kvfree(chan->bufs);
out_free_chan:
	kfree(chan);
	return ret;
}

/* Deliver the sub-buffer BEING_WRITTEN if it holds anything. */
static void gr_buf_flush(struct gr_buf *buf)
{
	if (buf->offset > buf->subbuf_size ||
	    buf->offset <= buf->hdr_reserved)
		return;
	gr_buf_switch(buf, false, false);
}

/**
 * gr_chan_flush() - deliver every partly filled sub-buffer
 * @chan: the channel
 *
 * Forces a switch on every ring whose sub-buffer BEING_WRITTEN holds at
 * least one record; an empty one is not delivered (spec 6.7, G17).
 *
 * Context: any; no writer may run on the channel meanwhile (see
 * gr_chan_flush_this_cpu() for a channel in use).
 */
void gr_chan_flush(struct gr_chan *chan)
{
	u32 i;

	for (i = 0; i < chan->layout.nr_rings; i++)
		gr_buf_flush(&chan->bufs[i]);
}

/**
 * gr_chan_flush_ring() - deliver one ring's partly filled sub-buffer
 * @chan: the channel
 * @ring: ring index
 *
 * As gr_chan_flush() for one ring, for a ring whose CPU is offline.
 *
 * Context: any; no writer may run on the ring meanwhile.
 * Return: 0, or -EINVAL if @ring does not exist.
 */
int gr_chan_flush_ring(struct gr_chan *chan, u32 ring)
{
	if (ring >= chan->layout.nr_rings)
		return -EINVAL;
	gr_buf_flush(&chan->bufs[ring]);
	return 0;
}

/**
 * gr_chan_flush_this_cpu() - deliver this CPU's partly filled sub-buffer
 * @chan: the channel
 *
 * Safe against writers: takes the nesting guard (and the lock of a global
 * channel) like one. For a switch timer: run it on every CPU.
 *
 * Context: any; disables local interrupts.
 * Return: 0; -EBUSY if it interrupted a writer on this CPU (try later).
 */
int gr_chan_flush_this_cpu(struct gr_chan *chan)
{
	struct gr_buf *buf;
	unsigned long flags;

	local_irq_save(flags);
	buf = __gr_buf_enter(chan, false);
	if (buf) {
		gr_buf_flush(buf);
		gr_buf_exit(buf);
	}
	local_irq_restore(flags);
	return buf ? 0 : -EBUSY;
}

/**
 * gr_chan_flush_idle() - deliver the partial sub-buffers no writer is in
 * @chan: the channel
 *
 * For the panic path (spec 5.6), with every other CPU stopped. A stopped
 * CPU may have been stopped inside a write (only by an NMI, since writers
 * keep interrupts off): its nesting guard is up and its ring's private
 * state may be half updated, so that ring is left alone. Every other
 * per-CPU ring is flushed, this CPU's own through its nesting guard. The
 * global ring is flushed only if no guard is up at all: a CPU inside it
 * may hold its lock.
 *
 * Context: panic, other CPUs stopped, interrupts off.
 */
void gr_chan_flush_idle(struct gr_chan *chan)
{
	u32 this = smp_processor_id();
	bool busy = false;
	u32 i;

	if (chan->global) {
		for (i = 0; i < chan->nr_cpus; i++)
			busy |= READ_ONCE(chan->cpus[i].nesting) != 0;
		if (!busy)
			gr_buf_flush(chan->bufs);
	} else {
		for (i = 0; i < chan->layout.nr_rings; i++) {
			if (i == this)
				gr_chan_flush_this_cpu(chan);
			else if (!READ_ONCE(chan->bufs[i].nesting))
				gr_buf_flush(&chan->bufs[i]);
		}
	}
	gr_chan_publish_events(chan);
}

/**
 * gr_chan_reset() - discard what is being written, zero the lost counters
 * @chan: the channel
 *
 * Restarts each ring's sub-buffer BEING_WRITTEN empty (subbuf_start called
 * with prev_subbuf NULL) and zeroes prod.lost_full, lost_too_big,
 * lost_nested and overwritten. PRODUCED sub-buffers belong to the host,
 * which discards them by advancing consumed (spec 6.13, G17). CTF
 * events_discarded is cumulative, never reset (see gr_ctf_packet.c).
 *
 * Context: any; no writer may run on the channel meanwhile.
 */
void gr_chan_reset(struct gr_chan *chan)
{
	struct gr_buf *buf;
	u32 i;

	for (i = 0; i < chan->layout.nr_rings; i++) {
		buf = &chan->bufs[i];
		buf->lost_full_base = buf->lost_full;
		buf->lost_too_big_base = buf->lost_too_big;
		WRITE_ONCE(buf->lost_nested_base,
			   (u64)atomic64_read(&buf->lost_nested));
		buf->overwritten_base = buf->overwritten;
		gr_buf_publish_counters(buf);
		gr_buf_switch(buf, false, true);
	}
}

/**
 * gr_chan_close() - finish and free a channel
 * @chan: the channel, or NULL
 *
 * Delivers partly filled sub-buffers as gr_chan_flush(), publishes the
 * event counts, clears GR_RING_F_ONLINE of every ring and frees the
 * channel. The region itself is the caller's.
 *
 * Context: process context; no writer may run on the channel any more
 * (probes unregistered and synchronized).
 */
void gr_chan_close(struct gr_chan *chan)
{
	u32 i;

	if (!chan)
		return;
	gr_chan_flush(chan);
	gr_chan_publish_events(chan);
	for (i = 0; i < chan->layout.nr_rings; i++)
		WRITE_ONCE(chan->bufs[i].ring->prod.flags, cpu_to_le32(0));
	kvfree(chan->cpus);
	kvfree(chan->bufs);
	kfree(chan);
}

/**
 * gr_chan_set_mode() - choose no-overwrite or flight-recorder mode
 * @chan: the channel
 * @mode: GR_MODE_STREAM or GR_MODE_FLIGHT
 *
 * Takes effect at each ring's next switch, whose subbuf_start reads it.
 *
 * Context: any.
 * Return: 0, or -EINVAL for an unknown mode.
 */
int gr_chan_set_mode(struct gr_chan *chan, u32 mode)
{
	if (mode != GR_MODE_STREAM && mode != GR_MODE_FLIGHT)
		return -EINVAL;
	WRITE_ONCE(chan->mode, mode);
	return 0;
}

/**
 * gr_chan_set_event_idx() - use cons.prod_event to suppress doorbells
 * @chan: the channel
 * @on: true once both sides set GR_F_EVENT_IDX
 *
 * Context: any.
 */
void gr_chan_set_event_idx(struct gr_chan *chan, bool on)
{
	WRITE_ONCE(chan->event_idx, on);
}

/**
 * gr_chan_set_online() - publish whether a ring's CPU may produce
 * @chan: the channel
 * @ring: ring index
 * @online: value of GR_RING_F_ONLINE
 *
 * Context: any.
 * Return: 0, or -EINVAL if @ring does not exist.
 */
int gr_chan_set_online(struct gr_chan *chan, u32 ring, bool online)
{
	if (ring >= chan->layout.nr_rings)
		return -EINVAL;
	WRITE_ONCE(chan->bufs[ring].ring->prod.flags,
		   cpu_to_le32(online ? GR_RING_F_ONLINE : 0));
	return 0;
}

/**
 * gr_chan_consumed_errors() - invalid consumed values ignored so far
 * @chan: the channel
 *
 * What the module publishes as status.consumed_errors.
 *
 * Context: any.
 * Return: the sum over all rings.
 */
u64 gr_chan_consumed_errors(struct gr_chan *chan)
{
	u64 sum = 0;
	u32 i;

	for (i = 0; i < chan->layout.nr_rings; i++)
		sum += READ_ONCE(chan->bufs[i].consumed_errors);
	return sum;
}

/**
 * gr_chan_filtered() - records filter slot @slot's programs took back
 * @chan: the channel
 * @slot: filter slot, < GR_FILTER_SLOTS, or GR_FOLLOW_SLOT
 *
 * What the module publishes as status.filtered[@slot] (spec 14.5), or for
 * GR_FOLLOW_SLOT as status.follow_dropped (spec 15.4).
 *
 * Context: any.
 * Return: the sum over all rings, or 0 for a slot out of range.
 */
u64 gr_chan_filtered(struct gr_chan *chan, unsigned int slot)
{
	u64 sum = 0;
	u32 i;

	if (slot > GR_FOLLOW_SLOT)
		return 0;
	for (i = 0; i < chan->layout.nr_rings; i++)
		sum += READ_ONCE(chan->bufs[i].filtered[slot]);
	return sum;
}

/**
 * gr_chan_publish_events() - store every ring's event count in prod.events
 * @chan: the channel
 *
 * Writers count events in their private state only; no store to the
 * region per event (spec 6.11). This publishes the counts: at the tick,
 * after a flush request, at close and at panic. A count read while its
 * CPU writes may be one behind; the next call catches up.
 *
 * Context: any; one caller at a time (the control pass and the tick's
 * work are serialized; close and panic have the channel to themselves),
 * so prod.events never goes back.
 */
void gr_chan_publish_events(struct gr_chan *chan)
{
	u32 i;

	for (i = 0; i < chan->layout.nr_rings; i++)
		gr_put64(&chan->bufs[i].ring->prod.events,
			 READ_ONCE(chan->bufs[i].events));
}

/**
 * gr_subbufs_consumed() - take note of the host's consumed count
 * @chan: the channel
 * @ring: ring index
 *
 * Kernel relay's relay_subbufs_consumed(), except that the count is the
 * host's: reads cons.consumed of @ring once and accepts it only if it
 * lies between the consumed mirror and the published produced (modulo
 * 2^64); otherwise the mirror stays and the error is counted (see
 * gr_chan_consumed_errors()). Writers do this themselves at every switch,
 * so a host never needs the guest to call it.
 *
 * Context: the ring's writer context, or no writer running on the
 * channel.
 * Return: 0, or -EINVAL if the value was rejected or @ring does not
 * exist.
 */
int gr_subbufs_consumed(struct gr_chan *chan, u32 ring)
{
	if (ring >= chan->layout.nr_rings)
		return -EINVAL;
	return gr_buf_read_consumed(&chan->bufs[ring]);
}
