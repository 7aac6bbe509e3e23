/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gr_rchan.h - client channels inside guestrelay.ko
 *
 * The exported client API (include/guestrelay/relay.h) is gr_relay_api.c,
 * over the client calls of the relay core (gr_relay_client.[ch]); it
 * builds in userspace too (unit tests). The relay files and klog's static
 * key are kernel-only: gr_relay_file.c, reached through the three
 * gr_rchan_files_*() / gr_rchan_wake() hooks below (the unit tests give
 * their own).
 *
 * A channel that is not published to the host (spec 16.4) lives in
 * guest memory laid out by gr_layout_client(); its consumer is the guest
 * reader, which stores cons.consumed of that private memory as the host
 * does in the region. A published one lives in the region's client area
 * (gr_rchan_pub.c) and is the host's.
 */
#ifndef _GR_RCHAN_H
#define _GR_RCHAN_H

#include "gr_relay_client.h"
#include "guestrelay/relay.h"
#include "guestrelay/relay_file.h"
#ifdef __KERNEL__
#include <linux/irq_work.h>
#include <linux/mutex.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#endif

/**
 * struct gr_rreader - the guest reader's state of one ring
 * @consumed: sub-buffers consumed (the value of the ring's cons.consumed)
 * @read_off: bytes of sub-buffer @consumed already read
 * @lost: sub-buffers a reader found overwritten before it read them
 * @rc: the channel (relay file layer)
 * @ring: the ring's index (relay file layer)
 * @wait: pollers and readers of the ring's relay file
 * @wakeup: wakes @wait from the writer's context, NMI safe
 */
struct gr_rreader {
	u64 consumed;
	size_t read_off;
	u64 lost;
#ifdef __KERNEL__
	struct gr_rchan *rc;
	u32 ring;
	wait_queue_head_t wait;
	struct irq_work wakeup;
#endif
};

/**
 * struct gr_rchan - a client channel
 * @cl: the relay core's channel (NULL once closed) and its private memory,
 *	freed with the last reference
 * @lay: the channel's layout, for readers after the close
 * @mem: its memory (the rings at the offsets of @lay)
 * @refs: the client until gr_relay_close(), and each open relay file
 * @name: the channel's name (spec 16.2 rules), NUL-terminated
 * @flags: GR_RELAY_*
 * @slot: index in the channel table, the directory entry it would take
 * @cb: the client's callbacks
 * @private_data: the client's
 * @cons_lock: serializes every consumer of the channel: readers,
 *	gr_relay_subbufs_consumed(), gr_relay_reset()
 * @readers: one per ring
 * @dir: the channel's debugfs directory (relay file layer)
 * @klog: the klog channel
 * @published: the host's (spec 16.4): in the client area, relay files
 *	refuse open() (gr_rchan_pub.c, under its lock)
 * @paused: writers drop their messages while the rings move (read by
 *	writers with READ_ONCE())
 * @paused_drops: messages dropped while @paused
 * @nr_files: relay files open (gr_rchan_pub.c, under its lock)
 * @spare: guest memory the rings go back to at unbind, while @published
 */
struct gr_rchan {
	struct gr_client cl;
	struct gr_layout lay;
	u8 *mem;
	u32 refs;
	char name[GR_NAME_LEN];
	u32 flags;
	u32 slot;
	struct gr_relay_callbacks cb;
	void *private_data;
	struct mutex cons_lock;		/* consumers, see above */
	struct gr_rreader *readers;
#ifdef __KERNEL__
	struct dentry *dir;
#endif
	bool klog;
	bool published;
	bool paused;
	atomic64_t paused_drops;
	u32 nr_files;
	void *spare;
};

/* Writers test this first: the rings are moving (gr_rchan_pub.c) */
static __always_inline bool gr_rchan_paused(struct gr_rchan *rc)
{
	if (likely(!READ_ONCE(rc->paused)))
		return false;
	atomic64_inc(&rc->paused_drops);
	return true;
}

/* Copies @len bytes at @src to the reader's destination; 0 or -errno */
typedef int (*gr_rcopy_fn)(void *ctx, const void *src, size_t len);

ssize_t gr_rchan_read(struct gr_rchan *rc, u32 ring, size_t count,
		      gr_rcopy_fn copy, void *ctx);
bool gr_rchan_readable(struct gr_rchan *rc, u32 ring);
int gr_rchan_get_subbuf(struct gr_rchan *rc, u32 ring,
			struct gr_relay_subbuf *sb);
int gr_rchan_put_subbuf(struct gr_rchan *rc, u32 ring, u64 seq);
int gr_rchan_flush_user(struct gr_rchan *rc);
u8 *gr_rchan_ring_data(struct gr_rchan *rc, u32 ring);
size_t gr_rchan_ring_size(struct gr_rchan *rc);
int gr_rchan_klog_write(struct gr_rchan *rc, u32 flags, const void *text,
			size_t len);
void gr_rchan_get(struct gr_rchan *rc);
void gr_rchan_put(struct gr_rchan *rc);
struct gr_rchan *gr_rchan_open(const char *name, size_t subbuf_size,
			       size_t n_subbufs, unsigned int flags,
			       const struct gr_relay_callbacks *cb,
			       void *private_data, bool klog);

/* Publication to the host (gr_rchan_pub.c in the module, spec 16.3) */
void gr_rchan_publish(struct gr_rchan *rc);
void gr_rchan_withdraw(struct gr_rchan *rc);
int gr_rchan_file_get(struct gr_rchan *rc);
void gr_rchan_file_put(struct gr_rchan *rc);
void gr_rchan_pub_attach(void *region, const struct gr_layout *lay);
void gr_rchan_pub_detach(void);

/* The file layer (gr_relay_file.c in the module) */
int gr_rchan_files_add(struct gr_rchan *rc);
void gr_rchan_files_del(struct gr_rchan *rc);
void gr_rchan_wake(struct gr_rchan *rc, u32 ring);
void gr_rchan_flush_all(struct gr_rchan *rc);

#endif /* _GR_RCHAN_H */
