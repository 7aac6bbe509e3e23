// SPDX-License-Identifier: GPL-2.0
/*
 * gr_relay_client.c - kernel relay's client calls over the relay core
 *
 * See gr_relay_client.h: buffer-only channels and their late setup, the
 * host's attach / detach notifications, and a copied event record.
 */

#include "gr_relay_client.h"
#ifdef __KERNEL__
#include <linux/vmalloc.h>
#endif

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
 * Return: as gr_chan_write().
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

/**
 * gr_client_open() - open a channel for a relay client
 * @cl: the client's channel, filled
 * @region: the region, laid out as @layout; NULL for a buffer-only
 *	channel, whose rings live in private memory laid out as @layout
 *	until gr_client_late_setup()
 * @layout: from gr_layout_compute()
 * @cb: the channel's callbacks (see gr_chan_open())
 * @ccb: the client's callbacks, copied; NULL for none
 * @private_data: the caller's, in chan->private_data
 *
 * Context: process context; may sleep.
 * Return: 0, or what gr_chan_open() returns.
 */
int gr_client_open(struct gr_client *cl, void *region,
		   const struct gr_layout *layout,
		   const struct gr_callbacks *cb,
		   const struct gr_client_callbacks *ccb, void *private_data)
{
	int ret;

	memset(cl, 0, sizeof(*cl));
	if (ccb)
		cl->cb = *ccb;
	if (!region) {
		/* vmalloc_user(): relay files may map it (gr_relay_file.c) */
		cl->priv_region = vmalloc_user(gr_layout_end(layout));
		if (!cl->priv_region)
			return -ENOMEM;
		region = cl->priv_region;
	}
	ret = gr_chan_open(&cl->chan, region, layout, cb, private_data);
	if (ret) {
		vfree(cl->priv_region);
		cl->priv_region = NULL;
	}
	return ret;
}

/*
 * Copy packet number @c from the old ring's sub-buffers @old_data to the
 * region, where it becomes number @c + @delta; a CTF packet header gets
 * the new number.
 */
static u8 *gr_buf_move_subbuf(struct gr_buf *buf, const u8 *old_data,
			      u64 c, u64 delta)
{
	size_t size = buf->chan->layout.subbuf_size;
	const u8 *src = old_data + (size_t)gr_buf_slot(buf, c) * size;
	const struct gr_packet_header *sph = (const void *)src;
	u8 *dst = gr_buf_subbuf(buf, gr_buf_slot(buf, c + delta));
	struct gr_packet_header *dph = (void *)dst;

	memcpy(dst, src, size);
	if (le32_to_cpu(sph->magic) == GR_CTF_MAGIC)
		dph->packet_seq_num = cpu_to_le64(c + delta);
	return dst;
}

/*
 * Move a ring from the private region into the region (chan->region now
 * points at it). The region's counters continue from its cons.consumed,
 * so every number shifts by delta = that consumed - our consumed mirror,
 * and sub-buffers move to the slot of their new number.
 */
static void gr_buf_move(struct gr_buf *buf)
{
	struct gr_chan *chan = buf->chan;
	const struct gr_layout *lay = &chan->layout;
	struct gr_subbuf_rec *old_recs = buf->recs;
	struct gr_ring *old_ring = buf->ring;
	bool writing = buf->offset <= lay->subbuf_size;
	u8 *old_data = buf->data;
	struct gr_subbuf_rec *rec;
	u64 c, delta, k, nfin;

	gr_buf_bind(buf);
	gr_buf_init_recs(buf);
	/* Pairs (spec 10 #7) with the host's smp_store_release() of consumed */
	c = le64_to_cpu(smp_load_acquire(&buf->ring->cons.consumed));
	delta = c - buf->consumed;
	/* PRODUCED sub-buffers still held; one slot is BEING_WRITTEN */
	nfin = min_t(u64, buf->produced - buf->consumed,
		     lay->n_subbufs - (writing ? 1 : 0));
	for (k = buf->produced - nfin; k != buf->produced; k++) {
		gr_buf_move_subbuf(buf, old_data, k, delta);
		rec = &buf->recs[gr_buf_slot(buf, k + delta)];
		WRITE_ONCE(rec->bytes, old_recs[gr_buf_slot(buf, k)].bytes);
		/* Pairs (spec 10 #5) with the host's smp_load_acquire() of rec.seq */
		smp_store_release(&rec->seq, cpu_to_le64(k + delta));
	}
	/* While waiting for a FREE sub-buffer none is BEING_WRITTEN */
	buf->start = NULL;
	if (writing)
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
 * gr_client_late_setup() - move a buffer-only channel into its region
 * @cl: a channel opened with a NULL region
 * @region: the region, laid out as the channel's layout
 *
 * Kernel relay's relay_late_setup_files(). Copies the rings' state and
 * every sub-buffer still held (PRODUCED and unconsumed, and the one
 * BEING_WRITTEN) into @region, then frees the private region; writers
 * continue in @region. As at open, the counters continue from the
 * region's cons.consumed: sub-buffer numbers (commit records and CTF
 * packet_seq_num) shift accordingly.
 *
 * Context: process context; no writer may run on the channel meanwhile.
 * Return: 0; -EINVAL if @region is NULL or @cl is not buffer-only.
 */
int gr_client_late_setup(struct gr_client *cl, void *region)
{
	struct gr_chan *chan = cl->chan;
	u32 i;

	if (!region || !cl->priv_region)
		return -EINVAL;
	chan->region = region;
	for (i = 0; i < chan->layout.nr_rings; i++)
		gr_buf_move(&chan->bufs[i]);
	vfree(cl->priv_region);
	cl->priv_region = NULL;
	return 0;
}

/**
 * gr_client_close() - close a client's channel
 * @cl: the client's channel
 *
 * gr_chan_close(), after buf_unmapped if the host is attached; frees the
 * private region of a buffer-only channel never set up.
 *
 * Context: process context; no writer may run on the channel any more.
 */
void gr_client_close(struct gr_client *cl)
{
	gr_buf_unmapped(cl);
	gr_chan_close(cl->chan);
	cl->chan = NULL;
	vfree(cl->priv_region);
	cl->priv_region = NULL;
}

/**
 * gr_buf_mapped() - the host attached: call buf_mapped for every ring
 * @cl: the client's channel
 *
 * Does nothing if the host is already attached.
 *
 * Context: process context, serialized with gr_buf_unmapped() and
 * gr_client_close().
 */
void gr_buf_mapped(struct gr_client *cl)
{
	u32 i;

	if (cl->mapped)
		return;
	cl->mapped = true;
	if (!cl->cb.buf_mapped)
		return;
	for (i = 0; i < cl->chan->layout.nr_rings; i++)
		cl->cb.buf_mapped(&cl->chan->bufs[i]);
}

/**
 * gr_buf_unmapped() - the host detached: call buf_unmapped for every ring
 * @cl: the client's channel
 *
 * Does nothing if the host is not attached.
 *
 * Context: process context, serialized with gr_buf_mapped() and
 * gr_client_close().
 */
void gr_buf_unmapped(struct gr_client *cl)
{
	u32 i;

	if (!cl->mapped)
		return;
	cl->mapped = false;
	if (!cl->cb.buf_unmapped)
		return;
	for (i = 0; i < cl->chan->layout.nr_rings; i++)
		cl->cb.buf_unmapped(&cl->chan->bufs[i]);
}
