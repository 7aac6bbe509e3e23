// SPDX-License-Identifier: GPL-2.0
/*
 * loop.c - the agent's one io_uring loop
 *
 * Every asynchronous action is a struct gr_op embedded in its owner: a
 * poll on a socket or eventfd, a timeout, a write of a sub-buffer. The
 * op's address is the submission's user_data; its done() runs once when
 * the completion arrives, and the owner may re-arm it from there. An op
 * must stay allocated until done() ran (cancel it and wait for that).
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <time.h>

#include "agent.h"

/**
 * gr_loop_init() - set up the ring
 * @l: the loop
 * @depth: submission queue entries
 *
 * Return: 0 or -errno from io_uring_queue_init().
 */
int gr_loop_init(struct gr_loop *l, unsigned int depth)
{
	memset(l, 0, sizeof(*l));
	return io_uring_queue_init(depth, &l->ring, 0);
}

/**
 * gr_loop_finish() - tear the ring down; ops still in flight are dropped
 * @l: the loop
 */
void gr_loop_finish(struct gr_loop *l)
{
	io_uring_queue_exit(&l->ring);
}

/**
 * gr_loop_sqe() - a submission entry for @op
 * @l: the loop
 * @op: the op the completion will be delivered to
 *
 * Submits what is queued if the submission queue is full.
 *
 * Return: the entry, with user_data set, or NULL if none can be had.
 */
struct io_uring_sqe *gr_loop_sqe(struct gr_loop *l, struct gr_op *op)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&l->ring);

	if (!sqe) {
		io_uring_submit(&l->ring);
		sqe = io_uring_get_sqe(&l->ring);
		if (!sqe)
			return NULL;
	}
	io_uring_sqe_set_data(sqe, op);
	if (op) {
		op->busy = true;
		l->inflight++;
	}
	return sqe;
}

/* An entry for @op, which must not be in flight: 0, -EBUSY or -ENOMEM */
static int op_sqe(struct gr_loop *l, struct gr_op *op,
		  struct io_uring_sqe **sqep)
{
	if (op->busy)
		return -EBUSY;
	*sqep = gr_loop_sqe(l, op);
	return *sqep ? 0 : -ENOMEM;
}

/**
 * gr_loop_poll() - one-shot poll of @fd
 * @l: the loop
 * @op: completion receiver; res is the revents mask or -errno
 * @fd: the file descriptor
 * @events: POLLIN, ...
 *
 * Return: 0, -EBUSY if @op is in flight, -ENOMEM if no entry.
 */
int gr_loop_poll(struct gr_loop *l, struct gr_op *op, int fd,
		 unsigned int events)
{
	struct io_uring_sqe *sqe;
	int ret = op_sqe(l, op, &sqe);

	if (ret)
		return ret;
	io_uring_prep_poll_add(sqe, fd, events);
	return 0;
}

/**
 * gr_loop_timeout() - complete @op after @ns nanoseconds
 * @l: the loop
 * @op: completion receiver; res is -ETIME when the time passed
 * @ns: relative time
 *
 * Return: 0, -EBUSY if @op is in flight, -ENOMEM if no entry.
 */
int gr_loop_timeout(struct gr_loop *l, struct gr_op *op, uint64_t ns)
{
	struct __kernel_timespec ts = {
		.tv_sec = (long long)(ns / 1000000000ULL),
		.tv_nsec = (long long)(ns % 1000000000ULL),
	};
	struct io_uring_sqe *sqe;
	int ret = op_sqe(l, op, &sqe);

	if (ret)
		return ret;
	/* the kernel copies ts when the entry is submitted, below */
	io_uring_prep_timeout(sqe, &ts, 0, 0);
	io_uring_submit(&l->ring);
	return 0;
}

/**
 * gr_loop_cancel() - ask for @op to complete now (with -ECANCELED)
 * @l: the loop
 * @op: an op in flight; nothing happens if it is not
 *
 * The op's done() still runs, later; only then may @op be freed.
 *
 * Return: 0 or -ENOMEM.
 */
int gr_loop_cancel(struct gr_loop *l, struct gr_op *op)
{
	struct io_uring_sqe *sqe;

	if (!op->busy)
		return 0;
	sqe = gr_loop_sqe(l, NULL);
	if (!sqe)
		return -ENOMEM;
	io_uring_prep_cancel(sqe, op, 0);
	return 0;
}

/**
 * gr_loop_run_once() - submit, wait for at least one completion, run them
 * @l: the loop
 * @max_wait_ns: longest wait, 0 = until something completes
 *
 * Return: number of completions handled (0 on time-out), or -errno.
 */
int gr_loop_run_once(struct gr_loop *l, uint64_t max_wait_ns)
{
	struct __kernel_timespec ts = {
		.tv_sec = (long long)(max_wait_ns / 1000000000ULL),
		.tv_nsec = (long long)(max_wait_ns % 1000000000ULL),
	};
	struct io_uring_cqe *cqe;
	int ret, n = 0;

	ret = io_uring_submit_and_wait_timeout(&l->ring, &cqe, 1,
					       max_wait_ns ? &ts : NULL, NULL);
	if (ret < 0 && ret != -ETIME && ret != -EINTR)
		return ret;

	while (io_uring_peek_cqe(&l->ring, &cqe) == 0) {
		struct gr_op *op = io_uring_cqe_get_data(cqe);
		int res = cqe->res;
		unsigned int flags = cqe->flags;

		/* seen first: done() may submit, re-arm or free the op */
		io_uring_cqe_seen(&l->ring, cqe);
		n++;
		if (!op)
			continue;	/* a cancel request's own completion */
		op->busy = false;
		l->inflight--;
		op->done(op, res, flags);
	}
	return n;
}

/**
 * gr_now_ns() - CLOCK_MONOTONIC in nanoseconds: the loop's time
 *
 * Return: the time.
 */
uint64_t gr_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}
