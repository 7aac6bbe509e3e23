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
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "vm.h"

#define GR_CMD_TIMEOUT_NS	(5000 * 1000000ULL)

static void finish(struct gr_vm *vm, int err, const char *msg)
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
		finish(vm, -ECANCELED, "the VM was removed");
}

/* `guestrelay snapshot`: the reply, once every write and fsync completed */
static void snap_done(struct gr_vm *vm, int err, const char *path)
{
	finish(vm, err, err ? strerror(-err) : path);
}

static int start(struct gr_vm *vm, int kind, gr_done_fn done, void *arg)
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
		vm->waiter.ctrl_seq = vm->ctrl_seq;
		vm->waiter.need_ack = true;
	}
	else
		vm->waiter.flush_req = hostctl_flush(vm);
	vm_arm_timer(vm);
	return 0;
}

/**
 * waiter_progress() - move the waiting command on, if it can
 * @vm: the VM
 */
void waiter_progress(struct gr_vm *vm)
{
	char path[4096];
	bool acked, done, panic;
	int ret;

	if (!vm->waiter.active || vm->waiter.started)
		return;
	panic = hostctl_guest_state(vm) == GR_STATE_PANIC;
	if (vm->waiter.need_ack) {
		/* no write for a disabled event runs after the ack */
		if (!hostctl_settings_acked(vm, vm->waiter.ctrl_seq) &&
		    !panic && gr_now_ns() < vm->waiter.deadline_ns)
			return;
		vm->waiter.need_ack = false;
		vm->waiter.flush_req = hostctl_flush(vm);
		panic = hostctl_guest_state(vm) == GR_STATE_PANIC;
	}
	acked = panic || hostctl_flush_acked(vm, vm->waiter.flush_req);
	done = acked && (vm->opts.mode == GR_MODE_FLIGHT ||
			 cons_caught_up(vm));
	if (!done && gr_now_ns() < vm->waiter.deadline_ns)
		return;
	switch (vm->waiter.kind) {
	case GR_WAIT_FLUSH:
		finish(vm, done ? 0 : -ETIMEDOUT,
		       done ? vm->session_path :
		       "the guest did not acknowledge the flush in 5 s");
		break;
	case GR_WAIT_SNAPSHOT:
		/* another is being taken (QEMU left): start after it */
		if (vm->snap)
			return;
		ret = snap_start(vm, snap_done);
		if (ret)
			finish(vm, ret, strerror(-ret));
		else
			vm->waiter.started = true;
		break;
	case GR_WAIT_STOP:
		if (!cons_idle(vm))
			return;
		snprintf(path, sizeof(path), "%s", vm->session_path);
		vm_stopped(vm);
		finish(vm, 0, path);
		break;
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
	return start(vm, GR_WAIT_FLUSH, done, arg);
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
	return start(vm, GR_WAIT_SNAPSHOT, done, arg);
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
	ret = start(vm, GR_WAIT_STOP, done, arg);
	if (ret) {
		vm->tracing = 1;
		hostctl_publish(vm);
	}
	return ret;
}
