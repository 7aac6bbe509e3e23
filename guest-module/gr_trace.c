// SPDX-License-Identifier: GPL-2.0
/*
 * gr_trace.c - the record API of gr_trace.h over the active channel
 *
 * Three things decide whether a probe writes:
 *
 *   gr_recording        the host's "tracing" (or the module default)
 *   gr_enabled          the events enabled and attached, one bit each
 *   gr_active           the channel; NULL while the control pass resets
 *                       it and once the device is going away
 *
 * A writer tests all three with local interrupts off and stays inside
 * that section until it leaves the channel, so each section is an RCU
 * read-side critical section (interrupts off implies it). Whoever clears
 * one of them and then calls synchronize_rcu() knows that no writer that
 * saw the old value is still running: gr_trace_quiesce() uses it to own
 * the channel (reset, unbind), the control pass to make "tracing = 0"
 * and a cleared enable bit true before acknowledging them (spec 9.2).
 *
 * Writers here are the probes (gr_rec_begin()/gr_rec_end()) and the
 * flushes of the switch timers, flush requests and CPU hotplug
 * (gr_trace_flush_this_cpu()). All of them take the relay core's per-CPU
 * nesting guard, which drops a write nested in another on the same CPU.
 */
#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/irqflags.h>
#include <linux/rcupdate.h>

#include "gr_dev.h"
#include "gr_trace.h"

static struct gr_chan __rcu *gr_active;
static bool gr_recording;
static DECLARE_BITMAP(gr_enabled, GR_MAX_EVENTS);

/* See gr_trace.h. Lock-free: one flag and one bit, each read once. */
bool gr_event_on(unsigned int id)
{
	return READ_ONCE(gr_recording) && id < GR_MAX_EVENTS &&
	       test_bit(id, gr_enabled);
}

/*
 * See gr_trace.h. The event is tested again with interrupts off: a
 * writer that passes this test is inside the section synchronize_rcu()
 * waits for, whatever it saw before. The relay core zeroes the record's
 * tail padding when it reserves the record.
 */
void *gr_rec_begin(struct gr_rec *rec, unsigned int id, unsigned int len)
{
	struct gr_chan *chan;
	void *payload;

	local_irq_save(rec->flags);
	if (unlikely(!gr_event_on(id)))
		goto out_restore;
	chan = rcu_dereference_sched(gr_active);
	if (unlikely(!chan))
		goto out_restore;
	rec->buf = gr_buf_enter(chan);
	if (unlikely(!rec->buf))
		goto out_restore;	/* nested: counted in lost_nested */
	payload = gr_event_reserve(rec->buf, id, len);
	if (unlikely(!payload)) {
		/* full or too big: counted by the core */
		gr_buf_exit(rec->buf);
		goto out_restore;
	}
	return payload;

out_restore:
	local_irq_restore(rec->flags);
	return NULL;
}

/* See gr_trace.h. */
void gr_rec_end(struct gr_rec *rec)
{
	gr_buf_exit(rec->buf);
	local_irq_restore(rec->flags);
}

/**
 * gr_trace_set_events() - choose the events gr_event_on() accepts
 * @enable: GR_MAX_EVENTS bits, bit n for event n
 *
 * Each bit is updated atomically; a probe sees the old or the new value
 * of its own bit. The caller calls synchronize_rcu() afterwards if it
 * must know that writers of cleared events have finished.
 *
 * Context: any.
 */
void gr_trace_set_events(const u64 *enable)
{
	unsigned int id;

	for (id = 0; id < GR_MAX_EVENTS; id++)
		assign_bit(id, gr_enabled, (enable[id / 64] >> (id % 64)) & 1);
}

/**
 * gr_trace_set_recording() - turn recording of enabled events on or off
 * @on: record or not
 *
 * Context: any. As gr_trace_set_events() for the writers that saw the
 * old value.
 */
void gr_trace_set_recording(bool on)
{
	WRITE_ONCE(gr_recording, on);
}

/**
 * gr_trace_activate() - let writers into a channel
 * @chan: the channel, fully initialized
 *
 * Context: process context, serialized with gr_trace_quiesce().
 */
void gr_trace_activate(struct gr_chan *chan)
{
	/* Pairs with rcu_dereference_sched() of the writers */
	rcu_assign_pointer(gr_active, chan);
}

/**
 * gr_trace_quiesce() - keep every writer out of the channel
 *
 * Clears the channel pointer and waits for the writers that still use
 * it (probes, switch timers, flush IPIs). Afterwards the caller owns the
 * channel until gr_trace_activate().
 *
 * Context: process context; sleeps (synchronize_rcu()).
 */
void gr_trace_quiesce(void)
{
	RCU_INIT_POINTER(gr_active, NULL);
	synchronize_rcu();
}

/**
 * gr_trace_chan_panic() - the channel writers use, for the panic path
 *
 * Context: panic notifier (other CPUs stopped, interrupts off).
 * Return: the active channel, or NULL while it is being reset or torn
 * down (then its state must not be touched).
 */
struct gr_chan *gr_trace_chan_panic(void)
{
	return rcu_dereference_sched(gr_active);
}

/**
 * gr_trace_flush_this_cpu() - deliver this CPU's partial sub-buffer
 *
 * Finishes the sub-buffer this CPU is filling if it holds an event, with
 * gr_chan_flush_this_cpu(), under the nesting guard with interrupts off.
 * For a global channel, the shared ring.
 *
 * Context: any except NMI; disables local interrupts.
 * Return: 0 (also when no channel is active); -EBUSY if this interrupted
 * a writer on this CPU, which the next flush catches up on.
 */
int gr_trace_flush_this_cpu(void)
{
	struct gr_chan *chan;
	unsigned long flags;
	int ret = 0;

	local_irq_save(flags);
	chan = rcu_dereference_sched(gr_active);
	if (chan)
		ret = gr_chan_flush_this_cpu(chan);
	local_irq_restore(flags);
	return ret;
}
