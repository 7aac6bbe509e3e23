// SPDX-License-Identifier: GPL-2.0
/*
 * gr_pass.c - control passes, their tick, and the settings in effect
 *
 * A control pass (spec 9.2) runs in process context, from pass_work,
 * under gr_dev.pass_lock. It answers a clock-sync request first (also
 * done straight from the GR_VEC_CTRL interrupt, for a tight round trip),
 * reads the host's control block once (gr_ctrl_read()), with the filter
 * area when GR_F_FILTER is in use (spec 14) and the follow block with
 * GR_F_FOLLOW (spec 15), lets gr_pass_decide() (gr_proto.c, the one
 * decision the fake guest and the unit tests run too) choose the steps,
 * and carries them out in order:
 *
 *   apply     a valid block: its settings into effect, what is in effect
 *             acknowledged (GR_CTRL_F_DEFAULTS: the module's events,
 *             spec 9.6)
 *   reject    an invalid block: the refusal counted and acknowledged
 *   defaults  no block (any more): the module parameters
 *   reset     writers kept out, gr_chan_reset(), ack
 *   flush     every CPU flushes its own ring, ack
 *   by name   with GR_F_ANYEVENT in use, a new request for events by
 *             name answered (gr_byname.c, spec 18)
 *   notify    GR_VEC_STATUS rung once if anything was acknowledged
 *
 * Who queues pass_work: the GR_VEC_CTRL interrupt (gr_pass_kick()), and
 * the tick when the control block differs from what the last pass saw.
 * The tick (a timer, spec 5.7) also stores the heartbeat; it runs every
 * GR_TICK_POLL_MS without doorbells, GR_TICK_DOORBELL_MS with them.
 * Switch timers, CPU hotplug and the panic path are gr_dev.c's.
 *
 * Probes are attached when their event is first enabled and never
 * detached before unbind (gr_events.h: registration under load freezes
 * multi-threaded TCG); disabling an event only clears its bit.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/minmax.h>
#include <linux/rcupdate.h>

#ifdef CONFIG_X86
#include <asm/cpufeature.h>
#include <asm/tsc.h>
#endif

#include "gr_anyevent.h"
#include "gr_dev.h"
#include "gr_events.h"
#include "gr_follow.h"
#include "gr_hist.h"

/* What a filter program of each event may read (spec 14.4), from our table */
static struct gr_filter_bounds gr_pass_bounds[GR_WIDE_MAX_EVENTS];

/**
 * gr_pass_bound_event() - what a filter program of event @id may read
 * @id: a valid event id (below gr_desc_live())
 *
 * Spec 14.4: integer loads end within the bytes every record has (a
 * VARLEN event's records end after its first string's NUL, or start
 * its first sequence), strings within the
 * payload's maximum. From the guest's own event table, never the region.
 *
 * Context: at load, or in the control pass that adds event @id (spec
 * 18), before any filter area naming it is read.
 */
void gr_pass_bound_event(unsigned int id)
{
	const struct gr_event_def *def;
	const struct gr_field_def *fields;
	unsigned int nr, i;

	def = gr_desc_def(id, &fields, &nr);
	gr_pass_bounds[id].max = def->payload_size;
	gr_pass_bounds[id].fixed = def->payload_size;
	if (!(def->flags & GR_EVENT_F_VARLEN))
		return;
	/* v1.11: the variable part starts at its first field */
	for (i = 0; i < nr; i++) {
		if (fields[i].type == GR_FIELD_STRING ||
		    fields[i].type == GR_FIELD_SEQUENCE) {
			gr_pass_bounds[id].fixed = fields[i].offset +
				(fields[i].type == GR_FIELD_STRING);
			return;
		}
	}
}

static void gr_pass_init_bounds(void)
{
	unsigned int id;

	for (id = 0; id < gr_desc_count(); id++)
		gr_pass_bound_event(id);
}

/**
 * gr_pass_init() - build the tables control passes use
 *
 * Context: process context, at module load, before any device binds.
 */
void gr_pass_init(void)
{
	unsigned int id;
	u16 max = 0;

	gr_pass_init_bounds();
	/*
	 * spec 17: records aggregated, not recorded, go to scratch buffers;
	 * room for events added at run time too (spec 18)
	 */
	max = GR_ANYEVENT_SCRATCH;
	for (id = 0; id < gr_desc_count(); id++)
		max = max_t(u16, max, gr_pass_bounds[id].max);
	if (gr_rec_scratch_init(max))
		pr_warn("no scratch buffers: only recorded events are aggregated\n");
}

/* ---------------------------------------------------------------------- */
/* Flush, reset, clock sync                                               */

/* Spec 6.7: every CPU flushes its own ring (gr_dev_flush()) */
static void gr_pass_flush(struct gr_dev *gd)
{
	gr_dev_flush(gd);
	/* The counts the flush delivered, before its ack */
	gr_chan_publish_events(gd->chan);
}

/* Spec 6.13: with every writer kept out, restart the current sub-buffers */
static void gr_pass_reset(struct gr_dev *gd)
{
	gr_dev_writers_pause(gd);
	gr_chan_reset(gd->chan);
	gr_dev_writers_resume(gd);
}

/**
 * gr_pass_sync_tsc_offered() - may this guest offer GR_F_SYNC_TSC?
 *
 * Spec 9.5 (v1.10): only on x86, with a TSC of constant rate
 * (X86_FEATURE_CONSTANT_TSC) that does not stop in idle states
 * (X86_FEATURE_NONSTOP_TSC) and that the kernel still trusts across CPUs
 * (!check_tsc_unstable()): then a TSC value read on any vCPU names one
 * instant the host can map through the hypervisor's TSC offset and
 * scaling. Evaluated at each publication.
 *
 * Context: any.
 * Return: true if the bit may be set in guest_features.
 */
bool gr_pass_sync_tsc_offered(void)
{
#ifdef CONFIG_X86
	return boot_cpu_has(X86_FEATURE_TSC) &&
	       boot_cpu_has(X86_FEATURE_CONSTANT_TSC) &&
	       boot_cpu_has(X86_FEATURE_NONSTOP_TSC) && !check_tsc_unstable();
#else
	return false;
#endif
}

/*
 * The answer's time (G24): with GR_F_SYNC_TSC in use (offered and the
 * host's), the TSC read just before and just after the clock (9.5)
 */
static void gr_pass_sync_time(struct gr_dev *gd)
{
#ifdef CONFIG_X86
	u64 before, clock;

	if (READ_ONCE(gd->sync_tsc) && (READ_ONCE(gd->host_features) & GR_F_SYNC_TSC)) {
		before = rdtsc_ordered();
		clock = gr_clock();
		gr_status_sync_time_tsc(gd->region, before, clock,
					rdtsc_ordered());
		return;
	}
#endif
	gr_status_sync_time(gd->region);
}

/**
 * gr_pass_sync() - answer a pending clock-sync request
 * @gd: the device
 *
 * Only while the host's GR_F_CLOCK_SYNC is in effect (spec 9.4: otherwise
 * a request is never answered). The clock is read after the request was
 * loaded and before the ack is stored (G24). With GR_F_VMSYNC and a
 * vm_uid from the host, the request's receipt and the answer's sending
 * are recorded around it, as vmsync_hg_guest and vmsync_gh_guest (spec
 * 9.8).
 *
 * Context: any except NMI; takes @gd->sync_lock.
 * Return: true if an answer was stored (ring GR_VEC_STATUS).
 */
static bool gr_pass_sync(struct gr_dev *gd)
{
	struct gr_host_ctrl *c = gr_ctrl(gd->region);
	unsigned long flags;
	bool answered = false;
	u64 req, uid;

	if (!(READ_ONCE(gd->host_features) & GR_F_CLOCK_SYNC))
		return false;
	raw_spin_lock_irqsave(&gd->sync_lock, flags);
	/* Pairs (spec 10 #11) with the host's smp_store_release() of sync_req */
	req = le64_to_cpu(smp_load_acquire(&c->sync_req));
	if (req != gd->sync_ack) {
		/* spec 9.8: stored by the host before the request's release */
		uid = READ_ONCE(gd->host_features) & GR_F_VMSYNC ?
		      le64_to_cpu(READ_ONCE(c->vm_uid)) : 0;
		if (uid)
			gr_vmsync_rec(GR_EV_vmsync_hg_guest,
				      GR_VMSYNC_HG_CNT(req), uid);
		gr_pass_sync_time(gd);
		if (uid)
			gr_vmsync_rec(GR_EV_vmsync_gh_guest,
				      GR_VMSYNC_GH_CNT(req), uid);
		gr_status_ack_sync(gd->region, req);
		/* read unlocked by gr_pass_sync_poll()'s peek */
		WRITE_ONCE(gd->sync_ack, req);
		answered = true;
	}
	raw_spin_unlock_irqrestore(&gd->sync_lock, flags);
	return answered;
}

/**
 * gr_pass_sync_poll() - answer the next requests of the host's series by
 *	polling sync_req (spec 9.5, v1.12, GR_F_SYNC_POLL)
 * @gd: the device, which just answered a request from GR_VEC_CTRL
 *
 * A round answered from the interrupt pays several wake-ups on the host
 * (tens of microseconds under TCG); while the host's series wants more
 * rounds, it writes the next request at once and spins for the answer.
 * Bounded against a host that keeps asking (G42): the first wait (the
 * host wakes up for the GR_VEC_STATUS just rung) as long as the burst,
 * each later one at most GR_SYNC_POLL_WAIT_NS, the burst at most
 * GR_SYNC_POLL_BURST_NS of polling and GR_SYNC_POLL_MAX answers, and one
 * burst per GR_SYNC_POLL_GAP_NS; so at most GR_SYNC_POLL_BURST_NS plus
 * one answer with interrupts off, once per GR_SYNC_POLL_GAP_NS.
 *
 * No cpu_relax() in the loop: under KVM a PAUSE loop invites pause-loop
 * exiting (the vCPU descheduled), under single-threaded TCG every PAUSE
 * hands the thread to another vCPU; the clock read paces the peeks.
 *
 * Context: hard interrupt (the GR_VEC_CTRL handler only; it alone uses
 * @gd->sync_poll_ns); each answer takes @gd->sync_lock.
 * Return: the number of requests answered.
 */
static unsigned int gr_pass_sync_poll(struct gr_dev *gd)
{
	struct gr_host_ctrl *c = gr_ctrl(gd->region);
	unsigned int n = 0;
	u64 start, last, now;

	if (!(READ_ONCE(gd->host_features) & GR_F_SYNC_POLL))
		return 0;
	start = ktime_get_mono_fast_ns();
	if (!gr_sync_poll_may_start(gd->sync_poll_ns, start))
		return 0;
	gd->sync_poll_ns = start;
	last = start;
	for (;;) {
		now = ktime_get_mono_fast_ns();
		if (!gr_sync_poll_more(start, last, n, now))
			break;
		/* a peek only: gr_pass_sync() loads it with acquire */
		if (le64_to_cpu(READ_ONCE(c->sync_req)) ==
		    READ_ONCE(gd->sync_ack))
			continue;
		if (!gr_pass_sync(gd))
			break;
		n++;
		last = ktime_get_mono_fast_ns();
	}
	return n;
}

/* ---------------------------------------------------------------------- */
/* Settings                                                               */

/* The raw counters of the control block; no ordering needed, see users. */
static void gr_pass_peek(void *region, struct gr_ctrl_snap *s)
{
	struct gr_host_ctrl *c = gr_ctrl(region);

	s->magic = le64_to_cpu(READ_ONCE(c->magic));
	s->seq = le64_to_cpu(READ_ONCE(c->seq));
	s->flush_req = le64_to_cpu(READ_ONCE(c->flush_req));
	s->reset_req = le64_to_cpu(READ_ONCE(c->reset_req));
	s->sync_req = le64_to_cpu(READ_ONCE(c->sync_req));
}

static void gr_pass_remember(struct gr_dev *gd, const struct gr_ctrl_snap *s)
{
	WRITE_ONCE(gd->seen.magic, s->magic);
	WRITE_ONCE(gd->seen.seq, s->seq);
	WRITE_ONCE(gd->seen.flush_req, s->flush_req);
	WRITE_ONCE(gd->seen.reset_req, s->reset_req);
	WRITE_ONCE(gd->seen.sync_req, s->sync_req);
}

/*
 * Is a control pass due? Without sleeping: the block changed since the
 * last pass (a host came or went, seq or a request counter moved), or
 * consumed_errors has something new to publish. A host that changes a
 * field between our peek and the pass's read only causes one more pass.
 */
static bool gr_pass_due(struct gr_dev *gd)
{
	struct gr_ctrl_snap now;

	if (gr_chan_consumed_errors(gd->chan) != READ_ONCE(gd->cerr))
		return true;
	gr_pass_peek(gd->region, &now);
	if (now.magic != READ_ONCE(gd->seen.magic))
		return true;
	if (now.magic != GR_CTRL_MAGIC)
		return false;
	return gr_byname_due(gd) || now.seq != READ_ONCE(gd->seen.seq) ||
	       now.flush_req != READ_ONCE(gd->seen.flush_req) ||
	       now.reset_req != READ_ONCE(gd->seen.reset_req) ||
	       now.sync_req != READ_ONCE(gd->seen.sync_req);
}

static bool gr_bit(const u64 *words, unsigned int n)
{
	return (words[n / 64] >> (n % 64)) & 1;
}

/*
 * Spec 9.7: a state dump when recording starts for a session it has not
 * been taken for: the first recording of a publication, a new
 * session_id. Resets queue their own (gr_pass_run()).
 */
static void gr_pass_dump_check(struct gr_dev *gd)
{
	lockdep_assert_held(&gd->pass_lock);
	if (!gd->running || !gd->cur.tracing)
		return;
	if (gd->dump_done && gd->cur.session_id == gd->dump_session)
		return;
	gd->dump_done = true;
	gd->dump_session = gd->cur.session_id;
	gr_dump_queue(gd);
}

/*
 * Make @want the settings in effect. Events are attached as they are
 * first enabled; one whose probe cannot be attached (no such tracepoint
 * in this kernel) stays disabled, which status.enabled shows. When
 * recording narrows (an event off, or tracing off) synchronize_rcu()
 * waits for the writers that still saw the old value, so the ack that
 * follows is true (spec 9.2).
 */
static void gr_pass_apply(struct gr_dev *gd, const struct gr_settings *want)
{
	struct gr_settings *cur = &gd->cur;
	u64 enable[GR_ENABLE_WORDS] = { 0 };
	bool narrowed = false, on;
	unsigned int id;
	u32 timer_us, state;
	int ret;

	lockdep_assert_held(&gd->pass_lock);
	/* spec 18: the ids added at run time too, once the host may know them */
	for (id = 0; id < gr_desc_live(); id++) {
		on = gr_bit(cur->enable, id);
		if (!gr_bit(want->enable, id)) {
			narrowed |= on;
			continue;
		}
		if (!on) {
			ret = gr_desc_attach(id);
			if (ret) {
				if (!test_and_set_bit(id, gd->attach_failed))
					dev_info(&gd->pdev->dev,
						 "event %s not recorded: attach failed (%d)\n",
						 gr_desc_def(id, NULL, NULL)->name,
						 ret);
				continue;
			}
		}
		enable[id / 64] |= BIT_ULL(id % 64);
	}
	narrowed |= cur->tracing && !want->tracing;

	/* spec 7.2: member ids from the first record the host enables */
	gr_events_set_families(want->host_features);
	gr_rec_set_events(want->tracing ? enable : NULL);
	/* spec G19: no write of a disabled event runs once we acknowledge */
	if (narrowed)
		synchronize_rcu();

	/* Validated by gr_ctrl_read() or at module load */
	WARN_ON_ONCE(gr_chan_set_mode(gd->chan, want->mode));
	gr_chan_set_event_idx(gd->chan, want->host_features & GR_F_EVENT_IDX);
	WRITE_ONCE(gd->host_features, want->host_features);
	WRITE_ONCE(gd->host_peer_id, want->host_peer_id);
	WRITE_ONCE(gd->doorbell_on, gd->has_irqs &&
		   (want->host_features & GR_F_DOORBELL) &&
		   want->host_peer_id <= 0xffff);

	timer_us = want->switch_timer_us ?
		   max(want->switch_timer_us, GR_MIN_SWITCH_TIMER_US) : 0;
	if (timer_us != cur->switch_timer_us)
		gr_dev_switch_set(gd, timer_us);

	*cur = *want;
	memcpy(cur->enable, enable, sizeof(cur->enable));
	cur->switch_timer_us = timer_us;

	state = want->tracing ? GR_STATE_TRACING : GR_STATE_IDLE;
	if (gd->running && state != gd->state)
		gr_status_set_state(gd->region, state);
	gd->state = state;
	gr_pass_dump_check(gd);
}

/* Store what is in effect, then ctrl_ack = @seq (release). */
static void gr_pass_ack_settings(struct gr_dev *gd, u64 seq)
{
	struct gr_ctrl_req r = {
		.seq = seq,
		.session_id = gd->cur.session_id,
	};

	gr_status_applied(gd->region, gd->layout.wide_offset, &r,
			  gd->cur.enable, gd->cur.mode,
			  gd->cur.switch_timer_us);
	gd->ctrl_ack = seq;
}

/* Do two sets hold the same programs for the same events? */
static bool gr_pass_filters_equal(const struct gr_filter_set *a,
				  const struct gr_filter_set *b)
{
	if (!a || !b)
		return a == b;
	return a->nr_progs == b->nr_progs &&
	       !memcmp(a->slot_of, b->slot_of, sizeof(a->slot_of)) &&
	       !memcmp(a->progs, b->progs, a->nr_progs * sizeof(a->progs[0]));
}

/*
 * Make @want (a verified set, or NULL for none) the filters in effect.
 * Spec G31: the set is swapped whole under RCU, and a grace period later
 * no writer still judges records by the old one: then the ack may go out
 * and the old set becomes the spare that the next read fills.
 */
static void gr_pass_apply_filters(struct gr_dev *gd, struct gr_filter_set *want)
{
	struct gr_filter_set *old;

	lockdep_assert_held(&gd->pass_lock);
	if (want && !want->nr_progs)
		want = NULL;
	if (gr_pass_filters_equal(want, gd->fset_active))
		return;
	old = gr_rec_set_filters(want);
	synchronize_rcu();
	gd->fset_active = want;
	if (want)
		gd->fset_read = old ? old :
			(want == &gd->fsets[0] ? &gd->fsets[1] : &gd->fsets[0]);
	dev_info_ratelimited(&gd->pdev->dev, "filters in effect: %u\n",
			     want ? want->nr_progs : 0);
}

/*
 * Spec 17.3: the hist requests, read after ctrl.seq's acquire (@in_use:
 * GR_F_HIST in use, else every slot idle); a change is logged as
 * "hist: N running, M refused" (tests/e2e's guest scripts wait for it).
 */
static void gr_pass_apply_hist(struct gr_dev *gd, bool in_use)
{
	u32 i, refused = 0;

	lockdep_assert_held(&gd->pass_lock);
	if (!gr_hist_apply(&gd->hist, in_use))
		return;
	for (i = 0; i < GR_HIST_REQS; i++)
		refused += gd->hist.gen[i] && !gd->hist.progs[i];
	dev_info(&gd->pdev->dev, "hist: %u running, %u refused\n",
		 hweight32(gr_hist_running(&gd->hist)), refused);
}

/* Do two follow specs ask for the same? */
static bool gr_pass_follow_equal(const struct gr_follow_spec *a,
				 const struct gr_follow_spec *b)
{
	return a->flags == b->flags && a->nr_pids == b->nr_pids &&
	       a->comm_len == b->comm_len &&
	       !memcmp(a->pids, b->pids, a->nr_pids * sizeof(a->pids[0])) &&
	       !memcmp(a->comm, b->comm, a->comm_len);
}

/*
 * Spec 15.2: read and check the follow block into @gd->follow_req and,
 * if it asks for a set other than the one in effect, have one ready in
 * @gd->follow_new (allocated here, in the read step, so that a guest
 * without the memory or the hooks refuses the block rather than
 * acknowledging what it cannot do). 0 or -EINVAL with @gd->ferr.
 */
static int gr_pass_read_follow(struct gr_dev *gd)
{
	struct gr_follow_spec *spec = &gd->follow_req;
	int ret;

	ret = gr_follow_read(gr_ctrl(gd->region), spec, &gd->ferr);
	if (ret || !spec->flags)
		return ret;
	if (gd->follow_active &&
	    gr_pass_follow_equal(spec, &gd->follow_active->spec))
		return 0;
	if (gd->follow_new && gr_pass_follow_equal(spec, &gd->follow_new->spec))
		return 0;
	/* never in effect: no grace period needed */
	gr_follow_free(gd->follow_new);
	gd->follow_new = NULL;
	if (!gr_follow_hooks_attach())
		gd->follow_new = gr_follow_alloc(spec);
	if (gd->follow_new)
		return 0;
	gd->ferr.reason = GR_FILTER_E_SETUP;
	gd->ferr.slot = GR_FILTER_NO_SLOT;
	gd->ferr.insn = GR_FILTER_NO_INSN;
	return -EINVAL;
}

/*
 * Make the set for @spec (NULL or flags 0: none) the follow filter in
 * effect (spec 15.4), swapped as the programs are (G31): a grace period
 * after the swap no probe or hook sees the old set, which is then freed.
 */
static void gr_pass_apply_follow(struct gr_dev *gd,
				 const struct gr_follow_spec *spec)
{
	struct gr_follow *want = NULL, *old;

	lockdep_assert_held(&gd->pass_lock);
	if (spec && spec->flags) {
		if (gd->follow_active &&
		    gr_pass_follow_equal(spec, &gd->follow_active->spec))
			return;
		if (WARN_ON_ONCE(!gd->follow_new))
			return;
		want = gd->follow_new;
		gd->follow_new = NULL;
		gr_follow_seed(want);
	} else if (!gd->follow_active) {
		return;
	}
	old = gr_rec_set_follow(want);
	synchronize_rcu();
	gr_follow_free(old);
	gd->follow_active = want;
	dev_info_ratelimited(&gd->pdev->dev,
			     "follow filter: %u pids, %u tasks followed\n",
			     want ? want->spec.nr_pids : 0,
			     want ? atomic_read(&want->tasks) : 0);
}

/*
 * gr_ctrl_read(), and with GR_F_FILTER in use (ours and the new block's)
 * the filter area into the spare set, with GR_F_FOLLOW the follow block:
 * 0, -EINVAL (a refused block; a refused area or follow block leaves its
 * reason in @gd->ferr) or no block (-ENODEV, -EPROTONOSUPPORT).
 */
static int gr_pass_read(struct gr_dev *gd, struct gr_ctrl_req *req)
{
	u64 use;
	int ret;

	gd->ferr.reason = GR_FILTER_E_NONE;
	ret = gr_ctrl_read(gd->region, gd->layout.wide_offset, gr_desc_live(),
			   req);
	if (ret || gr_ctrl_wants_defaults(req, GR_GUEST_FEATURES))
		return ret;
	use = req->features & GR_GUEST_FEATURES;
	if (use & GR_F_FILTER) {
		ret = gr_ctrl_read_filters(gd->region, req, gr_desc_live(),
					   gr_pass_bounds, gd->fset_read,
					   &gd->ferr);
		if (ret)
			return ret;
	}
	if (use & GR_F_FOLLOW)
		return gr_pass_read_follow(gd);
	return 0;
}

/* Spec 9.4, G30: count and acknowledge a refused block, say why */
static void gr_pass_reject(struct gr_dev *gd, const struct gr_ctrl_req *req)
{
	const struct gr_filter_err *e = &gd->ferr;

	if (e->reason != GR_FILTER_E_NONE) {
		gr_status_filter_rejected(gd->region, e, ++gd->filter_errors);
		dev_info_ratelimited(&gd->pdev->dev,
				     "host filter refused: slot %u, reason %u, instruction %u\n",
				     e->slot, e->reason, e->insn);
	}
	gr_status_rejected(gd->region, req->seq, -EINVAL, ++gd->ctrl_errors);
}

/*
 * A valid host block. Spec 9.6: while the host has not chosen events
 * (GR_CTRL_F_DEFAULTS), the module's default events, without filters,
 * under the host's other settings; status.enabled shows them.
 */
static void gr_pass_apply_host(struct gr_dev *gd, const struct gr_ctrl_req *req)
{
	bool defaults = gr_ctrl_wants_defaults(req, GR_GUEST_FEATURES);
	struct gr_settings want = {
		.host_features = req->features,
		.session_id = req->session_id,
		.tracing = req->tracing,
		.mode = req->mode,
		.switch_timer_us = req->switch_timer_us,
		.host_peer_id = req->host_peer_id,
	};

	memcpy(want.enable, defaults ? gd->params.defaults.enable : req->enable,
	       sizeof(want.enable));
	gr_pass_apply(gd, &want);
	gr_pass_apply_hist(gd, gd->layout.hist_size &&
			   (req->features & GR_F_HIST));
	gr_pass_apply_filters(gd, !defaults && (req->features &
			     GR_GUEST_FEATURES & GR_F_FILTER) ?
			     gd->fset_read : NULL);
	gr_pass_apply_follow(gd, !defaults && (req->features &
			    GR_GUEST_FEATURES & GR_F_FOLLOW) ?
			    &gd->follow_req : NULL);
	gd->host_present = true;
	gr_pass_ack_settings(gd, req->seq);
}

/* No valid host block: the module parameters; ctrl_ack stays. */
static void gr_pass_apply_defaults(struct gr_dev *gd)
{
	gr_pass_apply(gd, &gd->params.defaults);
	gr_pass_apply_hist(gd, false);
	gr_pass_apply_filters(gd, NULL);
	gr_pass_apply_follow(gd, NULL);
	gd->host_present = false;
	gr_pass_ack_settings(gd, gd->ctrl_ack);
}

/**
 * gr_pass_prepare() - settings and status block of a new publication
 * @gd: the device, its channel open, the region withdrawn
 *
 * Spec 5.2 steps 4 and 10: reads the control block once; applies valid
 * settings, or the defaults (counting a rejection of an invalid block);
 * writes the whole status block but state, its acks set to the values
 * read (requests made before the publication are void).
 *
 * Context: process context (attaches probes); before gr_region_publish().
 */
void gr_pass_prepare(struct gr_dev *gd)
{
	struct gr_guest_status *st = gr_status(gd->region);
	struct gr_ctrl_req req;
	struct gr_ctrl_snap s;
	int ret;

	mutex_lock(&gd->pass_lock);
	/* spec 17.1: the hist area of this layout, its states and maps zeroed */
	gr_hist_ctx_init(&gd->hist, gd->layout.hist_size ?
			 (u8 *)gd->region + gd->layout.hist_offset : NULL,
			 gd->layout.hist_size, gd->layout.nr_cpus,
			 gr_desc_count(), gr_pass_bounds, gd->params.clock_freq,
			 gr_desc_attach);
	gr_pass_peek(gd->region, &s);
	gr_pass_remember(gd, &s);
	ret = gr_pass_read(gd, &req);
	if (ret && ret != -EINVAL) {
		/* No block: what is there is void, acknowledged as such */
		req.seq = s.seq;
		req.flush_req = s.flush_req;
		req.reset_req = s.reset_req;
		req.sync_req = s.sync_req;
	}
	memset((u8 *)st + sizeof(st->state), 0,
	       sizeof(*st) - sizeof(st->state));
	gr_byname_prepare(gd);
	gd->ctrl_ack = req.seq;
	if (!ret) {
		gr_pass_apply_host(gd, &req);
	} else {
		gr_pass_apply_defaults(gd);
		if (ret == -EINVAL) {
			dev_info(&gd->pdev->dev,
				 "host control block invalid: using defaults\n");
			gr_pass_reject(gd, &req);
		}
	}
	gd->flush_ack = req.flush_req;
	gd->reset_ack = req.reset_req;
	gd->sync_ack = req.sync_req;
	gr_status_ack_flush(gd->region, req.flush_req);
	gr_status_ack_reset(gd->region, req.reset_req);
	/* Not an answer: sync_guest_time stays 0 (published by the magic) */
	WRITE_ONCE(st->sync_ack, cpu_to_le64(req.sync_req));
	gr_status_set_peer(gd->region, gd->peer_id);
	gr_status_heartbeat(gd->region);
	mutex_unlock(&gd->pass_lock);
}

/**
 * gr_pass_run() - one control pass (spec 9.2)
 * @gd: the device
 *
 * gr_pass_decide() chooses the steps. Those that cost grace periods or
 * IPIs (settings: probes attached, synchronize_rcu() when recording
 * narrows, switch timers restarted; a reset; a flush) run at most once
 * per GR_PASS_MIN_INTERVAL_NS (spec G28); a pass that comes sooner only
 * answers clock sync and leaves them to @gd->pass_retry.
 *
 * Context: process context; may sleep (probe attachment, RCU grace
 * periods). Serialized by @gd->pass_lock; does nothing once the device is
 * stopping.
 */
static void gr_pass_run(struct gr_dev *gd)
{
	struct gr_pass_acks acks;
	struct gr_ctrl_req req;
	struct gr_ctrl_snap s;
	u64 cerr, wait;
	bool notify;
	u32 steps;
	int ret;

	mutex_lock(&gd->pass_lock);
	if (gd->stopping)
		goto out_unlock;
	atomic_long_inc(&gd->passes);
	notify = gr_pass_sync(gd);

	gr_pass_peek(gd->region, &s);
	ret = gr_pass_read(gd, &req);
	acks.ctrl_ack = gd->ctrl_ack;
	acks.flush_ack = gd->flush_ack;
	acks.reset_ack = gd->reset_ack;
	acks.host_present = gd->host_present;
	steps = gr_pass_decide(&acks, ret, &req, &gd->pass_rl, ktime_get_ns(),
			       &wait);
	if (steps & GR_PASS_DEFER) {
		/*
		 * Spec G28: not now, but not lost either. Nothing is
		 * acknowledged and @gd->seen keeps the old block, so the
		 * retry (and the tick) find the request again.
		 */
		schedule_delayed_work(&gd->pass_retry,
				      nsecs_to_jiffies(wait) + 1);
		goto out_status;
	}
	gr_pass_remember(gd, &s);
	if (steps & GR_PASS_APPLY)
		gr_pass_apply_host(gd, &req);
	if (steps & GR_PASS_REJECT) {
		gr_pass_reject(gd, &req);
		gd->ctrl_ack = req.seq;
	}
	if (steps & GR_PASS_DEFAULTS)
		gr_pass_apply_defaults(gd);
	/* spec G19: each ack after its effect is in place, with release */
	if (steps & GR_PASS_RESET) {
		gr_pass_reset(gd);
		/* spec 9.7: the reset discarded the current sub-buffers */
		if (gd->cur.tracing)
			gr_dump_queue(gd);
		gr_status_ack_reset(gd->region, req.reset_req);
		gd->reset_ack = req.reset_req;
	}
	if (steps & GR_PASS_FLUSH) {
		gr_pass_flush(gd);
		gr_status_ack_flush(gd->region, req.flush_req);
		gd->flush_ack = req.flush_req;
	}
	if (steps)
		notify = true;
	/* spec 18.2 N2: after the settings */
	if (gr_byname_pass(gd))
		notify = true;

out_status:
	cerr = gr_chan_consumed_errors(gd->chan);
	if (cerr != gd->cerr) {
		gr_status_set_consumed_errors(gd->region, cerr);
		WRITE_ONCE(gd->cerr, cerr);
	}
	if (notify)
		gr_dev_ring(gd, GR_VEC_STATUS);
out_unlock:
	mutex_unlock(&gd->pass_lock);
}

static void gr_pass_work(struct work_struct *work)
{
	gr_pass_run(container_of(work, struct gr_dev, pass_work));
}

/* Spec 6.11, 14.5: prod.events and status.filtered, once per tick */
static void gr_pass_publish(struct work_struct *work)
{
	struct gr_dev *gd = container_of(work, struct gr_dev, pub_work);
	unsigned int i;
	u64 n;

	mutex_lock(&gd->pass_lock);
	if (!gd->stopping) {
		gr_chan_publish_events(gd->chan);
		/* spec 14.5: filtered records, with the events */
		for (i = 0; i < GR_FILTER_SLOTS; i++) {
			n = gr_chan_filtered(gd->chan, i);
			if (n != gd->filtered[i])
				gr_status_set_filtered(gd->region, i, n);
			gd->filtered[i] = n;
		}
		/* spec 15.4: the follow filter's counts, with the events */
		gr_follow_publish(gd->region, gd->follow_active,
				  gr_chan_filtered(gd->chan, GR_FOLLOW_SLOT));
	}
	mutex_unlock(&gd->pass_lock);
}

static void gr_pass_retry(struct work_struct *work)
{
	gr_pass_run(container_of(to_delayed_work(work), struct gr_dev,
				 pass_retry));
}

/**
 * gr_pass_kick() - the host rang GR_VEC_CTRL
 * @gd: the device
 *
 * Answers a clock-sync request at once, then queues a control pass. A
 * storm of interrupts costs one answer check each and at most one queued
 * pass (G21). After an answer, with GR_F_SYNC_POLL in use, the series'
 * next requests are answered by polling (gr_pass_sync_poll(), bounded by
 * G42); GR_VEC_STATUS is rung once more after such answers, for a host
 * that stopped spinning.
 *
 * Context: hard interrupt.
 */
void gr_pass_kick(struct gr_dev *gd)
{
	if (!READ_ONCE(gd->running) || READ_ONCE(gd->stopping))
		return;
	if (gr_pass_sync(gd)) {
		gr_dev_ring(gd, GR_VEC_STATUS);
		if (gr_pass_sync_poll(gd))
			gr_dev_ring(gd, GR_VEC_STATUS);
	}
	schedule_work(&gd->pass_work);
}

static unsigned long gr_pass_tick_period(struct gr_dev *gd)
{
	return msecs_to_jiffies(READ_ONCE(gd->doorbell_on) ?
				GR_TICK_DOORBELL_MS : GR_TICK_POLL_MS);
}

static void gr_pass_tick(struct timer_list *t)
{
	struct gr_dev *gd = from_timer(gd, t, tick);

	if (READ_ONCE(gd->stopping))
		return;
	gr_status_heartbeat(gd->region);
	schedule_work(&gd->pub_work);
	if (gr_pass_due(gd))
		schedule_work(&gd->pass_work);
	/* spec G20: a pass at least every second, every 100 ms when polling */
	mod_timer(&gd->tick, jiffies + gr_pass_tick_period(gd));
}

/**
 * gr_pass_dev_init() - initialize the control state of a new device
 * @gd: the device, zeroed
 *
 * Context: process context.
 */
void gr_pass_dev_init(struct gr_dev *gd)
{
	mutex_init(&gd->pass_lock);
	raw_spin_lock_init(&gd->sync_lock);
	INIT_WORK(&gd->pass_work, gr_pass_work);
	INIT_DELAYED_WORK(&gd->pass_retry, gr_pass_retry);
	INIT_WORK(&gd->pub_work, gr_pass_publish);
	gr_dump_dev_init(gd);
	gd->pass_rl.interval_ns = GR_PASS_MIN_INTERVAL_NS;
	gd->fset_read = &gd->fsets[0];
	timer_setup(&gd->tick, gr_pass_tick, 0);
}

/* ---------------------------------------------------------------------- */
/* Start and stop                                                         */

/**
 * gr_pass_start() - start the control passes of an active device
 * @gd: the device, just activated (gr_dev_activate())
 *
 * Spec 5.2 steps 12 and 13: the state dump of the first session, the
 * tick, GR_VEC_STATUS, and a control pass at once (a host kick sent
 * before our vectors were enabled is lost).
 *
 * Context: process context; may sleep.
 */
void gr_pass_start(struct gr_dev *gd)
{
	WRITE_ONCE(gd->running, true);
	mutex_lock(&gd->pass_lock);
	gr_pass_dump_check(gd);	/* spec 9.7: recording from publication on */
	mutex_unlock(&gd->pass_lock);
	mod_timer(&gd->tick, jiffies + gr_pass_tick_period(gd));
	gr_dev_ring(gd, GR_VEC_STATUS);
	/* spec G20: a pass right after publication */
	gr_pass_run(gd);
}

/**
 * gr_pass_stop() - stop control passes, the tick and recording
 * @gd: the device
 *
 * Afterwards no control pass does anything, no tick runs, and probes no
 * longer record (the device stays active until gr_dev_deactivate()).
 * The caller then waits for the interrupt handlers (they are freed at
 * unbind, devm) and cancels @gd->pass_work, @gd->pass_retry,
 * @gd->pub_work and @gd->dump_work, which may still be queued (they do
 * nothing, or stop early).
 *
 * Context: process context; may sleep.
 */
void gr_pass_stop(struct gr_dev *gd)
{
	mutex_lock(&gd->pass_lock);
	WRITE_ONCE(gd->stopping, true);
	mutex_unlock(&gd->pass_lock);
	del_timer_sync(&gd->tick);

	gr_rec_set_events(NULL);
	/* spec 17: no request runs on the maps once the region goes */
	gr_hist_stop(&gd->hist);
	/* @gd holds the sets: none in effect once the caller's grace period ends */
	gr_rec_set_filters(NULL);
	gd->fset_active = NULL;
	/* The follow sets are ours to free, a grace period after */
	gr_rec_set_follow(NULL);
	synchronize_rcu();
	gr_follow_free(gd->follow_active);
	gr_follow_free(gd->follow_new);
	gd->follow_active = NULL;
	gd->follow_new = NULL;
}

/**
 * gr_pass_drain_wait() - give the host a moment to consume (spec 5.5)
 * @gd: the device; no writer may run on its channel any more
 *
 * With a host present, waits until every ring's consumed (each load
 * checked by the core) reaches what was produced, for at most
 * GR_DRAIN_WAIT_MS: the only wait on a value from the region, bounded in
 * time (spec G27).
 *
 * Context: process context; sleeps.
 */
void gr_pass_drain_wait(struct gr_dev *gd)
{
	unsigned long end = jiffies + msecs_to_jiffies(GR_DRAIN_WAIT_MS);
	struct gr_chan *chan = gd->chan;
	struct gr_buf *buf;
	bool pending;
	u32 i;

	if (!gd->host_present)
		return;
	for (;;) {
		pending = false;
		for (i = 0; i < chan->layout.nr_rings; i++) {
			buf = &chan->bufs[i];
			gr_subbufs_consumed(chan, i);
			pending |= buf->consumed != buf->published;
		}
		if (!pending || time_after(jiffies, end))
			return;
		msleep(20);
	}
}
