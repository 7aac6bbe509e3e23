// SPDX-License-Identifier: GPL-2.0
/*
 * loop.c - the agent's one io_uring loop
 *
 * Every asynchronous action is a struct gr_op embedded in its owner: a
 * poll on a socket or eventfd, a timeout, a write of a sub-buffer. The
 * op's address is the submission's user_data; its done() runs once when
 * the completion arrives, and the owner may re-arm it from there. An op
 * must stay allocated until done() ran (cancel it and wait for that).
 *
 * Submissions are only queued here; the loop hands all of them to the
 * kernel with the one io_uring_enter() per iteration that also waits
 * for completions (gr_loop_run_once()). A timeout's timespec lives in
 * its op for that reason. Only a full submission queue costs an extra
 * enter.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <time.h>

#include "common.h"
#include "loop.h"

/**
 * gr_loop_init() - set up the ring
 * @l: the loop
 * @depth: submission queue entries
 *
 * Return: 0 or -errno from io_uring_queue_init().
 */
int gr_loop_init(struct gr_loop *l, unsigned int depth)
{
	int ret;

	memset(l, 0, sizeof(*l));
	l->untracked = true;	/* before the first completion: everything */
	ret = io_uring_queue_init(depth, &l->ring, 0);
	if (ret)
		return ret;
	/* for write_fixed (--io fixed); without it, writev only */
	l->bufs = io_uring_register_buffers_sparse(&l->ring, GR_LOOP_BUFS) == 0;
	return 0;
}

/**
 * gr_loop_buf_add() - register [@addr, @addr + @len) for fixed writes
 * @l: the loop
 * @addr: the buffer (a shared mapping of a /dev/shm file, or host memory)
 * @len: its length
 *
 * The pages are pinned until gr_loop_buf_del().
 *
 * Return: the buffer's index for io_uring_prep_write_fixed(), or -errno
 * (-EOPNOTSUPP: no table; -ENOSPC: the table is full).
 */
int gr_loop_buf_add(struct gr_loop *l, void *addr, size_t len)
{
	struct iovec iov = { .iov_base = addr, .iov_len = len };
	__u64 tag = 0;
	int i, ret;

	if (!l->bufs)
		return -EOPNOTSUPP;
	for (i = 0; i < GR_LOOP_BUFS; i++)
		if (!(l->buf_used[i / 64] >> (i % 64) & 1))
			break;
	if (i == GR_LOOP_BUFS)
		return -ENOSPC;
	ret = io_uring_register_buffers_update_tag(&l->ring, (unsigned int)i,
						   &iov, &tag, 1);
	if (ret < 0)
		return ret;
	if (ret != 1)
		return -EIO;
	l->buf_used[i / 64] |= 1ULL << (i % 64);
	return i;
}

/**
 * gr_loop_buf_del() - unregister buffer @idx
 * @l: the loop
 * @idx: from gr_loop_buf_add(), or negative (nothing happens)
 *
 * Writes in flight keep the old buffer until they complete (the kernel
 * holds it for them).
 */
void gr_loop_buf_del(struct gr_loop *l, int idx)
{
	struct iovec iov = { .iov_base = NULL, .iov_len = 0 };
	__u64 tag = 0;

	if (idx < 0 || idx >= GR_LOOP_BUFS)
		return;
	io_uring_register_buffers_update_tag(&l->ring, (unsigned int)idx,
					     &iov, &tag, 1);
	l->buf_used[idx / 64] &= ~(1ULL << (idx % 64));
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
		l->st.enters++;
		io_uring_submit(&l->ring);
		sqe = io_uring_get_sqe(&l->ring);
		if (!sqe)
			return NULL;
	}
	io_uring_sqe_set_data(sqe, op);
	if (op) {
		op->touch = NULL;	/* untracked unless the owner says */
		op->busy = true;
		l->inflight++;
	}
	return sqe;
}

/**
 * gr_loop_reserve() - make sure the next @n gr_loop_sqe() calls succeed
 * @l: the loop
 * @n: entries wanted (at most the queue's depth)
 *
 * Submits what is queued if fewer than @n entries are free.
 *
 * Return: 0 or -ENOMEM.
 */
int gr_loop_reserve(struct gr_loop *l, unsigned int n)
{
	if (io_uring_sq_space_left(&l->ring) >= n)
		return 0;
	l->st.enters++;
	io_uring_submit(&l->ring);
	return io_uring_sq_space_left(&l->ring) >= n ? 0 : -ENOMEM;
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
	struct io_uring_sqe *sqe;
	int ret = op_sqe(l, op, &sqe);

	if (ret)
		return ret;
	/* read by the kernel at the next enter: op->ts outlives that */
	op->ts.tv_sec = (long long)(ns / 1000000000ULL);
	op->ts.tv_nsec = (long long)(ns % 1000000000ULL);
	io_uring_prep_timeout(sqe, &op->ts, 0, 0);
	return 0;
}

/**
 * gr_loop_read() - read up to @len bytes of @fd into @buf
 * @l: the loop
 * @op: completion receiver; res is the byte count or -errno
 * @fd: the file descriptor (an eventfd: the read waits for a signal)
 * @buf: destination; must stay valid until done() ran
 * @len: its size
 *
 * Return: 0, -EBUSY if @op is in flight, -ENOMEM if no entry.
 */
int gr_loop_read(struct gr_loop *l, struct gr_op *op, int fd, void *buf,
		 unsigned int len)
{
	struct io_uring_sqe *sqe;
	int ret = op_sqe(l, op, &sqe);

	if (ret)
		return ret;
	io_uring_prep_read(sqe, fd, buf, len, 0);
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

	if (l->before_wait)
		l->before_wait(l->before_wait_arg);
	l->untracked = false;
	l->st.iterations++;
	l->st.enters++;
	/* everything queued since the last iteration, and the wait: one enter */
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
		if (op->touch)
			*op->touch = true;
		else
			l->untracked = true;
		op->done(op, res, flags);
	}
	l->st.completions += (uint64_t)n;
	return n;
}

/**
 * gr_now_ns() - CLOCK_MONOTONIC in nanoseconds: the loop's time
 *
 * Return: the time.
 */
uint64_t gr_now_ns(void)
{
	return gr_mono_ns();
}
