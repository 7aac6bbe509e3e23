/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guestrelay/relay.h - relay channels for other guest kernel modules
 *
 * The kernel relay interface (Documentation/filesystems/relay.rst) over
 * guestrelay's relay core, exported (GPL) by guestrelay.ko: a module opens
 * a channel by name, writes messages into the current CPU's buffer (or one
 * global buffer), and a guest program reads them from the relay files
 * /sys/kernel/debug/guestrelay/<channel>/<channel><cpu> (spec 16.8). Who
 * reads a channel is one rule (spec 16.4): a channel published to the host
 * (spec section 16, GR_F_CLIENT) is the host's, any other one the guest
 * reader's, never both at once: while a host reads client channels, every
 * channel without GR_RELAY_GUEST_READ whose relay files are not open is
 * published and stored by the host (<session>/channels/<name>/), and its
 * relay files refuse open() (-EBUSY).
 *
 * Semantics are relay's; where the shared region forces a difference, the
 * function's comment says so. The differences in short:
 *
 *  - Buffers are made by guestrelay, not by a create_buf_file callback:
 *    the channel's name names the relay files, and GR_RELAY_GLOBAL asks for
 *    one buffer for all CPUs (relay's is_global). No parent dentry.
 *  - Writes return an error (relay's return nothing) so that a caller can
 *    count its own drops; every drop is also counted per cause in the
 *    ring (lost_full, lost_too_big, lost_nested).
 *  - A write interrupted by another write on the same CPU (an interrupt or
 *    NMI writing to the same channel) is dropped and counted, never
 *    corrupts the buffer: writers need no locking of their own, also for a
 *    global channel (guestrelay holds its lock).
 *  - Consumption is the reader's (read() consumes):
 *    gr_relay_subbufs_consumed() is for a client that runs its own reader
 *    through mmap() (-EBUSY while the host consumes the channel); a guest
 *    program reading the mapping uses the relay file's ioctls instead
 *    (guestrelay/relay_file.h).
 *    read() returns finished sub-buffers only (relay's also reads into
 *    the one being written): gr_relay_flush() or a write to
 *    <channel>/flush finishes it.
 *  - Sub-buffer size: a power of two from 4 KiB to 1 MiB; 2 to 1024
 *    sub-buffers per buffer.
 *
 * klog: gr_klog() and gr_klog_raw() may be called anywhere; they cost one
 * static-key test while no klog channel is open (gr_klog_open()).
 */
#ifndef _GUESTRELAY_RELAY_H
#define _GUESTRELAY_RELAY_H

#include <linux/types.h>
#ifdef __KERNEL__
#include <linux/compiler.h>
#include <linux/jump_label.h>
#endif

struct file;
struct gr_buf;		/* one buffer (ring) of a channel: relay's rchan_buf */
struct gr_rchan;	/* a channel: relay's rchan */

/* Flags of gr_relay_open() */
#define GR_RELAY_GLOBAL		0x1	/* one buffer for all CPUs */
#define GR_RELAY_OVERWRITE	0x2	/* default subbuf_start overwrites */
#define GR_RELAY_GUEST_READ	0x4	/* never published to the host */

/**
 * struct gr_relay_callbacks - relay's rchan_callbacks
 * @subbuf_start: a sub-buffer switch is about to happen: @prev_subbuf (NULL
 *	at open and after a reset) was finished with @prev_padding unused
 *	bytes at its end, @subbuf is offered. Return 1 to start @subbuf, 0
 *	to refuse: messages are then dropped (counted in lost_full) until a
 *	later switch succeeds. No-overwrite mode returns 0 when
 *	gr_relay_buf_full(); overwrite mode always returns 1. A header is
 *	reserved with gr_relay_subbuf_start_reserve(). NULL: relay's
 *	default, no-overwrite (overwrite with GR_RELAY_OVERWRITE). Runs in
 *	the writer's context (interrupts off, maybe NMI): no sleeping, no
 *	locks.
 * @buf_mapped: a relay file of @buf was mmap()ed (may be NULL)
 * @buf_unmapped: that mapping went away (may be NULL)
 */
struct gr_relay_callbacks {
	int (*subbuf_start)(struct gr_buf *buf, void *subbuf,
			    void *prev_subbuf, size_t prev_padding);
	void (*buf_mapped)(struct gr_buf *buf, struct file *filp);
	void (*buf_unmapped)(struct gr_buf *buf, struct file *filp);
};

struct gr_rchan *gr_relay_open(const char *name, size_t subbuf_size,
			       size_t n_subbufs, unsigned int flags,
			       const struct gr_relay_callbacks *cb,
			       void *private_data);
void gr_relay_close(struct gr_rchan *chan);
void gr_relay_flush(struct gr_rchan *chan);
void gr_relay_reset(struct gr_rchan *chan);
int gr_relay_subbufs_consumed(struct gr_rchan *chan, unsigned int cpu,
			      size_t subbufs_consumed);

int gr_relay_write(struct gr_rchan *chan, const void *data, size_t length);
int __gr_relay_write(struct gr_rchan *chan, const void *data, size_t length);
void *gr_relay_reserve(struct gr_rchan *chan, size_t length);

/* Helpers for callbacks */
int gr_relay_buf_full(struct gr_buf *buf);
void gr_relay_subbuf_start_reserve(struct gr_buf *buf, size_t length);
unsigned int gr_relay_buf_cpu(struct gr_buf *buf);
void *gr_relay_buf_private(struct gr_buf *buf);

/* klog: a log channel for the whole guest kernel */
#ifdef __KERNEL__
int gr_klog_open(size_t subbuf_size, size_t n_subbufs);
void gr_klog_close(void);
__printf(1, 2) void __gr_klog(const char *fmt, ...);
void __gr_klog_raw(const void *buf, size_t len);

DECLARE_STATIC_KEY_FALSE(gr_klog_key);

/**
 * gr_klog() - log a line of formatted text to the klog channel
 * @fmt: printf format; the result is cut at 240 bytes
 *
 * One record (struct gr_klog_rec: the guest's event clock, the length)
 * followed by the text, no NUL. Costs one static-key test while no klog
 * channel is open.
 *
 * Context: any, including hard irq and NMI.
 */
#define gr_klog(fmt, ...)						\
	do {								\
		if (static_branch_unlikely(&gr_klog_key))		\
			__gr_klog(fmt, ##__VA_ARGS__);			\
	} while (0)

/**
 * gr_klog_raw() - log raw bytes to the klog channel
 * @buf: the bytes
 * @len: their number; a record holds at most the sub-buffer's size
 *
 * As gr_klog(), the record flagged GR_KLOG_F_RAW.
 *
 * Context: any, including hard irq and NMI.
 */
#define gr_klog_raw(buf, len)						\
	do {								\
		if (static_branch_unlikely(&gr_klog_key))		\
			__gr_klog_raw(buf, len);			\
	} while (0)
#endif /* __KERNEL__ */

#endif /* _GUESTRELAY_RELAY_H */
