/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hostctl.h - hostctl.c: the host control block, the guest's
 * acknowledgements, clock sync; its state, struct gr_hostctl, lives in
 * the VM and only hostctl.c writes it (vm.c clears the reports it handled)
 */
#ifndef GR_HOSTCTL_H
#define GR_HOSTCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctf.h"
#include "kvm_tsc.h"

struct gr_vm;

/**
 * struct gr_sync_sample - one clock-sync round
 * @rtt: its round trip, ns
 * @guest: the guest's clock value in its answer
 * @host: host CLOCK_MONOTONIC ns of @guest: the middle of the round
 *	trip, or with @kvm_tsc the guest's TSC mapped through KVM's
 * @err: the bound of |@host - the true time|: half the round trip, or
 *	the mapping's (gr_tsc_map())
 * @kvm_tsc: @host and @err come from KVM's TSC relation (spec 9.5, v1.10)
 */
struct gr_sync_sample {
	uint64_t rtt;
	uint64_t guest;
	uint64_t host;
	uint64_t err;
	bool kvm_tsc;
};

/*
 * a pass: an answer and a request; with GR_F_SYNC_POLL (v1.12) up to a
 * whole series of 8 rounds, both messages of each
 */
#define GR_VMSYNC_MARKS		16

/**
 * struct gr_vmsync_mark - a message of a sync round, for the host
 * stream's vmsync_hg_host or vmsync_gh_host (spec 9.8)
 * @gh: the guest's answer (t3), else the host's request (t1)
 * @cnt: its cnt
 * @vm_uid: the vm_uid of its round
 * @ts: t1 or t3, host CLOCK_MONOTONIC ns
 */
struct gr_vmsync_mark {
	bool gh;
	uint64_t cnt;
	uint64_t vm_uid;
	uint64_t ts;
};

/**
 * struct gr_hostctl - what the host last wrote to its control block, and
 * the clock-sync exchange
 * @ctrl_seq: settings publications (seq)
 * @flush_req: flush requests
 * @sync_req: clock-sync requests
 * @sync_pending: a round is waiting for the guest's answer
 * @sync_t1: CLOCK_MONOTONIC ns of its request
 * @sync_best_err: the tightest sample bound of the session
 * @kvm: KVM's TSC relation of the VM, read at the start of each series
 *	(spec 9.5, v1.10); @kvm_ok: it was read and every vCPU agreed
 * @kvm_err: why it was not (-errno), 0 if it was or was not asked
 * @kvm_told: @kvm_err was logged (once per VM, and once more whenever it
 *	changes)
 * @sync_b1: the host bracket of the round's request, with @kvm_ok
 * @tsc_refused: answers whose TSC, mapped, lay outside their round trip
 *	(discarded for the round-trip estimate); @tsc_told: logged once
 * @sync_rounds: rounds of this series
 * @sync_spin: this series may spin for polled answers (v1.12,
 *	GR_F_SYNC_POLL in use, a doorbell): cleared by a spin that failed
 * @sync_poll_ok: the guest may poll (in use, a doorbell)
 * @sync_defer_ns: after a failed spin, the series' next request waits
 *	until then (the guest starts a burst again only GR_SYNC_POLL_GAP_NS
 *	after its last); @sync_deferred: a request waits for it
 * @sync_polled: rounds answered while the host spun (all series);
 *	@sync_spin_missed: spins that saw no answer
 * @mono_to_real: realtime - monotonic, per session
 * @clock: the session's CTF clock (the best sample), checked against
 *	the best sample of every series (see sync_check_sample())
 * @series: the tightest round of the series under way (rtt UINT64_MAX:
 *	none yet)
 * @dev_lo: the smallest deviation of a checked sample from @clock, in
 *	host CLOCK_MONOTONIC ns, minus its own bound; @dev_hi: the largest,
 *	plus it
 * @last: the last sample checked; @last_dev: its deviation
 * @sync_gap_ns: pause before the next series: from 1 s, doubled after
 *	each up to GR_SYNC_REFRESH_NS (early samples tell the drift)
 * @sync_retries: loose series in a row, not checked
 * @next_sync_ns: when the next series starts
 * @sync_dirty: a better clock than the one in the metadata
 * @vmsync_uid: vm.c's: the vm_uid for the next rounds (spec 9.8), 0 none
 * @sync_uid: the vm_uid of the round under way, 0 none
 * @marks: its messages and the last one's, for vm.c's host stream;
 *	@nr_marks of them (vm.c empties it)
 *
 * Reports, for vm.c (cleared when handled, once per loop pass):
 * @kick: the block changed: ring GR_VEC_CTRL
 * @series_ended: a series of rounds ended; @rewrite: with a better clock
 */
struct gr_hostctl {
	uint64_t ctrl_seq;
	uint64_t flush_req;
	uint64_t sync_req;
	bool sync_pending;
	uint64_t sync_t1;
	uint64_t sync_best_err;
	struct gr_kvm_tsc kvm;
	bool kvm_ok;
	int kvm_err;
	bool kvm_told;
	struct gr_tsc_bracket sync_b1;
	uint64_t tsc_refused;
	bool tsc_told;
	unsigned int sync_rounds;
	bool sync_spin;
	bool sync_poll_ok;
	uint64_t sync_defer_ns;
	bool sync_deferred;
	uint64_t sync_polled;
	uint64_t sync_spin_missed;
	int64_t mono_to_real;
	struct gr_ctf_clock clock;
	struct gr_sync_sample series;
	int64_t dev_lo;
	int64_t dev_hi;
	struct gr_sync_sample last;
	int64_t last_dev;
	uint64_t sync_gap_ns;
	unsigned int sync_retries;
	uint64_t next_sync_ns;
	bool sync_dirty;
	uint64_t vmsync_uid;
	uint64_t sync_uid;
	struct gr_vmsync_mark marks[GR_VMSYNC_MARKS];
	unsigned int nr_marks;
	bool kick;
	bool series_ended;
	bool rewrite;
};

void hostctl_init(struct gr_vm *vm);
int hostctl_adopt(struct gr_vm *vm, uint32_t *tracing);
void hostctl_publish(struct gr_vm *vm);
void hostctl_new_session(struct gr_vm *vm);
uint64_t hostctl_flush(struct gr_vm *vm);
uint32_t hostctl_guest_state(const struct gr_vm *vm);
bool hostctl_vmsync_recorded(struct gr_vm *vm);
uint64_t hostctl_enabled_word(const struct gr_vm *vm, unsigned int i);
uint32_t hostctl_desc_live(const struct gr_vm *vm);
bool hostctl_settings_acked(const struct gr_vm *vm, uint64_t seq);
bool hostctl_flush_acked(const struct gr_vm *vm, uint64_t req);
void hostctl_sync_reset(struct gr_vm *vm);
void hostctl_clock_resume(struct gr_vm *vm, const struct gr_ctf_clock *c);
void hostctl_sync_start(struct gr_vm *vm);
void hostctl_sync_check(struct gr_vm *vm);
bool hostctl_sync_wants_fast_poll(const struct gr_vm *vm);
bool hostctl_sync_spin(const __le64 *ack, uint64_t want, uint64_t limit_ns);
bool hostctl_sync_rung(struct gr_vm *vm);

#endif /* GR_HOSTCTL_H */
