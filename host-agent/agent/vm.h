/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vm.h - the agent's internals: struct gr_vm, one traced VM, made of the
 * states of its parts (only agent/ includes this header)
 *
 *   vm.c         life cycle, state machine, wake-ups; the one place
 *                that decides a VM's life and frees it       vm_*
 *   peer.c       ivshmem server, doorbells        @peer      peer_*
 *   hostctl.c    control block, acks, clock sync  @hc        hostctl_*
 *   session.c    trace directories                @sess      session_*
 *   consumer.c   rings -> stream files            @cons      cons_*
 *   snapshot.c   flight-recorder snapshots        @snap      snap_*
 *   waiter.c     flush, snapshot, stop commands   @waiter    waiter_*
 *   vm_filter.c  event and follow filters         @flt       vm_filters_*
 *   vm_hist.c    aggregation requests, maps       @hist      vm_hist_*
 *   vm_desc.c    descriptors added at run time    @desc      vm_desc_*
 *   rotate.c     chunks, rotation, retention      @rot       rot_*
 *   vcpu.c       QEMU's vCPU threads, steal       @vcpu      vcpu_*
 *   clients.c    client channels (spec 16)        @cl        clients_*
 *   hosttrace.c  host stream (QEMU's sched events) @ht  ht_*
 *   vm_names.c   events by name (spec 18)         @names     vm_names_*
 *
 * Each part writes only its own state; it reads the rest. A part never
 * calls vm.c and never frees the VM: what happened (a doorbell, QEMU
 * leaving, a write completed, the stream stopped, a kick owed to the
 * guest, a snapshot finished) is a flag in its state that vm.c handles
 * once per loop pass (vm_before_wait(), for each VM touched in that pass:
 * an op of a part that completes must carry the VM's touch, loop.h, or
 * leave it unset, which settles every VM). The counters in @st and the
 * quota account @usage are the exception: every part adds to them.
 *
 * Every part runs on the loop's thread. Trust: nothing in here points
 * into the shared region except @region and the pointers computed from a
 * validated struct gr_view. Every value read through them is read once
 * into a local and checked before use.
 */
#ifndef GR_VM_H
#define GR_VM_H

#include <endian.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent.h"
#include "ctf.h"
#include "shm.h"
#include "validate.h"
#include "clients.h"
#include "consumer.h"
#include "hostctl.h"
#include "hosttrace.h"
#include "peer.h"
#include "rotate.h"
#include "session.h"
#include "common.h"
#include "snapshot.h"
#include "vm_desc.h"
#include "vm_filter.h"
#include "vm_hist.h"
#include "vm_names.h"
#include "waiter.h"

/* What a VM records when neither --events nor libvirt names any */
#define GR_DEFAULT_EVENTS \
	"sched_switch,sched_wakeup,sched_wakeup_new,sched_process_fork," \
	"sched_process_exec,sched_process_exit,sched_migrate_task," \
	"irq_handler_entry,irq_handler_exit,softirq_entry,softirq_exit," \
	"block_rq_issue,block_rq_complete,net_dev_xmit,netif_receive_skb," \
	"lttng_statedump,vmsync"

/* Longest event list a guest is asked at attach (--events and changes) */
#define GR_EV_LIST_MAX		8192

/* What a snapshot of vm->snap is for (vm->snap_for) */
enum gr_snap_for {
	GR_SNAP_FOR_GONE = 0,		/* the guest left in flight mode */
	GR_SNAP_FOR_COMMAND,		/* `guestrelay snapshot` (waiter) */
};

struct gr_vm {
	struct gr_agent *agent;
	struct gr_vm *next;
	bool touched;			/* vm_before_wait() settles it: one of
					 * its ops completed, or it had a pass
					 * (beside @next: one cache line for the
					 * settle loop's test) */
	struct gr_vm_opts opts;
	enum gr_vm_state state;
	bool dying;			/* vm_remove(): freed when idle */
	bool unlink_shm;		/* remove /dev/shm file when freed */
	bool closing;			/* session ends once writes completed */
	bool resume_pending;		/* first attach may resume a session */
	bool saw_panic;			/* the guest reported GR_STATE_PANIC */
	bool meta_stale;		/* filters changed: the metadata's env
					 * is rewritten with the next clock
					 * series, at the latest at close */
	uint64_t closed_instance;	/* publication whose session ended */

	/* device */
	struct ivsh_shm shm;
	uint8_t *region;
	uint64_t size;
	bool doorbell;

	/* polling (the agent's one timer, vm.c) */
	uint64_t timer_due_ns;		/* next timer pass; 0: none */
	uint64_t poll_ns;		/* current interval */

	/* the guest's publication, validated */
	struct gr_region_hdr hdr_copy;
	struct gr_view view;
	struct gr_event_view *events;
	struct gr_event_desc_long *desc_copy;	/* v1.15: with extensions */
	uint64_t instance_id;
	uint64_t rejected_instance;	/* last instance whose header failed */
	char why[128];			/* last rejection, for status */

	/* the settings vm.c decides, hostctl_publish() writes */
	uint64_t enable[GR_WIDE_MAX_EVENTS / 64];
	char *ev_changes;		/* enable/disable since vm-add, in order */
	uint64_t vmsync_events[GR_WIDE_MAX_EVENTS / 64];	/* the guest's (9.8) */
	uint32_t tracing;
	enum gr_stop_reason stop_reason;

	/* the parts */
	struct gr_peer_state peer;
	struct gr_hostctl hc;
	struct gr_session sess;
	struct gr_rotate rot;
	struct gr_cons cons;
	struct gr_vm_filters flt;
	struct gr_vm_hists hist;
	struct gr_vm_desc desc;
	struct gr_waiter waiter;
	struct gr_vcpus vcpu;
	struct gr_clients cl;
	struct gr_hosttrace ht;
	struct gr_vm_names names;
	struct gr_snap *snap;		/* snapshot being taken, or NULL */
	enum gr_snap_for snap_for;
	const char *gone_what;		/* why the guest left (a literal) */

	/* shared by the parts: counters and the quota account */
	struct gr_vm_stats st;
	uint64_t usage;			/* bytes of this VM's store */
	uint64_t rate_t0, rate_bytes0;
	double rate_bps;
};

/* vm_settings.c, for vm.c's attach */
int vm_resolve_events(struct gr_vm *vm, const char *list, bool strict,
		      uint64_t *set, uint64_t *clr, char *err, size_t errlen);
void vm_token_apply(const char *tok, const uint64_t *bits, uint64_t *set,
		    uint64_t *clr);
int vm_events_remember(struct gr_vm *vm, const char *list, bool on);
char *vm_events_list(const struct gr_vm *vm, bool defaults);
void vm_events_to_ask(struct gr_vm *vm, const char *list, char *ask,
		      size_t size);

static inline struct gr_ring *vm_ring(struct gr_vm *vm, unsigned int idx)
{
	return (struct gr_ring *)(vm->region + gr_view_ring_off(&vm->view, idx));
}

/* The guest's magic, one load */
static inline uint64_t vm_load_magic(const struct gr_vm *vm)
{
	const struct gr_region_hdr *hdr = (const void *)vm->region;

	/* H2: pairs with the guest's smp_store_release() of hdr.magic, the
	 * last store of a publication (spec 10 #1)
	 */
	return le64toh(__atomic_load_n(&hdr->magic, __ATOMIC_ACQUIRE));
}

/**
 * vm_same_publication() - is the guest's publication still the one
 * attached (magic and instance_id of the view)?
 * @vm: the VM
 * @magic: receives the magic loaded
 *
 * A single load of each; nothing is trusted beyond the comparison.
 * Checked before every store into the layout (H7, spec 5.5).
 *
 * Return: true if the host may store into the layout of its view.
 */
static inline bool vm_same_publication(const struct gr_vm *vm,
				       uint64_t *magic)
{
	const struct gr_region_hdr *hdr = (const void *)vm->region;

	*magic = vm_load_magic(vm);
	return *magic == GR_REGION_MAGIC &&
	       le64toh(__atomic_load_n(&hdr->instance_id,
				       __ATOMIC_RELAXED)) == vm->instance_id;
}

#endif /* GR_VM_H */
