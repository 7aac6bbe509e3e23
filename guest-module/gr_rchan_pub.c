// SPDX-License-Identifier: GPL-2.0
/*
 * gr_rchan_pub.c - client channels published to the host (spec 16.3, 16.4)
 *
 * While the host's GR_F_CLIENT is in use, the layout has a client area
 * (gr_layout_compute(), spec 16.1): a directory of GR_CLIENT_MAX entries,
 * the host's acknowledgments, then room for channels. An open client
 * channel is published in entry rc->slot: its rings move from guest
 * memory into an extent of the area (gr_client_late_setup(), kernel
 * relay's relay_late_setup_files()), the entry is filled between an odd
 * and an even gen, and from then on the host consumes it. Who consumes
 * is one rule (16.4):
 *
 *	published		the host, only; its relay files refuse open()
 *	not published		the guest reader, only
 *
 * A channel is published at open, when a device with a client area
 * binds, and when its last relay file is closed; never while a relay
 * file is open, never with GR_RELAY_GUEST_READ. It is withdrawn at close
 * (finished, drained up to 1 s, gen odd, then the area is reused once
 * the host acknowledged) and when the device unbinds (moved back into
 * guest memory, gen odd).
 *
 * Moving a live channel: writers run with interrupts or preemption off,
 * so @paused plus one RCU grace period keeps every writer out; a message
 * written meanwhile is dropped and counted in lost_nested (another
 * writer held the ring). Values this file wrote to the area are never
 * read back (C1): the entry's gen lives in gr_pub_ext; client_ack is
 * only compared for equality.
 *
 * Lock order: gr_dev_lock, then gr_pub_lock; gr_pub_lock, then the
 * channel table's gr_rchans_lock (gr_rchan_flush_all()).
 */
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/vmalloc.h>

#include "gr_rchan.h"

/* How long a close waits for the host to consume, then to acknowledge */
#define GR_PUB_WAIT_MS		1000

/**
 * struct gr_pub_ext - the guest's state of one directory entry
 * @start: the channel's extent, relative to the client area
 * @len: its bytes (0: the entry holds no extent)
 * @gen: the entry's gen as the guest last stored it
 */
struct gr_pub_ext {
	u64 start;
	u64 len;
	u64 gen;
};

static DEFINE_MUTEX(gr_pub_lock);
static u8 *gr_pub_area;			/* NULL: no client area in use */
static u64 gr_pub_off;			/* its region offset */
static u64 gr_pub_size;			/* its bytes */
static struct gr_pub_ext gr_pub_ext[GR_CLIENT_MAX];
static struct gr_rchan *gr_pub_chans[GR_CLIENT_MAX];	/* open, by slot */

static struct gr_client_chan *gr_pub_dir(u32 e)
{
	return (struct gr_client_chan *)gr_pub_area + e;
}

/* Has the host acknowledged the withdrawal of entry @e (spec 16.3)? */
static bool gr_pub_acked(u32 e)
{
	__le64 *ack = (__le64 *)(gr_pub_area + GR_CLIENT_ACK_OFFSET) + e;

	/* C1: read once, compared only; pairs with the host's release */
	return le64_to_cpu(smp_load_acquire(ack)) == gr_pub_ext[e].gen;
}

/* The extent of entry @e is free (never used, or acknowledged) */
static bool gr_pub_ext_free(u32 e)
{
	if (!gr_pub_ext[e].len)
		return true;
	if (gr_pub_chans[e] && gr_pub_chans[e]->published)
		return false;
	if (!(gr_pub_ext[e].gen & 1) || !gr_pub_acked(e))
		return false;
	gr_pub_ext[e].len = 0;
	return true;
}

/* First fit of @len bytes after the directory: 0 or -ENOSPC */
static int gr_pub_place(u64 len, u64 *start)
{
	u64 s = GR_CLIENT_DIR_SIZE;
	bool moved = true;
	u32 i;

	while (moved) {
		moved = false;
		for (i = 0; i < GR_CLIENT_MAX; i++) {
			const struct gr_pub_ext *x = &gr_pub_ext[i];

			if (x->len && s < x->start + x->len &&
			    x->start < s + len) {
				s = x->start + x->len;
				moved = true;
			}
		}
	}
	if (s > gr_pub_size || len > gr_pub_size - s)
		return -ENOSPC;
	*start = s;
	return 0;
}

/* Keep the channel's writers out (see the top of the file) */
static void gr_pub_pause(struct gr_rchan *rc)
{
	WRITE_ONCE(rc->paused, true);
	/* Writers hold interrupts or preemption off from the test on */
	synchronize_rcu();
}

static void gr_pub_resume(struct gr_rchan *rc)
{
	s64 n = atomic64_read(&rc->paused_drops);

	atomic64_set(&rc->paused_drops, 0);
	if (n && rc->cl.chan)
		atomic64_add(n, &rc->cl.chan->bufs[0].lost_nested);
	/* The move's stores are done before a writer may enter again */
	smp_store_release(&rc->paused, false);
}

/* Spec 16.2: the entry's fields, all but gen */
static void gr_pub_fill(struct gr_client_chan *d, struct gr_rchan *rc,
			u64 base)
{
	const struct gr_layout *lay = &rc->lay;
	u32 flags = 0;

	if (rc->flags & GR_RELAY_GLOBAL)
		flags |= GR_CLIENT_GLOBAL;
	if (rc->flags & GR_RELAY_OVERWRITE)
		flags |= GR_CLIENT_OVERWRITE;
	if (rc->klog)
		flags |= GR_CLIENT_KLOG;
	memset(d->name, 0, sizeof(d->name));
	memcpy(d->name, rc->name, strlen(rc->name));
	WRITE_ONCE(d->flags, cpu_to_le32(flags));
	WRITE_ONCE(d->nr_rings, cpu_to_le32(lay->nr_rings));
	WRITE_ONCE(d->subbuf_size, cpu_to_le32(lay->subbuf_size));
	WRITE_ONCE(d->n_subbufs, cpu_to_le32(lay->n_subbufs));
	WRITE_ONCE(d->ring_offset, cpu_to_le64(base + lay->ring_offset));
	WRITE_ONCE(d->subbuf_rec_offset,
		   cpu_to_le64(base + lay->subbuf_rec_offset));
	WRITE_ONCE(d->data_offset, cpu_to_le64(base + lay->data_offset));
	memset(d->reserved, 0, sizeof(d->reserved));
}

/* Publish @rc if the rule of 16.4 lets it; gr_pub_lock held */
static void gr_pub_publish(struct gr_rchan *rc)
{
	u32 e = rc->slot;
	struct gr_client_chan *d;
	u64 len, start, gen;
	void *spare;

	if (!gr_pub_area || rc->published || rc->nr_files ||
	    (rc->flags & GR_RELAY_GUEST_READ) || !rc->cl.chan ||
	    !rc->cl.priv_region || !gr_pub_ext_free(e))
		return;
	len = PAGE_ALIGN(gr_layout_end(&rc->lay));
	if (gr_pub_place(len, &start)) {
		pr_info_once("guestrelay: client area full: channel %s stays in the guest\n",
			     rc->name);
		return;
	}
	/* The rings go back to guest memory at unbind: never fails then */
	spare = vmalloc_user(len);
	if (!spare)
		return;
	d = gr_pub_dir(e);
	gen = gr_pub_ext[e].gen + (gr_pub_ext[e].gen & 1);
	WRITE_ONCE(d->gen, cpu_to_le64(gen + 1));
	/* Pairs with the host's smp_rmb() between its two loads of gen */
	smp_wmb();
	gr_pub_pause(rc);
	/* Spec 5.2 steps 7-9 in the extent: counters from cons.consumed */
	gr_client_late_setup(&rc->cl, gr_pub_area + start);
	rc->mem = gr_pub_area + start;
	rc->spare = spare;
	rc->published = true;
	gr_pub_fill(d, rc, gr_pub_off + start);
	/* Pairs with the host's smp_load_acquire() of gen (spec 16.3) */
	smp_store_release(&d->gen, cpu_to_le64(gen + 2));
	gr_pub_ext[e] = (struct gr_pub_ext){ start, len, gen + 2 };
	gr_pub_resume(rc);
}

/*
 * The guest reader's state of each ring, from the consumed count the
 * host left (checked as G9; an invalid one is ignored)
 */
static void gr_pub_readers_sync(struct gr_rchan *rc)
{
	struct gr_chan *c = rc->cl.chan;
	struct gr_buf *buf;
	u64 v;
	u32 i;

	for (i = 0; i < rc->lay.nr_rings; i++) {
		buf = &c->bufs[i];
		v = le64_to_cpu(READ_ONCE(buf->ring->cons.consumed));
		if (buf->produced - v > rc->lay.n_subbufs ||
		    v - buf->consumed > buf->produced - buf->consumed)
			v = buf->consumed;
		buf->consumed = v;
		WRITE_ONCE(buf->ring->cons.consumed, cpu_to_le64(v));
		rc->readers[i].consumed = v;
		rc->readers[i].read_off = 0;
	}
}

/* The device goes away: the rings back into guest memory, gen odd */
static void gr_pub_take_back(struct gr_rchan *rc)
{
	struct gr_chan *c = rc->cl.chan;
	u8 *old = rc->mem, *priv = rc->spare;
	struct gr_buf *buf;
	u32 e = rc->slot, i;

	gr_pub_pause(rc);
	memcpy(priv, old, gr_layout_end(&rc->lay));
	c->region = priv;
	for (i = 0; i < rc->lay.nr_rings; i++) {
		buf = &c->bufs[i];
		if (buf->start)
			buf->start = priv + (buf->start - old);
		gr_buf_bind(buf);
	}
	rc->cl.priv_region = priv;
	rc->mem = priv;
	rc->spare = NULL;
	gr_pub_readers_sync(rc);
	gr_pub_ext[e].gen++;
	/* Pairs with the host's smp_load_acquire() of gen (spec 16.3) */
	smp_store_release(&gr_pub_dir(e)->gen, cpu_to_le64(gr_pub_ext[e].gen));
	rc->published = false;
	gr_pub_resume(rc);
}

/* Every ring consumed up to produced, or @ms passed */
static void gr_pub_drain_wait(struct gr_rchan *rc, unsigned int ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);
	struct gr_buf *buf;
	bool done;
	u32 i;

	do {
		done = true;
		for (i = 0; i < rc->lay.nr_rings; i++) {
			buf = &rc->cl.chan->bufs[i];
			if (le64_to_cpu(READ_ONCE(buf->ring->cons.consumed)) !=
			    buf->produced)
				done = false;
		}
		if (done)
			return;
		msleep(20);
	} while (time_before(jiffies, end));
}

/**
 * gr_rchan_publish() - an open channel may go to the host
 * @rc: the channel, registered in its slot, no writer yet
 *
 * Publishes it if a client area is in use and the rule of spec 16.4 lets
 * it; otherwise the guest reader keeps it.
 *
 * Context: process context; may sleep.
 */
void gr_rchan_publish(struct gr_rchan *rc)
{
	mutex_lock(&gr_pub_lock);
	gr_pub_chans[rc->slot] = rc;
	gr_pub_publish(rc);
	mutex_unlock(&gr_pub_lock);
}

/**
 * gr_rchan_withdraw() - the client closes its channel
 * @rc: the channel; no write may run on it any more
 *
 * A published channel is finished, drained (up to 1 s), closed in the
 * relay core while its extent is still the guest's, withdrawn (gen odd),
 * and its extent kept until the host acknowledged (up to 1 s here, else
 * at a later publication). rc->published stays set: its relay files keep
 * refusing open() until they are removed.
 *
 * Context: process context; may sleep.
 */
void gr_rchan_withdraw(struct gr_rchan *rc)
{
	unsigned long end;
	u32 e = rc->slot;

	mutex_lock(&gr_pub_lock);
	if (gr_pub_chans[e] == rc)
		gr_pub_chans[e] = NULL;
	if (!rc->published || !gr_pub_area) {
		mutex_unlock(&gr_pub_lock);
		return;
	}
	gr_rchan_flush_all(rc);
	gr_pub_drain_wait(rc, GR_PUB_WAIT_MS);
	gr_chan_close(rc->cl.chan);
	rc->cl.chan = NULL;
	gr_pub_ext[e].gen++;
	/* Pairs with the host's smp_load_acquire() of gen (spec 16.3) */
	smp_store_release(&gr_pub_dir(e)->gen, cpu_to_le64(gr_pub_ext[e].gen));
	end = jiffies + msecs_to_jiffies(GR_PUB_WAIT_MS);
	while (!gr_pub_acked(e) && time_before(jiffies, end))
		msleep(20);
	vfree(rc->spare);
	rc->spare = NULL;
	mutex_unlock(&gr_pub_lock);
}

/**
 * gr_rchan_file_get() - a relay file of @rc is being opened
 * @rc: the channel
 *
 * Context: process context.
 * Return: 0; -EBUSY while the channel is the host's (spec 16.4).
 */
int gr_rchan_file_get(struct gr_rchan *rc)
{
	int ret = 0;

	mutex_lock(&gr_pub_lock);
	if (rc->published)
		ret = -EBUSY;
	else
		rc->nr_files++;
	mutex_unlock(&gr_pub_lock);
	return ret;
}

/**
 * gr_rchan_file_put() - a relay file of @rc was closed
 * @rc: the channel
 *
 * With the last one closed, the channel may go to the host.
 *
 * Context: process context; may sleep.
 */
void gr_rchan_file_put(struct gr_rchan *rc)
{
	mutex_lock(&gr_pub_lock);
	if (!--rc->nr_files && gr_pub_chans[rc->slot] == rc)
		gr_pub_publish(rc);
	mutex_unlock(&gr_pub_lock);
}

/**
 * gr_rchan_pub_attach() - a device published a layout with a client area
 * @region: the region
 * @lay: its layout; nothing happens without a client area
 *
 * Clears the directory and publishes every open channel that may go to
 * the host.
 *
 * Context: process context, under gr_dev_lock; may sleep.
 */
void gr_rchan_pub_attach(void *region, const struct gr_layout *lay)
{
	u32 e;

	if (!lay->client_size)
		return;
	mutex_lock(&gr_pub_lock);
	gr_pub_area = (u8 *)region + lay->client_offset;
	gr_pub_off = lay->client_offset;
	gr_pub_size = lay->client_size;
	memset(gr_pub_area, 0, GR_CLIENT_MAX * sizeof(struct gr_client_chan));
	memset(gr_pub_ext, 0, sizeof(gr_pub_ext));
	for (e = 0; e < GR_CLIENT_MAX; e++)
		if (gr_pub_chans[e])
			gr_pub_publish(gr_pub_chans[e]);
	mutex_unlock(&gr_pub_lock);
}

/**
 * gr_rchan_pub_detach() - the device's layout is being withdrawn
 *
 * Every published channel goes back to guest memory and to its guest
 * reader; its entry is withdrawn. No acknowledgment is awaited: the area
 * goes away with the region.
 *
 * Context: process context, under gr_dev_lock; may sleep.
 */
void gr_rchan_pub_detach(void)
{
	u32 e;

	mutex_lock(&gr_pub_lock);
	for (e = 0; e < GR_CLIENT_MAX && gr_pub_area; e++)
		if (gr_pub_chans[e] && gr_pub_chans[e]->published)
			gr_pub_take_back(gr_pub_chans[e]);
	gr_pub_area = NULL;
	mutex_unlock(&gr_pub_lock);
}
