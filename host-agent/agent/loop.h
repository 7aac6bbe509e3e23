/* SPDX-License-Identifier: GPL-2.0 */
/*
 * loop.h - loop.c: the agent's one io_uring loop (struct gr_op, gr_loop_*)
 */
#ifndef GR_LOOP_H
#define GR_LOOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <liburing.h>

/**
 * struct gr_op - one submission in flight; embed it in the owner
 * @done: called once with the completion's result and flags
 * @busy: set while submitted (an op is never submitted twice)
 * @touch: if set, the completion sets *@touch before done() runs: the
 *	owner (a VM) has something for the loop's before_wait to look at;
 *	an op without it sets the loop's @untracked instead (anything may
 *	have changed). Every submission (gr_loop_sqe()) clears it: an owner
 *	that wants it sets it after each submission of the op.
 * @ts: a timeout's time: the kernel reads it when the entry is submitted,
 *	which is at the loop's next io_uring_enter(), so it lives in the op
 */
struct gr_op {
	void (*done)(struct gr_op *op, int res, unsigned int flags);
	bool busy;
	bool *touch;
	struct __kernel_timespec ts;
};

/**
 * struct gr_loop_stats - what the loop did (`guestrelay info`)
 * @iterations: gr_loop_run_once() calls: one wait for completions each
 * @enters: io_uring_enter() calls the loop asked liburing for: one per
 *	iteration, plus one whenever the submission queue was full (an
 *	upper bound: liburing skips the call when a completion is already
 *	there and nothing is queued)
 * @completions: completions handled
 */
struct gr_loop_stats {
	uint64_t iterations;
	uint64_t enters;
	uint64_t completions;
};

/**
 * struct gr_loop - the one ring
 * @ring: liburing's ring
 * @bufs: a sparse registered-buffer table of GR_LOOP_BUFS entries exists
 * @buf_used: its entries in use (gr_loop_buf_add())
 * @inflight: ops submitted, not completed
 * @before_wait: called once per iteration after the completions were
 *	handled and before the next submit-and-wait (work done once per
 *	pass, e.g. arming event indexes), may queue submissions; or NULL
 * @before_wait_arg: its argument
 * @untracked: an op without @touch completed since the last before_wait
 *	(true until the first): before_wait looks at every owner, not only
 *	the touched ones
 * @st: counters
 */
#define GR_LOOP_BUFS		1024	/* registered buffer table entries */

struct gr_loop {
	struct io_uring ring;
	unsigned int inflight;
	void (*before_wait)(void *arg);
	void *before_wait_arg;
	bool untracked;
	struct gr_loop_stats st;
	bool bufs;			/* a sparse buffer table is registered */
	uint64_t buf_used[GR_LOOP_BUFS / 64];
};

int gr_loop_init(struct gr_loop *l, unsigned int depth);
void gr_loop_finish(struct gr_loop *l);
struct io_uring_sqe *gr_loop_sqe(struct gr_loop *l, struct gr_op *op);
int gr_loop_reserve(struct gr_loop *l, unsigned int n);
int gr_loop_poll(struct gr_loop *l, struct gr_op *op, int fd,
		 unsigned int events);
int gr_loop_timeout(struct gr_loop *l, struct gr_op *op, uint64_t ns);
int gr_loop_read(struct gr_loop *l, struct gr_op *op, int fd, void *buf,
		 unsigned int len);
int gr_loop_buf_add(struct gr_loop *l, void *addr, size_t len);
void gr_loop_buf_del(struct gr_loop *l, int idx);
int gr_loop_cancel(struct gr_loop *l, struct gr_op *op);
int gr_loop_run_once(struct gr_loop *l, uint64_t max_wait_ns);
uint64_t gr_now_ns(void);

#endif /* GR_LOOP_H */
