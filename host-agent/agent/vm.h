/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vm.h - the agent's state of one VM: struct gr_vm and the parts that
 * keep it (each part's functions are in its own header, included below)
 *
 *   vm.c        life cycle, state machine, wake-ups   vm_*
 *   peer.c      ivshmem server, doorbells             peer_*
 *   hostctl.c   control block, acks, clock sync       hostctl_*
 *   session.c   trace directories                     session_*
 *   consumer.c  rings -> stream files (data path)     cons_*
 *   snapshot.c  flight-recorder snapshots             snap_*
 *   waiter.c    flush, snapshot, stop commands        waiter_*
 *
 * Every part runs on the loop's thread. Trust: nothing in here points into the shared region except @region and
 * the pointers computed from a validated struct gr_view. Every value read
 * through them is read once into a local and checked before use.
 */
#ifndef GR_VM_H
#define GR_VM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "agent.h"
#include "ctf.h"
#include "index.h"

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

enum gr_slot_state {
	GR_SLOT_FREE = 0,
	GR_SLOT_WRITING,		/* write submitted */
	GR_SLOT_DONE,			/* stored, or dropped as invalid */
	GR_SLOT_FAILED,			/* write failed: never consumed */
};

/**
 * struct gr_wslot - one sub-buffer on its way to disk
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
 * @state: GR_SLOT_*
 * @hdr: the host-private, validated copy of the packet header: what is
 *	written to disk, whatever the guest does to its own copy meanwhile
 * @iov: @hdr, then the rest of the content: straight from the region,
 *	or, in verify mode, from @copy
 * @copy: verify mode: the host-private copy being written (one of the
 *	ring's @copies), NULL otherwise
 */
struct gr_wslot {
	struct gr_op op;
	struct gr_op op2;
	unsigned int parts;
	int res;
	struct gr_ring_state *r;
	uint64_t seq;
	uint64_t off;
	uint32_t len;
	enum gr_slot_state state;
	struct gr_packet_header hdr;
	struct iovec iov[2];
	uint8_t *copy;
};

/* verify mode: sub-buffer copies per ring, so writes in flight per ring */
#define GR_VERIFY_DEPTH		2

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
 * @slots: writes in flight, indexed by seq % GR_MAX_INFLIGHT
 * @copies: verify mode: GR_VERIFY_DEPTH sub-buffer copies (NULL if off)
 * @copy_busy: which of @copies a write in flight holds
 * @prod_event: the value last stored to cons.prod_event (if @armed)
 * @armed: @prod_event was stored this session
 * @quiet: the last packet stored was less than half full (closed by
 *	the guest's timer or a flush): woken for each sub-buffer (k = 1,
 *	spec 8.4), not per batch; true until a packet says otherwise
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
	struct gr_wslot slots[GR_MAX_INFLIGHT];
	uint8_t *copies[GR_VERIFY_DEPTH];
	bool copy_busy[GR_VERIFY_DEPTH];
	uint64_t prod_event;
	bool armed;
	bool quiet;
	struct gr_ship_mark *ship;	/* --ship: whole packets end here */
	struct gr_index index;		/* index/stream_<idx>.idx */
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

enum { GR_WAIT_FLUSH = 1, GR_WAIT_STOP, GR_WAIT_SNAPSHOT };

/* A client of the VM's ivshmem server (QEMU) */
struct gr_peer {
	struct gr_op op;
	struct gr_vm *vm;
	struct gr_peer *next;
	int id;
	int fd;
	bool gone;			/* removed; free once @op completed */
};

/*
 * One of our own eventfds: guest doorbells on vector @vec, read through
 * the loop into @count (a poll first only where the kernel answers such
 * a read of a non-blocking eventfd with -EAGAIN: @poll)
 */
struct gr_selfwatch {
	struct gr_op op;
	struct gr_vm *vm;
	unsigned int vec;
	uint64_t count;
	bool poll;
};

struct gr_vm {
	struct gr_agent *agent;
	struct gr_vm *next;
	struct gr_vm_opts opts;
	enum gr_vm_state state;
	bool dying;			/* vm_remove(): freed when idle */
	bool unlink_shm;		/* remove /dev/shm file when freed */
	bool closing;			/* session ends once writes completed */
	bool resume_pending;		/* first attach may resume a session */
	bool session_resumed;		/* session_open() continued one */
	bool saw_panic;			/* the guest reported GR_STATE_PANIC */
	uint64_t closed_instance;	/* publication whose session ended */

	/* device */
	struct ivsh_shm shm;
	uint8_t *region;
	uint64_t size;
	bool doorbell;
	struct ivsh_server srv;
	struct gr_op listen_op;
	struct gr_selfwatch self[GR_NR_VECTORS]; /* guest doorbells */
	struct gr_peer *peers;
	int guest_peer;			/* QEMU's peer id, -1 if none */

	/* polling */
	struct gr_op timer_op;
	uint64_t timer_due_ns;		/* when timer_op ends; 0: cancelled */
	uint64_t poll_ns;		/* current interval */
	uint64_t db_tick_ns;		/* last doorbell-driven pass */
	uint64_t taken;			/* sub-buffers examined (stored or
					 * dropped): did a pass find data? */
	bool arm_pending;		/* event indexes to re-arm before
					 * the loop waits (cons_arm_event_idx) */

	/* the guest's publication, validated */
	struct gr_region_hdr hdr_copy;
	struct gr_view view;
	struct gr_event_view *events;
	struct gr_event_desc *desc_copy;
	uint64_t instance_id;
	uint64_t rejected_instance;	/* last instance whose header failed */
	char why[128];			/* last rejection, for status */
	struct gr_ring_state *rings;
	uint8_t *copy_block;		/* verify: every ring's copies */
	int buf_region, buf_hdrs, buf_copies;	/* fixed: registered buffer
						 * indexes of the region,
						 * @rings (the header copies),
						 * @copy_block; -1: none */
	bool io_fixed;			/* this session writes with
					 * write_fixed (all three registered) */

	/* host control block state (what we last wrote) */
	uint64_t ctrl_seq;
	uint64_t enable[GR_MAX_EVENTS / 64];
	uint32_t tracing;
	uint64_t flush_req;
	uint64_t sync_req;
	char filter_why[GR_FILTER_SLOTS][256];	/* a filter not applied: why */
	uint32_t filter_errors_base;	/* status.filter_errors at publish */
	char follow_why[256];		/* the follow filter not applied: why */

	/* session */
	char session[128];		/* directory name under <store>/<vm> */
	char session_path[4096];
	int vm_fd;
	int session_fd;
	unsigned int closes;		/* session directories being fsynced */
	uint8_t trace_uuid[16];
	uint64_t usage;			/* bytes of this VM's store */
	enum gr_stop_reason stop_reason;

	/* clock sync */
	bool sync_pending;
	uint64_t sync_t1;		/* CLOCK_MONOTONIC ns */
	uint64_t sync_best_rtt;
	unsigned int sync_rounds;
	int64_t mono_to_real;		/* realtime - monotonic, per session */
	struct gr_ctf_clock clock;
	uint64_t next_sync_ns;
	bool sync_dirty;		/* a better clock, not yet in metadata */

	/* commands and statistics */
	struct gr_waiter waiter;
	struct gr_snap *snap;		/* snapshot being taken, or NULL */
	const char *gone_what;		/* why the guest left (a literal) */
	struct gr_vm_stats st;
	uint64_t rate_t0, rate_bytes0;
	double rate_bps;
};

/* vm.c, for the parts */
void vm_wake(struct gr_vm *vm);
void vm_progress(struct gr_vm *vm);
void vm_arm_timer(struct gr_vm *vm);
void vm_guest_left(struct gr_vm *vm);
void vm_stopped(struct gr_vm *vm);
void vm_stream_stopped(struct gr_vm *vm, enum gr_stop_reason why);
bool vm_same_publication(const struct gr_vm *vm, uint64_t *magic);

static inline struct gr_ring *vm_ring(struct gr_vm *vm, unsigned int idx)
{
	return (struct gr_ring *)(vm->region + gr_view_ring_off(&vm->view, idx));
}

#include "consumer.h"
#include "hostctl.h"
#include "peer.h"
#include "session.h"
#include "snapshot.h"
#include "waiter.h"

#endif /* GR_VM_H */
