/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gr_relay_client.h - kernel relay's client calls over the relay core
 *
 * What a relay client (a kernel module writing its own messages, as
 * kernel relay's users do) needs beyond the core, and the module's probes
 * do not: relay_write() / __relay_write() of a message prepared in memory,
 * relay_reserve(), a copied event record, buffer-only channels moved into
 * their region later (relay_late_setup_files()), and the
 * buf_mapped / buf_unmapped notifications.
 *
 * gr_relay_api.c builds the exported client API
 * (include/guestrelay/relay.h) on these. The unit tests, the fake guest's
 * tests and tests/bench/relay_ir.c build it in userspace too.
 */
#ifndef _GR_RELAY_CLIENT_H
#define _GR_RELAY_CLIENT_H

#include "gr_relay.h"

/**
 * struct gr_client_callbacks - what a client channel calls back
 * @buf_mapped: the host attached to this ring (may be NULL)
 * @buf_unmapped: the host detached from this ring (may be NULL)
 */
struct gr_client_callbacks {
	void (*buf_mapped)(struct gr_buf *buf);
	void (*buf_unmapped)(struct gr_buf *buf);
};

/**
 * struct gr_client - a channel opened through the client API
 * @chan: the relay channel
 * @priv_region: a buffer-only channel's private region until
 *	gr_client_late_setup(), else NULL
 * @cb: the client's callbacks
 * @mapped: the host is attached
 */
struct gr_client {
	struct gr_chan *chan;
	void *priv_region;
	struct gr_client_callbacks cb;
	bool mapped;
};

int gr_client_open(struct gr_client *cl, void *region,
		   const struct gr_layout *layout,
		   const struct gr_callbacks *cb,
		   const struct gr_client_callbacks *ccb, void *private_data);
int gr_client_late_setup(struct gr_client *cl, void *region);
void gr_client_close(struct gr_client *cl);
void gr_buf_mapped(struct gr_client *cl);
void gr_buf_unmapped(struct gr_client *cl);
int gr_event_write(struct gr_chan *chan, u16 id, const void *payload,
		   size_t payload_len);

/* spec 6.4 step 1, the only size check of a write: 0, -EINVAL or -E2BIG */
static __always_inline notrace int gr_buf_check_size(struct gr_buf *buf,
						     size_t length)
{
	if (unlikely(!length))
		return -EINVAL;
	/*
	 * As __gr_event_reserve(): a constant length within every channel's
	 * least max_event_size needs no check at run time (what reserving
	 * finds at the sub-buffer's end still bounds the slot)
	 */
	if (!(__builtin_constant_p(length) && length <= GR_MIN_EVENT_LIMIT) &&
	    unlikely(length > buf->max_event_size)) {
		gr_buf_lost_too_big(buf);
		return -E2BIG;
	}
	return 0;
}

/*
 * Copy a message into this CPU's ring: a record (@record: @length rounded
 * up to GR_RECORD_ALIGN, the tail zeroed) or a client message stored as
 * given (spec 16.5).
 */
static __always_inline notrace int gr_put(struct gr_chan *chan,
					  const void *data, size_t length,
					  bool record)
{
	struct gr_buf *buf = __gr_buf_enter(chan, true);
	size_t len = record ? ALIGN(length, (size_t)GR_RECORD_ALIGN) : length;
	u8 *slot;
	int ret;

	if (unlikely(!buf))
		return -EBUSY;
	ret = gr_buf_check_size(buf, length);
	if (likely(!ret))
		ret = gr_buf_alloc(buf, len, &slot, false);
	if (likely(!ret)) {
		if (record)
			gr_zero_tail(slot, length);
		memcpy(slot, data, length);
	}
	gr_buf_exit(buf);
	return ret;
}

/**
 * gr_chan_write() - write a message to this CPU's ring
 * @chan: the channel
 * @data: the message
 * @length: its bytes; the record takes @length rounded up to 8
 *
 * The message is never split: if it does not fit in the sub-buffer
 * BEING_WRITTEN the core switches to the next one first. For a global
 * channel the write holds the channel's spinlock (taken irqsave).
 *
 * Context: any, including hard irq and NMI; disables local interrupts.
 * Return: 0; -ENOSPC if no sub-buffer is FREE (stream mode; counted in
 * lost_full); -E2BIG if @length exceeds max_event_size (counted in
 * lost_too_big); -EBUSY if nested on this CPU (counted in lost_nested);
 * -EINVAL if @length is 0.
 */
static __always_inline notrace int gr_chan_write(struct gr_chan *chan,
						 const void *data,
						 size_t length)
{
	unsigned long flags;
	int ret;

	local_irq_save(flags);
	ret = gr_put(chan, data, length, true);
	local_irq_restore(flags);
	return ret;
}

/**
 * __gr_chan_write() - gr_chan_write() for callers that never race an
 * interrupt handler writing to the same channel
 * @chan: the channel
 * @data: the message
 * @length: its bytes
 *
 * Only disables preemption. A writer in an interrupt that does arrive
 * meanwhile finds the nesting guard up and drops its event.
 *
 * Context: process or softirq context.
 * Return: as gr_chan_write().
 */
static __always_inline notrace int __gr_chan_write(struct gr_chan *chan,
						   const void *data,
						   size_t length)
{
	int ret;

	preempt_disable();
	ret = gr_put(chan, data, length, true);
	preempt_enable();
	return ret;
}

/**
 * gr_chan_reserve() - reserve a slot in this CPU's ring
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
 * Return: the slot, or NULL (dropped and counted as gr_chan_write()).
 */
static __always_inline notrace void *gr_chan_reserve(struct gr_chan *chan,
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

#endif /* _GR_RELAY_CLIENT_H */
