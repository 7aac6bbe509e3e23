/* SPDX-License-Identifier: GPL-2.0 */
/*
 * waiter.h - waiter.c: the commands that wait for the guest (flush,
 * snapshot, stop); its state, struct gr_waiter, lives in the VM. It
 * moves a command on and says what vm.c has to do next (a step); it
 * neither closes a session nor takes a snapshot itself.
 */
#ifndef GR_WAITER_H
#define GR_WAITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent.h"

enum { GR_WAIT_FLUSH = 1, GR_WAIT_STOP, GR_WAIT_SNAPSHOT };

/* What vm.c does next for the waiting command (waiter_progress()) */
enum gr_wait_step {
	GR_WAIT_STEP_NONE = 0,
	GR_WAIT_STEP_SNAPSHOT,		/* take the snapshot now */
	GR_WAIT_STEP_STOP,		/* close the session, then finish */
};

/* A waiter for an asynchronous command (flush, stop, snapshot) */
struct gr_waiter {
	gr_done_fn done;
	void *arg;
	uint64_t flush_req;		/* complete when flush_ack reaches it */
	uint64_t ctrl_seq;		/* STOP: first see this settings
					 * publication (tracing 0) acked, then
					 * flush (spec 9.2) */
	bool need_ack;			/* STOP: @ctrl_seq not acked yet (any
					 * value of it, 0 too, is valid: an
					 * adopted block may carry any seq) */
	uint64_t deadline_ns;		/* CLOCK_MONOTONIC */
	int kind;			/* GR_WAIT_* */
	bool started;			/* SNAPSHOT: being taken (vm->snap) */
	bool active;
};

struct gr_vm;

int waiter_start(struct gr_vm *vm, int kind, gr_done_fn done, void *arg);
enum gr_wait_step waiter_progress(struct gr_vm *vm);
void waiter_finish(struct gr_vm *vm, int err, const char *msg);
void waiter_cancel(struct gr_vm *vm);

#endif /* GR_WAITER_H */
