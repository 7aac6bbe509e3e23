// SPDX-License-Identifier: GPL-2.0
/*
 * Relay channels over the guestrelay shared region
 *
 * A ring is n sub-buffers. The sub-buffer numbered k (k = the value of
 * produced when it was started; CTF's packet_seq_num) lives in slot
 * k % n, and its commit record says what state it is in:
 *
 *                guest: subbuf_start accepts
 *                the switch: rec.seq = BUSY,
 *   +--------+   smp_wmb(), header reserved,      +---------+
 *   |  FREE  | ---------------------------------> | FILLING | writers
 *   +--------+   timestamp_begin                  +---------+ reserve
 *       ^                                           |     ^   records;
 *       |        guest: switch or flush:            |     |   reset
 *       |        header finalized, rec.bytes,       |     |   restarts
 *       |        release of rec.seq = k, then       |     |   it
 *       |        release of produced = k + 1        v     |
 *       |                                         +---------+ flight mode:
 *       |                                         |  READY  | the next
 *       |                                         +---------+ switch, unread
 *       |        host: acquire produced,            |         (overwritten)
 *       |        acquire rec.seq == k, check        |
 *       |        a private copy of the header       v
 *   host: written out,                            +---------+
 *   then release of <---------------------------- |  READ   |
 *   consumed = k + 1                              +---------+
 *
 * Stream mode (no overwrite): the guest starts slot (produced % n) only if
 * produced - consumed < n. Otherwise the switch is refused: the ring has
 * no FILLING sub-buffer, every write is dropped and counted in lost_full,
 * and every later write tries the switch again, reading cons.consumed
 * once - never a loop.
 *
 * Flight mode (overwrite): the switch always happens; a READY sub-buffer
 * the host did not consume goes straight back to FILLING and counts in
 * prod.overwritten. A host snapshotting such a ring reads rec.seq, copies,
 * smp_rmb(), reads rec.seq again: the BUSY marking tells the host it raced.
 *
 * Only the guest moves a sub-buffer out of FREE or FILLING, only the host
 * moves it out of READY (stream mode), and each side trusts nothing the
 * other wrote: slot numbers come from guest-private counters, and a
 * consumed value outside [consumed mirror, produced] is ignored and
 * counted.
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
/* Ring helpers                                                           */

static void *gr_mem(const struct gr_chan *chan, u64 off)
{
	return chan->mem + (off - chan->mem_off);
}

/* Point @buf at its ring, commit records and sub-buffers in chan->mem. */
static void gr_buf_bind(struct gr_buf *buf)
{
	const struct gr_chan *chan = buf->chan;
	const struct gr_layout *lay = &chan->layout;
	u64 first = (u64)buf->index * lay->n_subbufs;

	buf->ring = gr_mem(chan, lay->ring_offset +
			   (u64)buf->index * sizeof(struct gr_ring));
	buf->recs = gr_mem(chan, lay->subbuf_rec_offset +
			   first * sizeof(struct gr_subbuf_rec));
	buf->data = gr_mem(chan, lay->data_offset + first * lay->subbuf_size);
}

/* spec G8: slots come from private counters, never from the region */
static u32 gr_slot(const struct gr_buf *buf, u64 counter)
{
	u32 slot;

	div_u64_rem(counter, buf->chan->layout.n_subbufs, &slot);
	return slot;
}

static u8 *gr_subbuf(const struct gr_buf *buf, u32 slot)
{
	return buf->data + (size_t)slot * buf->chan->layout.subbuf_size;
}

/*
 * CTF's events_discarded (spec G16): cumulative, never reset, per ring,
 * across resets and publications (a reader takes differences between
 * consecutive packets of a stream; a decrease would confuse it). Uses the
 * raw counters, not the *_base-relative values that prod.lost_* show
 * after a reset.
 */
static u64 gr_buf_discarded(struct gr_buf *buf)
{
	return buf->lost_full + buf->lost_too_big +
	       (u64)atomic64_read(&buf->lost_nested);
}

static void gr_put_lost_nested(struct gr_buf *buf)
{
	u64 lost = (u64)atomic64_read(&buf->lost_nested);

	gr_put64(&buf->ring->prod.lost_nested,
		 lost - READ_ONCE(buf->lost_nested_base));
}

static void gr_buf_publish_counters(struct gr_buf *buf)
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
	 * Pairs (spec 10 #7) with the host's smp_store_release() of consumed, made after
	 * it finished reading those sub-buffers: our later writes into the
	 * freed slots cannot pass this load.
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
 * A record dropped because every sub-buffer is unconsumed (stream mode).
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
 * Context: the ring's writer context (see gr_relay_reserve()).
 * Return: true if the doorbell should ring.
 */
bool gr_buf_need_doorbell(struct gr_buf *buf, u64 old, u64 new_idx)
{
	u64 event;

	if (!READ_ONCE(buf->chan->event_idx))
		return new_idx != old;
	/*
	 * Orders our store of produced before our load of prod_event; pairs (spec 10 #8)
	 * with the host's smp_mb() between its store of prod_event and its
	 * re-read of produced: either it sees the new produced or we see its
	 * new prod_event (spec G22).
	 */
	smp_mb();
	event = le64_to_cpu(READ_ONCE(buf->ring->cons.prod_event));
	return gr_need_event(event, new_idx, old);
}

static void gr_buf_publish_produced(struct gr_buf *buf)
{
	struct gr_chan *chan = buf->chan;
	u64 old = buf->published;

	buf->published = buf->produced;
	/*
	 * Pairs (spec 10 #6) with the host's smp_load_acquire() of produced: the commit
	 * record and the packet are visible before the sub-buffer is.
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
/* Sub-buffer switch                                                      */

static void gr_buf_mark_busy(struct gr_buf *buf)
{
	WRITE_ONCE(buf->recs[buf->new_idx].seq, cpu_to_le64(GR_SEQ_BUSY));
	/*
	 * BUSY is visible before any byte of the sub-buffer changes; pairs (spec 10 #4)
	 * with the host's smp_rmb() between copying a sub-buffer and
	 * re-reading its rec.seq (the flight-recorder seqlock). Spec G12.
	 */
	smp_wmb();
	buf->new_busy = true;
}

/**
 * gr_buf_full() - are all sub-buffers of the ring unconsumed?
 * @buf: the ring
 *
 * Uses the consumed mirror, which the core refreshes from cons.consumed
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
 * gr_subbuf_start_reserve() - reserve the header of the new sub-buffer
 * @buf: the ring
 * @length: bytes to reserve at the start of the new sub-buffer
 *
 * Call it from subbuf_start once the switch is decided, before writing
 * into the new sub-buffer: it first marks the sub-buffer's commit record
 * GR_SEQ_BUSY. @length is rounded up to GR_RECORD_ALIGN.
 *
 * Context: subbuf_start only.
 */
void gr_subbuf_start_reserve(struct gr_buf *buf, size_t length)
{
	size_t len = ALIGN(length, (size_t)GR_RECORD_ALIGN);

	if (WARN_ON_ONCE(!buf->in_switch || len < length ||
			 len > buf->chan->layout.subbuf_size - GR_RECORD_ALIGN))
		return;
	if (!buf->new_busy)
		gr_buf_mark_busy(buf);
	buf->new_reserve = len;
}

/**
 * gr_subbuf_commit() - publish the sub-buffer just finished
 * @buf: the ring
 *
 * Writes the commit record (bytes, then seq = packet_seq_num with release
 * semantics), moves prod.produced with release semantics and calls the
 * doorbell callback if gr_buf_need_doorbell() says so. subbuf_start calls
 * it once it has finalized prev_subbuf; if it does not, the core does it
 * when subbuf_start returns. A second call does nothing.
 *
 * Context: subbuf_start only.
 */
void gr_subbuf_commit(struct gr_buf *buf)
{
	struct gr_subbuf_rec *rec;
	u64 seq;

	if (!buf->commit_pending)
		return;
	buf->commit_pending = false;
	seq = buf->produced - 1;
	rec = &buf->recs[gr_slot(buf, seq)];
	WRITE_ONCE(rec->bytes, cpu_to_le32(buf->commit_bytes));
	/*
	 * Pairs (spec 10 #5) with the host's smp_load_acquire() of rec.seq: the packet
	 * and rec.bytes are visible before the record says "finished";
	 * then produced, with release (spec G11).
	 */
	smp_store_release(&rec->seq, cpu_to_le64(seq));
	gr_buf_publish_produced(buf);
}

/*
 * Offer sub-buffer number buf->produced to subbuf_start. @prev and
 * @padding describe the sub-buffer just finished, if any. @restart: the
 * offered sub-buffer is the one being filled (reset), not a new one.
 * Return: true if a sub-buffer is being filled afterwards.
 */
static bool gr_buf_start(struct gr_buf *buf, u8 *prev, size_t padding,
			 bool restart)
{
	struct gr_chan *chan = buf->chan;
	const struct gr_layout *lay = &chan->layout;
	int ok;

	gr_buf_read_consumed(buf);
	buf->new_idx = gr_slot(buf, buf->produced);
	buf->new_subbuf = gr_subbuf(buf, buf->new_idx);
	buf->new_reserve = 0;
	buf->new_busy = false;
	buf->in_switch = true;
	ok = chan->cb.subbuf_start(buf, buf->new_subbuf, prev, padding);
	buf->in_switch = false;
	gr_subbuf_commit(buf);
	if (!ok) {
		buf->offset = lay->subbuf_size + 1;
		return false;
	}
	if (!buf->new_busy)
		gr_buf_mark_busy(buf);
	/* spec G10: a restarted unconsumed slot (flight mode) is counted */
	if (!restart && buf->produced - buf->consumed >= lay->n_subbufs) {
		buf->overwritten++;
		gr_put64(&buf->ring->prod.overwritten,
			 buf->overwritten - buf->overwritten_base);
	}
	buf->start = buf->new_subbuf;
	buf->hdr_reserved = buf->new_reserve;
	buf->offset = buf->new_reserve;
	return true;
}

/*
 * Finish the sub-buffer being filled, if any, and start the next one.
 * While the ring waits for a free sub-buffer (offset > subbuf_size) there
 * is nothing to finish and subbuf_start gets prev_subbuf NULL.
 */
static bool gr_buf_switch(struct gr_buf *buf)
{
	size_t size = buf->chan->layout.subbuf_size;
	u8 *prev = NULL;
	size_t padding = 0;

	if (buf->offset <= size) {
		prev = buf->start;
		padding = size - buf->offset;
		buf->commit_bytes = buf->offset;
		buf->commit_pending = true;
		buf->produced++;
	}
	return gr_buf_start(buf, prev, padding, false);
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
 * sub-buffer is free, or when subbuf_start reserved so much of the new
 * one that it still does not fit.
 *
 * Context: the ring's writer context.
 * Return: 0; -ENOSPC (counted in lost_full), -E2BIG (counted in
 * lost_too_big).
 */
int gr_buf_alloc_slow(struct gr_buf *buf, size_t len, u8 **slot,
		      bool ts_held)
{
	bool ok;

	buf->ts_held = ts_held;
	ok = gr_buf_switch(buf);
	buf->ts_held = false;
	if (!ok) {
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

/**
 * gr_event_write() - record an event from a payload in memory
 * @chan: the channel
 * @id: event id
 * @payload: the payload
 * @payload_len: its bytes
 *
 * Out of line: a copy of a payload prepared elsewhere, not a probe's
 * in-place write (gr_rec_begin()).
 *
 * Context: any, including hard irq and NMI; disables local interrupts.
 * Return: as gr_relay_write().
 */
int gr_event_write(struct gr_chan *chan, u16 id, const void *payload,
		   size_t payload_len)
{
	struct gr_buf *buf;
	unsigned long flags;
	void *p;
	int ret = -EBUSY;

	local_irq_save(flags);
	buf = __gr_buf_enter(chan, true);
	if (buf) {
		ret = __gr_event_reserve(buf, id, payload_len, &p);
		if (!ret && payload_len)
			memcpy(p, payload, payload_len);
		gr_buf_exit(buf);
	}
	local_irq_restore(flags);
	return ret;
}

/*
 * The timestamp of a switch (spec 6.9): inside a write, the write's own
 * reading, which serves as the old packet's timestamp_end, the new
 * packet's timestamp_begin and the record's timestamp; otherwise (flush,
 * timer, reset) one fresh reading of the ring's clock.
 */
static u64 gr_buf_switch_ts(struct gr_buf *buf)
{
	if (buf->ts_held)
		return buf->last_ts;
	return gr_buf_clock(buf);
}

/* ---------------------------------------------------------------------- */
/* CTF packets                                                            */

static void gr_ctf_packet_begin(struct gr_buf *buf, void *subbuf, u64 now)
{
	const struct gr_chan *chan = buf->chan;
	struct gr_packet_header *ph = subbuf;

	gr_subbuf_start_reserve(buf, sizeof(*ph));
	ph->magic = cpu_to_le32(GR_CTF_MAGIC);
	ph->stream_id = cpu_to_le32(0);
	ph->stream_instance_id = cpu_to_le64(buf->index);
	ph->timestamp_begin = cpu_to_le64(now);
	ph->timestamp_end = cpu_to_le64(now);
	ph->content_size = cpu_to_le64(sizeof(*ph) * 8);
	ph->packet_size = cpu_to_le64((u64)chan->layout.subbuf_size * 8);
	ph->packet_seq_num = cpu_to_le64(buf->produced);
	ph->events_discarded = cpu_to_le64(gr_buf_discarded(buf));
	ph->cpu_id = cpu_to_le32(chan->global ? 0 : buf->index);
	ph->reserved = cpu_to_le32(0);
}

static void gr_ctf_packet_finish(struct gr_buf *buf, void *subbuf,
				 size_t padding, u64 now)
{
	struct gr_packet_header *ph = subbuf;
	u64 content = buf->chan->layout.subbuf_size - padding;

	ph->timestamp_end = cpu_to_le64(now);
	ph->content_size = cpu_to_le64(content * 8);
	ph->events_discarded = cpu_to_le64(gr_buf_discarded(buf));
}

/**
 * gr_ctf_subbuf_start_stream() - subbuf_start of a no-overwrite channel
 * @buf: the ring
 * @subbuf: the sub-buffer to start
 * @prev_subbuf: the sub-buffer just finished, NULL if none (at open, at
 *	reset, and when retrying a switch refused earlier)
 * @prev_padding: unused bytes at the end of @prev_subbuf
 *
 * Finalizes the CTF packet of @prev_subbuf (timestamp_end, content_size =
 * (subbuf_size - @prev_padding) * 8, events_discarded) and commits it,
 * then refuses the switch if every sub-buffer is unconsumed, else starts
 * the packet of @subbuf (magic, stream_id 0, stream_instance_id, cpu_id,
 * packet_size, packet_seq_num, timestamp_begin).
 *
 * Context: called by the core from the ring's writer context.
 * Return: 1 to switch, 0 to refuse.
 */
int gr_ctf_subbuf_start_stream(struct gr_buf *buf, void *subbuf,
			       void *prev_subbuf, size_t prev_padding)
{
	u64 now = gr_buf_switch_ts(buf);

	if (prev_subbuf) {
		gr_ctf_packet_finish(buf, prev_subbuf, prev_padding, now);
		gr_subbuf_commit(buf);
	}
	/* spec G10: never a produced, unconsumed slot in stream mode */
	if (gr_buf_full(buf))
		return 0;
	gr_ctf_packet_begin(buf, subbuf, now);
	return 1;
}

/**
 * gr_ctf_subbuf_start_flight() - subbuf_start of an overwrite channel
 * @buf: the ring
 * @subbuf: the sub-buffer to start
 * @prev_subbuf: the sub-buffer just finished, or NULL
 * @prev_padding: unused bytes at the end of @prev_subbuf
 *
 * As gr_ctf_subbuf_start_stream() but never refuses; the core counts
 * prod.overwritten when @subbuf was still unconsumed.
 *
 * Context: called by the core from the ring's writer context.
 * Return: 1.
 */
int gr_ctf_subbuf_start_flight(struct gr_buf *buf, void *subbuf,
			       void *prev_subbuf, size_t prev_padding)
{
	u64 now = gr_buf_switch_ts(buf);

	if (prev_subbuf) {
		gr_ctf_packet_finish(buf, prev_subbuf, prev_padding, now);
		gr_subbuf_commit(buf);
	}
	gr_ctf_packet_begin(buf, subbuf, now);
	return 1;
}

/**
 * gr_ctf_subbuf_start() - subbuf_start following the channel's mode
 * @buf: the ring
 * @subbuf: the sub-buffer to start
 * @prev_subbuf: the sub-buffer just finished, or NULL
 * @prev_padding: unused bytes at the end of @prev_subbuf
 *
 * Reads the channel's mode (gr_chan_set_mode()) at every switch. The
 * default when a channel is opened without a subbuf_start.
 *
 * Context: called by the core from the ring's writer context.
 * Return: 1 to switch, 0 to refuse.
 */
int gr_ctf_subbuf_start(struct gr_buf *buf, void *subbuf,
			void *prev_subbuf, size_t prev_padding)
{
	if (READ_ONCE(buf->chan->mode) == GR_MODE_FLIGHT)
		return gr_ctf_subbuf_start_flight(buf, subbuf, prev_subbuf,
						  prev_padding);
	return gr_ctf_subbuf_start_stream(buf, subbuf, prev_subbuf,
					  prev_padding);
}

/* ---------------------------------------------------------------------- */
/* Channel management                                                     */

static void gr_buf_init_recs(struct gr_buf *buf)
{
	u32 i;

	for (i = 0; i < buf->chan->layout.n_subbufs; i++) {
		WRITE_ONCE(buf->recs[i].seq, cpu_to_le64(GR_SEQ_BUSY));
		WRITE_ONCE(buf->recs[i].bytes, cpu_to_le32(0));
		WRITE_ONCE(buf->recs[i].reserved, cpu_to_le32(0));
	}
}

/*
 * Counters never restart: they continue from the host's consumed, whatever
 * its value. No sub-buffer is finished yet in this instance, so every
 * commit record says BUSY (spec G6).
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
	gr_buf_start(buf, NULL, 0, false);
}

/**
 * gr_chan_open() - create a channel over a region
 * @chanp: receives the channel
 * @region: the region's first byte (its header), laid out as @layout; NULL
 *	for a buffer-only channel, whose rings live in private memory until
 *	gr_chan_late_setup()
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
 * Return: 0; -EINVAL if @layout is inconsistent; -ENOMEM.
 */
int gr_chan_open(struct gr_chan **chanp, void *region,
		 const struct gr_layout *layout,
		 const struct gr_callbacks *cb, void *private_data)
{
	struct gr_chan *chan;
	u32 i;
	int ret;

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
		chan->cb.subbuf_start = gr_ctf_subbuf_start;
	chan->private_data = private_data;
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
	if (region) {
		chan->mem = region;
		chan->mem_off = 0;
	} else {
		chan->priv_mem = kvzalloc(gr_layout_end(layout) -
					  layout->ring_offset, GFP_KERNEL);
		if (!chan->priv_mem)
			goto out_free_cpus;
		chan->mem = chan->priv_mem;
		chan->mem_off = layout->ring_offset;
	}

	for (i = 0; i < layout->nr_rings; i++)
		gr_buf_init(chan, i);
	*chanp = chan;
	return 0;

out_free_cpus:
	kvfree(chan->cpus);
out_free_bufs:
	kvfree(chan->bufs);
out_free_chan:
	kfree(chan);
	return ret;
}

/*
 * Copy the sub-buffer numbered @k from private memory to the region, where
 * it becomes number @k + @delta; a CTF packet header gets the new number.
 */
static u8 *gr_buf_move_subbuf(struct gr_buf *buf, const u8 *old_data,
			      u64 k, u64 delta)
{
	size_t size = buf->chan->layout.subbuf_size;
	const u8 *src = old_data + (size_t)gr_slot(buf, k) * size;
	const struct gr_packet_header *sph = (const void *)src;
	u8 *dst = gr_subbuf(buf, gr_slot(buf, k + delta));
	struct gr_packet_header *dph = (void *)dst;

	memcpy(dst, src, size);
	if (le32_to_cpu(sph->magic) == GR_CTF_MAGIC)
		dph->packet_seq_num = cpu_to_le64(k + delta);
	return dst;
}

/*
 * Move a ring from private memory into the region (chan->mem now points
 * at it). The region's counters continue from its cons.consumed, so every
 * number shifts by delta = that consumed - our consumed mirror, and
 * sub-buffers move to the slot of their new number.
 */
static void gr_buf_move(struct gr_buf *buf)
{
	struct gr_chan *chan = buf->chan;
	const struct gr_layout *lay = &chan->layout;
	struct gr_subbuf_rec *old_recs = buf->recs;
	struct gr_ring *old_ring = buf->ring;
	bool filling = buf->offset <= lay->subbuf_size;
	u8 *old_data = buf->data;
	struct gr_subbuf_rec *rec;
	u64 c, delta, k, nfin;

	gr_buf_bind(buf);
	gr_buf_init_recs(buf);
	/* Pairs (spec 10 #7) with the host's smp_store_release() of consumed */
	c = le64_to_cpu(smp_load_acquire(&buf->ring->cons.consumed));
	delta = c - buf->consumed;
	/* Finished sub-buffers still held; one slot is the filling one */
	nfin = min_t(u64, buf->produced - buf->consumed,
		     lay->n_subbufs - (filling ? 1 : 0));
	for (k = buf->produced - nfin; k != buf->produced; k++) {
		gr_buf_move_subbuf(buf, old_data, k, delta);
		rec = &buf->recs[gr_slot(buf, k + delta)];
		WRITE_ONCE(rec->bytes, old_recs[gr_slot(buf, k)].bytes);
		/* Pairs (spec 10 #5) with the host's smp_load_acquire() of rec.seq */
		smp_store_release(&rec->seq, cpu_to_le64(k + delta));
	}
	/* While waiting for a free sub-buffer there is nothing being filled */
	buf->start = NULL;
	if (filling)
		buf->start = gr_buf_move_subbuf(buf, old_data, buf->produced,
						delta);

	buf->produced += delta;
	buf->consumed = c;
	buf->published = c;
	buf->cons_event += delta;
	gr_buf_publish_counters(buf);
	WRITE_ONCE(buf->ring->prod.flags, READ_ONCE(old_ring->prod.flags));
	WRITE_ONCE(buf->ring->prod.reserved, cpu_to_le32(0));
	gr_buf_publish_produced(buf);
}

/**
 * gr_chan_late_setup() - move a buffer-only channel into its region
 * @chan: a channel opened with a NULL region
 * @region: the region, laid out as the channel's layout
 *
 * Copies the rings' state and every sub-buffer still held (finished and
 * unconsumed, and the one being filled) into @region, then frees the
 * private memory; writers continue in @region. As at open, the counters
 * continue from the region's cons.consumed: sub-buffer numbers (commit
 * records and CTF packet_seq_num) shift accordingly.
 *
 * Context: process context; no writer may run on the channel meanwhile.
 * Return: 0; -EINVAL if @region is NULL or @chan is not buffer-only.
 */
int gr_chan_late_setup(struct gr_chan *chan, void *region)
{
	u32 i;

	if (!region || !chan->priv_mem)
		return -EINVAL;
	chan->mem = region;
	chan->mem_off = 0;
	for (i = 0; i < chan->layout.nr_rings; i++)
		gr_buf_move(&chan->bufs[i]);
	kvfree(chan->priv_mem);
	chan->priv_mem = NULL;
	return 0;
}

/* Deliver the sub-buffer being filled if it holds anything. */
static void gr_buf_flush(struct gr_buf *buf)
{
	if (buf->offset > buf->subbuf_size ||
	    buf->offset <= buf->hdr_reserved)
		return;
	gr_buf_switch(buf);
}

/**
 * gr_chan_flush() - deliver every partly filled sub-buffer
 * @chan: the channel
 *
 * Forces a switch on every ring whose current sub-buffer holds at least
 * one record; an empty one is not delivered (spec 6.7, G17).
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
 * gr_chan_reset() - discard what is being written, zero the lost counters
 * @chan: the channel
 *
 * Restarts each ring's current sub-buffer empty (subbuf_start called with
 * prev_subbuf NULL) and zeroes prod.lost_full, lost_too_big, lost_nested
 * and overwritten. Sub-buffers already produced belong to the host, which
 * discards them by advancing consumed (spec 6.13, G17). CTF
 * events_discarded is cumulative, never reset (see gr_buf_discarded()).
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
		gr_buf_start(buf, NULL, 0,
			     buf->offset <= chan->layout.subbuf_size);
	}
}

/**
 * gr_chan_close() - finish and free a channel
 * @chan: the channel, or NULL
 *
 * Delivers partly filled sub-buffers as gr_chan_flush(), clears
 * GR_RING_F_ONLINE of every ring, calls buf_unmapped if the host is
 * attached, and frees the channel. The region itself is the caller's.
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
	if (chan->mapped)
		gr_buf_unmapped(chan);
	kvfree(chan->priv_mem);
	kvfree(chan->cpus);
	kvfree(chan->bufs);
	kfree(chan);
}

/**
 * gr_chan_set_mode() - choose no-overwrite or flight-recorder mode
 * @chan: the channel
 * @mode: GR_MODE_STREAM or GR_MODE_FLIGHT
 *
 * Takes effect at each ring's next switch (gr_ctf_subbuf_start()).
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
 * gr_subbufs_consumed() - take note of the host's consumed count
 * @chan: the channel
 * @ring: ring index
 *
 * Reads cons.consumed of @ring once and accepts it only if it lies
 * between the consumed mirror and the published produced (modulo 2^64);
 * otherwise the mirror stays and the error is counted (see
 * gr_chan_consumed_errors()). Writers do this themselves at every switch
 * attempt, so a host never needs the guest to call it.
 *
 * Context: the ring's writer context (see gr_relay_reserve()), or no
 * writer running on the channel.
 * Return: 0, or -EINVAL if the value was rejected or @ring does not
 * exist.
 */
int gr_subbufs_consumed(struct gr_chan *chan, u32 ring)
{
	if (ring >= chan->layout.nr_rings)
		return -EINVAL;
	return gr_buf_read_consumed(&chan->bufs[ring]);
}

/**
 * gr_buf_mapped() - the host attached: call buf_mapped for every ring
 * @chan: the channel
 *
 * Does nothing if the host is already attached.
 *
 * Context: process context, serialized with gr_buf_unmapped() and
 * gr_chan_close().
 */
void gr_buf_mapped(struct gr_chan *chan)
{
	u32 i;

	if (chan->mapped)
		return;
	chan->mapped = true;
	if (!chan->cb.buf_mapped)
		return;
	for (i = 0; i < chan->layout.nr_rings; i++)
		chan->cb.buf_mapped(&chan->bufs[i]);
}

/**
 * gr_buf_unmapped() - the host detached: call buf_unmapped for every ring
 * @chan: the channel
 *
 * Does nothing if the host is not attached.
 *
 * Context: process context, serialized with gr_buf_mapped() and
 * gr_chan_close().
 */
void gr_buf_unmapped(struct gr_chan *chan)
{
	u32 i;

	if (!chan->mapped)
		return;
	chan->mapped = false;
	if (!chan->cb.buf_unmapped)
		return;
	for (i = 0; i < chan->layout.nr_rings; i++)
		chan->cb.buf_unmapped(&chan->bufs[i]);
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

/* ---------------------------------------------------------------------- */
/* The record API's channel and events                                    */

/* The channel probes write to; NULL while it is reset or torn down */
struct gr_chan __rcu *gr_rec_chan;
/* Bit n: event n is recorded / may be filtered; one cache line */
struct gr_rec_bits gr_rec_bits;
/* The filter programs in effect, NULL for none (spec 14.5) */
struct gr_filter_set __rcu *gr_rec_filters;
/* The follow filter in effect, NULL for none (spec 15.4) */
struct gr_follow __rcu *gr_rec_follow;

/**
 * gr_rec_set_events() - choose the events gr_rec_open() accepts
 * @enable: GR_MAX_EVENTS bits, bit n for event n; NULL for none (recording
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
 * Bit n of the filtered words: event n has a program, or a follow filter
 * is in effect (then every event goes through gr_rec_filter()).
 */
static void gr_rec_set_filtered_bits(const struct gr_filter_set *set,
				     bool follow)
{
	unsigned long word;
	unsigned int w, b, id;

	for (w = 0; w < GR_REC_WORDS; w++) {
		word = follow ? ~0UL : 0;
		for (b = 0; set && b < GR_REC_WORD_BITS; b++) {
			id = w * GR_REC_WORD_BITS + b;
			if (set->slot_of[id] != GR_FILTER_NONE)
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
	gr_rec_set_filtered_bits(set,
				 rcu_dereference_protected(gr_rec_follow,
							   true));
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
	gr_rec_set_filtered_bits(rcu_dereference_protected(gr_rec_filters,
							   true), f);
	return old;
}

/**
 * gr_rec_filter() - run the event's filter program on a filled record
 * @rec: the record, reserved and filled, its ring still entered
 *
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
 */
/* Take back the record @rec: it was never there (see gr_rec_filter()) */
static notrace void gr_rec_take_back(struct gr_rec *rec, unsigned int slot)
{
	struct gr_buf *buf = rec->buf;

	buf->offset = rec->payload - sizeof(struct gr_event_header) -
		      buf->start;
	buf->events--;
	buf->filtered[slot]++;
}

notrace void gr_rec_filter(struct gr_rec *rec)
{
	const struct gr_filter_prog *prog;
	struct gr_filter_set *set;
	struct gr_follow *fol;
	u32 tid = gr_current_tid();
	u8 idx;

	/* The tracepoint's RCU-sched read side covers both (gr_rec_open()) */
	fol = rcu_dereference_sched(gr_rec_follow);
	if (fol && !gr_follow_keep(fol, rec->id, rec->payload, rec->len,
				   tid)) {
		gr_rec_take_back(rec, GR_FOLLOW_SLOT);
		return;
	}
	set = rcu_dereference_sched(gr_rec_filters);
	if (!set)
		return;
	idx = set->slot_of[rec->id];
	if (idx >= set->nr_progs)
		return;
	prog = &set->progs[idx];
	if (!gr_filter_match(prog, rec->payload, rec->len, tid,
			     smp_processor_id()))
		gr_rec_take_back(rec, prog->slot);
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
 * synchronize_rcu() before it touches the channel (reset, unbind), and
 * owns it then until gr_rec_activate().
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
