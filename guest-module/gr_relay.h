/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Relay channels over the guestrelay shared region
 *
 * The interface of kernel relay (relay_open(), relay_write(), ...) with a
 * gr_ prefix, over memory the host shares: each ring lives at the place
 * spec/guestrelay_abi.h gives it, the host consumes sub-buffers in place
 * and says so through gr_ring.cons.consumed. See gr_relay.c for the states
 * of a sub-buffer and who moves them.
 *
 * The structures below are shown so that callers can read them (and tests
 * can check them); only gr_relay.c writes them.
 */
#ifndef _GR_RELAY_H
#define _GR_RELAY_H

#include "gr_env.h"
#include "guestrelay_abi.h"

/* Sub-buffer size used when neither the host nor the caller asks for one */
#define GR_DEFAULT_SUBBUF_SIZE	(64 * 1024)
/* Largest record: gr_event_header.size is a __le16, a multiple of 8 */
#define GR_MAX_RECORD_SIZE	65528

struct gr_buf;

/**
 * struct gr_callbacks - what a channel calls back
 * @subbuf_start: a sub-buffer switch is about to happen; see
 *	gr_ctf_subbuf_start(). NULL means gr_ctf_subbuf_start().
 * @buf_mapped: the host attached to this ring (may be NULL)
 * @buf_unmapped: the host detached from this ring (may be NULL)
 * @doorbell: the host wants to hear about the sub-buffer just produced:
 *	ring GR_VEC_DATA. Runs in the writer's context (interrupts off,
 *	possibly NMI): it must not sleep or take locks. May be NULL.
 */
struct gr_callbacks {
	int (*subbuf_start)(struct gr_buf *buf, void *subbuf,
			    void *prev_subbuf, size_t prev_padding);
	void (*buf_mapped)(struct gr_buf *buf);
	void (*buf_unmapped)(struct gr_buf *buf);
	void (*doorbell)(struct gr_buf *buf);
};

/**
 * struct gr_geometry - what the geometry of a region is chosen from
 * @region_size: bytes of the shared region (power of two)
 * @nr_cpus: CPUs that may write (nr_cpu_ids)
 * @desc_count: event descriptors to place
 * @subbuf_size: the host's wish, 0 = none
 * @n_subbufs: the host's wish, 0 = none
 * @default_subbuf_size: the module's choice, 0 = GR_DEFAULT_SUBBUF_SIZE
 * @global: one ring shared by all CPUs instead of one per CPU
 */
struct gr_geometry {
	u64 region_size;
	u32 nr_cpus;
	u32 desc_count;
	u32 subbuf_size;
	u32 n_subbufs;
	u32 default_subbuf_size;
	bool global;
};

/**
 * struct gr_layout - geometry and layout of a region (host byte order)
 * @region_size: bytes of the region
 * @nr_cpus: CPUs that may write
 * @nr_rings: nr_cpus, or 1 with GR_HDR_GLOBAL
 * @flags: GR_HDR_*
 * @subbuf_size: bytes per sub-buffer
 * @n_subbufs: sub-buffers per ring
 * @desc_count: event descriptors
 * @desc_stride: bytes per descriptor
 * @packet_header_size: bytes reserved at the start of each sub-buffer
 * @max_event_size: largest record, header included
 * @desc_offset: offset of the descriptor table
 * @ring_offset: offset of the struct gr_ring array
 * @subbuf_rec_offset: offset of the commit records
 * @data_offset: offset of the first sub-buffer
 */
struct gr_layout {
	u64 region_size;
	u32 nr_cpus;
	u32 nr_rings;
	u32 flags;
	u32 subbuf_size;
	u32 n_subbufs;
	u32 desc_count;
	u32 desc_stride;
	u32 packet_header_size;
	u32 max_event_size;
	u64 desc_offset;
	u64 ring_offset;
	u64 subbuf_rec_offset;
	u64 data_offset;
};

/**
 * struct gr_buf - the guest-private state of one ring
 * @chan: the channel
 * @index: ring index (the CPU, or 0 for the global ring)
 * @start: sub-buffer being filled
 * @offset: write offset in @start; subbuf_size + 1 while no sub-buffer is
 *	being filled (the last switch was refused)
 * @hdr_reserved: bytes reserved at the start of @start
 * @produced: sub-buffers finished; the one being filled has this number
 * @consumed: last valid value of the host's cons.consumed
 * @published: value of prod.produced the host may see
 * @events: events written, free-running
 * @last_ts: the ring's last timestamp; its clock never goes back (spec 6.9)
 * @ts_held: a write took @last_ts for its record: a switch it causes uses
 *	the same reading (one clock read per write, spec 6.9)
 * @ring: shared counters
 * @recs: commit records of this ring
 * @data: first sub-buffer of this ring
 * @new_subbuf: during a switch: the sub-buffer offered to subbuf_start
 * @new_idx: during a switch: slot of @new_subbuf
 * @new_reserve: during a switch: bytes gr_subbuf_start_reserve() asked
 * @new_busy: during a switch: the record of @new_subbuf says GR_SEQ_BUSY
 * @in_switch: subbuf_start is running
 * @commit_pending: a finished sub-buffer awaits gr_subbuf_commit()
 * @commit_bytes: content bytes of that sub-buffer
 * @cons_event: value of prod.cons_event
 * @lost_full: events dropped for lack of a free sub-buffer, free-running
 * @lost_too_big: events dropped for their size, free-running
 * @lost_nested: events dropped for nesting, free-running (NMI safe)
 * @overwritten: sub-buffers overwritten before the host consumed them
 * @lost_full_base: @lost_full at the last reset
 * @lost_too_big_base: @lost_too_big at the last reset
 * @lost_nested_base: @lost_nested at the last reset
 * @overwritten_base: @overwritten at the last reset
 * @consumed_errors: invalid values of cons.consumed ignored
 * @doorbells: times the doorbell decision said "ring"
 */
struct gr_buf {
	struct gr_chan *chan;
	u32 index;
	u8 *start;
	size_t offset;
	size_t hdr_reserved;
	u64 produced;
	u64 consumed;
	u64 published;
	u64 events;
	u64 last_ts;
	bool ts_held;
	struct gr_ring *ring;
	struct gr_subbuf_rec *recs;
	u8 *data;

	u8 *new_subbuf;
	u32 new_idx;
	size_t new_reserve;
	bool new_busy;
	bool in_switch;
	bool commit_pending;
	u32 commit_bytes;

	u64 cons_event;
	u64 lost_full;
	u64 lost_too_big;
	atomic64_t lost_nested;
	u64 overwritten;
	u64 lost_full_base;
	u64 lost_too_big_base;
	u64 lost_nested_base;
	u64 overwritten_base;
	u64 consumed_errors;
	u64 doorbells;
} ____cacheline_aligned_in_smp;

/**
 * struct gr_cpu - per-CPU nesting guard of a channel
 * @nesting: non-zero while this CPU is inside the channel
 */
struct gr_cpu {
	u32 nesting;
} ____cacheline_aligned_in_smp;

/**
 * struct gr_chan - a relay channel
 * @layout: geometry and layout of the region
 * @cb: callbacks, defaults filled in
 * @private_data: the caller's pointer from gr_chan_open()
 * @mem: where the rings are: the region, or private memory
 * @mem_off: region offset that @mem stands for
 * @priv_mem: private memory of a buffer-only channel, else NULL
 * @bufs: one per ring
 * @cpus: one nesting guard per CPU
 * @lock: serializes writers of the global ring
 * @lock_flags: interrupt state saved by the holder of @lock
 * @mode: GR_MODE_STREAM or GR_MODE_FLIGHT, read at every switch
 * @event_idx: GR_F_EVENT_IDX is in use (both sides implement it)
 * @global: one ring for all CPUs
 * @mapped: the host is attached
 */
struct gr_chan {
	struct gr_layout layout;
	struct gr_callbacks cb;
	void *private_data;
	u8 *mem;
	u64 mem_off;
	void *priv_mem;
	struct gr_buf *bufs;
	struct gr_cpu *cpus;
	raw_spinlock_t lock;
	unsigned long lock_flags;
	u32 mode;
	bool event_idx;
	bool global;
	bool mapped;
};

/* Geometry and layout */
int gr_layout_compute(const struct gr_geometry *geo, struct gr_layout *lay);
void gr_layout_write_hdr(struct gr_region_hdr *hdr,
			 const struct gr_layout *lay);

/* Channel management */
int gr_chan_open(struct gr_chan **chanp, void *region,
		 const struct gr_layout *layout,
		 const struct gr_callbacks *cb, void *private_data);
int gr_chan_late_setup(struct gr_chan *chan, void *region);
void gr_chan_close(struct gr_chan *chan);
void gr_chan_flush(struct gr_chan *chan);
int gr_chan_flush_this_cpu(struct gr_chan *chan);
void gr_chan_reset(struct gr_chan *chan);
int gr_chan_set_mode(struct gr_chan *chan, u32 mode);
void gr_chan_set_event_idx(struct gr_chan *chan, bool on);
int gr_chan_set_online(struct gr_chan *chan, u32 ring, bool online);
u64 gr_chan_consumed_errors(struct gr_chan *chan);
int gr_subbufs_consumed(struct gr_chan *chan, u32 ring);
void gr_buf_mapped(struct gr_chan *chan);
void gr_buf_unmapped(struct gr_chan *chan);

/* Writing */
int gr_relay_write(struct gr_chan *chan, const void *data, size_t length);
int __gr_relay_write(struct gr_chan *chan, const void *data, size_t length);
void *gr_relay_reserve(struct gr_chan *chan, size_t length);
struct gr_buf *gr_buf_enter(struct gr_chan *chan);
void gr_buf_exit(struct gr_buf *buf);
void *gr_event_reserve(struct gr_buf *buf, u16 id, size_t payload_len);
int gr_event_write(struct gr_chan *chan, u16 id, const void *payload,
		   size_t payload_len);

/* For subbuf_start callbacks */
int gr_buf_full(struct gr_buf *buf);
void gr_subbuf_start_reserve(struct gr_buf *buf, size_t length);
void gr_subbuf_commit(struct gr_buf *buf);
bool gr_buf_need_doorbell(struct gr_buf *buf, u64 old, u64 new_idx);
int gr_ctf_subbuf_start(struct gr_buf *buf, void *subbuf,
			void *prev_subbuf, size_t prev_padding);
int gr_ctf_subbuf_start_stream(struct gr_buf *buf, void *subbuf,
			       void *prev_subbuf, size_t prev_padding);
int gr_ctf_subbuf_start_flight(struct gr_buf *buf, void *subbuf,
			       void *prev_subbuf, size_t prev_padding);

#endif /* _GR_RELAY_H */
