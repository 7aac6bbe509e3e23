// SPDX-License-Identifier: GPL-2.0
/*
 * gr_dev.c - the active device: its one pointer and everything that finds
 * the device through it (doorbells, switch timers, CPU hotplug, panic)
 *
 * gr_active is the only global that says which device is active. This
 * file alone writes it (gr_dev_activate(), gr_dev_deactivate()), and this
 * file alone opens and closes the record API's writer gate (gr_rec_chan,
 * gr_record.h): the gate is the active device's channel or NULL, never
 * another channel, and it is NULL while gr_active is (it is also closed
 * for the duration of a reset, gr_dev_writers_pause()).
 *
 * Writing gr_active: under gr_dev_lock (probe and remove, the outermost
 * lock) and inside cpus_read_lock(), followed, when cleared, by
 * synchronize_rcu(). Locks, outermost first:
 *
 *   gr_dev_lock              probe and remove; the writers of gr_active
 *   gr_dev.pass_lock         control passes (gr_pass.c)
 *   cpu_hotplug_lock (read)  gr_active and the switch timers change
 *   gr_dev.sync_lock         clock-sync answers (raw, irq safe)
 *   per-CPU nesting guard    the relay core's, taken by every writer
 *
 * Readers of gr_active, and what they may do with the device:
 *
 *   CPU hotplug callbacks    run with the hotplug lock held for write, so
 *                            the pointer and the device stay as they are
 *                            until the callback returns: may sleep, send
 *                            IPIs, cancel timers
 *   switch timers, panic     interrupts off, an RCU read-side section
 *                            (rcu_dereference_sched()): the device stays
 *                            until it ends; no lock, no sleep
 *   gr_pci.c's probe         under gr_dev_lock: only "is one active?"
 *
 * Probes never read gr_active: they enter the channel through the gate,
 * one load on the hot path. Every reader above (and every writer behind
 * the gate) is an RCU reader of the consolidated flavour, so the one
 * synchronize_rcu() of gr_dev_deactivate() waits for all of them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/hrtimer.h>
#include <linux/io.h>
#include <linux/notifier.h>
#include <linux/panic_notifier.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/smp.h>

#include "gr_dev.h"

/* Serializes probe and remove, the writers of gr_active */
DEFINE_MUTEX(gr_dev_lock);
/* The active device, NULL if none: see above */
static struct gr_dev __rcu *gr_active;

static DEFINE_PER_CPU(struct hrtimer, gr_switch_timer);
static int gr_cpuhp_state;

/**
 * gr_dev_active() - the active device, for gr_pci.c's probe
 *
 * Context: under gr_dev_lock.
 * Return: the active device or NULL.
 */
struct gr_dev *gr_dev_active(void)
{
	return rcu_dereference_protected(gr_active,
					 lockdep_is_held(&gr_dev_lock));
}

/*
 * For the hotplug callbacks: the hotplug lock held for write excludes
 * the writers of gr_active, which hold it for read.
 */
static struct gr_dev *gr_dev_hotplug_get(void)
{
	return rcu_dereference_protected(gr_active, 1);
}

/**
 * gr_dev_ring() - ring the host's doorbell @vector
 * @gd: the device
 * @vector: GR_VEC_DATA or GR_VEC_STATUS
 *
 * Only when GR_F_DOORBELL is in use and the host's peer id was validated
 * (G23). writel() orders the doorbell after our earlier stores to the
 * region (spec 8.1).
 *
 * Context: any, including NMI and panic; takes no lock.
 */
void gr_dev_ring(struct gr_dev *gd, u32 vector)
{
	u32 peer;

	if (!READ_ONCE(gd->doorbell_on))
		return;
	peer = READ_ONCE(gd->host_peer_id);
	if (peer > 0xffff)
		return;
	writel((peer << 16) | vector, gd->regs + GR_REG_DOORBELL);
}

/* ---------------------------------------------------------------------- */
/* Switch timers and flushes (spec 6.7, 6.8)                              */

/*
 * One pinned hrtimer per CPU flushes that CPU's ring every period, from
 * hard interrupt context, through the relay core's nesting guard. The
 * timer finds its device through gr_active: a timer that fires after
 * gr_dev_deactivate() cleared it stops by itself.
 */
static enum hrtimer_restart gr_switch_fn(struct hrtimer *timer)
{
	struct gr_dev *gd = rcu_dereference_sched(gr_active);
	u64 period = gd ? READ_ONCE(gd->switch_period_ns) : 0;

	if (!period)
		return HRTIMER_NORESTART;
	/* -EBUSY (a writer was interrupted) is caught up next period */
	if (!gd->chan->global ||
	    smp_processor_id() == cpumask_first(cpu_online_mask))
		gr_rec_flush_this_cpu();
	hrtimer_forward_now(timer, ns_to_ktime(period));
	return HRTIMER_RESTART;
}

/* On the CPU whose timer starts: a pinned timer stays on its CPU. */
static void gr_switch_start_ipi(void *arg)
{
	struct gr_dev *gd = arg;
	u64 period = READ_ONCE(gd->switch_period_ns);

	if (period)
		hrtimer_start(this_cpu_ptr(&gr_switch_timer),
			      ns_to_ktime(period), HRTIMER_MODE_REL_PINNED);
}

static void gr_switch_stop_all(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		hrtimer_cancel(per_cpu_ptr(&gr_switch_timer, cpu));
}

/**
 * gr_dev_switch_set() - take a switch timer period into effect
 * @gd: the device
 * @us: the period, 0 = off
 *
 * Restarts the timers if @gd is active; otherwise gr_dev_activate()
 * starts them.
 *
 * Context: process context, under @gd->pass_lock; sleeps.
 */
void gr_dev_switch_set(struct gr_dev *gd, u32 us)
{
	cpus_read_lock();
	WRITE_ONCE(gd->switch_period_ns, (u64)us * NSEC_PER_USEC);
	if (rcu_access_pointer(gr_active) == gd) {
		gr_switch_stop_all();
		if (us)
			on_each_cpu(gr_switch_start_ipi, gd, 1);
	}
	cpus_read_unlock();
}

static void gr_dev_flush_ipi(void *arg)
{
	struct gr_dev *gd = arg;

	if (gr_rec_flush_this_cpu())
		atomic_long_inc(&gd->flush_busy);
}

/**
 * gr_dev_flush() - every online CPU finishes its own ring (spec 6.7)
 * @gd: the device
 *
 * Interrupts off, under the nesting guard; an offline CPU's ring was
 * flushed when it went down. Returns after every handler ran, so the
 * caller's release of flush_ack publishes every produced they stored.
 *
 * Context: process context.
 */
void gr_dev_flush(struct gr_dev *gd)
{
	on_each_cpu(gr_dev_flush_ipi, gd, 1);
}

/* ---------------------------------------------------------------------- */
/* Activation                                                             */

/**
 * gr_dev_activate() - make @gd the active device
 * @gd: the device, its region published, its settings prepared
 *
 * Stores the state the control pass prepared (after the magic, spec G2;
 * pairs, spec 10 #3, with the host's acquire of state), lets writers in,
 * marks the rings of offline CPUs and starts the switch timers; from
 * here CPU hotplug and the panic notifier act on @gd.
 *
 * Context: process context, under gr_dev_lock; sleeps.
 */
void gr_dev_activate(struct gr_dev *gd)
{
	struct gr_chan *chan = gd->chan;
	unsigned int i;

	lockdep_assert_held(&gr_dev_lock);
	gr_status_set_state(gd->region, gd->state);
	gr_rec_activate(chan);

	cpus_read_lock();
	if (!chan->global)
		for (i = 0; i < chan->layout.nr_rings; i++)
			gr_chan_set_online(chan, i, cpu_online(i));
	rcu_assign_pointer(gr_active, gd);
	if (READ_ONCE(gd->switch_period_ns))
		on_each_cpu(gr_switch_start_ipi, gd, 1);
	cpus_read_unlock();
}

/**
 * gr_dev_deactivate() - no device is active any more
 * @gd: the active device
 *
 * Stops the switch timers, closes the writer gate and clears gr_active,
 * then waits for every reader (probes, timers, flush IPIs, the panic
 * notifier). Afterwards the caller owns @gd and its channel alone.
 *
 * Context: process context, under gr_dev_lock; sleeps.
 */
void gr_dev_deactivate(struct gr_dev *gd)
{
	lockdep_assert_held(&gr_dev_lock);
	WARN_ON_ONCE(gr_dev_active() != gd);
	cpus_read_lock();
	RCU_INIT_POINTER(gr_active, NULL);
	WRITE_ONCE(gd->switch_period_ns, 0);
	gr_switch_stop_all();
	cpus_read_unlock();
	gr_rec_deactivate();
	synchronize_rcu();
}

/**
 * gr_dev_writers_pause() - keep every writer out of @gd's channel
 * @gd: the active device
 *
 * Closes the writer gate and waits for the writers still inside (probes,
 * switch timers, flush IPIs, the panic path: all run with interrupts
 * off). The device stays active; the caller owns the channel until
 * gr_dev_writers_resume().
 *
 * Context: process context, under @gd->pass_lock; sleeps.
 */
void gr_dev_writers_pause(struct gr_dev *gd)
{
	lockdep_assert_held(&gd->pass_lock);
	gr_rec_deactivate();
	synchronize_rcu();
}

/**
 * gr_dev_writers_resume() - let writers into @gd's channel again
 * @gd: the active device
 *
 * Context: process context, under @gd->pass_lock.
 */
void gr_dev_writers_resume(struct gr_dev *gd)
{
	lockdep_assert_held(&gd->pass_lock);
	gr_rec_activate(gd->chan);
}

/* ---------------------------------------------------------------------- */
/* CPU hotplug                                                            */

/* A CPU came online: its ring may produce, its switch timer runs. */
static int gr_dev_cpu_online(unsigned int cpu)
{
	struct gr_dev *gd = gr_dev_hotplug_get();

	if (!gd)
		return 0;
	if (!gd->chan->global)
		gr_chan_set_online(gd->chan, cpu, true);
	if (READ_ONCE(gd->switch_period_ns))
		smp_call_function_single(cpu, gr_switch_start_ipi, gd, 1);
	return 0;
}

/*
 * A CPU goes down: stop its switch timer, flush its ring on the CPU
 * itself, mark the ring offline. Events the CPU still records after this
 * (the idle task, its last kthreads) wait in its ring until it comes back
 * or the device is unbound.
 */
static int gr_dev_cpu_offline(unsigned int cpu)
{
	struct gr_dev *gd = gr_dev_hotplug_get();

	if (!gd)
		return 0;
	hrtimer_cancel(per_cpu_ptr(&gr_switch_timer, cpu));
	smp_call_function_single(cpu, gr_dev_flush_ipi, gd, 1);
	if (!gd->chan->global)
		gr_chan_set_online(gd->chan, cpu, false);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Panic (spec 5.6)                                                       */

/*
 * Runs on the panicking CPU with the other CPUs already stopped (panic()
 * stops them before calling the notifiers) and interrupts off. Stops
 * recording, delivers partial sub-buffers, stores GR_STATE_PANIC and
 * rings the host; no lock, no sleep, no allocation. A stopped CPU may
 * have been stopped inside a write (only by the NMI fallback of the stop,
 * since writers keep interrupts off): its nesting guard is then up and
 * its ring's private state may be half updated, so gr_chan_flush_idle()
 * leaves that ring alone and flushes all the others (the idle ones too),
 * which is safe because nothing else runs.
 */
static int gr_dev_panic(struct notifier_block *nb, unsigned long action,
			void *data)
{
	struct gr_chan *chan;
	struct gr_dev *gd;

	/* Interrupts are off: an RCU read-side section */
	gd = rcu_dereference_sched(gr_active);
	if (!gd)
		return NOTIFY_DONE;
	gr_rec_set_events(NULL);
	/* NULL while a control pass resets the channel: do not touch it */
	chan = gr_rec_chan_panic();
	if (chan)
		gr_chan_flush_idle(chan);
	/* spec G25 */
	gr_status_set_state(gd->region, GR_STATE_PANIC);
	gr_dev_ring(gd, GR_VEC_DATA);
	gr_dev_ring(gd, GR_VEC_STATUS);
	return NOTIFY_DONE;
}

static struct notifier_block gr_dev_panic_nb = {
	.notifier_call = gr_dev_panic,
};

/**
 * gr_dev_init() - switch timers, CPU hotplug state and panic notifier
 *
 * Context: process context, module load, before the PCI driver.
 * Return: 0 or the error of cpuhp_setup_state().
 */
int gr_dev_init(void)
{
	struct hrtimer *timer;
	unsigned int cpu;
	int ret;

	for_each_possible_cpu(cpu) {
		timer = per_cpu_ptr(&gr_switch_timer, cpu);
		hrtimer_init(timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED);
		timer->function = gr_switch_fn;
	}
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "guestrelay:online",
				gr_dev_cpu_online, gr_dev_cpu_offline);
	if (ret < 0)
		return ret;
	gr_cpuhp_state = ret;
	atomic_notifier_chain_register(&panic_notifier_list, &gr_dev_panic_nb);
	return 0;
}

/**
 * gr_dev_exit() - undo gr_dev_init()
 *
 * Context: process context, module unload, after the PCI driver is gone.
 */
void gr_dev_exit(void)
{
	atomic_notifier_chain_unregister(&panic_notifier_list,
					 &gr_dev_panic_nb);
	cpuhp_remove_state(gr_cpuhp_state);
}
