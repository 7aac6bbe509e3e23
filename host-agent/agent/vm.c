// SPDX-License-Identifier: GPL-2.0
/*
 * vm.c - one traced VM: its life cycle, the state machine of spec 5.6
 * as the host sees it
 *
 *   vm_add()  shared memory /dev/shm/guestrelay-<vm> (kept across agent
 *             restarts, so a new agent resumes), our control block, and
 *             for the doorbell device an ivshmem server on <run>/<vm>.sock
 *   WAITING   poll the region until the guest publishes a layout that
 *             passes every check (a private copy: gr_check_region_hdr,
 *             gr_check_event_desc)
 *   ATTACHED  a session directory, CTF metadata, stream files; the
 *             consumer drains the rings; clock sync; commands
 *   STOPPED   `guestrelay stop`: session closed, tracing off in the guest
 *
 * A new instance_id (module reloaded, guest rebooted) closes the session
 * and attaches again. QEMU leaving (VM killed or shut down) drains what
 * the guest produced, takes a snapshot in flight-recorder mode, and closes
 * the session.
 *
 * The parts, each in its own file with its own state in struct gr_vm
 * (vm.h): peer.c (ivshmem server and doorbells), hostctl.c (control
 * block, acknowledgements, clock sync), session.c (trace directories),
 * consumer.c (rings -> stream files), snapshot.c (flight-recorder
 * snapshots), waiter.c (flush, snapshot, stop), vm_filter.c (filters).
 * This file is the one that decides a VM's life: it calls the parts,
 * they never call it. A wake-up (the VM's timer here, or a doorbell that
 * peer.c reports) is one vm_wake() pass; what the parts report in their
 * state (a doorbell, QEMU leaving, writes completed, the stream stopped,
 * a kick owed to the guest, a clock series ended, a snapshot finished)
 * is handled once per loop pass by vm_before_wait(), the only place that
 * closes a session after the guest left and frees a removed VM.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>

#include "live.h"
#include "vm.h"

#define MS				1000000ULL
#define GR_POLL_WAITING_NS		(100 * MS)
#define GR_POLL_DOORBELL_NS		(20 * MS)
#define GR_POLL_MIN_NS			(1 * MS)
#define GR_POLL_MAX_NS			(100 * MS)

static void vm_wake(struct gr_vm *vm);
static void vm_arm_timer(struct gr_vm *vm);

/**
 * vm_set_mode() - stream (no-overwrite) or flight recorder (overwrite)
 * @vm: the VM
 * @mode: GR_MODE_*
 * @err: receives a message on failure
 * @errlen: size of @err
 *
 * Return: 0 or -EINVAL.
 */
int vm_set_mode(struct gr_vm *vm, uint32_t mode, char *err, size_t errlen)
{
	if (mode != GR_MODE_STREAM && mode != GR_MODE_FLIGHT) {
		snprintf(err, errlen, "mode must be stream or flight");
		return -EINVAL;
	}
	if (vm->state != GR_VM_WAITING && mode == GR_MODE_FLIGHT &&
	    !(vm->view.features & GR_F_FLIGHT)) {
		snprintf(err, errlen, "the guest of %s has no flight-recorder mode",
			 vm->opts.name);
		return -EINVAL;
	}
	vm->opts.mode = mode;
	hostctl_publish(vm);
	vm_wake(vm);
	return 0;
}

/* ---- attach ------------------------------------------------------------ */

/*
 * A session: its directory (session.c), its clock if it is resumed
 * (hostctl.c), its metadata, its stream files (consumer.c). On error the
 * caller closes what was opened (close_session_failed()).
 */
static int open_session(struct gr_vm *vm, bool try_resume)
{
	int ret;

	ret = session_open(vm, try_resume);
	if (ret)
		return ret;
	if (vm->sess.resumed)
		hostctl_clock_resume(vm, &vm->sess.resumed_clock);
	ret = rot_open(vm);
	if (ret)
		return ret;
	ret = session_write_files(vm, rot_data_fd(vm), vm->sess.name);
	if (ret)
		return ret;
	/* <session>/host (<chunk>/host): without it, the guest's goes on */
	ht_open(vm, rot_data_fd(vm));
	ret = cons_open_rings(vm, vm->sess.resumed);
	if (!ret)
		clients_open(vm);
	if (!ret)	/* its stream and index files exist */
		live_session_open(vm->opts.name, vm->sess.name,
				  vm->rot.chunked ? vm->rot.id : 0,
				  vm->view.nr_rings, vm->view.clock_freq,
				  vm->opts.switch_timer_us);
	return ret;
}

static void close_session_failed(struct gr_vm *vm)
{
	cons_close_rings(vm);
	clients_close(vm);
	ht_close(vm);
	if (vm->rot.chunked && vm->rot.fd >= 0)
		rot_end(vm);
	session_abandon(vm);
}

/* The session ends: the rings are idle (cons_idle()) */
static void close_session(struct gr_vm *vm)
{
	cons_close_rings(vm);
	clients_close(vm);
	live_session_close(vm->opts.name, vm->sess.name);
	ht_close(vm);
	if (vm->rot.chunked && vm->rot.fd >= 0) {
		/* the last chunk's final metadata, then it is closed too */
		session_write_files(vm, vm->rot.fd, vm->sess.name);
		rot_end(vm);
	}
	session_close(vm);
	vm->meta_stale = false;		/* session_close() wrote the files */
}

/*
 * A rotation (rotate.c asked for it, the rings are idle): the next chunk
 * with its metadata, every stream moved into it, the closed chunk's
 * metadata once more (the newest clock), then it goes to archives/
 */
static void rotate_chunk(struct gr_vm *vm)
{
	char old_name[GR_CHUNK_NAME_MAX];
	int old_fd, ret;

	ret = rot_next(vm, &old_fd, old_name, sizeof(old_name));
	if (ret)
		goto out;
	ret = session_write_files(vm, vm->rot.fd, vm->sess.name);
	if (ret) {
		rot_undo(vm, old_fd, old_name);
		goto out;
	}
	ret = cons_switch_files(vm);
	clients_switch_files(vm);
	ht_switch_files(vm, rot_data_fd(vm));
	live_session_rotate(vm->opts.name, vm->sess.name, vm->rot.id);
	session_write_files(vm, old_fd >= 0 ? old_fd : vm->sess.fd,
			    vm->sess.name);
	ret = rot_close_chunk(vm, old_fd, old_name) ?: ret;
out:
	if (ret)
		syslog(LOG_ERR, "%s: rotation of %s failed: %s", vm->opts.name,
		       vm->sess.path, strerror(-ret));
	rot_answer(vm, ret);
}

static void detach(struct gr_vm *vm)
{
	vm_names_cancel(vm, -ENOTCONN, "the session ended before the guest answered");
	/* the guest's own counters of the session, for status afterwards */
	if (vm->state != GR_VM_WAITING)
		vm_get_stats(vm, &vm->st);
	close_session(vm);
	free(vm->events);
	free(vm->desc_copy);
	vm->events = NULL;
	vm->desc_copy = NULL;
	/*
	 * Spec 18.3 M6: the ids named the instance that went, those added
	 * by name too; the next guest refuses a block enabling an id it
	 * does not describe (9.2), and attach resolves the events again
	 */
	memset(vm->enable, 0, sizeof(vm->enable));
	vm->state = GR_VM_WAITING;
}

static void reject(struct gr_vm *vm, uint64_t instance, const char *what,
		   const char *why)
{
	if (vm->rejected_instance == instance && vm->why[0])
		return;
	vm->rejected_instance = instance;
	vm->st.bad_region++;
	snprintf(vm->why, sizeof(vm->why), "%s: %s", what, why);
	syslog(LOG_WARNING, "%s: guest publication rejected: %s", vm->opts.name,
	       vm->why);
}

/*
 * H2-H5: the publication's header and descriptors, each copied once and
 * checked, into @vm's view, events and descriptor copies. Returns 0, or
 * -errno with the publication rejected (reject(): said once, counted).
 */
static int check_publication(struct gr_vm *vm, struct gr_region_hdr *copy,
			     uint64_t instance)
{
	const char *why = NULL;
	unsigned int i;

	/* H3, H4 */
	if (gr_check_region_hdr(copy, vm->size, &vm->view, &why)) {
		reject(vm, instance, "region header", why);
		return -EINVAL;
	}
	vm->hdr_copy = *copy;
	free(vm->events);
	free(vm->desc_copy);
	vm->events = calloc(vm->view.desc_count + 1, sizeof(*vm->events));
	vm->desc_copy = calloc(vm->view.desc_count + 1, sizeof(*vm->desc_copy));
	if (!vm->events || !vm->desc_copy) {
		reject(vm, instance, "attach", "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < vm->view.desc_count; i++) {
		/* H5: each descriptor copied once, checked (v1.15: with
		 * its extension, spec 20.3 K2)
		 */
		gr_copy_desc_slot(&vm->view, vm->region, i, &vm->desc_copy[i]);
		if (gr_check_desc_slot(&vm->view, &vm->desc_copy[i], i,
				       &vm->events[i], &why)) {
			reject(vm, instance, "event descriptor", why);
			return -EINVAL;
		}
	}
	if (gr_check_event_names(vm->events, vm->view.desc_count, &why) ||
	    gr_check_families(&vm->view, vm->events, vm->view.desc_count,
			      &why)) {
		reject(vm, instance, "event descriptors", why);
		return -EINVAL;
	}
	return 0;
}

/*
 * The events of the new session: --events (or the defaults), then what
 * enable and disable changed while an earlier guest ran, in their order,
 * into vm->enable and vm->vmsync_events; *@list is the list, *@ask what
 * it names beyond the table (spec 18, M6), both the caller's to free.
 * Returns 0 or -ENOMEM.
 */
static int session_events(struct gr_vm *vm, char **list, char **ask)
{
	uint64_t clr[GR_WIDE_MAX_EVENTS / 64] = { 0 };
	char err[256], *asked;
	unsigned int i;

	*list = vm_events_list(vm, true);
	asked = vm_events_list(vm, false);	/* never the defaults */
	*ask = asked ? malloc(strlen(asked) + 1) : NULL;
	if (!*list || !*ask) {
		free(asked);
		return -ENOMEM;
	}
	memset(vm->enable, 0, sizeof(vm->enable));
	vm_resolve_events(vm, *list, false, vm->enable, clr, err, sizeof(err));
	/* spec 9.8: the guest's vmsync events, recorded if chosen */
	memset(vm->vmsync_events, 0, sizeof(vm->vmsync_events));
	if (vm->view.features & GR_F_VMSYNC)
		vm_resolve_events(vm, "vmsync", false, vm->vmsync_events, clr,
				  err, sizeof(err));
	for (i = 0; i < GR_WIDE_MAX_EVENTS / 64 && !vm->enable[i]; i++)
		;
	/* spec 18, M6: what the list names beyond the table is asked for */
	vm_events_to_ask(vm, asked, *ask, strlen(asked) + 1);
	free(asked);
	if (i == GR_WIDE_MAX_EVENTS / 64 && !(*ask)[0])
		syslog(LOG_WARNING, "%s: none of the events asked for (%s) exists in this guest; recording nothing (guestrelay enable %s EVENT...)",
		       vm->opts.name, *list, vm->opts.name);
	return 0;
}

static void try_attach(struct gr_vm *vm, bool try_resume)
{
	char err[256], *list = NULL, *ask = NULL;
	struct gr_region_hdr copy;
	uint64_t instance;
	int ret;

	if (vm_load_magic(vm) != GR_REGION_MAGIC)
		return;
	/* H2: a private copy, re-checked against the publication (10 #2) */
	if (gr_read_region_hdr(vm->region, vm->size, &copy))
		return;
	instance = le64toh(copy.instance_id);
	if (vm->closed_instance && instance == vm->closed_instance)
		return;		/* its session ended: wait for a new one */
	if (vm->rejected_instance && instance == vm->rejected_instance)
		return;		/* already rejected and logged */
	if (check_publication(vm, &copy, instance))
		goto fail;
	vm->instance_id = instance;
	vm->why[0] = '\0';
	/* spec 18.2 N6: from the header's desc_count again */
	memset(&vm->desc, 0, sizeof(vm->desc));
	hostctl_sync_reset(vm);
	memset(&vm->st, 0, sizeof(vm->st));
	vm->stop_reason = GR_STOP_NONE;
	/*
	 * spec 18.3 M2: what the guest added before (a restarted agent),
	 * before the session's files are written and the events resolved
	 */
	vm_desc_refresh(vm);
	if (session_events(vm, &list, &ask)) {
		reject(vm, instance, "attach", "out of memory");
		goto fail;
	}
	ret = open_session(vm, try_resume);
	if (ret) {
		syslog(LOG_ERR, "%s: cannot open a trace under %s: %s",
		       vm->opts.name, vm->agent->store_dir, strerror(-ret));
		close_session_failed(vm);
		goto fail;
	}
	vm->state = GR_VM_ATTACHED;
	vm->tracing = 1;
	/*
	 * Spec 9.7: a restarted agent's new session on a guest that was
	 * already recording gets its own state dump; the first session of
	 * a publication has the dump the guest took at publication.
	 */
	if (try_resume && !vm->sess.resumed)
		hostctl_new_session(vm);
	hostctl_publish(vm);
	hostctl_sync_start(vm);
	if (ask[0] && vm_names_add(vm, GR_NAMES_ATTACH, ask, list, NULL, NULL,
				   err, sizeof(err)))
		syslog(LOG_WARNING, "%s: cannot ask the guest for events by name (%s): %s",
		       vm->opts.name, ask, err);
	free(ask);
	free(list);
	syslog(LOG_INFO, "%s: attached: guest %s (%s), %u rings of %u x %u bytes, trace %s",
	       vm->opts.name, vm->view.kernel_release, vm->view.nodename,
	       vm->view.nr_rings, vm->view.n_subbufs, vm->view.subbuf_size,
	       vm->sess.path);
	return;
fail:
	free(ask);
	free(list);
	free(vm->events);
	free(vm->desc_copy);
	vm->events = NULL;
	vm->desc_copy = NULL;
	vm->rejected_instance = instance;
}

/*
 * A snapshot of the rings (snapshot.c), for @why: its directory, its
 * metadata, then the copy through the loop; vm_before_wait() collects it
 * when it finished (snap_collect()).
 */
static int start_snapshot(struct gr_vm *vm, enum gr_snap_for why)
{
	struct gr_snap *s;
	int ret;

	if (vm->snap)
		return -EBUSY;
	ret = snap_open(vm, &s);
	if (ret)
		return ret;
	ret = session_write_files(vm, snap_dirfd(s), snap_name(s));
	if (ret) {
		snap_abort(s);
		return ret;
	}
	vm->snap = s;
	vm->snap_for = why;
	snap_go(s);
	return 0;
}

/* A snapshot finished: answer whoever asked for it, free it */
static void snap_collect(struct gr_vm *vm)
{
	char path[PATH_MAX + 256];
	int err;

	if (!vm->snap || !snap_finished(vm->snap, &err))
		return;
	snprintf(path, sizeof(path), "%s/%s/%s", vm->agent->store_dir,
		 vm->opts.name, snap_name(vm->snap));
	snap_free(vm->snap);
	vm->snap = NULL;
	if (vm->snap_for == GR_SNAP_FOR_COMMAND)
		/* `guestrelay snapshot`: once every write and fsync completed */
		waiter_finish(vm, err, err ? strerror(-err) : path);
	else if (err)
		syslog(LOG_INFO, "%s: %s", vm->opts.name, vm->gone_what);
	else
		syslog(LOG_INFO, "%s: %s; flight-recorder snapshot in %s",
		       vm->opts.name, vm->gone_what, path);
}

/*
 * The guest left or withdrew its layout: end the session cleanly. In
 * flight mode a snapshot is taken first; the session closes once it and
 * the writes in flight completed (vm_progress()).
 */
static void guest_gone(struct gr_vm *vm, const char *what)
{
	if (vm->state != GR_VM_ATTACHED || vm->closing)
		return;
	vm->gone_what = what;
	if (vm->opts.mode != GR_MODE_FLIGHT || vm->snap ||
	    start_snapshot(vm, GR_SNAP_FOR_GONE))
		syslog(LOG_INFO, "%s: %s%s", vm->opts.name, what,
		       vm->snap ? "; a snapshot is being taken" : "");
	if (vm->stop_reason == GR_STOP_NONE)	/* keep quota / disk */
		vm->stop_reason = GR_STOP_GUEST;
	vm->closing = true;
}

/*
 * A stopped VM whose guest withdrew or re-published: what we knew of the
 * layout is stale. Back to waiting; a valid publication attaches anew.
 */
static void stopped_guest_gone(struct gr_vm *vm)
{
	syslog(LOG_INFO, "%s: the guest re-published or withdrew its layout while stopped",
	       vm->opts.name);
	cons_close_rings(vm);
	vm->state = GR_VM_WAITING;
	vm->closed_instance = vm->instance_id;
	memset(vm->enable, 0, sizeof(vm->enable));	/* M6, as detach() */
	hostctl_publish(vm);	/* spec 9.6: the next instance's own events */
}

/*
 * H7: before the host stores into the region again (vm_start), the
 * layout must still be the one validated: re-read the header, validate
 * it, and compare instance and geometry with our view.
 */
static int revalidate(struct gr_vm *vm, const char **why)
{
	struct gr_region_hdr copy;
	struct gr_view v;

	if (gr_read_region_hdr(vm->region, vm->size, &copy)) {
		*why = "the layout is not published";
		return -ESTALE;
	}
	if (gr_check_region_hdr(&copy, vm->size, &v, why))
		return -ESTALE;
	if (v.instance_id != vm->instance_id ||
	    v.nr_rings != vm->view.nr_rings ||
	    v.subbuf_size != vm->view.subbuf_size ||
	    v.n_subbufs != vm->view.n_subbufs ||
	    v.ring_offset != vm->view.ring_offset ||
	    v.subbuf_rec_offset != vm->view.subbuf_rec_offset ||
	    v.data_offset != vm->view.data_offset) {
		*why = "the guest published another layout";
		return -ESTALE;
	}
	return 0;
}

/* `guestrelay stop` is complete: close the session (the rings are idle) */
static void stopped(struct gr_vm *vm)
{
	close_session(vm);
	vm->state = GR_VM_STOPPED;
	vm->stop_reason = GR_STOP_USER;
}

/*
 * Closing and the waiting command, re-examined after anything happened:
 * the session of a guest that left ends once its writes and snapshot
 * completed; a command's last step runs here.
 */
static void vm_progress(struct gr_vm *vm)
{
	char path[sizeof(vm->sess.path)];
	int ret;

	if (vm->closing && cons_idle(vm) && !vm->snap) {
		vm->closing = false;
		detach(vm);
		vm->closed_instance = vm->instance_id;
		/* spec 9.6: a re-publishing guest records its own events */
		hostctl_publish(vm);
	}
	switch (waiter_progress(vm)) {
	case GR_WAIT_STEP_NONE:
		break;
	case GR_WAIT_STEP_SNAPSHOT:
		ret = start_snapshot(vm, GR_SNAP_FOR_COMMAND);
		if (ret)
			waiter_finish(vm, ret, strerror(-ret));
		break;
	case GR_WAIT_STEP_STOP:
		snprintf(path, sizeof(path), "%s", vm->sess.path);
		stopped(vm);
		waiter_finish(vm, 0, path);
		break;
	}
}

/* QEMU disconnected: store what the guest produced, then end the session */
static void guest_left(struct gr_vm *vm)
{
	rot_drop(vm);
	cons_drain(vm);
	clients_drain(vm, true);
	guest_gone(vm, "QEMU disconnected");
}

/*
 * The storage rate: bytes this agent stored, over its own clock, never a
 * guest value. A new session restarts st.bytes: the window restarts too.
 */
static void update_rate(struct gr_vm *vm, uint64_t now)
{
	if (vm->st.bytes < vm->rate_bytes0) {
		vm->rate_bytes0 = vm->st.bytes;
		vm->rate_t0 = now;
		vm->rate_bps = 0;
		return;
	}
	if (now - vm->rate_t0 < 1000 * MS)
		return;
	vm->rate_bps = (double)(vm->st.bytes - vm->rate_bytes0) * 1e9 /
		       (double)(now - vm->rate_t0);
	vm->rate_t0 = now;
	vm->rate_bytes0 = vm->st.bytes;
}

/*
 * One pass: everything a wake-up (timer, doorbell) has to look at (H19:
 * all rings, whatever woke us)
 */
static void vm_wake(struct gr_vm *vm)
{
	uint32_t gstate;
	uint64_t magic;

	if (vm->dying)
		return;
	switch (vm->state) {
	case GR_VM_WAITING:
		if (!vm->closing)
			try_attach(vm, vm->resume_pending);
		vm->resume_pending = false;
		break;
	case GR_VM_ATTACHED:
		if (vm->closing)
			break;
		if (!vm_same_publication(vm, &magic)) {
			/*
			 * Spec 5.5: on magic = 0 the layout is still the one
			 * withdrawn: a final drain pass with our private copy
			 * of it, then the session closes. Another magic, or
			 * another instance: a new layout is (being) written,
			 * nothing may be stored into it (H7): no drain.
			 */
			rot_drop(vm);
			if (!magic) {
				cons_drain(vm);
				clients_drain(vm, true);
			}
			guest_gone(vm, "the guest withdrew its layout");
			break;
		}
		/* spec 18.3 M2: descriptors added since the last pass */
		vm_desc_refresh(vm);
		cons_drain(vm);
		clients_drain(vm, false);
		vm->hc.vmsync_uid = hostctl_vmsync_recorded(vm) ? ht_vm_uid(vm) : 0;
		hostctl_sync_check(vm);
		ht_vmsync(vm);
		gstate = hostctl_guest_state(vm);
		if (gstate == GR_STATE_PANIC && !vm->saw_panic) {
			vm->saw_panic = true;
			syslog(LOG_WARNING, "%s: the guest panicked; its last events are in %s",
			       vm->opts.name, vm->sess.path);
		}
		cons_arm_event_idx(vm);
		break;
	case GR_VM_STOPPED:
		/* a new publication while stopped is a new guest (H7) */
		if (!vm_same_publication(vm, &magic))
			stopped_guest_gone(vm);
		break;
	}
	/* spec 18: the answer to a request for events by name */
	vm_names_poll(vm);
	update_rate(vm, gr_now_ns());
}

/* ---- loop callbacks -------------------------------------------------------- */

/*
 * The poll timer. The agent has one timeout in the loop for all its VMs
 * (struct gr_agent.poll_op), not one per VM: each VM keeps the time its
 * next pass is due (timer_due_ns); the timeout ends at the earliest of
 * them, and every VM due by then gets its pass in that one wake-up. A
 * due time is rounded down to a multiple of the VM's interval on the
 * monotonic clock, so VMs on the same interval (every doorbell VM:
 * GR_POLL_DOORBELL_NS) are due at the same instants: 64 of them cost the
 * loop 50 wake-ups a second, each one pass of every VM and one settle,
 * not 3200. No pass is later than the interval after the last one (spec
 * 8.4's period; H17's 5 ms); the first after a change of interval may
 * come sooner.
 */

/* The timeout at the earliest due time of the agent's VMs */
static void poll_arm(struct gr_agent *a)
{
	uint64_t due = 0, now;
	struct gr_vm *vm;

	for (vm = a->vms; vm; vm = vm->next)
		if (vm->timer_due_ns && (!due || vm->timer_due_ns < due))
			due = vm->timer_due_ns;
	if (!due)
		return;
	if (a->poll_op.busy) {
		/* a shorter wait than the armed one: poll_done() arms again */
		if (a->poll_due_ns > due) {
			gr_loop_cancel(&a->loop, &a->poll_op);
			a->poll_due_ns = 0;
		}
		return;
	}
	now = gr_now_ns();
	if (!gr_loop_timeout(&a->loop, &a->poll_op, due > now ? due - now : 1)) {
		a->poll_due_ns = due;
		/* no reason to settle every VM: each one passed is touched */
		a->poll_op.touch = &a->poll_fired;
	}
}

/*
 * The next poll of the VM (spec 8.4, 8.5; H17: every wait for the guest
 * is re-examined at least every 5 ms)
 */
static void vm_arm_timer(struct gr_vm *vm)
{
	struct gr_agent *a = vm->agent;
	uint64_t ns, due;

	if (vm->dying)
		return;
	if (vm->state != GR_VM_ATTACHED)
		ns = GR_POLL_WAITING_NS;
	else if (vm->doorbell && vm->peer.guest_peer >= 0)
		ns = GR_POLL_DOORBELL_NS;
	else
		ns = vm->poll_ns;
	if (vm->waiter.active || vm->closing || vm->names.active ||
	    hostctl_sync_wants_fast_poll(vm))
		ns = ns > 5 * MS ? 5 * MS : ns;
	/* on the interval's grid: > now, <= now + ns */
	due = (gr_now_ns() + ns) / ns * ns;
	/* a pass due sooner stays: a command may shorten the wait, never
	 * lengthen it
	 */
	if (vm->timer_due_ns && vm->timer_due_ns <= due)
		return;
	vm->timer_due_ns = due;
	if (a->polling)
		return;		/* poll_done() arms the timer after its passes */
	if (!a->poll_op.busy || a->poll_due_ns > due)
		poll_arm(a);
}

/* One VM's timer pass */
static void timer_pass(struct gr_vm *vm)
{
	uint64_t before = vm->cons.taken;

	vm->touched = true;	/* settled in this loop pass */
	vm->st.polls++;
	vm_wake(vm);
	if (!vm->dying) {
		vcpu_tick(&vm->vcpu, vm->peer.guest_peer >= 0 ?
			  vm->peer.qemu_pid : 0, gr_now_ns(), vm->opts.name);
		ht_tick(vm, gr_now_ns());
	}
	/*
	 * Adaptive interval (spec 8.5): back to the minimum after a pass
	 * that found data (examined a sub-buffer; its write completes
	 * later), doubled after one that found none, up to the maximum.
	 */
	if (vm->cons.taken != before)
		vm->poll_ns = GR_POLL_MIN_NS;
	else
		vm->poll_ns = vm->poll_ns * 2 < GR_POLL_MAX_NS ?
			      vm->poll_ns * 2 : GR_POLL_MAX_NS;
	vm_arm_timer(vm);
}

/* The timeout ended (or was cancelled for a shorter one): the passes due */
static void poll_done(struct gr_op *op, int res, unsigned int flags)
{
	struct gr_agent *a = container_of(op, struct gr_agent, poll_op);
	struct gr_vm *vm;
	uint64_t now = gr_now_ns();

	(void)res;
	(void)flags;
	a->poll_due_ns = 0;
	a->polling = true;
	/* a pass never frees a VM (only vm_before_wait() does) */
	for (vm = a->vms; vm; vm = vm->next) {
		if (!vm->timer_due_ns || vm->timer_due_ns > now)
			continue;
		vm->timer_due_ns = 0;
		timer_pass(vm);
	}
	a->polling = false;
	poll_arm(a);
}

/* ---- add / remove / commands ------------------------------------------------ */

/**
 * vm_add() - serve a VM: its shared memory, control block and socket
 * @a: the agent
 * @o: options (copied)
 * @vmp: receives the VM
 * @err: receives a message on failure
 * @errlen: size of @err
 *
 * H1: a new region is created zero-filled, of a power-of-two size, and
 * mapped whole. An existing /dev/shm/guestrelay-<vm> of the right size is
 * reused: that is how a restarted agent resumes a running guest (spec
 * 5.1 step 3; QEMU keeps its mapping; doorbells are gone until the VM
 * restarts, so the agent polls).
 *
 * Return: 0 or -errno.
 */
int vm_add(struct gr_agent *a, const struct gr_vm_opts *o, struct gr_vm **vmp,
	   char *err, size_t errlen)
{
	struct ivsh_shm_file_opts fo = {
		.flags = IVSH_SHM_REUSE,
		.mode = o->own ? 0660 : 0600,
		.uid = (uid_t)-1,
		.gid = (gid_t)-1,
	};
	char name[GR_VM_NAME_MAX + 16], sock[PATH_MAX];
	struct gr_vm *vm;
	struct stat before;
	bool existed;
	int ret;

	if (ivsh_shm_check_name(o->name) || strlen(o->name) >= GR_VM_NAME_MAX) {
		snprintf(err, errlen, "invalid VM name '%s' (letters, digits, '_', '.', '-'; no leading dot)",
			 o->name);
		return -EINVAL;
	}
	if (vm_find(a, o->name)) {
		snprintf(err, errlen, "VM '%s' is already served", o->name);
		return -EEXIST;
	}
	if (o->mode != GR_MODE_STREAM && o->mode != GR_MODE_FLIGHT) {
		snprintf(err, errlen, "mode must be stream or flight");
		return -EINVAL;
	}
	vm = calloc(1, sizeof(*vm));
	if (!vm)
		return -ENOMEM;
	vm->agent = a;
	vm->opts = *o;
	if (!vm->opts.shm_size)
		vm->opts.shm_size = GR_DEFAULT_SHM_SIZE;
	vm->shm.fd = -1;
	session_init(&vm->sess);
	ht_init(&vm->ht);
	rot_init(&vm->rot);
	cons_init(&vm->cons);
	vm_hist_init(vm);
	vm->peer.guest_peer = -1;
	vm->tracing = 1;
	vm->doorbell = !o->plain;
	vm->poll_ns = GR_POLL_MIN_NS;	/* spec 8.5: start at the minimum */
	a->poll_op.done = poll_done;
	if (o->own) {
		fo.flags |= IVSH_SHM_CHOWN;
		fo.uid = o->uid;
		fo.gid = o->gid;
	}

	/* spec 18.4: vm-add --probe, defined when the guest attaches */
	ret = vm_probes_init(vm, err, errlen);
	if (ret)
		goto out_free;

	snprintf(name, sizeof(name), GR_SHM_PREFIX "%s", o->name);
	snprintf(sock, sizeof(sock), "/dev/shm/%s", name);
	existed = lstat(sock, &before) == 0;
	ret = ivsh_shm_create_file(&vm->shm, name, vm->opts.shm_size, &fo);
	if (ret) {
		snprintf(err, errlen, "cannot create /dev/shm/%s of %llu bytes: %s",
			 name, (unsigned long long)vm->opts.shm_size,
			 ret == -EINVAL ? "the size must be a power of two >= 64 KiB"
					: strerror(-ret));
		goto out_free;
	}
	ret = ivsh_shm_map(&vm->shm);
	if (ret) {
		snprintf(err, errlen, "cannot map /dev/shm/%s: %s", name,
			 strerror(-ret));
		goto out_close;
	}
	vm->region = vm->shm.addr;
	vm->size = vm->shm.size;

	if (vm->doorbell) {
		if (snprintf(sock, sizeof(sock), "%s/%s.sock", a->run_dir,
			     o->name) >= (int)sizeof(sock)) {
			snprintf(err, errlen, "socket path too long");
			ret = -ENAMETOOLONG;
			goto out_close;
		}
		ret = peer_init(vm, sock, err, errlen);
		if (ret)
			goto out_close;
	}

	/* a restarted agent continues its own block (H16) */
	if (existed && !hostctl_adopt(vm, &vm->tracing))
		vm->resume_pending = true;
	else
		hostctl_init(vm);

	vm->next = a->vms;
	a->vms = vm;
	vm_wake(vm);
	vm_arm_timer(vm);
	syslog(LOG_INFO, "%s: serving %s /dev/shm/%s (%llu bytes)%s%s",
	       o->name, vm->doorbell ? "ivshmem-doorbell" : "ivshmem-plain",
	       name, (unsigned long long)vm->size,
	       vm->doorbell ? " on " : "", vm->doorbell ? sock : "");
	*vmp = vm;
	return 0;

out_close:
	ivsh_shm_close(&vm->shm);
	if (!existed)
		ivsh_shm_unlink(name);
out_free:
	free(vm);
	return ret;
}

static bool vm_ops_idle(const struct gr_vm *vm)
{
	return !vm->snap && peer_idle(vm) &&
	       session_idle(vm) && cons_idle(vm);
}

static void vm_maybe_free(struct gr_vm *vm)
{
	struct gr_vm **pp;
	char name[sizeof(vm->shm.name)];

	if (!vm_ops_idle(vm))
		return;
	detach(vm);
	if (!session_idle(vm))
		return;		/* the directory's fsync: freed after it */
	for (pp = &vm->agent->vms; *pp; pp = &(*pp)->next) {
		if (*pp == vm) {
			*pp = vm->next;
			break;
		}
	}
	waiter_cancel(vm);
	session_finish(vm);
	vm_hist_finish(vm);
	free(vm->ev_changes);
	memcpy(name, vm->shm.name, sizeof(name));
	ivsh_shm_close(&vm->shm);
	if (vm->unlink_shm)
		ivsh_shm_unlink(name);
	free(vm);
}

/**
 * vm_remove() - stop serving a VM
 * @vm: the VM
 *
 * The probes the host defined in the guest are deleted first (spec 18.4
 * Q3: one UNPROBE, 5 s at most). The session is closed once writes in
 * flight completed; the ivshmem
 * socket and (unless the agent is only shutting down) the shared memory
 * file are removed, and QEMU, if still running, loses its doorbells.
 * The VM is freed by the loop (vm_before_wait()) once nothing of it is in
 * flight, never here: the caller may still hold it.
 */
void vm_remove(struct gr_vm *vm)
{
	if (vm->dying)
		return;
	/* spec 18.4 Q3: the probes go with the session (the agent's stop
	 * asked every VM at once before, vm_probes_drop() in main.c)
	 */
	if (!vm->agent->stopping)
		vm_probes_drop(&vm, 1);
	vm->dying = true;
	vm->unlink_shm = !vm->agent->stopping;
	vm->timer_due_ns = 0;		/* no more passes */
	vm->touched = true;		/* settled (freed once idle) */
	peer_finish(vm);
}

/**
 * vm_start() - a new session after vm_stop()
 * @vm: a stopped VM
 * @err: receives a message on failure
 * @errlen: size of @err
 *
 * Sub-buffers the guest produced while stopped are discarded.
 *
 * Return: 0 or -errno.
 */
int vm_start(struct gr_vm *vm, char *err, size_t errlen)
{
	const char *why = "";
	int ret;

	if (vm->state != GR_VM_STOPPED) {
		snprintf(err, errlen, "%s is %s, not stopped", vm->opts.name,
			 vm_state_name(vm));
		return -EALREADY;
	}
	ret = revalidate(vm, &why);
	if (ret) {
		snprintf(err, errlen, "%s: %s; it attaches as a new session "
			 "once published", vm->opts.name, why);
		stopped_guest_gone(vm);
		return ret;
	}
	cons_discard(vm);
	memset(&vm->st, 0, sizeof(vm->st));
	ret = open_session(vm, false);
	if (ret) {
		snprintf(err, errlen, "cannot open a trace: %s", strerror(-ret));
		close_session_failed(vm);
		return ret;
	}
	vm->state = GR_VM_ATTACHED;
	vm->stop_reason = GR_STOP_NONE;
	vm->tracing = 1;
	hostctl_new_session(vm);	/* spec 9.7: the guest dumps its state */
	hostctl_publish(vm);
	hostctl_sync_start(vm);
	vm_arm_timer(vm);
	return 0;
}

/*
 * The consumer stopped the stream (quota or disk trouble, cons.stop): no
 * more writes for this VM. The guest keeps running; with nothing
 * consumed it drops and counts.
 */
static void stream_stopped(struct gr_vm *vm, enum gr_stop_reason why)
{
	if (vm->stop_reason != GR_STOP_NONE)
		return;
	vm->stop_reason = why;
	syslog(LOG_WARNING, "%s: stream stopped: %s; the trace %s stays readable",
	       vm->opts.name, why == GR_STOP_QUOTA ? "quota reached" :
	       why == GR_STOP_INVALID ? "a stored packet failed its check" :
	       "write error", vm->sess.path);
}

/* A clock-sync series ended: the best clock, and changed filters, into
 * the metadata
 */
static void series_end(struct gr_vm *vm)
{
	if (!vm->hc.series_ended)
		return;
	if ((vm->hc.rewrite || vm->meta_stale) && vm->sess.fd >= 0 &&
	    rot_data_fd(vm) >= 0)
		session_write_files(vm, rot_data_fd(vm), vm->sess.name);
	vm->hc.series_ended = false;
	vm->hc.rewrite = false;
	vm->meta_stale = false;
}

/*
 * What the parts reported since the last pass, handled in one place and
 * in one order: the guest's doorbell and departure, the consumer's stop,
 * the clock series' metadata, a finished snapshot, closing and commands,
 * the event indexes, and last the doorbells owed to the guest (anything
 * above may owe one). A removed VM is freed here once idle, and only here.
 */
static void vm_settle(struct gr_vm *vm)
{
	snap_collect(vm);
	if (vm->dying) {
		vm_maybe_free(vm);
		return;
	}
	if (vm->peer.left) {
		vm->peer.left = false;
		guest_left(vm);
	}
	if (vm->peer.rang) {
		vm->peer.rang = false;
		vm_wake(vm);
	}
	if (vm->cons.stop != GR_STOP_NONE) {
		stream_stopped(vm, vm->cons.stop);
		vm->cons.stop = GR_STOP_NONE;
	}
	series_end(vm);
	rot_check(vm);
	if (vm->rot.pending && cons_idle(vm) && vm->cons.rings &&
	    vm->state == GR_VM_ATTACHED && !vm->closing)
		rotate_chunk(vm);
	vm_progress(vm);
	if (vm->cons.arm_pending && !vm->closing)
		cons_arm_event_idx(vm);
	if (vm->cons.kick) {
		vm->cons.kick = false;
		peer_kick(vm, GR_VEC_CONSUMED);
	}
	if (vm->hc.kick || vm->names.kick) {
		vm->hc.kick = false;
		peer_kick(vm, GR_VEC_CTRL);
		/*
		 * v1.12 (9.5, H33): the answer to a sync request just rung,
		 * spun for, and the series' next rounds polled; a request
		 * whose spin failed is rung here
		 */
		if (hostctl_sync_rung(vm)) {
			if (vm->hc.kick) {
				vm->hc.kick = false;
				peer_kick(vm, GR_VEC_CTRL);
			}
			series_end(vm);
		}
	}
	if (vm->names.kick) {	/* and poll for its answer (H17) */
		vm->names.kick = false;
		vm_arm_timer(vm);
	}
}

/**
 * vm_before_wait() - the loop is about to wait: handle what the VMs'
 * parts reported in this iteration (the loop's before_wait)
 * @a: the agent
 *
 * Only the VMs touched in this iteration are settled: a timer pass, or a
 * completion of one of their ops that carries a touch (loop.h: writes,
 * doorbells). Any other completion (a command on the control socket, a
 * file's fsync, a peer's socket, ...) may have changed any VM: then every
 * VM is settled, as is every VM while the agent stops. A VM nothing
 * touched has had no pass and no completion since its last settle, so
 * its parts reported nothing new; what waits on time alone (a command's
 * deadline, a rotation's interval) is re-examined at its next timer pass,
 * at most 5 ms away for a waiting command (vm_arm_timer()).
 */
void vm_before_wait(struct gr_agent *a)
{
	bool all = a->loop.untracked || a->stopping;
	struct gr_vm *vm, *next;

	for (vm = a->vms; vm; vm = next) {
		next = vm->next;
		if (!all && !vm->touched)
			continue;
		vm->touched = false;
		vm_settle(vm);
	}
}

/**
 * vm_flush() - have the guest close its partial sub-buffers, store them
 * @vm: an attached VM
 * @done: called with the trace path when everything is on disk
 * @arg: passed to @done
 *
 * Return: 0 (done will be called), -ENOTCONN, -EBUSY.
 */
int vm_flush(struct gr_vm *vm, gr_done_fn done, void *arg)
{
	int ret = waiter_start(vm, GR_WAIT_FLUSH, done, arg);

	if (!ret)
		vm_arm_timer(vm);
	return ret;
}

/**
 * vm_snapshot() - store the current content of the rings as a trace
 * @vm: an attached VM (normally in flight-recorder mode)
 * @done: called with the snapshot's path
 * @arg: passed to @done
 *
 * Return: 0 (done will be called), -ENOTCONN, -EBUSY.
 */
int vm_snapshot(struct gr_vm *vm, gr_done_fn done, void *arg)
{
	int ret = waiter_start(vm, GR_WAIT_SNAPSHOT, done, arg);

	if (!ret)
		vm_arm_timer(vm);
	return ret;
}

/**
 * vm_rotate() - close the chunk being written, go on in the next
 * @vm: an attached VM whose session is kept in chunks
 * @done: called with the closed chunk's directory
 * @arg: passed to @done
 *
 * Return: 0 (done will be called), -ENOTCONN, -EOPNOTSUPP, -EBUSY.
 */
int vm_rotate(struct gr_vm *vm, gr_done_fn done, void *arg)
{
	int ret = rot_request(vm, done, arg);

	if (!ret)
		vm_arm_timer(vm);
	return ret;
}

/**
 * vm_stop() - stop recording and close the trace
 * @vm: an attached VM
 * @done: called with the closed trace's path
 * @arg: passed to @done
 *
 * Return: 0 (done will be called), -ENOTCONN, -EBUSY.
 */
int vm_stop(struct gr_vm *vm, gr_done_fn done, void *arg)
{
	int ret;

	if (vm->state != GR_VM_ATTACHED)
		return -ENOTCONN;
	vm->tracing = 0;
	hostctl_publish(vm);
	ret = waiter_start(vm, GR_WAIT_STOP, done, arg);
	if (ret) {
		vm->tracing = 1;
		hostctl_publish(vm);
		return ret;
	}
	vm_arm_timer(vm);
	return 0;
}
