// SPDX-License-Identifier: GPL-2.0
/*
 * waiter.c - the VM commands that wait for the guest: flush, snapshot,
 * stop (one at a time per VM)
 *
 *   flush      flush request (9.3) -> flush_ack -> everything produced
 *              is on disk -> reply with the trace's path
 *   snapshot   flush request -> flush_ack -> snapshot.c -> reply with
 *              the snapshot's path once written and fsynced
 *   stop       tracing 0 published -> ctrl_ack (9.2) -> flush request ->
 *              flush_ack -> everything on disk -> session closed -> reply
 *
 * H17: no wait is unbounded. The VM's timer re-examines a waiter at least
 * every 5 ms; after GR_CMD_TIMEOUT_NS the command goes on without the
 * guest's answer (a flush replies -ETIMEDOUT). A panicked guest cannot
 * answer, but its panic notifier already closed every ring.
 *
 * This file writes only its own state (vm->waiter); it asks hostctl.c for
 * the flush and reads the consumer's progress. What only vm.c may do,
 * take a snapshot and close the session, it returns as a step
 * (waiter_progress()); vm.c then answers through waiter_finish().
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "vm.h"

#define GR_CMD_TIMEOUT_NS	(5000 * 1000000ULL)

/**
 * waiter_finish() - answer the waiting command
 * @vm: the VM
 * @err: 0 or -errno
 * @msg: the result (a trace path) or an error text
 */
void waiter_finish(struct gr_vm *vm, int err, const char *msg)
{
	struct gr_waiter w = vm->waiter;

	vm->waiter.active = false;
	if (w.done)
		w.done(w.arg, err, msg);
}

/**
 * waiter_cancel() - the VM goes: answer a command still waiting
 * @vm: the VM
 */
void waiter_cancel(struct gr_vm *vm)
{
	if (vm->waiter.active)
		waiter_finish(vm, -ECANCELED, "the VM was removed");
}

/**
 * waiter_start() - a command begins to wait for the guest
 * @vm: the VM
 * @kind: GR_WAIT_*
 * @done: called with the result
 * @arg: passed to @done
 *
 * Return: 0, -ENOTCONN (not attached), -EBUSY (another command waits).
 */
int waiter_start(struct gr_vm *vm, int kind, gr_done_fn done, void *arg)
{
	if (vm->state != GR_VM_ATTACHED)
		return -ENOTCONN;
	if (vm->waiter.active)
		return -EBUSY;
	vm->waiter = (struct gr_waiter) {
		.done = done,
		.arg = arg,
		.kind = kind,
		.active = true,
		.deadline_ns = gr_now_ns() + GR_CMD_TIMEOUT_NS,
	};
	/* stop: tracing 0 acknowledged first, then the flush (spec 9.2) */
	if (kind == GR_WAIT_STOP) {
		vm->waiter.ctrl_seq = vm->hc.ctrl_seq;
		vm->waiter.need_ack = true;
	} else {
		vm->waiter.flush_req = hostctl_flush(vm);
	}
	return 0;
}

/**
 * waiter_progress() - move the waiting command on, if it can
 * @vm: the VM
 *
 * A flush is answered here. A snapshot or a stop that reached its last
 * step is returned to vm.c, which takes the snapshot (the waiter is then
 * marked started) or closes the session, and answers with
 * waiter_finish().
 *
 * Return: GR_WAIT_STEP_NONE, GR_WAIT_STEP_SNAPSHOT or GR_WAIT_STEP_STOP.
 */
enum gr_wait_step waiter_progress(struct gr_vm *vm)
{
	bool acked, done, panic;

	if (!vm->waiter.active || vm->waiter.started)
		return GR_WAIT_STEP_NONE;
	panic = hostctl_guest_state(vm) == GR_STATE_PANIC;
	if (vm->waiter.need_ack) {
		/* no write for a disabled event runs after the ack */
		if (!hostctl_settings_acked(vm, vm->waiter.ctrl_seq) &&
		    !panic && gr_now_ns() < vm->waiter.deadline_ns)
			return GR_WAIT_STEP_NONE;
		vm->waiter.need_ack = false;
		vm->waiter.flush_req = hostctl_flush(vm);
		panic = hostctl_guest_state(vm) == GR_STATE_PANIC;
	}
	acked = panic || hostctl_flush_acked(vm, vm->waiter.flush_req);
	done = acked && (vm->opts.mode == GR_MODE_FLIGHT ||
			 cons_caught_up(vm));
	if (!done && gr_now_ns() < vm->waiter.deadline_ns)
		return GR_WAIT_STEP_NONE;
	switch (vm->waiter.kind) {
	case GR_WAIT_FLUSH:
		waiter_finish(vm, done ? 0 : -ETIMEDOUT,
			      done ? vm->sess.path :
			      "the guest did not acknowledge the flush in 5 s");
		break;
	case GR_WAIT_SNAPSHOT:
		/* another is being taken (QEMU left): start after it */
		if (vm->snap)
			break;
		vm->waiter.started = true;
		return GR_WAIT_STEP_SNAPSHOT;
	case GR_WAIT_STOP:
		if (!cons_idle(vm))
			break;
		return GR_WAIT_STEP_STOP;
	}
	return GR_WAIT_STEP_NONE;
}
