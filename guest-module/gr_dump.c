// SPDX-License-Identifier: GPL-2.0
/*
 * gr_dump.c - the state dump at session start (spec 9.7)
 *
 * A trace that starts mid-flight does not say which threads, interrupt
 * handlers and disks existed before its first event. As LTTng does, the
 * guest records them at the start of every session and after every
 * reset, bracketed by lttng_statedump_start and lttng_statedump_end:
 *
 *   lttng_statedump_start
 *   lttng_statedump_process_state   one per thread, in tid order
 *   lttng_statedump_interrupt       one per irq handler
 *   lttng_statedump_block_device    one per disk or partition
 *   lttng_statedump_end
 *
 * The records go through the record API like any probe's (enable bits,
 * filters, drop-and-count when full) into the ring of the CPU the work
 * runs on. The dump runs from the system workqueue, never from a control
 * pass: gr_dump_queue() only queues it, so @pass_lock is never held while
 * it walks.
 *
 * What it holds, and for how long: the thread walk takes tids in
 * increasing order with find_ge_pid() (as /proc's readdir does), at most
 * GR_DUMP_BATCH threads per RCU read-side section, and calls
 * cond_resched() between sections. A walk with for_each_process_thread()
 * cannot be resumed after rcu_read_unlock() (the task it stopped at may
 * have been unhashed meanwhile), so it would have to hold RCU over all
 * threads; a tid cursor is always valid. A thread created during the
 * walk with a tid below the cursor is missed, as by ps: its
 * sched_process_fork follows in the trace. Each interrupt descriptor's
 * lock is held (interrupts off) while its handlers are recorded, under
 * RCU; the device list's spinlock while the disks are recorded.
 * gr_dump_stats_get() reports the longest hold of the last dump.
 *
 * Context of everything here: process context (the work item), except
 * gr_dump_queue().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/device.h>
#include <linux/irq.h>
#include <linux/irqdesc.h>
#include <linux/kobject.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>

#include "gr_dev.h"
#include "gr_events.h"

/* Threads recorded per RCU read-side section of the walk */
#define GR_DUMP_BATCH		64
/* Interrupt numbers looked at between two cond_resched() */
#define GR_DUMP_IRQ_BATCH	64

static DEFINE_SPINLOCK(gr_dump_stats_lock);
static struct gr_dump_stats gr_dump_last;

static bool gr_dump_stopping(struct gr_dev *gd)
{
	return READ_ONCE(gd->stopping);
}

static void gr_dump_hold(u64 *max, u64 t0)
{
	u64 d = ktime_get_ns() - t0;

	if (d > *max)
		*max = d;
}

/*
 * Every thread, in tid order, GR_DUMP_BATCH per RCU section. The idle
 * tasks (tid 0) are in no pid table and are not dumped, as by LTTng.
 */
static void gr_dump_threads(struct gr_dev *gd, struct gr_dump_stats *st)
{
	struct task_struct *p;
	struct pid *pid;
	unsigned int n;
	int nr = 1;
	u64 t0;

	for (;;) {
		t0 = ktime_get_ns();
		rcu_read_lock();
		for (n = 0; n < GR_DUMP_BATCH; n++) {
			pid = find_ge_pid(nr, &init_pid_ns);
			if (!pid)
				break;
			nr = pid_nr(pid) + 1;
			p = pid_task(pid, PIDTYPE_PID);
			if (!p)
				continue;
			gr_dump_rec_thread(p);
			st->threads++;
		}
		rcu_read_unlock();
		gr_dump_hold(&st->max_hold_ns, t0);
		st->batches++;
		if (n < GR_DUMP_BATCH || gr_dump_stopping(gd))
			return;
		cond_resched();
	}
}

/* Every handler of every interrupt, under its descriptor's lock */
static void gr_dump_irqs(struct gr_dev *gd, struct gr_dump_stats *st)
{
	const struct irqaction *action;
	struct irq_data *data;
	struct irq_desc *desc;
	const char *chip;
	unsigned long flags;
	unsigned int irq;
	u64 t0;

	for (irq = 0; irq < nr_irqs; irq++) {
		if (irq % GR_DUMP_IRQ_BATCH == 0) {
			if (gr_dump_stopping(gd))
				return;
			cond_resched();
		}
		t0 = ktime_get_ns();
		/* descriptors are freed after a grace period (sparse irqs) */
		rcu_read_lock();
		data = irq_get_irq_data(irq);
		if (data) {
			desc = irq_data_to_desc(data);
			raw_spin_lock_irqsave(&desc->lock, flags);
			chip = data->chip && data->chip->name ?
			       data->chip->name : "unnamed_irq_chip";
			for (action = desc->action; action;
			     action = action->next)
				gr_dump_rec_irq(irq, chip, action);
			raw_spin_unlock_irqrestore(&desc->lock, flags);
		}
		rcu_read_unlock();
		gr_dump_hold(&st->max_hold_ns, t0);
	}
}

/*
 * Disks and partitions of non-zero size. The block class is not
 * exported to modules; every device is on devices_kset's list, which is
 * our own PCI device's kset, so the walk uses that list, under its lock.
 */
static void gr_dump_disks(struct gr_dev *gd, struct gr_dump_stats *st)
{
	struct kset *kset = gd->pdev->dev.kobj.kset;
	struct kobject *k;
	struct device *dev;
	u64 t0;

	if (!kset)
		return;
	t0 = ktime_get_ns();
	spin_lock(&kset->list_lock);
	list_for_each_entry(k, &kset->list, entry) {
		dev = kobj_to_dev(k);
		if (!dev->class || strcmp(dev->class->name, "block") ||
		    !bdev_nr_sectors(dev_to_bdev(dev)))
			continue;
		gr_dump_rec_blockdev(dev->devt, dev_name(dev));
	}
	spin_unlock(&kset->list_lock);
	gr_dump_hold(&st->max_hold_ns, t0);
}

/* Is any state-dump event being recorded? Else the walk is skipped. */
static bool gr_dump_wanted(void)
{
	return gr_event_on(GR_EV_lttng_statedump_start) ||
	       gr_event_on(GR_EV_lttng_statedump_process_state) ||
	       gr_event_on(GR_EV_lttng_statedump_interrupt) ||
	       gr_event_on(GR_EV_lttng_statedump_block_device) ||
	       gr_event_on(GR_EV_lttng_statedump_end);
}

static void gr_dump_work(struct work_struct *work)
{
	struct gr_dev *gd = container_of(work, struct gr_dev, dump_work);
	struct gr_dump_stats st = { 0 };
	u64 t0;

	if (gr_dump_stopping(gd) || !gr_dump_wanted())
		return;
	t0 = ktime_get_ns();
	gr_dump_rec_mark(GR_EV_lttng_statedump_start);
	gr_dump_threads(gd, &st);
	gr_dump_irqs(gd, &st);
	if (!gr_dump_stopping(gd))
		gr_dump_disks(gd, &st);
	gr_dump_rec_mark(GR_EV_lttng_statedump_end);
	st.total_ns = ktime_get_ns() - t0;

	spin_lock(&gr_dump_stats_lock);
	st.dumps = gr_dump_last.dumps + 1;
	gr_dump_last = st;
	spin_unlock(&gr_dump_stats_lock);
	dev_dbg(&gd->pdev->dev, "state dump: %llu threads in %llu ns, longest hold %llu ns\n",
		st.threads, st.total_ns, st.max_hold_ns);
}

/**
 * gr_dump_dev_init() - prepare the state dump of a new device
 * @gd: the device
 *
 * Context: process context.
 */
void gr_dump_dev_init(struct gr_dev *gd)
{
	INIT_WORK(&gd->dump_work, gr_dump_work);
}

/**
 * gr_dump_queue() - take a state dump soon
 * @gd: the device
 *
 * A dump already running finishes, and another one follows it.
 *
 * Context: any; does not sleep.
 */
void gr_dump_queue(struct gr_dev *gd)
{
	if (!READ_ONCE(gd->stopping))
		schedule_work(&gd->dump_work);
}

/**
 * gr_dump_stats_get() - what the last state dump cost
 * @st: receives the figures
 *
 * Context: any.
 */
void gr_dump_stats_get(struct gr_dump_stats *st)
{
	spin_lock(&gr_dump_stats_lock);
	*st = gr_dump_last;
	spin_unlock(&gr_dump_stats_lock);
}
