/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gr_dev.h - the guestrelay device and the parts of the module around it
 *
 * The files, each calling only those below it:
 *
 *   gr_main.c   module parameters, load and unload
 *   gr_pci.c    the ivshmem PCI driver: BARs, MSI-X, publication, unbind
 *   gr_pass.c   control passes, their tick, the settings in effect
 *   gr_dump.c   the state dump at session start
 *   gr_dev.c    the active device (gr_active, its one pointer): doorbells,
 *               switch timers, CPU hotplug, panic
 *   gr_proto.c  the region protocol and the pass's decision (also built
 *               in userspace for the fake guest and the unit tests)
 *
 * One device is active at a time (the first ivshmem device whose BAR2
 * carries a host control block). gr_dev.c has the locking order and what
 * readers of the active device may do with it.
 *
 * Writers of the channel (probes, switch timers, flush IPIs, the panic
 * path) reach it only through the record API's RCU-published writer gate
 * (gr_rec_chan, gr_record.h), always with interrupts off; gr_dev.c alone
 * opens and closes the gate (gr_dev_activate(), gr_dev_deactivate(),
 * gr_dev_writers_pause() and _resume() around a reset).
 */
#ifndef _GR_DEV_H
#define _GR_DEV_H

#include <linux/atomic.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "gr_hist.h"
#include "gr_proto.h"
#include "gr_record.h"
#include "guestrelay_abi.h"

/* ivshmem BAR0 registers (QEMU docs/specs/ivshmem-spec.rst) */
#define GR_REG_INTR_MASK	0	/* INTx only, unused with MSI-X */
#define GR_REG_INTR_STATUS	4	/* INTx only, unused with MSI-X */
#define GR_REG_IVPOSITION	8	/* our peer id (doorbell device) */
#define GR_REG_DOORBELL		12	/* write (peer << 16) | vector */

#define GR_PCI_DEVICE_ID	0x1110	/* ivshmem, vendor 0x1af4 */

/* Switch timer: a smaller period asked for is raised to this (spec 6.8) */
#define GR_MIN_SWITCH_TIMER_US	1000U
/* Tick (spec 5.7): without doorbells every 100 ms, with them every 1 s */
#define GR_TICK_POLL_MS		100
#define GR_TICK_DOORBELL_MS	1000
/* Unbind waits at most this long for the host to consume (spec 5.5) */
#define GR_DRAIN_WAIT_MS	1000

#define GR_ENABLE_WORDS		(GR_WIDE_MAX_EVENTS / 64)

/**
 * struct gr_settings - what the guest records and how
 * @host_features: GR_F_* of the host (0 without a host)
 * @session_id: the host's session, echoed in status
 * @enable: bit n: event n is wanted (or, in effect: attached and enabled)
 * @tracing: 1 to record, 0 to pause
 * @mode: GR_MODE_STREAM or GR_MODE_FLIGHT
 * @switch_timer_us: switch timer period, 0 = off
 * @host_peer_id: doorbell target, GR_NO_PEER if none
 */
struct gr_settings {
	u64 host_features;
	u64 session_id;
	u64 enable[GR_ENABLE_WORDS];
	u32 tracing;
	u32 mode;
	u32 switch_timer_us;
	u32 host_peer_id;
};

/**
 * struct gr_params - the module parameters, checked and parsed at load
 * @defaults: settings used while no valid host control block is present
 * @subbuf_size: sub-buffer size unless the host wishes another
 * @n_subbufs: sub-buffers per ring unless the host wishes; 0 = most
 * @global: one ring for all CPUs
 * @client_kib: KiB kept for the client area if the host has GR_F_CLIENT
 * @hist_kib: KiB kept for the hist area if the host has GR_F_HIST
 * @force: bind an ivshmem device without a host control block
 * @clock_name: the event clock's name in the region header (spec 3.2)
 * @clock_freq: its ticks per second
 */
struct gr_params {
	struct gr_settings defaults;
	u32 subbuf_size;
	u32 n_subbufs;
	u32 client_kib;
	u32 hist_kib;
	bool global;
	bool force;
	const char *clock_name;
	u64 clock_freq;
};

/**
 * struct gr_ctrl_snap - raw values of the host's control block
 * @magic: gr_host_ctrl.magic
 * @seq: gr_host_ctrl.seq
 * @flush_req: gr_host_ctrl.flush_req
 * @reset_req: gr_host_ctrl.reset_req
 * @sync_req: gr_host_ctrl.sync_req
 *
 * What the last control pass saw; the tick compares the block with it to
 * decide, without sleeping, whether a pass is due.
 */
struct gr_ctrl_snap {
	u64 magic;
	u64 seq;
	u64 flush_req;
	u64 reset_req;
	u64 sync_req;
};

/**
 * struct gr_dev - a bound guestrelay device
 * @params: the module parameters, copied at probe
 * @pdev: the ivshmem PCI device
 * @regs: BAR0, the ivshmem registers
 * @region: BAR2, the shared region (write-back mapping)
 * @region_size: bytes of BAR2
 * @chan: the relay channel over @region
 * @layout: its layout
 * @has_irqs: MSI-X vectors are wired (ivshmem-doorbell): GR_F_DOORBELL
 *	is offered
 * @peer_id: IVPosition, or GR_NO_PEER for the plain device
 * @doorbell_on: GR_F_DOORBELL in use and a valid host peer: ring it
 * @host_peer_id: the peer doorbells go to
 * @host_features: host features in effect (read by the sync answer)
 * @cur: settings in effect; @cur.enable holds the events really enabled
 * @host_present: @cur came from a valid host block, not the defaults
 * @attach_failed: events whose probe could not be attached (logged once)
 * @state: GR_STATE_IDLE or GR_STATE_TRACING, as published
 * @ctrl_ack: private copy of status.ctrl_ack
 * @ctrl_errors: control requests rejected (published, never read back)
 * @flush_ack: private copy of status.flush_ack
 * @reset_ack: private copy of status.reset_ack
 * @sync_ack: private copy of status.sync_ack, under @sync_lock
 * @seen: the control block as the last pass saw it
 * @name_seq: the last request for events by name answered or void
 *	(spec 18.2 N2), under @pass_lock, read by the tick
 * @cerr: consumed_errors as last published in status
 * @pass_lock: serializes control passes and everything in @cur
 * @sync_lock: serializes clock-sync answers (interrupt and pass)
 * @sync_tsc: GR_F_SYNC_TSC offered in this publication (v1.10): with the
 *	host's bit, sync answers carry the TSC read around the clock
 * @sync_poll_ns: start of the last burst of polled sync answers
 *	(v1.12, GR_F_SYNC_POLL; spec G42), 0 = none yet; the GR_VEC_CTRL
 *	handler's only
 * @pass_work: runs a control pass in process context
 * @pass_retry: runs a control pass whose costly steps were deferred
 * @pub_work: publishes the rings' event counts (spec 6.11); the tick
 *	queues it
 * @pass_rl: how often costly control steps may run (spec G28), under
 *	@pass_lock; its deferred count is logged at unbind
 * @tick: heartbeat and control-pass check, every GR_TICK_*_MS
 * @running: published; interrupts and the tick may queue @pass_work
 * @stopping: being removed; nothing may queue @pass_work or @pub_work any
 *	more
 * @ctrl_irqs: GR_VEC_CTRL interrupts taken
 * @consumed_irqs: GR_VEC_CONSUMED interrupts taken
 * @passes: control passes run
 * @flush_busy: per-CPU flushes that found a writer on their CPU
 * @switch_period_ns: switch timer period in effect, 0 = off; read by the
 *	timers (gr_dev.c)
 * @dump_work: the state dump (gr_dump.c), on the system workqueue
 * @dump_session: session_id of the last dump queued, under @pass_lock
 * @dump_done: a dump was queued for this publication, under @pass_lock
 *
 * Fields read without @pass_lock (from interrupts, timers, probes) are
 * written with WRITE_ONCE() and read with READ_ONCE().
 */
struct gr_dev {
	struct gr_params params;
	struct pci_dev *pdev;
	void __iomem *regs;
	void *region;
	u64 region_size;
	struct gr_chan *chan;
	struct gr_layout layout;
	bool has_irqs;
	u32 peer_id;

	bool doorbell_on;
	u32 host_peer_id;
	u64 host_features;

	struct gr_settings cur;
	bool host_present;
	DECLARE_BITMAP(attach_failed, GR_WIDE_MAX_EVENTS);
	u32 state;
	u64 ctrl_ack;
	u32 ctrl_errors;
	u64 flush_ack;
	u64 reset_ack;
	u64 sync_ack;
	struct gr_ctrl_snap seen;
	u64 name_seq;
	u64 cerr;

	struct gr_filter_set fsets[2];	/* the one in effect and a spare */
	struct gr_filter_set *fset_active;	/* NULL: no filter in effect */
	struct gr_filter_set *fset_read;	/* the spare, read into */
	struct gr_filter_err ferr;	/* why the last area read was refused */
	u32 filter_errors;
	u64 filtered[GR_FILTER_SLOTS];	/* status.filtered as published */
	struct gr_follow_spec follow_req;	/* the follow block last read */
	struct gr_follow *follow_active;	/* NULL: no follow filter */
	struct gr_follow *follow_new;	/* for follow_req, not yet in effect */
	struct gr_hist_ctx hist;	/* spec 17: the hist area's requests */

	struct mutex pass_lock;		/* passes and settings, see above */
	raw_spinlock_t sync_lock;
	bool sync_tsc;
	u64 sync_poll_ns;
	struct work_struct pass_work;
	struct delayed_work pass_retry;
	struct work_struct pub_work;
	struct gr_ratelimit pass_rl;
	struct timer_list tick;
	bool running;
	bool stopping;

	atomic_long_t ctrl_irqs;
	atomic_long_t consumed_irqs;
	atomic_long_t passes;
	atomic_long_t flush_busy;
	u64 switch_period_ns;

	struct work_struct dump_work;
	u64 dump_session;
	bool dump_done;
};

/**
 * struct gr_dump_stats - what the state dumps cost (spec 9.7)
 * @dumps: dumps completed since load
 * @threads: threads in the last dump
 * @batches: RCU read-side sections of its thread walk
 * @total_ns: its duration, start to end record
 * @max_hold_ns: its longest RCU read-side section (or irq lock hold)
 */
struct gr_dump_stats {
	u64 dumps;
	u64 threads;
	u64 batches;
	u64 total_ns;
	u64 max_hold_ns;
};

/* gr_pci.c */
int gr_pci_register(const struct gr_params *params);
void gr_pci_unregister(void);

/* gr_pass.c */
void gr_pass_init(void);
bool gr_pass_sync_tsc_offered(void);
void gr_pass_dev_init(struct gr_dev *gd);
void gr_pass_prepare(struct gr_dev *gd);
void gr_pass_start(struct gr_dev *gd);
void gr_pass_stop(struct gr_dev *gd);
void gr_pass_drain_wait(struct gr_dev *gd);
void gr_pass_kick(struct gr_dev *gd);
void gr_pass_bound_event(unsigned int id);

/* gr_byname.c: the host's requests for events by name (spec 18) */
bool gr_byname_pass(struct gr_dev *gd);
bool gr_byname_due(struct gr_dev *gd);
void gr_byname_prepare(struct gr_dev *gd);
void gr_byname_exit(void);
void gr_probe_delete_all(void);

/* gr_dev.c */
extern struct mutex gr_dev_lock;
int gr_dev_init(void);
void gr_dev_exit(void);
struct gr_dev *gr_dev_active(void);
void gr_dev_activate(struct gr_dev *gd);
void gr_dev_deactivate(struct gr_dev *gd);
void gr_dev_writers_pause(struct gr_dev *gd);
void gr_dev_writers_resume(struct gr_dev *gd);
void gr_dev_ring(struct gr_dev *gd, u32 vector);
void gr_dev_switch_set(struct gr_dev *gd, u32 us);
void gr_dev_flush(struct gr_dev *gd);

/* gr_dump.c */
void gr_dump_dev_init(struct gr_dev *gd);
void gr_dump_queue(struct gr_dev *gd);
void gr_dump_stats_get(struct gr_dump_stats *st);

#endif /* _GR_DEV_H */
