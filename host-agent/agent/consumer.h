/* SPDX-License-Identifier: GPL-2.0 */
/*
 * consumer.h - consumer.c: from a guest's rings to its stream files (the
 * data path); its state, struct gr_cons, lives in the VM and only
 * consumer.c writes it. What happened is reported in it (kick, stop,
 * arm_pending) for vm.c to handle once per loop pass.
 */
#ifndef GR_CONSUMER_H
#define GR_CONSUMER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "agent.h"
#include "index.h"
#include "store_mark.h"
#include "validate.h"

#define GR_MAX_INFLIGHT		32	/* sub-buffer writes in flight per ring */
/* verify mode: sub-buffer copies per ring, so writes in flight per ring */
#define GR_VERIFY_DEPTH		2

struct gr_vm;
struct gr_ring_state;

enum gr_write_state {
	GR_WRITE_FREE = 0,
	GR_WRITE_SUBMITTED,		/* write submitted */
	GR_WRITE_DONE,			/* stored, or dropped as invalid */
	GR_WRITE_FAILED,		/* write failed: never consumed */
};

/**
 * struct gr_packet_write - one sub-buffer on its way to disk
 * @op: the write's completion (writev), or the header's (fixed)
 * @op2: fixed: the content's write completion
 * @parts: fixed: writes of this packet not completed yet
 * @res: fixed: bytes written by the completed parts, or their -errno
 * @r: its ring
 * @seq: packet_seq_num
 * @off: offset in the stream file
 * @len: bytes written: the packet's content (header and records; the
 *	stored packet_size says so, spec 6.12 step 3); 0 for a packet
 *	dropped as invalid
 * @state: GR_WRITE_*
 * @hdr: the host-private, validated copy of the packet header: what is
 *	written to disk, whatever the guest does to its own copy meanwhile
 * @iov: @hdr, then the rest of the content: straight from the region,
 *	or, in verify mode, from @copy
 * @copy: verify mode: the host-private copy being written (one of the
 *	ring's @copies), NULL otherwise
 */
struct gr_packet_write {
	struct gr_op op;
	struct gr_op op2;
	unsigned int parts;
	int res;
	struct gr_ring_state *r;
	uint64_t seq;
	uint64_t off;
	uint32_t len;
	enum gr_write_state state;
	struct gr_packet_header hdr;
	struct iovec iov[2];
	uint8_t *copy;
};

/**
 * struct gr_ring_state - the host's consumer state of one ring
 * @vm: the VM
 * @idx: ring index
 * @fd: stream file, -1 if none
 * @file_off: bytes in the stream file
 * @next: next sequence number to examine
 * @consumed: value last stored to cons.consumed: every sequence below it
 *	is on disk or was dropped
 * @last: the last stored packet (gr_check_packet() checks the next against it)
 * @trunc_at: lowest offset of a failed write, UINT64_MAX if none
 * @inflight: writes submitted, not completed
 * @stopped: a write failed or the quota is used up: no more writes
 * @writes: writes in flight, indexed by seq % GR_MAX_INFLIGHT
 * @copies: verify mode: GR_VERIFY_DEPTH sub-buffer copies (NULL if off)
 * @copy_busy: which of @copies a write in flight holds
 * @prod_event: the value last stored to cons.prod_event (if @armed)
 * @armed: @prod_event was stored this session
 * @quiet: the last packet stored was less than half full (closed by
 *	the guest's timer or a flush): woken for each sub-buffer (k = 1,
 *	spec 8.4), not per batch; true until a packet says otherwise
 * @ship: --ship: whole packets end here
 */
struct gr_ring_state {
	struct gr_vm *vm;
	unsigned int idx;
	int fd;
	uint64_t file_off;
	uint64_t next;
	uint64_t consumed;
	struct gr_stream_mark last;
	uint64_t trunc_at;
	unsigned int inflight;
	bool stopped;
	struct gr_packet_write writes[GR_MAX_INFLIGHT];
	uint8_t *copies[GR_VERIFY_DEPTH];
	bool copy_busy[GR_VERIFY_DEPTH];
	uint64_t prod_event;
	bool armed;
	bool quiet;
	struct gr_store_mark *ship;
	struct gr_index index;
};

/**
 * struct gr_cons - the consumer's state of one VM
 * @rings: one per ring of the view, NULL without a session
 * @copy_block: verify on: every ring's copies
 * @scratch: verify stored: one sub-buffer, for a rewrite
 * @buf_region: fixed: registered buffer index of the region, -1: none
 * @buf_hdrs: fixed: of @rings (the header copies), -1: none
 * @buf_copies: fixed: of @copy_block, -1: none
 * @io_fixed: this session writes with write_fixed (all three registered)
 * @taken: sub-buffers examined (stored or dropped): did a pass find data?
 *
 * Reports, for vm.c (vm_before_wait(): handled and cleared once per pass):
 * @arm_pending: event indexes to re-arm before the loop waits
 * @kick: consumed moved past the guest's cons_event: ring GR_VEC_CONSUMED
 * @stop: the stream stopped (GR_STOP_QUOTA, GR_STOP_DISK), or GR_STOP_NONE
 */
struct gr_cons {
	struct gr_ring_state *rings;
	uint8_t *copy_block;
	uint8_t *scratch;
	int buf_region, buf_hdrs, buf_copies;
	bool io_fixed;
	uint64_t taken;
	bool arm_pending;
	bool kick;
	enum gr_stop_reason stop;
};

void cons_init(struct gr_cons *c);
int cons_open_rings(struct gr_vm *vm, bool resume);
void cons_close_rings(struct gr_vm *vm);
int cons_switch_files(struct gr_vm *vm);
void cons_drain(struct gr_vm *vm);
void cons_discard(struct gr_vm *vm);
bool cons_idle(const struct gr_vm *vm);
bool cons_caught_up(struct gr_vm *vm);
void cons_arm_event_idx(struct gr_vm *vm);

#endif /* GR_CONSUMER_H */
