/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hosttrace.h - hosttrace.c: the host stream of a VM's session, the host
 * scheduler's events of its QEMU's threads recorded with perf_event_open;
 * its state, struct gr_hosttrace, lives in the VM (@ht) and only
 * hosttrace.c writes it
 */
#ifndef GR_HOSTTRACE_H
#define GR_HOSTTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hoststream.h"
#include "ht_record.h"

struct gr_vm;

#define GR_HT_MAX_TIDS		96	/* QEMU threads followed */

struct gr_ht_cpu;

/**
 * struct gr_hosttrace - a VM's host stream
 * @open: the VM's session records a host stream
 * @top: where host/ is made: the session's directory or, in a session
 *	kept in chunks, the chunk being written (rotate.c's, not closed here)
 * @dirfd: <session>/host (in a session kept in chunks, <chunk>/host of
 *	the chunk being written), -1 until the events run
 * @layout: the stream's description (hoststream.h), NULL when closed
 * @out: one stream per host CPU, opened at its first event, and at
 *	@out[@nr_cpus] the vmsync records' (ht_vmsync())
 * @cpu: the perf events and ring of each host CPU, NULL when off
 * @nr_cpus: entries of @out and @cpu
 * @tp: sched_switch, sched_wakeup, sched_migrate_task, kvm_entry, kvm_exit
 *	(KVM's not @present on a host without them)
 * @reasons: the names of kvm_exit's reasons on this host
 * @kvm_err: why KVM's events are not recorded (-errno), 0 if they are
 * @kvm_told: @kvm_err was logged
 * @pid: the QEMU whose threads the filters name, 0 none
 * @tids: those threads
 * @ntids: entries of @tids
 * @scan_ns: the vCPU scan (vcpu.c) the thread list was taken at
 * @flush_ns: when the packets were last written
 * @drain_ns: when every ring was last drained
 * @events: events recorded in this session
 * @lost: events the kernel lost (perf ring full)
 * @named: @uuid and @clock are made (the first directory of the session)
 * @uuid: the trace UUID of the session's host stream, in every chunk
 * @clock: its CLOCK_MONOTONIC to CLOCK_REALTIME mapping, in every chunk
 * @err: why there is no host stream (-errno), 0 if there is one
 * @told: @err was logged
 * @follow_told: a failure to follow QEMU's new threads was logged
 */
struct gr_hosttrace {
	bool open;
	int top;
	int dirfd;
	struct gr_hs_layout *layout;
	struct gr_hs_stream **out;
	struct gr_ht_cpu *cpu;
	unsigned int nr_cpus;
	struct gr_ht_tp tp[GR_HT_NR_TPS];
	struct gr_ht_reasons reasons;
	int kvm_err;
	bool kvm_told;
	int pid;
	int tids[GR_HT_MAX_TIDS];
	unsigned int ntids;
	uint64_t scan_ns;
	uint64_t flush_ns;
	uint64_t drain_ns;
	uint64_t events;
	uint64_t lost;
	bool named;
	uint8_t uuid[16];
	struct gr_ctf_clock clock;
	int err;
	bool told;
	bool follow_told;
};

int ht_filter(char *buf, size_t size, const char *const *fields,
	      unsigned int nr_fields, const int *tids, unsigned int ntids);

void ht_init(struct gr_hosttrace *ht);
void ht_open(struct gr_vm *vm, int top);
void ht_tick(struct gr_vm *vm, uint64_t now_ns);
void ht_switch_files(struct gr_vm *vm, int top);
void ht_close(struct gr_vm *vm);
uint64_t ht_vm_uid(const struct gr_vm *vm);
void ht_vmsync(struct gr_vm *vm);

#endif /* GR_HOSTTRACE_H */
