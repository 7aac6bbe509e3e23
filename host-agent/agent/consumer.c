// SPDX-License-Identifier: GPL-2.0
/*
 * consumer.c - from a guest's rings to its stream files
 *
 * For each ring, sequence numbers move through three host-private marks:
 *
 *      consumed            next               produced (guest's, checked)
 *         |  in flight      |   ready, not yet  |
 *  -------+=================+-------------------+----------------
 *   on disk (or dropped)    examined, written    published by the guest
 *
 * A ready sub-buffer is examined once: its commit record and packet
 * header are copied into host memory and checked there
 * (gr_check_packet()); a bad one is dropped and counted, never stored.
 * The records are checked in one of three ways (--verify, spec H24):
 *   on      the whole sub-buffer is copied into host memory first and its
 *           records are checked on the copy (gr_check_records_end()), so
 *           what is stored is exactly what was checked and babeltrace2
 *           reads it; the copy is written: one copy per stored sub-buffer
 *   off     zero copy: a good one is written with one writev(): the
 *           checked header copy, then the rest of the content straight
 *           from the shared mapping; records are not checked
 *   stored  written as with off; when the write completed, and before
 *           the sub-buffer may count as consumed (so before the index,
 *           the shipper and the live server see it), the stored bytes are
 *           checked in the page cache (stored_check.c); a packet the
 *           guest changed under the write is rewritten from a checked
 *           copy, and if no good copy can be had the stream stops, cut
 *           back before it. A resumed session checks its last
 *           GR_MAX_INFLIGHT packets again (the agent may have died
 *           between a write and its check) and cuts from the first bad
 *           one, which is then read again from the ring. Only the
 * content is stored (spec 6.12 step 3): the header copy says
 * packet_size = the records' end and content_size = the last record's
 * last declared byte (its tail padding is not content: babeltrace2
 * would decode another header there), and the padding up to the
 * sub-buffer's end is neither written nor charged to the quota; a quiet guest whose
 * switch timer closes 64 KiB sub-buffers holding a few hundred bytes
 * costs the disk those bytes. Only when
 * that write completed does cons.consumed move past it, in order, so the
 * guest never reuses a sub-buffer still being read. A failed write stops
 * the VM's stream and the file is cut back to whole packets.
 *
 * Doorbells: when caught up, the host asks to be woken only after a
 * quarter of the ring filled (cons.prod_event); the poll timer bounds the
 * latency of the rest. Under sustained load almost no doorbell rings. A
 * quiet ring, whose last packet was less than half full (the guest's
 * switch timer or a flush closed it, not the stream filling it), asks
 * for each sub-buffer: it produces at most one per timer period, and its
 * events reach the disk one doorbell after the guest closed their packet
 * instead of up to one poll period later.
 * prod_event is stored only on rings whose wish changed, once per loop
 * iteration (vm.c's vm_before_wait() calls cons_arm_event_idx()), with
 * one fence for all of them.
 *
 * This file writes only its own state (vm->cons) and the VM's counters.
 * It never calls up into vm.c: a doorbell owed to the guest
 * (cons.kick), a stream stopped by the quota or a failed write
 * (cons.stop) and event indexes to re-arm (cons.arm_pending) are
 * reported there; vm.c handles them, and moves closing and commands on
 * after completed writes, once per loop pass.
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "store_mark.h"
#include "store.h"
#include "stored_check.h"
#include "vm.h"

static uint64_t load_produced(struct gr_ring *ring)
{
	/* H8: pairs with the guest's smp_store_release() of produced, which
	 * publishes the commit records and sub-buffers below it (10 #6)
	 */
	return le64toh(__atomic_load_n(&ring->prod.produced,
				       __ATOMIC_ACQUIRE));
}

/*
 * Store @v to cons.consumed of @ring, only while the layout is the one
 * validated (H7): a write that completes after the guest withdrew or
 * re-published (spec 5.5) would otherwise store at the old view's offset
 * into the new layout, whose counters continue from that field (5.4).
 * Return: false if nothing was stored.
 */
static bool store_consumed(struct gr_vm *vm, struct gr_ring *ring,
			   uint64_t v)
{
	uint64_t magic;

	if (!vm_same_publication(vm, &magic))
		return false;
	/*
	 * H13: our reads of the sub-buffers below @v (completed writes)
	 * before the guest may reuse them; pairs with the guest's
	 * smp_load_acquire() of cons.consumed in gr_subbufs_consumed()
	 * (spec 10 #7)
	 */
	__atomic_store_n(&ring->cons.consumed, htole64(v), __ATOMIC_RELEASE);
	return true;
}

static bool vm_streaming(const struct gr_vm *vm)
{
	return vm->state == GR_VM_ATTACHED && vm->opts.mode == GR_MODE_STREAM;
}

static void write_done(struct gr_op *op, int res, unsigned int flags);
static void hdr_done(struct gr_op *op, int res, unsigned int flags);
static void content_done(struct gr_op *op, int res, unsigned int flags);
static void unregister_bufs(struct gr_vm *vm);

/**
 * cons_init() - the consumer's state of a new VM: no session
 * @c: the state
 */
void cons_init(struct gr_cons *c)
{
	memset(c, 0, sizeof(*c));
	c->buf_region = -1;
	c->buf_hdrs = -1;
	c->buf_copies = -1;
}

/*
 * The quota is used up or a write failed: no more writes on any ring;
 * reported to vm.c (cons.stop), which tells the operator once
 */
static void stop_stream(struct gr_vm *vm, enum gr_stop_reason why)
{
	unsigned int i;

	if (vm->cons.stop == GR_STOP_NONE)
		vm->cons.stop = why;
	for (i = 0; vm->cons.rings && i < vm->view.nr_rings; i++)
		vm->cons.rings[i].stopped = true;
}

/* the length in the file of the stored packet whose header copy is @h */
static uint64_t stored_len(const struct gr_ring_state *r,
			   const struct gr_packet_header *h)
{
	return gr_stored_packet_len(h, r->idx, r->vm->view.subbuf_size);
}

/*
 * The end of the stream file's whole packets, walked from the start
 * (packets differ in length: each is its content). Up to
 * GR_MAX_INFLIGHT writes were in flight when the agent died and they may
 * have completed in any order: among the last packets one can be a hole
 * of zeros while a later one is whole. Keep the packets before the first
 * that is not ours, does not fit in the file, or does not come after the
 * one before it (sequence numbers may jump: skipped sub-buffers); the
 * last kept is the one reading continues after (*@h, *@found).
 */
/* the last packets of a stream file: where each starts, its header */
struct tail {
	uint64_t n;			/* packets seen */
	uint64_t off[GR_MAX_INFLIGHT + 1];
	struct gr_packet_header h[GR_MAX_INFLIGHT + 1];
};

static uint64_t whole_packets(struct gr_ring_state *r, uint64_t size,
			      struct gr_packet_header *last, bool *found,
			      struct tail *t)
{
	uint64_t off = 0, len, prev = 0;
	struct gr_packet_header h;

	*found = false;
	t->n = 0;
	while (size - off >= sizeof(h)) {
		if (pread(r->fd, &h, sizeof(h), (off_t)off) != sizeof(h))
			break;
		len = stored_len(r, &h);
		if (!len || len > size - off ||
		    (*found && le64toh(h.packet_seq_num) <= prev))
			break;
		prev = le64toh(h.packet_seq_num);
		*last = h;
		*found = true;
		t->off[t->n % ARRAY_SIZE(t->off)] = off;
		t->h[t->n % ARRAY_SIZE(t->h)] = h;
		t->n++;
		off += len;
	}
	return off;
}

/*
 * --verify stored, resume: a packet is checked before consumed passes
 * it, and at most GR_MAX_INFLIGHT were in flight, so only the last
 * GR_MAX_INFLIGHT whole packets of the file can be unchecked (the agent
 * died between their write and their check). Check them again; keep
 * the packets before the first that fails (*@last, *@found: the one
 * reading continues after; the failed one is read again from the ring,
 * which still holds it: consumed never passed it). Return: the new end
 * of the whole packets, or -errno.
 */
static int64_t recheck_tail(struct gr_ring_state *r, uint64_t size,
			    const struct tail *t,
			    struct gr_packet_header *last, bool *found)
{
	const struct gr_view *v = &r->vm->view;
	uint64_t k = t->n > GR_MAX_INFLIGHT ? t->n - GR_MAX_INFLIGHT : 0;
	const char *why = NULL;
	int ret;

	for (; k < t->n; k++) {
		const struct gr_packet_header *h = &t->h[k % ARRAY_SIZE(t->h)];
		uint64_t off = t->off[k % ARRAY_SIZE(t->off)];

		ret = gr_stored_check_file(r->fd, (off_t)off, stored_len(r, h),
					   v, r->vm->events, v->desc_count,
					   &why);
		if (ret == -EINVAL) {
			syslog(LOG_WARNING,
			       "%s: stream_%u: packet %llu failed its check after a restart (%s); the stream is cut before it and read again",
			       r->vm->opts.name, r->idx,
			       (unsigned long long)le64toh(h->packet_seq_num),
			       why);
			*found = k > 0;
			if (k > 0)
				*last = t->h[(k - 1) % ARRAY_SIZE(t->h)];
			return (int64_t)off;
		}
		if (ret)
			return ret;
	}
	return (int64_t)size;
}

/*
 * --io fixed: what packets are written from becomes registered buffers
 * (the shared region, the header copies inside vm->cons.rings, the verify
 * copies), so each write names a pinned buffer instead of having its
 * pages looked up. Where that fails (no table, a region above the
 * kernel's 1 GiB per buffer, no memory to pin) the session writes with
 * writev, said once.
 */
static void register_bufs(struct gr_vm *vm)
{
	struct gr_loop *l = &vm->agent->loop;
	const struct gr_view *v = &vm->view;
	int ret;

	if (vm->opts.io_writev)
		return;
	vm->cons.buf_region = gr_loop_buf_add(l, vm->region, vm->size);
	vm->cons.buf_hdrs = gr_loop_buf_add(l, vm->cons.rings,
					    v->nr_rings *
					    sizeof(*vm->cons.rings));
	if (vm->cons.copy_block)
		vm->cons.buf_copies = gr_loop_buf_add(l, vm->cons.copy_block,
						      (size_t)v->subbuf_size *
						      GR_VERIFY_DEPTH *
						      v->nr_rings);
	ret = vm->cons.buf_region < 0 ? vm->cons.buf_region :
	      vm->cons.buf_hdrs < 0 ? vm->cons.buf_hdrs :
	      vm->cons.copy_block && vm->cons.buf_copies < 0 ? vm->cons.buf_copies : 0;
	if (!ret) {
		vm->cons.io_fixed = true;
		return;
	}
	syslog(LOG_WARNING, "%s: cannot register buffers for fixed writes (%s); writing with writev",
	       vm->opts.name, strerror(-ret));
	unregister_bufs(vm);
}

static void unregister_bufs(struct gr_vm *vm)
{
	struct gr_loop *l = &vm->agent->loop;

	gr_loop_buf_del(l, vm->cons.buf_region);
	gr_loop_buf_del(l, vm->cons.buf_hdrs);
	gr_loop_buf_del(l, vm->cons.buf_copies);
	vm->cons.buf_region = vm->cons.buf_hdrs = vm->cons.buf_copies = -1;
	vm->cons.io_fixed = false;
}

/**
 * cons_open_rings() - consumer state and stream files for a new session
 * @vm: an attached VM with a session directory
 * @resume: continue the session's files after an agent restart
 *
 * On resume, the files are cut to whole packets (a crash can leave a
 * torn or a missing packet among the last ones) and reading continues
 * after the last stored packet: what is on disk is the truth, whatever
 * cons.consumed says (the guest can write that page too).
 *
 * Return: 0 or -errno.
 */
int cons_open_rings(struct gr_vm *vm, bool resume)
{
	const struct gr_view *v = &vm->view;
	size_t copy_len = (size_t)v->subbuf_size * GR_VERIFY_DEPTH;
	unsigned int i;
	int ret;

	vm->cons.buf_region = vm->cons.buf_hdrs = vm->cons.buf_copies = -1;
	vm->cons.io_fixed = false;
	vm->cons.rings = calloc(v->nr_rings, sizeof(*vm->cons.rings));
	if (!vm->cons.rings)
		return -ENOMEM;
	/* at most GR_VERIFY_DEPTH / n_subbufs of the data area per ring */
	if (vm->opts.verify == GR_VERIFY_ON) {
		vm->cons.copy_block = malloc(copy_len * v->nr_rings);
		if (!vm->cons.copy_block)
			return -ENOMEM;
	}
	/* stored: one copy for the rare rewrite, written synchronously */
	if (vm->opts.verify == GR_VERIFY_STORED) {
		vm->cons.scratch = malloc(v->subbuf_size);
		if (!vm->cons.scratch)
			return -ENOMEM;
	}
	for (i = 0; i < v->nr_rings; i++)
		vm->cons.rings[i].fd = vm->cons.rings[i].index.fd =
			vm->cons.rings[i].index.dirfd = -1;
	for (i = 0; i < v->nr_rings; i++) {
		struct gr_ring_state *r = &vm->cons.rings[i];
		struct gr_ring *ring = vm_ring(vm, i);
		uint64_t size = 0, shm_consumed;
		unsigned int k;

		r->vm = vm;
		r->idx = i;
		r->quiet = true;
		r->trunc_at = UINT64_MAX;
		for (k = 0; vm->cons.copy_block && k < GR_VERIFY_DEPTH; k++)
			r->copies[k] = vm->cons.copy_block + copy_len * i +
				       (size_t)v->subbuf_size * k;
		/* before the file is cut or written: see fleet/ship.c */
		r->ship = store_mark_open(vm->opts.name, vm->sess.name, i);
		ret = store_open_stream(rot_data_fd(vm), i, resume, &r->fd,
					&size);
		if (ret)
			return ret;
		shm_consumed = le64toh(__atomic_load_n(&ring->cons.consumed,
						       __ATOMIC_RELAXED));
		r->next = shm_consumed;
		if (resume) {
			struct gr_packet_header h;
			struct tail t;
			bool found;
			int64_t end;

			size = whole_packets(r, size, &h, &found, &t);
			if (vm->opts.verify == GR_VERIFY_STORED) {
				end = recheck_tail(r, size, &t, &h, &found);
				if (end < 0)
					return (int)end;
				size = (uint64_t)end;
			}
			if (ftruncate(r->fd, (off_t)size))
				return -errno;
			if (found) {
				r->next = le64toh(h.packet_seq_num) + 1;
				gr_stream_mark_set(&r->last, &h);
			}
			if (found && r->next - shm_consumed > (1ULL << 63))
				vm->st.skipped = gr_sat_add(vm->st.skipped,
							    shm_consumed - r->next);
		}
		/* H15: cons.consumed ahead of the disk: those are gone */
		if (resume && (int64_t)(shm_consumed - r->next) > 0)
			r->next = shm_consumed;
		r->file_off = size;
		store_mark_set(r->ship, size);
		/* without it the stream is still stored: readers walk it */
		ret = gr_index_open(&r->index, rot_data_fd(vm), i, r->fd, size,
				    v->subbuf_size);
		if (ret)
			syslog(LOG_WARNING, "%s: no index for stream_%u: %s",
			       vm->opts.name, i, strerror(-ret));
		r->consumed = r->next;
		store_consumed(vm, ring, r->consumed);
	}
	register_bufs(vm);
	return 0;
}

/**
 * cons_idle() - no write in flight on any ring
 * @vm: the VM
 *
 * Return: true if the rings may be closed.
 */
bool cons_idle(const struct gr_vm *vm)
{
	unsigned int i;

	if (!vm->cons.rings)
		return true;
	for (i = 0; i < vm->view.nr_rings; i++)
		if (vm->cons.rings[i].inflight)
			return false;
	return true;
}

/**
 * cons_close_rings() - close the stream files; call when cons_idle()
 * @vm: the VM
 */
void cons_close_rings(struct gr_vm *vm)
{
	unsigned int i;

	if (!vm->cons.rings)
		return;
	unregister_bufs(vm);
	for (i = 0; i < vm->view.nr_rings; i++) {
		struct gr_ring_state *r = &vm->cons.rings[i];

		if (r->fd >= 0)
			close(r->fd);
		gr_index_close(&r->index);
		store_mark_close(r->ship);
	}
	free(vm->cons.copy_block);
	vm->cons.copy_block = NULL;
	free(vm->cons.scratch);
	vm->cons.scratch = NULL;
	free(vm->cons.rings);
	vm->cons.rings = NULL;
}

/**
 * cons_switch_files() - a rotation: every ring's next packet goes to a
 * stream file of the new chunk; call when cons_idle()
 * @vm: the VM; rot_data_fd() is the new chunk
 *
 * The rings' state (next, consumed, the last packet's marks) goes on:
 * the first packet of the new file is the one after the last of the old.
 *
 * Return: 0 or -errno (the ring whose file failed is stopped).
 */
int cons_switch_files(struct gr_vm *vm)
{
	unsigned int i;
	uint64_t size;
	int ret = 0, err;

	if (!vm->cons.rings)
		return 0;
	for (i = 0; i < vm->view.nr_rings; i++) {
		struct gr_ring_state *r = &vm->cons.rings[i];
		int fd = -1;

		gr_index_close(&r->index);
		err = store_open_stream(rot_data_fd(vm), i, false, &fd, &size);
		if (r->fd >= 0)
			close(r->fd);
		r->fd = fd;
		r->file_off = 0;
		if (err) {
			ret = ret ? ret : err;
			stop_stream(vm, GR_STOP_DISK);
			continue;
		}
		err = gr_index_open(&r->index, rot_data_fd(vm), i, r->fd, 0,
				    vm->view.subbuf_size);
		if (err)
			syslog(LOG_WARNING, "%s: no index for stream_%u: %s",
			       vm->opts.name, i, strerror(-err));
	}
	return ret;
}

/*
 * Move consumed over every finished write, in order, and tell the guest
 * (H13: only past completed writes).
 */
static void advance(struct gr_ring_state *r)
{
	struct gr_vm *vm = r->vm;
	struct gr_ring *ring = vm_ring(vm, r->idx);
	uint64_t old = r->consumed, event;

	while (r->consumed != r->next) {
		struct gr_packet_write *w = &r->writes[r->consumed % GR_MAX_INFLIGHT];

		if (w->state != GR_WRITE_DONE || w->seq != r->consumed)
			break;
		w->state = GR_WRITE_FREE;
		if (w->len)	/* 0: dropped, nothing was written */
			gr_index_add(&r->index, &w->hdr, w->off);
		r->consumed++;
	}
	gr_index_flush(&r->index);
	/*
	 * --ship: every packet below the first write not completed is whole
	 * (writes complete out of order); the write at consumed is one
	 */
	if (r->ship)
		store_mark_set(r->ship, r->consumed == r->next ? r->file_off :
			      r->writes[r->consumed % GR_MAX_INFLIGHT].off);
	if (r->consumed == old || !store_consumed(vm, ring, r->consumed))
		return;
	if (!(vm->view.features & GR_F_EVENT_IDX)) {
		vm->cons.kick = true;
		return;
	}
	/* H18: our store of consumed before the load of the guest's wish;
	 * pairs with the guest's smp_mb() between its store of cons_event
	 * and its load of consumed (spec 10 #9)
	 */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	event = le64toh(__atomic_load_n(&ring->prod.cons_event,
					__ATOMIC_RELAXED));
	if (gr_need_event(event, r->consumed, old))
		vm->cons.kick = true;
}

static void log_invalid(struct gr_vm *vm, unsigned int ring, uint64_t seq,
			const char *why)
{
	/* once per ten thousand, so a hostile guest cannot flood the log */
	if (vm->st.invalid % 10000 == 1)
		syslog(LOG_WARNING,
		       "%s: dropped invalid sub-buffer %llu of ring %u: %s (%llu so far)",
		       vm->opts.name, (unsigned long long)seq, ring, why,
		       (unsigned long long)vm->st.invalid);
}

/*
 * Verify mode: copy sub-buffer @sub into a free copy of @r and check its
 * records there. The copy is taken between two loads of the commit record
 * (a seqlock read, spec 6.5, table 10 #4), so a slot the guest restarted
 * meanwhile (flight mode) is caught. Return: 0 with w->copy set, -EBUSY
 * if no copy is free (a write must complete first), -ESTALE if the slot
 * changed under the copy, -EINVAL (*why set) if a record is bad. *@end:
 * the last record's last declared byte, found by the same walk.
 */
static int take_copy(struct gr_ring_state *r, struct gr_packet_write *w,
		     const uint8_t *sub, const struct gr_subbuf_rec *shared,
		     uint64_t commit_seq, uint64_t content, uint64_t *end,
		     const char **why)
{
	struct gr_vm *vm = r->vm;
	const struct gr_view *v = &vm->view;
	unsigned int k;

	for (k = 0; k < GR_VERIFY_DEPTH && r->copy_busy[k]; k++)
		;
	if (k == GR_VERIFY_DEPTH)
		return -EBUSY;
	memcpy(r->copies[k], sub, v->subbuf_size);
	/* the copy before the re-load of seq: pairs with the guest's
	 * smp_wmb() after it marked the slot busy (spec 10 #4)
	 */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&shared->seq, __ATOMIC_RELAXED) != commit_seq) {
		*why = "sub-buffer changed while it was copied";
		return -ESTALE;
	}
	/* the header checked is the one in the copy, field for field */
	if (memcmp(r->copies[k], &w->hdr, sizeof(w->hdr))) {
		*why = "packet header changed while it was copied";
		return -ESTALE;
	}
	if (gr_check_records_end(v, vm->events, v->desc_count, r->copies[k],
				 content, end, why))
		return -EINVAL;
	r->copy_busy[k] = true;
	w->copy = r->copies[k];
	return 0;
}

static void put_copy(struct gr_ring_state *r, struct gr_packet_write *w)
{
	unsigned int k;

	for (k = 0; w->copy && k < GR_VERIFY_DEPTH; k++)
		if (r->copies[k] == w->copy)
			r->copy_busy[k] = false;
	w->copy = NULL;
}

/*
 * Examine sub-buffer @seq: drop it (its write DONE, nothing written) or
 * submit its write. Return: true if @seq was taken care of.
 */
static bool take(struct gr_ring_state *r, uint64_t seq)
{
	struct gr_vm *vm = r->vm;
	const struct gr_view *v = &vm->view;
	struct gr_packet_write *w = &r->writes[seq % GR_MAX_INFLIGHT];
	uint32_t slot = gr_view_slot(v, seq);
	uint8_t *sub = vm->region + gr_view_subbuf_off(v, r->idx, slot);
	struct gr_subbuf_rec commit, *commit_shared;
	struct io_uring_sqe *sqe;
	const char *why = NULL;
	uint64_t content, end = 0;
	int ret;

	/*
	 * One read of each, into host memory; only the copies are used.
	 * commit.seq first, with acquire: pairs with the guest's
	 * smp_store_release() of commit.seq, which publishes commit.bytes, the
	 * packet header and the records of that packet (spec 10 #5).
	 */
	commit_shared = (struct gr_subbuf_rec *)
		(vm->region + gr_view_rec_off(v, r->idx, slot));
	commit.seq = __atomic_load_n(&commit_shared->seq, __ATOMIC_ACQUIRE);
	commit.bytes = __atomic_load_n(&commit_shared->bytes, __ATOMIC_RELAXED);
	/* spec 3.8, H31: once, with bytes; only a hint for the walk below */
	commit.last_record = __atomic_load_n(&commit_shared->last_record,
					     __ATOMIC_RELAXED);
	memcpy(&w->hdr, sub, sizeof(w->hdr));
	/* H9 on the private copies */
	ret = gr_check_packet(v, r->idx, seq, &commit, &w->hdr, &r->last,
			      &content, &why);
	w->copy = NULL;
	if (!ret && vm->opts.verify == GR_VERIFY_ON) {
		ret = take_copy(r, w, sub, commit_shared, commit.seq, content,
				&end, &why);
		if (ret == -EBUSY)
			return false;
		if (ret == -EINVAL)
			vm->st.invalid_records++;
	}
	if (ret) {
		/* H10: dropped and counted; consumed still passes it */
		vm->st.invalid++;
		log_invalid(vm, r->idx, seq, why);
		w->seq = seq;
		w->len = 0;
		w->state = GR_WRITE_DONE;
		return true;
	}
	/* H23: the quota before the packet is written; what is written */
	if (vm->opts.quota && vm->usage + content > vm->opts.quota) {
		put_copy(r, w);
		stop_stream(vm, GR_STOP_QUOTA);
		return false;
	}
	if (gr_loop_reserve(&vm->agent->loop, vm->cons.io_fixed ? 2 : 1)) {
		put_copy(r, w);
		return false;
	}
	sqe = gr_loop_sqe(&vm->agent->loop, &w->op);
	w->r = r;
	w->seq = seq;
	w->off = r->file_off;
	w->len = (uint32_t)content;
	/*
	 * H11: the validated private header, never the shared one; the
	 * content only (spec 6.12 step 3): content <= subbuf_size and
	 * holds the header and at least one record (H9)
	 */
	w->hdr.packet_size = w->hdr.content_size;
	/*
	 * spec 6.12: content up to the last record's last declared byte;
	 * verify on found it checking the copy; verify off takes it from
	 * the record the guest says is the last (H31), else walks the
	 * records; --verify stored walks them (and checks the stored value
	 * after the write)
	 */
	if (!w->copy) {
		bool refused = false;

		end = gr_packet_end(v, vm->events, v->desc_count, sub, content,
				    vm->opts.verify == GR_VERIFY_OFF ?
				    le32toh(commit.last_record) : 0,
				    &refused);
		vm->st.last_record_refused += refused;
	}
	w->hdr.content_size = htole64(8 * end);
	w->iov[0].iov_base = &w->hdr;
	w->iov[0].iov_len = sizeof(w->hdr);
	w->iov[1].iov_base = (w->copy ? w->copy : sub) + sizeof(w->hdr);
	w->iov[1].iov_len = content - sizeof(w->hdr);
	/* a completion has vm_before_wait() settle this VM (loop.h) */
	w->op.touch = &vm->touched;
	if (vm->cons.io_fixed) {
		/* two writes, one per registered buffer; done when both are */
		w->op.done = hdr_done;
		w->op2.done = content_done;
		w->parts = 2;
		w->res = 0;
		io_uring_prep_write_fixed(sqe, r->fd, w->iov[0].iov_base,
					  (unsigned int)w->iov[0].iov_len,
					  w->off, vm->cons.buf_hdrs);
		sqe = gr_loop_sqe(&vm->agent->loop, &w->op2);
		w->op2.touch = &vm->touched;
		io_uring_prep_write_fixed(sqe, r->fd, w->iov[1].iov_base,
					  (unsigned int)w->iov[1].iov_len,
					  w->off + sizeof(w->hdr),
					  w->copy ? vm->cons.buf_copies :
						    vm->cons.buf_region);
	} else {
		w->op.done = write_done;
		io_uring_prep_writev(sqe, r->fd, w->iov, 2, w->off);
	}
	w->state = GR_WRITE_SUBMITTED;
	r->inflight++;
	r->file_off += content;
	/* closed less than half full: the guest's timer, not the stream */
	r->quiet = content * 2 < v->subbuf_size;
	gr_stream_mark_set(&r->last, &w->hdr);
	vm->usage += content;
	return true;
}

static void drain_ring(struct gr_ring_state *r)
{
	struct gr_vm *vm = r->vm;
	struct gr_ring *ring = vm_ring(vm, r->idx);
	uint64_t produced, ahead, n = vm->view.n_subbufs;

	if (r->stopped || r->fd < 0)
		return;
	/* H8: produced once per pass, clamped: at most n per pass */
	produced = load_produced(ring);
	ahead = produced - r->next;
	if (ahead > n) {
		/* backwards (or absurdly far): a broken guest; ignore it */
		if (ahead >> 63) {
			vm->st.invalid++;
			log_invalid(vm, r->idx, produced,
				    "produced went backwards");
			return;
		}
		/*
		 * More than a ring holds (the guest overwrote, e.g. in flight
		 * mode): only the last n - 1 can be intact, the slot being
		 * filled held the one before them.
		 */
		if (r->inflight)
			return;
		vm->st.skipped = gr_sat_add(vm->st.skipped, ahead - (n - 1));
		r->next += ahead - (n - 1);
		r->consumed = r->next;
		store_consumed(vm, ring, r->consumed);
	}
	/* a rotation waits for the writes in flight: none is added */
	while (r->next != produced && !r->stopped && !vm->rot.pending &&
	       r->next - r->consumed < GR_MAX_INFLIGHT) {
		if (!take(r, r->next))
			break;
		r->next++;
		vm->cons.taken++;
	}
	advance(r);
}

/**
 * cons_drain() - examine and write whatever the guest produced
 * @vm: the VM; nothing happens unless it is attached in stream mode
 */
void cons_drain(struct gr_vm *vm)
{
	unsigned int i;

	if (!vm_streaming(vm) || !vm->cons.rings)
		return;
	for (i = 0; i < vm->view.nr_rings; i++)
		drain_ring(&vm->cons.rings[i]);
}

/**
 * cons_discard() - skip what the guest produced so far (vm_start(): the
 * sub-buffers recorded while stopped are not stored)
 * @vm: a VM whose layout was just revalidated (H7); its rings are closed
 */
void cons_discard(struct gr_vm *vm)
{
	unsigned int i;

	for (i = 0; i < vm->view.nr_rings; i++) {
		struct gr_ring *ring = vm_ring(vm, i);

		store_consumed(vm, ring, load_produced(ring));
	}
}

/**
 * cons_caught_up() - everything produced is on disk
 * @vm: the VM
 *
 * Return: true if no ring has anything ready or in flight.
 */
bool cons_caught_up(struct gr_vm *vm)
{
	unsigned int i;

	if (!vm->cons.rings)
		return true;
	for (i = 0; i < vm->view.nr_rings; i++) {
		struct gr_ring_state *r = &vm->cons.rings[i];

		if (r->inflight)
			return false;
		if (!r->stopped && load_produced(vm_ring(vm, i)) != r->next)
			return false;
	}
	return true;
}

/**
 * cons_arm_event_idx() - ask to be woken when the next sub-buffer (a quiet
 * ring) or a quarter of the ring (a busy one) is ready
 * @vm: the VM
 *
 * Stores cons.prod_event only on rings whose wish changed since it was
 * last stored, then, if any changed, one full barrier and a re-read of
 * their produced, as virtio does, so a sub-buffer published meanwhile is
 * not left waiting for a doorbell that the guest decided not to ring. A
 * ring whose wish did not change needs neither: its store was followed
 * by that barrier and re-read when it was made.
 */
void cons_arm_event_idx(struct gr_vm *vm)
{
	uint64_t batch = vm->view.n_subbufs / 4 ? vm->view.n_subbufs / 4 : 1;
	bool changed[GR_MAX_RINGS] = { false }, any = false;
	unsigned int i;
	uint64_t magic;

	vm->cons.arm_pending = false;
	/* H7: prod_event only into the layout validated (spec 5.5) */
	if (!vm_streaming(vm) || !vm->cons.rings ||
	    !vm_same_publication(vm, &magic))
		return;
	for (i = 0; i < vm->view.nr_rings; i++) {
		struct gr_ring_state *r = &vm->cons.rings[i];
		uint64_t want = r->next + (r->quiet ? 1 : batch) - 1;

		if (r->stopped || (r->armed && r->prod_event == want))
			continue;
		__atomic_store_n(&vm_ring(vm, i)->cons.prod_event,
				 htole64(want), __ATOMIC_RELAXED);
		r->prod_event = want;
		r->armed = true;
		changed[i] = any = true;
	}
	if (!any)
		return;
	/* H18: prod_event before re-reading produced; pairs with the
	 * guest's smp_mb() between produced and prod_event (spec 8.4, 10 #8)
	 */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (i = 0; i < vm->view.nr_rings; i++) {
		struct gr_ring_state *r = &vm->cons.rings[i];

		if (changed[i] && !r->inflight &&
		    load_produced(vm_ring(vm, i)) != r->next) {
			cons_drain(vm);
			break;
		}
	}
}

/*
 * --verify stored: the write of @w completed; check the packet as stored,
 * before it may count as consumed. Return: 0 (good as stored, or
 * rewritten from a checked copy), -EIO if the rewrite failed, or another
 * -errno: no good copy could be had (counted), the packet must not stay.
 */
static int check_stored(struct gr_ring_state *r, struct gr_packet_write *w)
{
	struct gr_vm *vm = r->vm;
	const struct gr_view *v = &vm->view;
	uint32_t slot = gr_view_slot(v, w->seq);
	const char *why = NULL;
	uint64_t magic;
	int ret;

	/* H7: after a withdrawal the slot is another layout's: no copy */
	ret = gr_stored_check(r->fd, (off_t)w->off, w->len, v, vm->events,
			      v->desc_count, &w->hdr,
			      vm_same_publication(vm, &magic) ?
			      vm->region + gr_view_subbuf_off(v, r->idx, slot) :
			      NULL,
			      (const struct gr_subbuf_rec *)(vm->region +
				gr_view_rec_off(v, r->idx, slot)),
			      w->seq, vm->cons.scratch, &why);
	if (ret == GR_STORED_OK)
		return 0;
	if (ret == GR_STORED_REWRITE) {
		/* rare (a guest that raced its own packet): synchronous */
		vm->st.rewritten++;
		if (pwrite(r->fd, vm->cons.scratch, w->len, (off_t)w->off) ==
		    (ssize_t)w->len)
			return 0;
		return -EIO;
	}
	vm->st.invalid++;
	vm->st.invalid_records++;
	syslog(LOG_WARNING,
	       "%s: stored packet %llu of ring %u failed its check and no good copy could be had: %s; stream stopped",
	       vm->opts.name, (unsigned long long)w->seq, r->idx,
	       why ? why : strerror(-ret));
	return ret == -EIO ? -EINVAL : ret;
}

/* A packet's write completed (res: bytes written or -errno) */
static void written(struct gr_packet_write *w, int res)
{
	struct gr_ring_state *r = w->r;
	struct gr_vm *vm = r->vm;
	int bad = 0;

	r->inflight--;
	put_copy(r, w);
	if (res == (int)w->len && vm->opts.verify == GR_VERIFY_STORED) {
		bad = check_stored(r, w);
		if (bad == -EIO)
			res = -EIO;	/* the rewrite failed: as a write */
	}
	if (res == (int)w->len && !bad) {
		w->state = GR_WRITE_DONE;
		vm->st.packets++;
		vm->st.bytes += w->len;
	} else if (res == (int)w->len) {
		/* H12 as for a failed write: whole, checked packets only */
		w->state = GR_WRITE_FAILED;
		if (w->off < r->trunc_at)
			r->trunc_at = w->off;
		stop_stream(vm, GR_STOP_INVALID);
	} else {
		w->state = GR_WRITE_FAILED;
		vm->st.write_errors++;
		if (w->off < r->trunc_at)
			r->trunc_at = w->off;
		if (vm->stop_reason == GR_STOP_NONE &&
		    vm->cons.stop == GR_STOP_NONE)
			syslog(LOG_ERR, "%s: write of ring %u failed: %s; stream stopped",
			       vm->opts.name, r->idx,
			       res < 0 ? strerror(-res) : "short write");
		stop_stream(vm, GR_STOP_DISK);
	}
	advance(r);
	if (r->stopped && !r->inflight && r->trunc_at != UINT64_MAX) {
		/* H12: whole packets only: cut from the first failure on */
		if (ftruncate(r->fd, (off_t)r->trunc_at) == 0) {
			vm->usage -= r->file_off - r->trunc_at;
			r->file_off = r->trunc_at;
		}
		r->trunc_at = UINT64_MAX;
	}
	/*
	 * More may have been produced while the writes were in flight; not
	 * once the session closes (the guest withdrew: spec 5.5, H7).
	 */
	if (!vm->dying && !vm->closing) {
		drain_ring(r);
		vm->cons.arm_pending = true;
	}
}

static void write_done(struct gr_op *op, int res, unsigned int flags)
{
	(void)flags;
	written(container_of(op, struct gr_packet_write, op), res);
}

/* --io fixed: one of a packet's two writes completed */
static void part_done(struct gr_packet_write *w, int res)
{
	if (res < 0 || w->res < 0)
		w->res = w->res < 0 ? w->res : res;
	else
		w->res += res;	/* a short part leaves the sum short */
	if (--w->parts)
		return;
	written(w, w->res);
}

static void hdr_done(struct gr_op *op, int res, unsigned int flags)
{
	(void)flags;
	part_done(container_of(op, struct gr_packet_write, op), res);
}

static void content_done(struct gr_op *op, int res, unsigned int flags)
{
	(void)flags;
	part_done(container_of(op, struct gr_packet_write, op2), res);
}
