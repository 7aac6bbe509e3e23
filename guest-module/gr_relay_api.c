// SPDX-License-Identifier: GPL-2.0
/*
 * gr_relay_api.c - the client API of include/guestrelay/relay.h
 *
 * Channels for other guest modules, with kernel relay's semantics, over
 * the relay core's client calls (gr_relay_client.[ch]). A channel lives in
 * guest memory laid out by gr_layout_client() (rings, commit records,
 * sub-buffers, as in the region); its consumer is the guest reader (spec
 * 16.4), which takes finished sub-buffers the way the host does: it reads
 * prod.produced and the commit record, copies bytes [0, rec.bytes) of the
 * sub-buffer (the padding after them is never seen) and stores
 * cons.consumed with release. Every message is stored as given: no
 * alignment, no header (spec 16.5). While a channel is published to the
 * host (gr_rchan_pub.c) the host is its consumer instead.
 *
 * Builds in the kernel and in userspace (tests/unit/test_relay_api.c);
 * the relay files and klog's key are gr_relay_file.c's.
 */

#include "gr_rchan.h"

#define GR_RELAY_FLAGS	(GR_RELAY_GLOBAL | GR_RELAY_OVERWRITE | \
			 GR_RELAY_GUEST_READ)

/* Every open channel, by the directory entry it would take (spec 16.2) */
static struct gr_rchan *gr_rchans[GR_CLIENT_MAX];
static DEFINE_MUTEX(gr_rchans_lock);

/* spec 16.2: 1 to 31 bytes of [a-z0-9_], the first a letter */
static bool gr_rchan_name_ok(const char *name)
{
	size_t i;

	if (!name || name[0] < 'a' || name[0] > 'z')
		return false;
	for (i = 0; name[i]; i++) {
		if (i >= GR_NAME_LEN - 1)
			return false;
		if (!((name[i] >= 'a' && name[i] <= 'z') ||
		      (name[i] >= '0' && name[i] <= '9') || name[i] == '_'))
			return false;
	}
	return true;
}

/* Take a table slot for @rc under a unique name: 0, -EEXIST, -ENOSPC */
static int gr_rchan_register(struct gr_rchan *rc)
{
	int free = -1, i;

	for (i = 0; i < GR_CLIENT_MAX; i++) {
		if (!gr_rchans[i]) {
			if (free < 0)
				free = i;
		} else if (!strcmp(gr_rchans[i]->name, rc->name)) {
			return -EEXIST;
		}
	}
	if (free < 0)
		return -ENOSPC;
	rc->slot = free;
	gr_rchans[free] = rc;
	return 0;
}

/**
 * gr_rchan_get() - take a reference to a channel
 * @rc: the channel
 *
 * Context: process context.
 */
void gr_rchan_get(struct gr_rchan *rc)
{
	mutex_lock(&gr_rchans_lock);
	rc->refs++;
	mutex_unlock(&gr_rchans_lock);
}

/**
 * gr_rchan_put() - drop a reference; the last one frees the channel
 * @rc: the channel
 *
 * Context: process context.
 */
void gr_rchan_put(struct gr_rchan *rc)
{
	u32 refs;

	mutex_lock(&gr_rchans_lock);
	refs = --rc->refs;
	mutex_unlock(&gr_rchans_lock);
	if (refs)
		return;
	mutex_destroy(&rc->cons_lock);
	vfree(rc->cl.priv_region);
	kvfree(rc->readers);
	kfree(rc);
}

/* The core's doorbell: a sub-buffer was finished, wake the readers */
static void gr_rchan_doorbell(struct gr_buf *buf)
{
	struct gr_rchan *rc = buf->chan->private_data;

	gr_rchan_wake(rc, buf->index);
}

static struct gr_ring *gr_rchan_ring(struct gr_rchan *rc, u32 ring)
{
	return (void *)(rc->mem + gr_ring_off(rc->lay.ring_offset, ring));
}

static struct gr_subbuf_rec *gr_rchan_rec(struct gr_rchan *rc, u32 ring,
					  u32 slot)
{
	const struct gr_layout *lay = &rc->lay;

	return (void *)(rc->mem + gr_subbuf_rec_off(lay->subbuf_rec_offset,
						    lay->n_subbufs, ring,
						    slot));
}

/**
 * gr_rchan_ring_data() - the first sub-buffer of a ring
 * @rc: the channel
 * @ring: ring index, < nr_rings
 *
 * Context: any.
 * Return: the ring's gr_rchan_ring_size() bytes of sub-buffers.
 */
u8 *gr_rchan_ring_data(struct gr_rchan *rc, u32 ring)
{
	const struct gr_layout *lay = &rc->lay;

	return rc->mem + gr_subbuf_off(lay->data_offset, lay->n_subbufs,
				       lay->subbuf_size, ring, 0);
}

/**
 * gr_rchan_ring_size() - bytes of a ring's sub-buffers
 * @rc: the channel
 *
 * Context: any.
 * Return: n_subbufs * subbuf_size.
 */
size_t gr_rchan_ring_size(struct gr_rchan *rc)
{
	return (size_t)rc->lay.n_subbufs * rc->lay.subbuf_size;
}

/**
 * gr_rchan_open() - gr_relay_open(), and the klog channel
 * @name: see gr_relay_open()
 * @subbuf_size: see gr_relay_open()
 * @n_subbufs: see gr_relay_open()
 * @flags: see gr_relay_open()
 * @cb: see gr_relay_open()
 * @private_data: see gr_relay_open()
 * @klog: the channel is the klog channel
 *
 * Context: process context; may sleep.
 * Return: the channel, or NULL.
 */
struct gr_rchan *gr_rchan_open(const char *name, size_t subbuf_size,
			       size_t n_subbufs, unsigned int flags,
			       const struct gr_relay_callbacks *cb,
			       void *private_data, bool klog)
{
	struct gr_callbacks core_cb = { .doorbell = gr_rchan_doorbell };
	struct gr_rchan *rc;
	struct gr_layout lay;
	int ret;

	if (!gr_rchan_name_ok(name) || (flags & ~GR_RELAY_FLAGS) ||
	    subbuf_size > GR_CLIENT_MAX_SUBBUF ||
	    n_subbufs > GR_CLIENT_MAX_SUBBUFS ||
	    gr_layout_client(&lay, nr_cpu_ids, flags & GR_RELAY_GLOBAL,
			     subbuf_size, n_subbufs))
		return NULL;
	rc = kzalloc(sizeof(*rc), GFP_KERNEL);
	if (!rc)
		return NULL;
	rc->readers = kvcalloc(lay.nr_rings, sizeof(*rc->readers), GFP_KERNEL);
	if (!rc->readers) {
		kfree(rc);
		return NULL;
	}
	memcpy(rc->name, name, strlen(name) + 1);
	rc->flags = flags;
	rc->klog = klog;
	rc->lay = lay;
	rc->refs = 1;
	if (cb)
		rc->cb = *cb;
	rc->private_data = private_data;
	mutex_init(&rc->cons_lock);
	core_cb.subbuf_start = rc->cb.subbuf_start;

	mutex_lock(&gr_rchans_lock);
	ret = gr_rchan_register(rc);
	mutex_unlock(&gr_rchans_lock);
	if (ret)
		goto out_free;
	/* Counters start at 0: the memory is new and zero (spec 5.4) */
	ret = gr_client_open(&rc->cl, NULL, &lay, &core_cb, NULL, rc);
	if (ret)
		goto out_unregister;
	rc->mem = rc->cl.priv_region;
	if (flags & GR_RELAY_OVERWRITE)
		gr_chan_set_mode(rc->cl.chan, GR_MODE_FLIGHT);
	ret = gr_rchan_files_add(rc);
	if (ret)
		goto out_close;
	gr_rchan_publish(rc);
	return rc;

out_close:
	gr_chan_close(rc->cl.chan);
out_unregister:
	mutex_lock(&gr_rchans_lock);
	gr_rchans[rc->slot] = NULL;
	mutex_unlock(&gr_rchans_lock);
out_free:
	gr_rchan_put(rc);
	return NULL;
}

/**
 * gr_relay_open() - open a channel (kernel relay's relay_open())
 * @name: the channel's name, 1 to 31 bytes of [a-z0-9_] starting with a
 *	letter, unique among open channels; its relay files are
 *	guestrelay/<name>/<name><cpu> in debugfs
 * @subbuf_size: bytes per sub-buffer: a power of two, 4 KiB to 1 MiB
 * @n_subbufs: sub-buffers per buffer, 2 to 1024
 * @flags: GR_RELAY_GLOBAL (one buffer for all CPUs), GR_RELAY_OVERWRITE
 *	(the default subbuf_start overwrites unconsumed sub-buffers),
 *	GR_RELAY_GUEST_READ (never published to the host)
 * @cb: callbacks, copied; NULL for relay's defaults
 * @private_data: the client's, see gr_relay_buf_private()
 *
 * One buffer per possible CPU (nr_cpu_ids), or one with GR_RELAY_GLOBAL,
 * in guest memory, or in the region's client area once published to the
 * host (spec 16.3, gr_rchan_pub.c). subbuf_start is called for each buffer's first
 * sub-buffer with prev_subbuf NULL, as relay does. At most GR_CLIENT_MAX
 * (16) channels are open at once.
 *
 * Context: process context; may sleep.
 * Return: the channel, or NULL (a bad argument, a name in use, too many
 * channels, no memory).
 */
struct gr_rchan *gr_relay_open(const char *name, size_t subbuf_size,
			       size_t n_subbufs, unsigned int flags,
			       const struct gr_relay_callbacks *cb,
			       void *private_data)
{
	return gr_rchan_open(name, subbuf_size, n_subbufs, flags, cb,
			     private_data, false);
}
EXPORT_SYMBOL_GPL(gr_relay_open);

/**
 * gr_relay_close() - close a channel (relay_close())
 * @chan: the channel, or NULL
 *
 * Finishes every partly filled sub-buffer (as gr_relay_flush()), removes
 * the relay files from the name space and frees the channel once no
 * relay file is open any more: a reader keeps reading what was written.
 *
 * Context: process context; no write may run on the channel any more.
 */
void gr_relay_close(struct gr_rchan *chan)
{
	if (!chan)
		return;
	/* gr_rchan_flush_user() flushes only channels in the table */
	mutex_lock(&gr_rchans_lock);
	gr_rchans[chan->slot] = NULL;
	mutex_unlock(&gr_rchans_lock);
	/* A published channel is closed there, in its extent (spec 16.3) */
	gr_rchan_withdraw(chan);
	gr_chan_close(chan->cl.chan);
	chan->cl.chan = NULL;
	gr_rchan_files_del(chan);
	gr_rchan_put(chan);
}
EXPORT_SYMBOL_GPL(gr_relay_close);

/**
 * gr_relay_flush() - finish every partly filled sub-buffer (relay_flush())
 * @chan: the channel
 *
 * A sub-buffer that holds data is finished (its readers woken); an empty
 * one is not. Unlike relay's, safe while writers run: each CPU's buffer
 * is flushed on that CPU, between its writes.
 *
 * Context: process context.
 */
void gr_relay_flush(struct gr_rchan *chan)
{
	gr_rchan_flush_all(chan);
}
EXPORT_SYMBOL_GPL(gr_relay_flush);

/**
 * gr_rchan_flush_user() - gr_relay_flush() asked by a reader
 * @rc: the channel, referenced
 *
 * For a reader who wants the partly filled sub-buffers (a relay file's
 * flush file): flushes only a channel the client has not closed.
 *
 * Context: process context.
 * Return: 0, or -ENODEV once the client closed the channel.
 */
int gr_rchan_flush_user(struct gr_rchan *rc)
{
	int ret = -ENODEV;

	mutex_lock(&gr_rchans_lock);
	if (gr_rchans[rc->slot] == rc) {
		gr_rchan_flush_all(rc);
		ret = 0;
	}
	mutex_unlock(&gr_rchans_lock);
	return ret;
}

/* Consume every finished sub-buffer of a ring: c := produced */
static void gr_rchan_store_consumed(struct gr_rchan *rc, u32 ring, u64 c)
{
	rc->readers[ring].consumed = c;
	rc->readers[ring].read_off = 0;
	/*
	 * Pairs with the writer's smp_load_acquire() of cons.consumed (spec
	 * 10 #7): our reads of the sub-buffer are done before it reuses it.
	 */
	smp_store_release(&gr_rchan_ring(rc, ring)->cons.consumed,
			  cpu_to_le64(c));
}

static u64 gr_rchan_produced(struct gr_rchan *rc, u32 ring)
{
	/* Pairs (spec 10 #6) with the writer's release of produced */
	return le64_to_cpu(smp_load_acquire(&gr_rchan_ring(rc, ring)->
					    prod.produced));
}

/**
 * gr_relay_reset() - empty a channel (relay_reset())
 * @chan: the channel
 *
 * Discards every finished sub-buffer not read yet and restarts each
 * buffer's current sub-buffer empty (subbuf_start called with
 * prev_subbuf NULL); zeroes the lost counters. The memory stays.
 *
 * Context: process context; no write may run on the channel meanwhile.
 */
void gr_relay_reset(struct gr_rchan *chan)
{
	u32 i;

	mutex_lock(&chan->cons_lock);
	/* A published channel's consumer is the host (spec 16.4) */
	for (i = 0; i < chan->lay.nr_rings && !READ_ONCE(chan->published);
	     i++)
		gr_rchan_store_consumed(chan, i, gr_rchan_produced(chan, i));
	gr_chan_reset(chan->cl.chan);
	mutex_unlock(&chan->cons_lock);
}
EXPORT_SYMBOL_GPL(gr_relay_reset);

/**
 * gr_relay_subbufs_consumed() - a reader consumed sub-buffers
 *	(relay_subbufs_consumed())
 * @chan: the channel
 * @cpu: the buffer (0 for a global channel)
 * @subbufs_consumed: sub-buffers the client's reader is done with
 *
 * For a client that reads its buffers through mmap() and tells the
 * module: the oldest @subbufs_consumed finished sub-buffers become FREE,
 * at most as many as are finished (relay caps it likewise). Meaningless
 * in overwrite mode, as in relay.
 *
 * Context: process context.
 * Return: 0; -EINVAL for a buffer that does not exist; -EBUSY while the
 * channel is published to the host, its consumer (spec 16.4).
 */
int gr_relay_subbufs_consumed(struct gr_rchan *chan, unsigned int cpu,
			      size_t subbufs_consumed)
{
	struct gr_rreader *rd;
	u64 avail;

	if (cpu >= chan->lay.nr_rings)
		return -EINVAL;
	if (READ_ONCE(chan->published))
		return -EBUSY;		/* the host consumes it (16.4) */
	mutex_lock(&chan->cons_lock);
	rd = &chan->readers[cpu];
	avail = gr_rchan_produced(chan, cpu) - rd->consumed;
	if (subbufs_consumed)
		gr_rchan_store_consumed(chan, cpu, rd->consumed +
					min_t(u64, avail, subbufs_consumed));
	mutex_unlock(&chan->cons_lock);
	return 0;
}
EXPORT_SYMBOL_GPL(gr_relay_subbufs_consumed);

/**
 * gr_relay_write() - write a message to this CPU's buffer (relay_write())
 * @chan: the channel
 * @data: the message
 * @length: its bytes, 1 to the sub-buffer size less its reserved header
 *
 * The message is stored as given and never split: if it does not fit in
 * the current sub-buffer, subbuf_start decides whether the next one
 * starts. Disables interrupts, as relay_write() does.
 *
 * Context: any, including hard irq and NMI.
 * Return: 0; -ENOSPC: no sub-buffer to start (no-overwrite mode, counted
 * in lost_full); -E2BIG: longer than a sub-buffer can hold (lost_too_big);
 * -EBUSY: this CPU was already writing to the channel, an interrupt or NMI
 * on a writer (lost_nested); -EINVAL: @length 0. Relay's returns nothing.
 */
int gr_relay_write(struct gr_rchan *chan, const void *data, size_t length)
{
	unsigned long flags;
	int ret;

	local_irq_save(flags);
	ret = gr_rchan_paused(chan) ? -EBUSY :
	      gr_put(chan->cl.chan, data, length, false);
	local_irq_restore(flags);
	return ret;
}
EXPORT_SYMBOL_GPL(gr_relay_write);

/**
 * __gr_relay_write() - gr_relay_write() without disabling interrupts
 *	(__relay_write())
 * @chan: the channel
 * @data: the message
 * @length: its bytes
 *
 * Only disables preemption. An interrupt that writes to the channel
 * meanwhile finds the CPU inside it and its message is dropped (-EBUSY,
 * counted), where relay's would corrupt the buffer.
 *
 * Context: process or softirq context.
 * Return: as gr_relay_write().
 */
int __gr_relay_write(struct gr_rchan *chan, const void *data, size_t length)
{
	int ret;

	preempt_disable();
	ret = gr_rchan_paused(chan) ? -EBUSY :
	      gr_put(chan->cl.chan, data, length, false);
	preempt_enable();
	return ret;
}
EXPORT_SYMBOL_GPL(__gr_relay_write);

/**
 * gr_relay_reserve() - reserve room for a message (relay_reserve())
 * @chan: the channel
 * @length: bytes, as gr_relay_write()
 *
 * Returns @length bytes of this CPU's buffer (the global one with
 * GR_RELAY_GLOBAL) for the caller to fill; they are delivered with the
 * sub-buffer whatever they hold. As relay's, no protection at all: the
 * caller keeps other writers of the buffer away (interrupts off for a
 * per-CPU buffer, its own lock for a global one) until the slot is
 * filled.
 *
 * Context: preemption disabled, see above.
 * Return: the slot, or NULL (dropped and counted as gr_relay_write()).
 */
void *gr_relay_reserve(struct gr_rchan *chan, size_t length)
{
	struct gr_chan *c = chan->cl.chan;
	u32 cpu = smp_processor_id();
	struct gr_buf *buf;
	u8 *slot;

	if (unlikely(cpu >= c->nr_cpus) || gr_rchan_paused(chan))
		return NULL;
	buf = c->global ? c->bufs : &c->bufs[cpu];
	if (gr_buf_check_size(buf, length) ||
	    gr_buf_alloc(buf, length, &slot, false))
		return NULL;
	return slot;
}
EXPORT_SYMBOL_GPL(gr_relay_reserve);

/**
 * gr_relay_buf_full() - are all sub-buffers of a buffer unconsumed?
 *	(relay_buf_full())
 * @buf: the buffer subbuf_start got
 *
 * Context: subbuf_start.
 * Return: 1 if full, else 0.
 */
int gr_relay_buf_full(struct gr_buf *buf)
{
	return gr_buf_full(buf);
}
EXPORT_SYMBOL_GPL(gr_relay_buf_full);

/**
 * gr_relay_subbuf_start_reserve() - reserve a header in the new sub-buffer
 *	(subbuf_start_reserve())
 * @buf: the buffer subbuf_start got
 * @length: bytes; rounded up to 8 (relay's are not)
 *
 * The header is part of the sub-buffer's data: readers get it.
 *
 * Context: subbuf_start, once it accepts the switch.
 */
void gr_relay_subbuf_start_reserve(struct gr_buf *buf, size_t length)
{
	gr_subbuf_start_reserve(buf, length);
}
EXPORT_SYMBOL_GPL(gr_relay_subbuf_start_reserve);

/**
 * gr_relay_buf_cpu() - the CPU of a buffer
 * @buf: a buffer of a client channel
 *
 * Context: any.
 * Return: the CPU, 0 for a global buffer.
 */
unsigned int gr_relay_buf_cpu(struct gr_buf *buf)
{
	return buf->index;
}
EXPORT_SYMBOL_GPL(gr_relay_buf_cpu);

/**
 * gr_relay_buf_private() - the private_data given to gr_relay_open()
 * @buf: a buffer of a client channel
 *
 * Context: any.
 * Return: the client's pointer.
 */
void *gr_relay_buf_private(struct gr_buf *buf)
{
	struct gr_rchan *rc = buf->chan->private_data;

	return rc->private_data;
}
EXPORT_SYMBOL_GPL(gr_relay_buf_private);

/*
 * Overwrite mode: at most n_subbufs sub-buffers before produced can still
 * hold their data; skip older ones (the slot of number produced - n may
 * be restarted too, which its commit record then says).
 */
static void gr_rchan_skip_lost(struct gr_rchan *rc, u32 ring, u64 p)
{
	struct gr_rreader *rd = &rc->readers[ring];
	u64 keep = rc->lay.n_subbufs;

	if (p - rd->consumed > keep) {
		rd->lost += p - rd->consumed - keep;
		gr_rchan_store_consumed(rc, ring, p - keep);
	}
}

/*
 * The reader's next finished sub-buffer: its slot and bytes (at most a
 * sub-buffer), or -EAGAIN. In overwrite mode sub-buffers restarted before
 * they were read are skipped and counted in the reader's lost.
 * Context: the channel's cons_lock held.
 */
static int gr_rchan_next(struct gr_rchan *rc, u32 ring, u32 *slot, u32 *bytes)
{
	struct gr_rreader *rd = &rc->readers[ring];
	struct gr_subbuf_rec *rec;
	u64 p, seq;

	for (;;) {
		p = gr_rchan_produced(rc, ring);
		if (p == rd->consumed)
			return -EAGAIN;
		gr_rchan_skip_lost(rc, ring, p);
		*slot = gr_subbuf_slot(rd->consumed, rc->lay.n_subbufs);
		rec = gr_rchan_rec(rc, ring, *slot);
		/* Pairs (spec 10 #5) with the writer's release of rec.seq */
		seq = le64_to_cpu(smp_load_acquire(&rec->seq));
		if (seq == rd->consumed)
			break;
		/* restarted since produced was read (overwrite) */
		rd->lost++;
		gr_rchan_store_consumed(rc, ring, rd->consumed + 1);
	}
	*bytes = min_t(u32, le32_to_cpu(READ_ONCE(rec->bytes)),
		       rc->lay.subbuf_size);
	return 0;
}

/**
 * gr_rchan_read() - read a ring's finished bytes, padding removed
 * @rc: the channel
 * @ring: ring index
 * @count: bytes wanted
 * @copy: copies bytes to the reader
 * @ctx: @copy's
 *
 * Copies bytes [read_off, rec.bytes) of each finished sub-buffer in
 * order and consumes a sub-buffer once it is read to its end (relay's
 * read()). In overwrite mode a sub-buffer a writer restarted before it
 * was read is skipped and counted in the reader's lost; one restarted
 * while it is copied gives unpredictable bytes, as relay warns.
 *
 * Context: process context.
 * Return: bytes copied (0: nothing finished), or what @copy returned if
 * it failed before anything was copied; -EINVAL for a bad @ring.
 */
ssize_t gr_rchan_read(struct gr_rchan *rc, u32 ring, size_t count,
		      gr_rcopy_fn copy, void *ctx)
{
	u32 size = rc->lay.subbuf_size;
	struct gr_rreader *rd;
	size_t done = 0, len;
	u32 slot, bytes;
	int ret = 0;

	if (ring >= rc->lay.nr_rings)
		return -EINVAL;
	rd = &rc->readers[ring];
	mutex_lock(&rc->cons_lock);
	while (done < count && !gr_rchan_next(rc, ring, &slot, &bytes)) {
		len = min_t(size_t, bytes - min_t(size_t, rd->read_off, bytes),
			    count - done);
		if (len) {
			ret = copy(ctx, gr_rchan_ring_data(rc, ring) +
				   (size_t)slot * size + rd->read_off, len);
			if (ret)
				break;
			rd->read_off += len;
			done += len;
		}
		if (rd->read_off >= bytes)
			gr_rchan_store_consumed(rc, ring, rd->consumed + 1);
	}
	mutex_unlock(&rc->cons_lock);
	return done ? (ssize_t)done : ret;
}

/**
 * gr_rchan_get_subbuf() - the oldest finished sub-buffer not consumed, for
 *	a reader of the mapping (GR_RELAY_GET_SUBBUF)
 * @rc: the channel
 * @ring: ring index
 * @sb: receives its number, place and unread bytes, and the reader's lost
 *
 * As gr_rchan_read() finds it (gr_rchan_next()).
 *
 * Context: process context.
 * Return: 0, -EAGAIN if no finished sub-buffer waits, -EINVAL for a bad
 * @ring.
 */
int gr_rchan_get_subbuf(struct gr_rchan *rc, u32 ring,
			struct gr_relay_subbuf *sb)
{
	struct gr_rreader *rd;
	u32 slot, bytes, off;
	int ret;

	if (ring >= rc->lay.nr_rings)
		return -EINVAL;
	rd = &rc->readers[ring];
	mutex_lock(&rc->cons_lock);
	ret = gr_rchan_next(rc, ring, &slot, &bytes);
	if (!ret) {
		off = min_t(u32, rd->read_off, bytes);
		sb->seq = rd->consumed;
		sb->lost = rd->lost;
		sb->offset = slot * rc->lay.subbuf_size + off;
		sb->bytes = bytes - off;
	}
	mutex_unlock(&rc->cons_lock);
	return ret;
}

/**
 * gr_rchan_put_subbuf() - a reader of the mapping is done with a
 *	sub-buffer (GR_RELAY_PUT_SUBBUF)
 * @rc: the channel
 * @ring: ring index
 * @seq: the number gr_rchan_get_subbuf() gave
 *
 * Consumes it. The flight-recorder check of the host (spec G12): a writer
 * marks a sub-buffer BUSY before it changes any byte of it, so if its
 * commit record still holds @seq after the reader's copy, the copy is
 * whole.
 *
 * Context: process context.
 * Return: 0; -ESTALE if a writer restarted it meanwhile (overwrite mode:
 * the copy may be torn; counted in the reader's lost); -EINVAL if @seq
 * is not the sub-buffer to consume or @ring is bad.
 */
int gr_rchan_put_subbuf(struct gr_rchan *rc, u32 ring, u64 seq)
{
	struct gr_rreader *rd;
	struct gr_subbuf_rec *rec;
	int ret = 0;

	if (ring >= rc->lay.nr_rings)
		return -EINVAL;
	rd = &rc->readers[ring];
	mutex_lock(&rc->cons_lock);
	if (seq != rd->consumed ||
	    gr_rchan_produced(rc, ring) == rd->consumed) {
		ret = -EINVAL;
		goto out;
	}
	rec = gr_rchan_rec(rc, ring, gr_subbuf_slot(seq, rc->lay.n_subbufs));
	/* the reader's copy, then rec.seq again (pairs with G12's smp_wmb) */
	smp_rmb();
	if (le64_to_cpu(READ_ONCE(rec->seq)) != seq) {
		rd->lost++;
		ret = -ESTALE;
	}
	gr_rchan_store_consumed(rc, ring, seq + 1);
out:
	mutex_unlock(&rc->cons_lock);
	return ret;
}

/**
 * gr_rchan_readable() - does a ring hold a finished sub-buffer not read?
 * @rc: the channel
 * @ring: ring index, < nr_rings
 *
 * Context: any.
 * Return: true if gr_rchan_read() would return data.
 */
bool gr_rchan_readable(struct gr_rchan *rc, u32 ring)
{
	struct gr_rreader *rd = &rc->readers[ring];

	return gr_rchan_produced(rc, ring) != READ_ONCE(rd->consumed);
}

/**
 * gr_rchan_klog_write() - write one klog record (spec 16.6)
 * @rc: the klog channel
 * @flags: GR_KLOG_F_*
 * @text: the text or raw bytes
 * @len: their number
 *
 * struct gr_klog_rec (timestamp from the ring's clock, @len, @flags)
 * followed by @len bytes, one message.
 *
 * Context: any, including hard irq and NMI; disables local interrupts.
 * Return: as gr_relay_write().
 */
int gr_rchan_klog_write(struct gr_rchan *rc, u32 flags, const void *text,
			size_t len)
{
	struct gr_klog_rec hdr;
	struct gr_buf *buf;
	unsigned long irqs;
	u8 *slot;
	int ret;

	local_irq_save(irqs);
	buf = gr_rchan_paused(rc) ? NULL : __gr_buf_enter(rc->cl.chan, true);
	if (!buf) {
		local_irq_restore(irqs);
		return -EBUSY;
	}
	if (len > buf->max_event_size) {
		gr_buf_lost_too_big(buf);
		ret = -E2BIG;
	} else {
		ret = gr_buf_check_size(buf, sizeof(hdr) + len);
	}
	if (!ret) {
		hdr.timestamp = cpu_to_le64(gr_buf_clock(buf));
		hdr.len = cpu_to_le32((u32)len);
		hdr.flags = cpu_to_le32(flags);
		ret = gr_buf_alloc(buf, sizeof(hdr) + len, &slot, true);
	}
	if (!ret) {
		memcpy(slot, &hdr, sizeof(hdr));
		memcpy(slot + sizeof(hdr), text, len);
	}
	gr_buf_exit(buf);
	local_irq_restore(irqs);
	return ret;
}
