// SPDX-License-Identifier: GPL-2.0
/*
 * snapshot.c - a flight-recorder snapshot: the rings' current content into
 * a new trace directory, through the loop, in bounded steps
 *
 * The guest keeps overwriting its rings while a snapshot is taken (flight
 * mode), so every sub-buffer is copied once out of the shared region into
 * host memory, between two loads of its commit record (a seqlock read,
 * spec 6.5 and 6.12, table 10 #4 and #5), and checked there (H9, in
 * verify mode H24): a copy whose record changed, or that fails a check,
 * is dropped and counted, never stored (H10, H14: the check is on the
 * copy that is written, so nothing the guest does later can change it).
 *
 * Nothing here blocks the loop for long. One step copies at most
 * GR_SNAP_CHUNK bytes (at least one sub-buffer: at most 16 MiB, H3) into
 * one of GR_SNAP_DEPTH chunk buffers and queues its write as an io_uring
 * request; the next step runs when a write completes, so the other VMs'
 * completions interleave with the snapshot's. When every write completed,
 * each stream file is fsynced through the loop too; only then is the
 * snapshot reported done.
 *
 *   snap_go --> step: copy + check <= CHUNK --> IORING_OP_WRITE --+
 *                    ^                                               |
 *                    +---------------- completion -------------------+
 *                  all rings copied, no write in flight
 *                    --> IORING_OP_FSYNC of each stream file --> finished
 *
 * vm.c owns the snapshot (vm->snap): it opens it (snap_open()), writes its
 * metadata (session_write_files()), starts it (snap_go()), and once per
 * loop pass looks whether it finished (snap_finished()), then answers and
 * frees it (snap_free()). This file never calls up into vm.c.
 *
 * Packets are stored content-only, as recordings are (consumer.c).
 * Snapshots count against the VM's quota (H23) as recordings do: one that
 * does not fit stops at the last whole packet that does (-EDQUOT). A
 * failed write ends the snapshot and cuts its stream file back to whole
 * packets (H12).
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store_mark.h"
#include "store.h"
#include "vm.h"

#define GR_SNAP_CHUNK	(1U << 20)	/* bytes copied per step */
#define GR_SNAP_DEPTH	4		/* chunk writes in flight */

struct gr_snap;

/* One chunk buffer and its write: whole, checked sub-buffers of one ring */
struct gr_snap_chunk {
	struct gr_op op;
	struct gr_snap *snap;
	uint8_t *buf;
	unsigned int ring;
	uint64_t off;			/* in the ring's stream file */
	uint32_t len;			/* 0: a yield, nothing written */
};

/* A snapshot stream file */
struct gr_snap_file {
	int fd;				/* -1 until opened, and once closed */
	uint64_t end;			/* bytes written or being written */
	uint64_t trunc_at;		/* lowest failed write, UINT64_MAX */
};

struct gr_snap {
	struct gr_vm *vm;
	struct gr_store_mark *ship;	/* --ship: not shipped while taken */
	char name[128];			/* snapshot-<time> */
	int dirfd;
	struct gr_snap_file *files;	/* one per ring */
	/* the copy's position */
	unsigned int ring;		/* ring being copied */
	bool ring_open;			/* its counters were read */
	bool copying;			/* rings left to copy */
	uint64_t seq, produced;		/* next to copy, end (H8: clamped) */
	struct gr_stream_mark last;	/* H9: order against the previous */
	uint32_t per_chunk;		/* sub-buffers per chunk */
	struct gr_snap_chunk chunk[GR_SNAP_DEPTH];
	unsigned int inflight;		/* chunk ops submitted */
	bool chunk_busy[GR_SNAP_DEPTH];
	/* then the fsyncs, one file after the other */
	struct gr_op sync_op;
	unsigned int sync_ring;
	bool syncing;
	int err;			/* first error */
	bool finished;			/* every write and fsync completed */
};

static void snap_step(struct gr_snap *s);

static void snap_fail(struct gr_snap *s, int err)
{
	if (!s->err)
		s->err = err;
	s->copying = false;
}

/*
 * Start copying ring s->ring: its stream file, and the sub-buffers the
 * flight buffer holds (gr_check_counters(): at most n_subbufs - 1, H8).
 */
static int open_ring(struct gr_snap *s)
{
	struct gr_vm *vm = s->vm;
	struct gr_ring *ring = vm_ring(vm, s->ring);
	struct gr_snap_file *f = &s->files[s->ring];
	uint64_t produced, consumed, first, ready, size;
	const char *why;
	int ret;

	ret = store_open_stream(s->dirfd, s->ring, false, &f->fd, &size);
	if (ret)
		return ret;
	/* pairs with the guest's smp_store_release() of produced (10 #6) */
	produced = le64toh(__atomic_load_n(&ring->prod.produced,
					   __ATOMIC_ACQUIRE));
	consumed = le64toh(__atomic_load_n(&ring->cons.consumed,
					   __ATOMIC_RELAXED));
	s->ring_open = true;
	s->last = (struct gr_stream_mark){ 0 };
	if (gr_check_counters(&vm->view, produced, consumed, 1, &first,
			      &ready, &why)) {
		s->seq = s->produced = produced;	/* an empty file */
		return 0;
	}
	s->seq = first;
	s->produced = produced;
	return 0;
}

/*
 * Copy sub-buffer s->seq of s->ring to @dst and check it there; the copy
 * is then made a content-only packet (spec 6.12 step 3).
 * Return: its content bytes (what is stored) or -EINVAL if it is dropped.
 */
static int copy_one(struct gr_snap *s, uint8_t *dst)
{
	struct gr_vm *vm = s->vm;
	const struct gr_view *v = &vm->view;
	uint32_t slot = gr_view_slot(v, s->seq);
	struct gr_subbuf_rec *shared = (struct gr_subbuf_rec *)
		(vm->region + gr_view_rec_off(v, s->ring, slot));
	struct gr_packet_header *h = (struct gr_packet_header *)dst;
	struct gr_subbuf_rec commit;
	uint64_t s1, content;
	bool refused = false;
	const char *why;

	/* pairs with the guest's smp_store_release() of the commit
	 * record's seq (10 #5)
	 */
	s1 = __atomic_load_n(&shared->seq, __ATOMIC_ACQUIRE);
	commit.seq = s1;
	commit.bytes = __atomic_load_n(&shared->bytes, __ATOMIC_RELAXED);
	commit.last_record = __atomic_load_n(&shared->last_record,
					     __ATOMIC_RELAXED);
	memcpy(dst, vm->region + gr_view_subbuf_off(v, s->ring, slot),
	       v->subbuf_size);
	/* the copy before the re-load of seq: pairs with the guest's
	 * smp_wmb() after it marked the slot busy (10 #4)
	 */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&shared->seq, __ATOMIC_RELAXED) != s1 ||
	    gr_check_packet(v, s->ring, s->seq, &commit, h, &s->last, &content,
			    &why) ||
	    (vm->opts.verify != GR_VERIFY_OFF &&
	     gr_check_records(v, vm->events, v->desc_count, dst, content,
			      &why))) {
		vm->st.invalid++;
		return -EINVAL;
	}
	gr_stream_mark_set(&s->last, h);
	h->packet_size = h->content_size;
	/*
	 * spec 6.12: content up to the last record's last declared byte;
	 * verify off from the guest's last record (H31), else the walk
	 */
	h->content_size = htole64(8 * gr_packet_end(v, vm->events,
				v->desc_count, dst, content,
				vm->opts.verify == GR_VERIFY_OFF ?
				le32toh(commit.last_record) : 0, &refused));
	vm->st.last_record_refused += refused;
	return (int)content;
}

/*
 * One step: fill chunk @c with the next checked sub-buffers of one ring,
 * examining at most s->per_chunk of them (H22: bounded work per step).
 * c->len is 0 if none was stored (a yield) or the copy ended.
 */
static void fill(struct gr_snap *s, struct gr_snap_chunk *c)
{
	struct gr_vm *vm = s->vm;
	const struct gr_view *v = &vm->view;
	uint32_t examined = 0;
	int ret, len;

	c->len = 0;
	while (s->copying && !c->len && examined < s->per_chunk) {
		if (!s->ring_open) {
			if (s->ring == v->nr_rings) {
				s->copying = false;
				break;
			}
			ret = open_ring(s);
			if (ret) {
				snap_fail(s, ret);
				break;
			}
		}
		c->ring = s->ring;
		c->off = s->files[s->ring].end;
		while (s->seq != s->produced && examined < s->per_chunk) {
			examined++;
			/* each copy ends within the chunk: one sub-buffer
			 * per packet examined at most
			 */
			len = copy_one(s, c->buf + c->len);
			/* H23: the quota before the packet is stored */
			if (len > 0 && vm->opts.quota &&
			    vm->usage + (uint64_t)len > vm->opts.quota) {
				snap_fail(s, -EDQUOT);
				break;
			}
			if (len > 0) {
				c->len += (uint32_t)len;
				vm->usage += (uint64_t)len;
			}
			s->seq++;
		}
		s->files[s->ring].end += c->len;
		if (s->seq == s->produced) {
			s->ring_open = false;
			s->ring++;
		}
	}
}

static void sync_done(struct gr_op *op, int res, unsigned int flags);

/* The next stream file's fsync, or the end of the snapshot */
static void sync_next(struct gr_snap *s)
{
	struct gr_vm *vm = s->vm;
	struct io_uring_sqe *sqe;
	unsigned int i;

	for (; s->sync_ring < vm->view.nr_rings; s->sync_ring++) {
		struct gr_snap_file *f = &s->files[s->sync_ring];

		if (f->fd < 0)
			continue;
		sqe = gr_loop_sqe(&vm->agent->loop, &s->sync_op);
		if (sqe) {
			io_uring_prep_fsync(sqe, f->fd, 0);
			return;
		}
		snap_fail(s, -ENOMEM);
		close(f->fd);
		f->fd = -1;
	}
	for (i = 0; i < vm->view.nr_rings; i++) {
		if (s->files[i].fd < 0)
			continue;
		close(s->files[i].fd);
		/* whole now: its index (page cache reads of the headers) */
		if (!s->err)
			gr_index_build(s->dirfd, i, vm->view.subbuf_size);
	}
	close(s->dirfd);
	store_mark_close(s->ship);	/* whole packets only from here on */
	s->ship = NULL;
	s->finished = true;		/* vm.c answers and frees it */
}

static void sync_done(struct gr_op *op, int res, unsigned int flags)
{
	struct gr_snap *s = container_of(op, struct gr_snap, sync_op);
	struct gr_snap_file *f = &s->files[s->sync_ring];

	(void)flags;
	if (res < 0 && !s->err)
		s->err = res;
	close(f->fd);
	f->fd = -1;
	s->sync_ring++;
	sync_next(s);
}

/* Writes done: cut files after a failed write to whole packets (H12). */
static void start_sync(struct gr_snap *s)
{
	struct gr_vm *vm = s->vm;
	unsigned int i;

	s->syncing = true;
	for (i = 0; i < vm->view.nr_rings; i++) {
		struct gr_snap_file *f = &s->files[i];

		if (f->fd < 0 || f->trunc_at == UINT64_MAX)
			continue;
		if (ftruncate(f->fd, (off_t)f->trunc_at) == 0)
			vm->usage -= f->end - f->trunc_at;
	}
	sync_next(s);
}

static void chunk_done(struct gr_op *op, int res, unsigned int flags)
{
	struct gr_snap_chunk *c = container_of(op, struct gr_snap_chunk, op);
	struct gr_snap *s = c->snap;
	struct gr_snap_file *f = &s->files[c->ring];

	(void)flags;
	s->inflight--;
	s->chunk_busy[c - s->chunk] = false;
	if (c->len && res != (int)c->len) {
		/* disk full, quota of the file system, I/O error */
		s->vm->st.write_errors++;
		if (c->off < f->trunc_at)
			f->trunc_at = c->off;
		snap_fail(s, res < 0 ? res : -EIO);
	}
	snap_step(s);
}

/* Fill and queue every free chunk; when all is written, the fsyncs. */
static void snap_step(struct gr_snap *s)
{
	struct gr_vm *vm = s->vm;
	struct io_uring_sqe *sqe;
	unsigned int k;

	if (vm->dying)
		snap_fail(s, -ECANCELED);
	for (k = 0; k < GR_SNAP_DEPTH && s->copying; k++) {
		struct gr_snap_chunk *c = &s->chunk[k];

		if (s->chunk_busy[k])
			continue;
		fill(s, c);
		if (!c->len && !s->copying)
			break;
		sqe = gr_loop_sqe(&vm->agent->loop, &c->op);
		if (!sqe) {
			vm->usage -= c->len;
			s->files[c->ring].end -= c->len;
			snap_fail(s, -ENOMEM);
			break;
		}
		if (c->len)
			io_uring_prep_write(sqe, s->files[c->ring].fd, c->buf,
					    c->len, c->off);
		else
			io_uring_prep_nop(sqe);	/* examined, all dropped */
		s->chunk_busy[k] = true;
		s->inflight++;
	}
	if (!s->inflight && !s->copying && !s->syncing)
		start_sync(s);
}

/**
 * snap_finished() - every write and fsync of the snapshot completed
 * @s: the snapshot
 * @err: receives 0, or -errno (-EDQUOT: the quota is reached)
 *
 * Return: true once finished; then snap_free() it.
 */
bool snap_finished(const struct gr_snap *s, int *err)
{
	*err = s->err;
	return s->finished;
}

/**
 * snap_free() - free a snapshot that finished, or that was never started
 * @s: the snapshot
 */
void snap_free(struct gr_snap *s)
{
	unsigned int i;

	for (i = 0; i < GR_SNAP_DEPTH; i++)
		free(s->chunk[i].buf);
	free(s->files);
	free(s);
}

/**
 * snap_open() - the directory of a snapshot of @vm's rings
 * @vm: an attached VM
 * @sp: receives the snapshot, to be described (its metadata written into
 *	snap_dirfd()) and then started (snap_go()) or dropped (snap_abort())
 *
 * Context: the loop's thread.
 * Return: 0, -EDQUOT if the quota has no room for one sub-buffer, or
 * -errno.
 */
int snap_open(struct gr_vm *vm, struct gr_snap **sp)
{
	const struct gr_view *v = &vm->view;
	struct gr_snap *s;
	unsigned int i;
	int ret;

	/* snapshots count against the quota as recordings do */
	if (vm->opts.quota && vm->usage + v->subbuf_size > vm->opts.quota)
		return -EDQUOT;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->vm = vm;
	s->copying = true;
	s->dirfd = -1;
	s->sync_op.done = sync_done;
	s->per_chunk = GR_SNAP_CHUNK / v->subbuf_size ?
		       GR_SNAP_CHUNK / v->subbuf_size : 1;
	s->files = calloc(v->nr_rings, sizeof(*s->files));
	ret = s->files ? 0 : -ENOMEM;
	for (i = 0; !ret && i < v->nr_rings; i++)
		s->files[i] = (struct gr_snap_file){ .fd = -1,
						     .trunc_at = UINT64_MAX };
	for (i = 0; !ret && i < GR_SNAP_DEPTH; i++) {
		s->chunk[i].op.done = chunk_done;
		s->chunk[i].snap = s;
		s->chunk[i].buf = malloc((size_t)s->per_chunk * v->subbuf_size);
		if (!s->chunk[i].buf)
			ret = -ENOMEM;
	}
	if (!ret)
		ret = store_new_session(vm->sess.vm_fd, "snapshot-", s->name,
					sizeof(s->name), &s->dirfd);
	if (ret) {
		snap_free(s);
		return ret;
	}
	s->ship = store_mark_open(vm->opts.name, s->name, GR_STORE_MARK_ALL_RINGS);
	*sp = s;
	return 0;
}

/* The snapshot's directory and name (for its metadata, its path) */
int snap_dirfd(const struct gr_snap *s)
{
	return s->dirfd;
}

const char *snap_name(const struct gr_snap *s)
{
	return s->name;
}

/**
 * snap_abort() - drop a snapshot that was opened, not started
 * @s: the snapshot
 */
void snap_abort(struct gr_snap *s)
{
	close(s->dirfd);
	store_mark_close(s->ship);
	snap_free(s);
}

/**
 * snap_go() - start copying: the sub-buffers follow through the loop
 * @s: an opened snapshot whose metadata is written
 */
void snap_go(struct gr_snap *s)
{
	snap_step(s);
}
