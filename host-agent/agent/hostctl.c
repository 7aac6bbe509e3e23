// SPDX-License-Identifier: GPL-2.0
/*
 * hostctl.c - the host's half of the control protocol (spec 9): the host
 * control block it writes, the guest's acknowledgements it reads, and the
 * clock-sync exchange
 *
 *   hostctl_init()     a fresh block, magic and seq last (5.1, 10 #16);
 *                      the guest's own events until attach (9.6)
 *   hostctl_adopt()    our own block after an agent restart: counters
 *                      continue, never decrease (H16)
 *   hostctl_publish()  settings fields, then seq with release (9.1)
 *   hostctl_new_session()  a new session_id: a state dump (9.7)
 *   hostctl_flush()    a flush request (9.3)
 *   hostctl_*_acked()  the guest's acknowledgements, with acquire
 *   hostctl_sync_*()   rounds of host time, guest time, host time (9.5);
 *                      with GR_F_SYNC_TSC and KVM's TSC relation, the
 *                      guest's TSC mapped to host time (kvm_tsc.c); with
 *                      GR_F_SYNC_POLL a series' later rounds taken by a
 *                      bounded spin, without a doorbell each
 *
 * The host writes only the control block (H7: once the layout is the
 * validated one, or before any guest runs); guest-written fields are only
 * read, once, into locals.
 *
 * This file writes only its own state (vm->hc) and never calls up or
 * sideways: the doorbell a change owes the guest (hc.kick) and the end of
 * a clock-sync series with a better clock for the metadata
 * (hc.series_ended, hc.rewrite) are reported for vm.c, which rings and
 * rewrites once per loop pass. The settings it writes (events, tracing,
 * mode) are vm.c's; the filter area is vm_filter.c's, the hist area's
 * request slots vm_hist.c's.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "vm.h"

#define MS			1000000ULL
#define GR_SYNC_ROUNDS		8
#define GR_SYNC_TIMEOUT_NS	(2000 * MS)
#define GR_SYNC_REFRESH_NS	(60000 * MS)
#define GR_SYNC_FIRST_GAP_NS	(1000 * MS)	/* doubled up to the above */
/*
 * A series whose tightest round is GR_SYNC_LOOSE times the session's
 * best, and half of it over GR_SYNC_LOOSE_NS, tells little of the
 * mapping and would widen its bound: it is not checked, and the next
 * series starts GR_SYNC_RETRY_NS later, GR_SYNC_RETRIES times in a row
 * at most (a host loaded for long gets its loose samples checked).
 */
#define GR_SYNC_LOOSE		8
#define GR_SYNC_LOOSE_NS	(MS / 20)
#define GR_SYNC_RETRY_NS	(200 * MS)
#define GR_SYNC_RETRIES		3
/*
 * A round unanswered this long can no longer be a series' tightest: the
 * loop stops polling fast for it (a guest gone from a plain device would
 * otherwise keep the agent polling every 5 ms, round after round)
 */
#define GR_SYNC_FAST_NS		(100 * MS)
/*
 * v1.12: after a spin that saw no answer, the series' next request waits
 * until the guest may poll again (GR_SYNC_POLL_GAP_NS after its burst,
 * with a margin for the two clocks' rates): a round answered from the
 * interrupt then starts a burst again
 */
#define GR_SYNC_DEFER_NS	(GR_SYNC_POLL_GAP_NS + 10 * MS)

#define HOST_FEATURES (GR_F_EVENT_IDX | GR_F_FLIGHT | GR_F_CLOCK_SYNC | \
		       GR_F_SWITCH_TIMER | GR_F_FILTER | GR_F_GUEST_INFO | \
		       GR_F_DEFAULTS | GR_F_FOLLOW | GR_F_SYSCALLS | \
		       GR_F_CLIENT | GR_F_LAST_RECORD | GR_F_HIST | \
		       GR_F_ANYEVENT | GR_F_PROBE | GR_F_VMSYNC | GR_F_SYNC_TSC | \
		       GR_F_DYNARR | GR_F_SYNC_POLL | GR_F_WIDE_EVENTS | \
		       GR_F_ARRAYS | GR_F_LONG_DESC)

static struct gr_host_ctrl *ctrl(struct gr_vm *vm)
{
	return (struct gr_host_ctrl *)(vm->region + GR_CTRL_OFFSET);
}

static struct gr_guest_status *status(const struct gr_vm *vm)
{
	return (struct gr_guest_status *)(vm->region + GR_STATUS_OFFSET);
}

/*
 * The wide area of the checked layout (v1.13, spec 19): in use whenever
 * the guest publishes GR_F_WIDE_EVENTS, this host always offering it;
 * NULL otherwise
 */
static struct gr_wide *wide(const struct gr_vm *vm)
{
	if (!(vm->view.features & GR_F_WIDE_EVENTS) || !vm->view.wide_offset)
		return NULL;
	return (struct gr_wide *)(vm->region + vm->view.wide_offset);
}

/**
 * hostctl_enabled_word() - word @i of the events the guest records
 * @vm: an attached VM
 * @i: word index, below GR_WIDE_MAX_EVENTS / 64
 *
 * Spec 3.3, 19.3 X3: status.enabled, or the wide area's enabled with
 * GR_F_WIDE_EVENTS in use; a report, loaded once, never an index.
 *
 * Return: the word, 0 past the bitmap in use.
 */
uint64_t hostctl_enabled_word(const struct gr_vm *vm, unsigned int i)
{
	const struct gr_wide *w = wide(vm);

	if (w && i < GR_WIDE_MAX_EVENTS / 64)
		return le64toh(__atomic_load_n(&w->enabled[i],
					       __ATOMIC_RELAXED));
	if (i < GR_MAX_EVENTS / 64)
		return le64toh(__atomic_load_n(&status(vm)->enabled[i],
					       __ATOMIC_RELAXED));
	return 0;
}

/**
 * hostctl_desc_live() - the guest's count of descriptors (spec 18.3 M2)
 * @vm: an attached VM
 *
 * The wide area's desc_live with GR_F_WIDE_EVENTS in use (19.3 X2), else
 * status.desc_live; loaded once with acquire, which pairs with the
 * guest's release after the descriptors it covers (18.2 N3). Unchecked.
 *
 * Return: the value loaded.
 */
uint32_t hostctl_desc_live(const struct gr_vm *vm)
{
	const struct gr_wide *w = wide(vm);

	if (w)
		return le32toh(__atomic_load_n(&w->desc_live,
					       __ATOMIC_ACQUIRE));
	return le32toh(__atomic_load_n(&status(vm)->desc_live,
				       __ATOMIC_ACQUIRE));
}

/* The bits of enable[@word] below @count */
static uint64_t adopted_mask(uint32_t count, unsigned int word)
{
	if (count >= (word + 1) * 64)
		return ~0ULL;
	if (count <= word * 64)
		return 0;
	return (1ULL << (count - word * 64)) - 1;
}

/* Features and our peer id: what this agent offers (spec 2, 8.1) */
static void set_features(struct gr_vm *vm, struct gr_host_ctrl *c)
{
	/* spec 14.1: the block and its filter area (GR_F_FILTER) */
	c->ctrl_size = htole32(GR_FILTER_CTRL_SIZE);
	c->host_features = htole64(HOST_FEATURES |
				   (vm->doorbell ? GR_F_DOORBELL : 0));
	c->host_peer_id = htole32(vm->doorbell ?
				  (uint32_t)ivsh_server_self_id(&vm->peer.srv) :
				  GR_NO_PEER);
}

/**
 * hostctl_init() - a fresh control block, before QEMU can start the guest
 * @vm: the VM, its region zero-filled (H1), vm->tracing set
 */
void hostctl_init(struct gr_vm *vm)
{
	struct gr_host_ctrl *c = ctrl(vm);

	memset(c, 0, sizeof(*c));
	c->abi_major = htole16(GR_ABI_MAJOR);
	c->abi_minor = htole16(GR_ABI_MINOR);
	memset((uint8_t *)c + sizeof(*c), 0,
	       GR_FILTER_CTRL_SIZE - sizeof(*c));
	set_features(vm, c);
	c->subbuf_size = htole32(vm->opts.subbuf_size);
	c->n_subbufs = htole32(vm->opts.n_subbufs);
	c->session_id = htole64((uint64_t)time(NULL));
	c->tracing = htole32(vm->tracing);
	c->mode = htole32(vm->opts.mode);
	c->switch_timer_us = htole32(vm->opts.switch_timer_us);
	/* spec 9.6: no descriptors read, no events chosen: the guest's own */
	c->ctrl_flags = htole32(GR_CTRL_F_DEFAULTS);
	vm->hc.ctrl_seq = 0;
	vm->hc.flush_req = 0;
	vm->hc.sync_req = 0;
	/* everything, then the magic (spec 5.1 step 2): no ordering of its
	 * own, the release of seq below publishes it with the block
	 */
	__atomic_store_n(&c->magic, htole64(GR_CTRL_MAGIC), __ATOMIC_RELAXED);
	/* then seq := seq + 1 with release: pairs with the guest's
	 * smp_load_acquire() of seq, which it loads before magic (10 #16)
	 */
	__atomic_store_n(&c->seq, htole64(++vm->hc.ctrl_seq), __ATOMIC_RELEASE);
}

/**
 * hostctl_adopt() - take over the block an earlier agent wrote
 * @vm: the VM
 * @tracing: receives the block's tracing setting (0 or 1)
 *
 * Return: 0, or -ENOENT if the region holds no control block.
 */
int hostctl_adopt(struct gr_vm *vm, uint32_t *tracing)
{
	struct gr_host_ctrl *c = ctrl(vm);

	if (le64toh(c->magic) != GR_CTRL_MAGIC)
		return -ENOENT;
	set_features(vm, c);
	/* H16: seq and the request counters continue from our own values */
	vm->hc.ctrl_seq = le64toh(c->seq);
	vm->hc.flush_req = le64toh(c->flush_req);
	vm->hc.sync_req = le64toh(c->sync_req);
	*tracing = le32toh(c->tracing) ? 1 : 0;
	return 0;
}

/**
 * hostctl_publish() - publish the settings (tracing, mode, switch timer,
 * events) and kick the guest
 * @vm: the VM
 */
void hostctl_publish(struct gr_vm *vm)
{
	struct gr_host_ctrl *c = ctrl(vm);
	struct gr_wide *w;
	uint64_t bits;
	uint32_t count;
	unsigned int i;

	c->tracing = htole32(vm->tracing);
	c->mode = htole32(vm->opts.mode);
	c->switch_timer_us = htole32(vm->opts.switch_timer_us);
	/*
	 * vm->enable names only ids of adopted descriptors (the settings
	 * resolve against view.desc_count); with GR_F_ANYEVENT, where ids
	 * up to desc_capacity exist unadopted, also masked (spec 18.3 M3),
	 * and while waiting for a new publication to the last one's table:
	 * the events it added at run time are gone with it (N6, M6)
	 */
	count = vm->state == GR_VM_WAITING ? vm->view.desc_table :
		vm->view.desc_count;
	/*
	 * v1.13 (spec 19.3 X3): with GR_F_WIDE_EVENTS every bit goes to the
	 * wide area too, the guest reading there; only the layout checked
	 * and still published has one (not while waiting for a new one)
	 */
	w = vm->state == GR_VM_WAITING ? NULL : wide(vm);
	for (i = 0; i < GR_WIDE_MAX_EVENTS / 64; i++) {
		bits = vm->enable[i] & (vm->view.features & GR_F_ANYEVENT ?
					adopted_mask(count, i) : ~0ULL);
		if (i < GR_MAX_EVENTS / 64)
			c->enable[i] = htole64(bits);
		if (w)
			w->enable[i] = htole64(bits);
	}
	/*
	 * Spec 9.6: vm->enable names events of the attached instance only;
	 * while waiting for a (new) publication the guest records its own
	 * default events from its first moment, ours apply from attach on.
	 */
	c->ctrl_flags = htole32(vm->state == GR_VM_WAITING ?
				GR_CTRL_F_DEFAULTS : 0);
	/* spec 14.1, H25: the filter programs are settings too */
	vm_filters_fill(vm, (struct gr_filter_slot *)(vm->region +
						      GR_FILTER_OFFSET));
	/* spec 15.2: and the follow block */
	vm_follow_fill(vm, c);
	/* spec 17.2: and the aggregation requests of the hist area */
	vm_hist_fill(vm);
	/* H16: the fields above before seq; pairs with the guest's
	 * smp_load_acquire() of seq in gr_ctrl_read() (spec 10 #10)
	 */
	__atomic_store_n(&c->seq, htole64(++vm->hc.ctrl_seq), __ATOMIC_RELEASE);
	vm->hc.kick = true;
}

/**
 * hostctl_new_session() - a new session_id for the next settings
 * @vm: the VM
 *
 * Spec 9.7, H28: a second session on one publication gets its own id,
 * so that the guest takes a state dump for it. Published with the next
 * hostctl_publish().
 */
void hostctl_new_session(struct gr_vm *vm)
{
	struct gr_host_ctrl *c = ctrl(vm);
	uint64_t id = (uint64_t)time(NULL);

	if (id <= le64toh(c->session_id))
		id = le64toh(c->session_id) + 1;
	c->session_id = htole64(id);
}

/**
 * hostctl_flush() - ask the guest to close its partial sub-buffers
 * @vm: the VM
 *
 * Return: the request's number, for hostctl_flush_acked().
 */
uint64_t hostctl_flush(struct gr_vm *vm)
{
	/* pairs with the guest's smp_load_acquire() of flush_req (10 #11) */
	__atomic_store_n(&ctrl(vm)->flush_req, htole64(++vm->hc.flush_req),
			 __ATOMIC_RELEASE);
	vm->hc.kick = true;
	return vm->hc.flush_req;
}

/**
 * hostctl_guest_state() - the guest's GR_STATE_*
 * @vm: the VM
 *
 * Return: the state, as the guest stored it (any value: compare only).
 */
uint32_t hostctl_guest_state(const struct gr_vm *vm)
{
	/* pairs with the guest's smp_store_release() of state (10 #3):
	 * for STOPPED and PANIC, its final produced values
	 */
	return le32toh(__atomic_load_n(&status(vm)->state, __ATOMIC_ACQUIRE));
}

/**
 * hostctl_vmsync_recorded() - does the guest record its vmsync events?
 * @vm: an attached VM
 *
 * Spec 9.8: the guest says it records its vmsync events (tracing, their
 * bits in status.enabled): only then the rounds get a vm_uid and host
 * records, so that every round is recorded on both sides or on none. The
 * guest's word decides only that.
 *
 * Return: true if it records every one of @vm->vmsync_events.
 */
bool hostctl_vmsync_recorded(struct gr_vm *vm)
{
	bool any = false;
	uint64_t on;
	unsigned int i;

	if (hostctl_guest_state(vm) != GR_STATE_TRACING)
		return false;
	for (i = 0; i < GR_WIDE_MAX_EVENTS / 64; i++) {
		if (!vm->vmsync_events[i])
			continue;
		on = hostctl_enabled_word(vm, i);
		if ((on & vm->vmsync_events[i]) != vm->vmsync_events[i])
			return false;
		any = true;
	}
	return any;
}

/**
 * hostctl_settings_acked() - the guest acknowledged settings @seq
 * @vm: the VM
 * @seq: a value of vm->hc.ctrl_seq
 *
 * Return: true once status.ctrl_ack = @seq.
 */
bool hostctl_settings_acked(const struct gr_vm *vm, uint64_t seq)
{
	/* pairs with the guest's smp_store_release() of ctrl_ack
	 * (spec 10 #12): no write for a disabled event runs after it
	 */
	return le64toh(__atomic_load_n(&status(vm)->ctrl_ack,
				       __ATOMIC_ACQUIRE)) == seq;
}

/**
 * hostctl_flush_acked() - the guest completed flush request @req
 * @vm: the VM
 * @req: from hostctl_flush()
 *
 * Return: true once status.flush_ack = @req.
 */
bool hostctl_flush_acked(const struct gr_vm *vm, uint64_t req)
{
	/* pairs with the guest's smp_store_release() of flush_ack (10 #13):
	 * every produced store of the flush is visible after it
	 */
	return le64toh(__atomic_load_n(&status(vm)->flush_ack,
				       __ATOMIC_ACQUIRE)) == req;
}

/**
 * hostctl_sync_reset() - a new publication: no clock, no round pending
 * @vm: the VM
 */
void hostctl_sync_reset(struct gr_vm *vm)
{
	struct timespec rt, mono;

	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	vm->hc.mono_to_real = ((int64_t)rt.tv_sec - mono.tv_sec) *
			      1000000000LL + (rt.tv_nsec - mono.tv_nsec);
	memset(&vm->hc.clock, 0, sizeof(vm->hc.clock));
	vm->hc.sync_best_err = UINT64_MAX;
	vm->hc.sync_pending = false;
	vm->hc.sync_deferred = false;
	vm->hc.series.rtt = UINT64_MAX;
	vm->hc.last.rtt = UINT64_MAX;
	vm->hc.sync_gap_ns = GR_SYNC_FIRST_GAP_NS;
}

/**
 * hostctl_clock_resume() - a resumed session continues with its clock
 * @vm: the VM
 * @c: the clock its .guestrelay recorded (nothing if not synced)
 */
void hostctl_clock_resume(struct gr_vm *vm, const struct gr_ctf_clock *c)
{
	if (!c->synced)
		return;
	vm->hc.clock = *c;
	/* its samples are not stored: their extremes are taken as the bound */
	vm->hc.dev_lo = -(int64_t)c->checked_ns;
	vm->hc.dev_hi = (int64_t)c->checked_ns;
	vm->hc.last.rtt = UINT64_MAX;
}

/* a message of the round for the host stream (spec 9.8), if it has room */
static void vmsync_mark(struct gr_hostctl *hc, bool gh, uint64_t cnt,
			uint64_t ts)
{
	if (!hc->sync_uid || hc->nr_marks == GR_VMSYNC_MARKS)
		return;
	hc->marks[hc->nr_marks++] = (struct gr_vmsync_mark){
		.gh = gh, .cnt = cnt, .vm_uid = hc->sync_uid, .ts = ts,
	};
}

/* why KVM's TSC relation is not used, once (and again when it changes) */
static void kvm_tell(struct gr_vm *vm, int err, int pid)
{
	const char *dir = vm->agent->kvm_debugfs, *why;

	if (vm->hc.kvm_told && vm->hc.kvm_err == err)
		return;
	vm->hc.kvm_told = true;
	vm->hc.kvm_err = err;
	switch (err) {
	case 0:
		syslog(LOG_INFO, "%s: clock sync: KVM's TSC relation of QEMU (pid %d) in %s (%u vCPUs, offset %lld, ratio %llu / 2^%u): exact mapping",
		       vm->opts.name, pid, dir, vm->hc.kvm.nr_vcpus,
		       (long long)vm->hc.kvm.offset,
		       (unsigned long long)vm->hc.kvm.ratio,
		       vm->hc.kvm.frac_bits);
		return;
	case -EACCES:
	case -EPERM:
		why = "not readable (debugfs needs root)";
		break;
	case -ENOENT:
		why = "absent (no debugfs mounted, or no KVM)";
		break;
	case -ESRCH:
		why = "has no VM of this QEMU (not a KVM guest)";
		break;
	case -EXDEV:
		why = "gives its vCPUs different TSC offsets or scaling (no single mapping)";
		break;
	case -EOPNOTSUPP:
		why = "cannot be used: this host has no TSC to read";
		break;
	default:
		why = strerror(-err);
		break;
	}
	syslog(LOG_INFO, "%s: clock sync: KVM's TSC relation of QEMU (pid %d) in %s %s: round-trip estimate",
	       vm->opts.name, pid, dir, why);
}

/*
 * Spec 9.5 (v1.10): at the start of a series, KVM's TSC relation of the
 * VM, if the guest offers its TSC and QEMU's pid is known (a peer of
 * the doorbell socket); without it the rounds are the round-trip
 * estimate
 */
static void kvm_series(struct gr_vm *vm)
{
	struct gr_tsc_bracket b;
	int pid = vm->peer.guest_peer >= 0 ? vm->peer.qemu_pid : 0;
	int err;

	vm->hc.kvm_ok = false;
	if (!(vm->view.features & GR_F_SYNC_TSC) || pid <= 0 ||
	    !vm->agent->kvm_debugfs[0])
		return;
	err = gr_tsc_bracket_read(&b) ?
	      gr_kvm_tsc_read(vm->agent->kvm_debugfs, pid, &vm->hc.kvm) :
	      -EOPNOTSUPP;
	vm->hc.kvm_ok = !err;
	kvm_tell(vm, err, pid);
}

/* t1 of a round: a host bracket with KVM's relation, else the clock */
static uint64_t sync_t1(struct gr_vm *vm)
{
	if (vm->hc.kvm_ok && gr_tsc_bracket_read(&vm->hc.sync_b1))
		return vm->hc.sync_b1.hi;
	return gr_now_ns();
}

/*
 * a round's request: t1, then sync_req with release; @kick: ring
 * GR_VEC_CTRL for it (not yet for a request the guest may be polling for)
 */
static void sync_request(struct gr_vm *vm, bool kick)
{
	/*
	 * spec 9.8: vm_uid changes only while no request is unanswered, and
	 * the release of sync_req below publishes it with the request
	 */
	vm->hc.sync_uid = vm->view.features & GR_F_VMSYNC ?
			  vm->hc.vmsync_uid : 0;
	if (vm->view.features & GR_F_VMSYNC)
		__atomic_store_n(&ctrl(vm)->vm_uid, htole64(vm->hc.sync_uid),
				 __ATOMIC_RELAXED);
	vm->hc.sync_t1 = sync_t1(vm);
	vmsync_mark(&vm->hc, false, GR_VMSYNC_HG_CNT(vm->hc.sync_req + 1),
		    vm->hc.sync_t1);
	/* t1 before the request: pairs with the guest's smp_load_acquire()
	 * of sync_req (10 #11)
	 */
	__atomic_store_n(&ctrl(vm)->sync_req, htole64(++vm->hc.sync_req),
			 __ATOMIC_RELEASE);
	vm->hc.sync_pending = true;
	vm->hc.kick = vm->hc.kick || kick;
}

/**
 * hostctl_sync_start() - begin a series of clock-sync rounds
 * @vm: an attached VM
 */
void hostctl_sync_start(struct gr_vm *vm)
{
	vm->hc.sync_rounds = 0;
	vm->hc.sync_dirty = false;
	vm->hc.series.rtt = UINT64_MAX;
	/* 9.5, H33: the guest polls only after an interrupt */
	vm->hc.sync_poll_ok = (vm->view.features & GR_F_SYNC_POLL) &&
			      vm->doorbell;
	vm->hc.sync_spin = vm->hc.sync_poll_ok;
	vm->hc.sync_deferred = false;
	if (!(vm->view.features & GR_F_CLOCK_SYNC))
		return;
	kvm_series(vm);
	sync_request(vm, true);
}

/* host CLOCK_MONOTONIC ns that @c maps guest clock value @g to */
static __int128 mono_of(const struct gr_ctf_clock *c, uint64_t freq,
			uint64_t g)
{
	return gr_ctf_clock_ns(c, freq, g) - c->mono_to_real;
}

/*
 * A deviation, kept within +-2^61 ns (73 years): the guest's clock values
 * are the guest's to choose, and sums of them must not overflow
 */
static int64_t dev_sat(__int128 d)
{
	const int64_t lim = (int64_t)1 << 61;

	return d > lim ? lim : d < -lim ? -lim : (int64_t)d;
}

/*
 * A new mapping from the series' sample @s (tighter than the session's
 * best): both are offsets, so every deviation checked so far moves by
 * the same shift.
 */
static void sync_remap(struct gr_vm *vm, const struct gr_sync_sample *s)
{
	struct gr_hostctl *hc = &vm->hc;
	uint64_t freq = vm->view.clock_freq;
	struct gr_ctf_clock c;
	int64_t shift;

	if (gr_ctf_clock_from_sync(freq, s->guest,
				   (int64_t)s->host + hc->mono_to_real,
				   s->err, &c))
		return;
	c.mono_to_real = hc->mono_to_real;
	c.kvm_tsc = s->kvm_tsc;
	if (hc->clock.checked) {
		shift = dev_sat(mono_of(&c, freq, s->guest) -
				mono_of(&hc->clock, freq, s->guest));
		hc->dev_lo = dev_sat((__int128)hc->dev_lo + shift);
		hc->dev_hi = dev_sat((__int128)hc->dev_hi + shift);
		hc->last_dev = dev_sat((__int128)hc->last_dev + shift);
		c.checked = 1;
		c.span_first = hc->clock.span_first;
		c.span_last = hc->clock.span_last;
		c.drift_ppb = hc->clock.drift_ppb;
		c.samples = hc->clock.samples;
	}
	hc->clock = c;
	hc->sync_best_err = s->err;
}

/*
 * The series ended with sample @hc.series (its tightest round): the
 * session's mapping if it is the tightest yet, then checked against the
 * mapping in host CLOCK_MONOTONIC. The mapping's bound over the samples'
 * span is the largest |deviation| of a sample widened by the sample's
 * own bound (half its round trip); the drift, the largest rate between
 * two consecutive samples, their bounds included, bounds it beyond.
 */
static void sync_check_sample(struct gr_vm *vm)
{
	struct gr_hostctl *hc = &vm->hc;
	const struct gr_sync_sample *s = &hc->series;
	struct gr_ctf_clock *c = &hc->clock;
	uint64_t freq = vm->view.clock_freq, err = s->err;
	__int128 dt, rate;
	int64_t dev;

	if (s->rtt == UINT64_MAX)
		return;
	if (!c->synced || s->err < hc->sync_best_err)
		sync_remap(vm, s);
	if (!c->synced)
		return;
	dev = dev_sat(mono_of(c, freq, s->guest) - (__int128)s->host);
	if (!c->checked) {
		c->checked = 1;
		c->span_first = s->guest;
		c->samples = 0;
		c->drift_ppb = 0;
		hc->dev_lo = dev - (int64_t)err;
		hc->dev_hi = dev + (int64_t)err;
		hc->last.rtt = UINT64_MAX;
	}
	if (dev - (int64_t)err < hc->dev_lo)
		hc->dev_lo = dev - (int64_t)err;
	if (dev + (int64_t)err > hc->dev_hi)
		hc->dev_hi = dev + (int64_t)err;
	if (hc->last.rtt != UINT64_MAX && s->guest > hc->last.guest) {
		dt = (__int128)(s->guest - hc->last.guest) * NSEC_PER_SEC / freq;
		rate = dev > hc->last_dev ? dev - hc->last_dev :
		       hc->last_dev - dev;
		rate = (rate + err + hc->last.err) * NSEC_PER_SEC /
		       (dt ? dt : 1);
		if (rate > (__int128)c->drift_ppb)
			c->drift_ppb = rate > (__int128)UINT64_MAX ?
				       UINT64_MAX : (uint64_t)rate;
	}
	hc->last = *s;
	hc->last_dev = dev;
	if (s->guest > c->span_last || c->samples == 0)
		c->span_last = s->guest;
	c->samples++;
	c->checked_ns = (uint64_t)(-hc->dev_lo > hc->dev_hi ? -hc->dev_lo :
				   hc->dev_hi);
	hc->sync_dirty = vm->sess.fd >= 0;
}

/* the series' tightest round is too loose to check the mapping with */
static bool sync_loose(const struct gr_vm *vm)
{
	const struct gr_hostctl *hc = &vm->hc;

	return hc->clock.checked && hc->sync_retries < GR_SYNC_RETRIES &&
	       hc->series.err > GR_SYNC_LOOSE_NS &&
	       hc->series.err / GR_SYNC_LOOSE > hc->sync_best_err;
}

/*
 * The series ended: its sample checked, the session's metadata gets the
 * best clock and its check once per series, not after each round (every
 * rewrite writes two files and queues three fsyncs): reported to vm.c,
 * which rewrites it.
 */
static void sync_end(struct gr_vm *vm, uint64_t next_ns)
{
	sync_check_sample(vm);
	vm->hc.next_sync_ns = next_ns;
	vm->hc.series_ended = true;
	vm->hc.rewrite = vm->hc.rewrite || vm->hc.sync_dirty;
	vm->hc.sync_dirty = false;
}

/*
 * Spec 9.5 (v1.10): the answer's TSC reading through KVM's relation, as
 * host CLOCK_MONOTONIC between the round's two brackets; a reading
 * outside the round trip is refused (counted, told once) and the round
 * stays a round-trip sample
 */
static void sync_tsc_sample(struct gr_vm *vm, const struct gr_tsc_bracket *b3,
			    struct gr_sync_sample *s)
{
	const struct gr_guest_status *st = status(vm);
	uint64_t gtsc, host_tsc, half, mono, err;
	uint32_t ghalf;
	int ret;

	gtsc = le64toh(__atomic_load_n(&st->sync_guest_tsc, __ATOMIC_RELAXED));
	ghalf = le32toh(__atomic_load_n(&st->sync_tsc_half, __ATOMIC_RELAXED));
	/* U32_MAX: the guest's reads were too far apart to tell (9.5) */
	if (ghalf == UINT32_MAX)
		return;
	half = gr_kvm_host_ticks(&vm->hc.kvm, ghalf);
	ret = gr_kvm_host_tsc(&vm->hc.kvm, gtsc, &host_tsc);
	if (!ret)
		ret = gr_tsc_map(&vm->hc.sync_b1, b3, host_tsc, half, &mono,
				 &err);
	if (ret == -ERANGE) {
		vm->hc.tsc_refused++;
		if (!vm->hc.tsc_told)
			syslog(LOG_WARNING, "%s: clock sync: the guest's TSC in its answer (0x%llx), through KVM's relation, lies outside the round trip: refused, round-trip estimate for such rounds (counted in stats.sync_tsc_refused)",
			       vm->opts.name, (unsigned long long)gtsc);
		vm->hc.tsc_told = true;
		return;
	}
	if (ret || err >= s->err)
		return;
	s->host = mono;
	s->err = err;
	s->kvm_tsc = true;
}

/**
 * hostctl_sync_wants_fast_poll() - is a sync round waiting for an answer
 *	that could still be tight?
 * @vm: the VM
 *
 * Return: true while a round is pending and younger than GR_SYNC_FAST_NS,
 * or a round waits for its time (v1.12, after a failed spin).
 */
bool hostctl_sync_wants_fast_poll(const struct gr_vm *vm)
{
	return vm->hc.sync_deferred || (vm->hc.sync_pending &&
	       gr_now_ns() - vm->hc.sync_t1 < GR_SYNC_FAST_NS);
}

/**
 * hostctl_sync_spin() - wait a bounded time for a clock-sync answer
 * @ack: status.sync_ack in the region
 * @want: the request it must equal
 * @limit_ns: at most this long, host CLOCK_MONOTONIC
 *
 * Spec 9.5, H33 (v1.12, GR_F_SYNC_POLL): the guest may be polling
 * sync_req. Reads the clock and @ack only (no other system call); the
 * acquire load pairs with the guest's smp_store_release() of sync_ack
 * (10 #15), as in hostctl_sync_check().
 *
 * Return: true once *@ack = @want, false after @limit_ns without.
 */
bool hostctl_sync_spin(const __le64 *ack, uint64_t want, uint64_t limit_ns)
{
	uint64_t start = gr_now_ns();

	do {
		if (le64toh(__atomic_load_n(ack, __ATOMIC_ACQUIRE)) == want)
			return true;
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#endif
	} while (gr_now_ns() - start < limit_ns);
	return le64toh(__atomic_load_n(ack, __ATOMIC_ACQUIRE)) == want;
}

/*
 * The answer to the round pending: the series' tightest round kept (H20),
 * discarded if it comes from another instance (spec 9.5); @now: of the
 * loop pass. Return: true if the series wants another round.
 */
static bool sync_answer(struct gr_vm *vm, uint64_t now)
{
	struct gr_guest_status *st = status(vm);
	uint64_t t3, guest, rtt;
	struct gr_tsc_bracket b3;
	struct gr_sync_sample s;

	/* pairs with the guest's smp_store_release() of sync_ack (10 #15):
	 * sync_guest_time below is the answer to this request
	 */
	if (le64toh(__atomic_load_n(&st->sync_ack, __ATOMIC_ACQUIRE)) !=
	    vm->hc.sync_req) {
		if (now - vm->hc.sync_t1 > GR_SYNC_TIMEOUT_NS) {
			vm->hc.sync_pending = false;
			sync_end(vm, now + GR_SYNC_TIMEOUT_NS);
		}
		return false;
	}
	/* t3 after the ack was seen: the guest's clock was read before it */
	if (!vm->hc.kvm_ok || !gr_tsc_bracket_read(&b3))
		b3.lo = gr_now_ns();
	t3 = b3.lo;
	guest = le64toh(__atomic_load_n(&st->sync_guest_time, __ATOMIC_RELAXED));
	rtt = t3 - vm->hc.sync_t1;
	s = (struct gr_sync_sample){
		.rtt = rtt, .guest = guest, .host = vm->hc.sync_t1 + rtt / 2,
		.err = rtt / 2 + 1, .kvm_tsc = false,
	};
	vm->hc.sync_pending = false;
	/*
	 * H20: the answer must come from the instance whose clock the
	 * session uses: a guest that re-published meanwhile (reboot, reload)
	 * answers with another boot's clock (spec 9.5). Discard such a sample.
	 */
	if (le64toh(__atomic_load_n(&((struct gr_region_hdr *)vm->region)->
				    instance_id, __ATOMIC_RELAXED)) !=
	    vm->instance_id) {
		sync_end(vm, now + GR_SYNC_TIMEOUT_NS);
		return false;
	}
	if (vm->hc.kvm_ok)
		sync_tsc_sample(vm, &b3, &s);
	vmsync_mark(&vm->hc, true, GR_VMSYNC_GH_CNT(vm->hc.sync_req), t3);
	vm->hc.sync_rounds++;
	if (vm->hc.series.rtt == UINT64_MAX || s.err < vm->hc.series.err)
		vm->hc.series = s;
	if (vm->hc.sync_rounds < GR_SYNC_ROUNDS)
		return true;
	if (sync_loose(vm)) {
		vm->hc.series.rtt = UINT64_MAX;
		vm->hc.sync_retries++;
		sync_end(vm, now + GR_SYNC_RETRY_NS);
	} else {
		vm->hc.sync_retries = 0;
		sync_end(vm, now + vm->hc.sync_gap_ns);
		vm->hc.sync_gap_ns = vm->hc.sync_gap_ns * 2 > GR_SYNC_REFRESH_NS ?
				     GR_SYNC_REFRESH_NS : vm->hc.sync_gap_ns * 2;
	}
	return false;
}

/**
 * hostctl_sync_check() - take the guest's answer, start the next round
 * @vm: an attached VM
 *
 * Keeps the tightest of GR_SYNC_ROUNDS round trips (H20) and discards a
 * sample from another instance (spec 9.5); a round unanswered after
 * GR_SYNC_TIMEOUT_NS ends the series. The next series starts 1 s later,
 * then after gaps doubled up to GR_SYNC_REFRESH_NS; each series' tightest
 * round is checked against the mapping (sync_check_sample()) unless it
 * is loose (sync_loose(): tried again soon).
 *
 * With GR_F_SYNC_POLL in use (v1.12, H33) the next round's request is
 * written at once and its answer taken by a spin of at most
 * GR_SYNC_POLL_WAIT_NS. A spin that fails rings GR_VEC_CTRL for its
 * request; the round after it is written GR_SYNC_DEFER_NS later, rung,
 * so that the guest's answer from the interrupt starts a burst again.
 */
void hostctl_sync_check(struct gr_vm *vm)
{
	uint64_t now = gr_now_ns();

	if (vm->hc.sync_deferred) {
		if (vm->state != GR_VM_ATTACHED || now < vm->hc.sync_defer_ns)
			return;
		vm->hc.sync_deferred = false;
		vm->hc.sync_spin = true;
		sync_request(vm, true);
		return;
	}
	if (!vm->hc.sync_pending) {
		if (vm->state == GR_VM_ATTACHED && now >= vm->hc.next_sync_ns)
			hostctl_sync_start(vm);
		return;
	}
	while (sync_answer(vm, now)) {
		if (vm->hc.sync_poll_ok && now < vm->hc.sync_defer_ns) {
			vm->hc.sync_deferred = true;
			return;
		}
		sync_request(vm, !vm->hc.sync_spin);
		if (!vm->hc.sync_spin)
			return;
		if (!hostctl_sync_spin(&status(vm)->sync_ack, vm->hc.sync_req,
				       GR_SYNC_POLL_WAIT_NS)) {
			vm->hc.sync_spin = false;
			vm->hc.sync_spin_missed++;
			vm->hc.sync_defer_ns = gr_now_ns() + GR_SYNC_DEFER_NS;
			vm->hc.kick = true;
			return;
		}
		vm->hc.sync_polled++;
	}
}

/**
 * hostctl_sync_rung() - vm.c rang GR_VEC_CTRL: spin for the sync answer
 * @vm: the VM
 *
 * Spec 9.5, H33 (v1.12, GR_F_SYNC_POLL): with a round pending that this
 * series may spin for, the answer from the guest's interrupt is awaited
 * here for at most GR_SYNC_POLL_BURST_NS, so that the next request is
 * written while the guest still polls (its first wait lasts the burst),
 * without a wake-up of the agent in between; then hostctl_sync_check()
 * goes on as after any answer (hc.kick, hc.series_ended: for vm.c).
 * If none comes, the round waits as any rung one (the guest's answer
 * still starts its polling, and the agent spins when it takes it).
 *
 * Return: true if an answer was taken.
 */
bool hostctl_sync_rung(struct gr_vm *vm)
{
	if (!vm->hc.sync_pending || !vm->hc.sync_spin)
		return false;
	if (!hostctl_sync_spin(&status(vm)->sync_ack, vm->hc.sync_req,
			       GR_SYNC_POLL_BURST_NS))
		return false;
	hostctl_sync_check(vm);
	return true;
}
