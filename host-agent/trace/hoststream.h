/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hoststream.h - the host stream of a VM's trace: the host scheduler's
 * view of the VM's QEMU threads, stored beside the guest's trace as a
 * trace of its own, <session>/host/, in the guest trace's layout (ctf.h)
 *
 *   <session>/host/
 *       metadata      TSDL from gr_ctf_metadata(), with the host's
 *                     hostname, its boot_id as the clock's UUID and the
 *                     clock "monotonic" (host CLOCK_MONOTONIC, ns)
 *                     mapped to CLOCK_REALTIME
 *       .guestrelay   gr_ctf_write_info() of the layout hs_layout() makes,
 *                     so the one reader (reader.h) reads it back
 *       stream_<cpu>  one stream per host CPU, packets stored
 *                     content-only (spec 6.12)
 *
 * The events, ids and fields as lttng-modules names them:
 *
 *   0 sched_switch        prev_comm prev_tid prev_prio prev_state
 *                         next_comm next_tid next_prio
 *   1 sched_wakeup        comm tid prio target_cpu
 *   2 sched_migrate_task  comm tid prio orig_cpu dest_cpu
 *   3 lttng_statedump_process_state  tid pid ppid name type mode
 *                         submode status cpu (the guest's layout): one
 *                         per thread
 *                         of QEMU when the agent starts following it and
 *                         when its thread list changes (pid is QEMU's)
 *   4 kvm_x86_entry       vcpu_id rip: a vCPU thread enters guest mode
 *   5 kvm_x86_exit        exit_reason isa guest_rip vcpu_id
 *                         exit_reason_name: it leaves guest mode (isa
 *                         1 VMX, 2 SVM; the name from the host's own
 *                         table, its kvm_exit format's print fmt)
 *
 * Events 4 and 5 are the names lttng-modules gives KVM's kvm_entry and
 * kvm_exit on x86, which Trace Compass's virtual machine analysis reads
 * (its kernel event layouts list kvm_entry/kvm_x86_entry, and its
 * QEMU/KVM model takes the vCPU from the field vcpu_id); a host whose
 * tracefs has no kvm events has none of them in its stream. A reader
 * takes a host stream of 4 events (before KVM's) as one of 8 without
 * events 4 to 7.
 *
 *   6 vmsync_hg_host      cnt vm_uid (unsigned, 64 bits): a clock-sync
 *                         request sent to the guest, at its t1
 *   7 vmsync_gh_host      cnt vm_uid: the guest's answer seen, at its t3
 *                         (spec 9.8; the agent's, in a stream of their
 *                         own whose cpu_id is the number of host CPUs)
 *
 * The record's tid (event context) is the thread current on the CPU
 * (the agent's for the vmsync events).
 */
#ifndef GR_HOSTSTREAM_H
#define GR_HOSTSTREAM_H

#include <stdint.h>

#include "ctf.h"

#define GR_HS_DIR		"host"
#define GR_HS_MAX_CPUS		256		/* host CPUs recorded */
#define GR_HS_PACKET		65536		/* bytes per packet at most */

enum gr_hs_event {
	GR_HS_SWITCH = 0,
	GR_HS_WAKEUP,
	GR_HS_MIGRATE,
	GR_HS_STATEDUMP,		/* the agent's, from /proc */
	GR_HS_KVM_ENTRY,
	GR_HS_KVM_EXIT,
	GR_HS_VMSYNC_HG,		/* the agent's (spec 9.8) */
	GR_HS_VMSYNC_GH,
	GR_HS_NR_EVENTS,
};

/* events of a host stream written before KVM's were added */
#define GR_HS_NR_EVENTS_V1	(GR_HS_STATEDUMP + 1)

/* the payloads, as the descriptors of hs_layout() declare them */
#define GR_HS_SWITCH_SIZE	56
#define GR_HS_WAKEUP_SIZE	28
#define GR_HS_MIGRATE_SIZE	32
#define GR_HS_STATEDUMP_SIZE	48
#define GR_HS_KVM_ENTRY_SIZE	16
#define GR_HS_KVM_EXIT_SIZE	48
#define GR_HS_REASON_NAME	28	/* exit_reason_name, NUL-padded */
#define GR_HS_VMSYNC_SIZE	16

/* sched_switch prev_state: running (preempted), with or without the
 * kernel's "preempted" marker TASK_REPORT_MAX ("R+") */
#define GR_HS_STATE_MASK	0xffULL

/**
 * struct gr_hs_layout - the host stream's description
 * @hdr: a region header as a guest would publish it (never mapped)
 * @desc: its event descriptors
 * @view: @hdr, validated
 * @events: @desc, validated
 * @region_size: the region size @hdr states
 */
struct gr_hs_layout {
	struct gr_region_hdr hdr;
	struct gr_event_desc desc[GR_HS_NR_EVENTS];
	struct gr_view view;
	struct gr_event_view events[GR_HS_NR_EVENTS];
	uint64_t region_size;
};

/**
 * struct gr_hs_stream - one host CPU's stream file, written packet by
 * packet
 * @fd: the file, -1 if none
 * @cpu: the host CPU
 * @len: bytes in @buf (header included), 0: no packet begun
 * @last: declared end of the last record in @buf
 * @seq: packet_seq_num of the packet in @buf
 * @first_ts: timestamp of its first event
 * @last_ts: timestamp of the last event written
 * @lost: events the kernel lost on this CPU so far (events_discarded)
 * @err: first write error, -errno
 * @buf: the packet being filled
 */
struct gr_hs_stream {
	int fd;
	unsigned int cpu;
	uint32_t len;
	uint32_t last;
	uint64_t seq;
	uint64_t first_ts;
	uint64_t last_ts;
	uint64_t lost;
	int err;
	uint8_t buf[GR_HS_PACKET] __attribute__((aligned(8)));
};

int gr_hs_layout(struct gr_hs_layout *l, unsigned int nr_cpus,
		 const char *host, const char *release,
		 const uint8_t boot_id[16]);
int gr_hs_write_files(int dirfd, const struct gr_hs_layout *l,
		      const struct gr_ctf_env *env,
		      const struct gr_ctf_clock *clock);
int gr_hs_stream_open(struct gr_hs_stream *s, int dirfd, unsigned int cpu);
void gr_hs_stream_add(struct gr_hs_stream *s, enum gr_hs_event id,
		      uint32_t tid, uint64_t ts, const void *payload,
		      uint32_t len);
int gr_hs_stream_flush(struct gr_hs_stream *s);
int gr_hs_stream_close(struct gr_hs_stream *s);
int gr_hs_stream_move(struct gr_hs_stream *s, int dirfd);

#endif /* GR_HOSTSTREAM_H */
