/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gr_filter.h - event filter programs: copy, verify, run (spec 14)
 *
 * The host writes filter programs into the filter area of the control
 * block. The guest never trusts them: gr_filter_read() copies a slot once
 * into private memory, gr_filter_verify() checks the copy against the
 * event's payload bounds, and only a verified copy ever reaches
 * gr_filter_match(), which a probe runs on the record it reserved before
 * the record is committed.
 *
 * Like gr_relay.c, gr_filter.c is kernel code that also builds in
 * userspace (tests/shim) for the unit tests and the host's own check of
 * what it compiled.
 */
#ifndef _GR_FILTER_H
#define _GR_FILTER_H

#include "gr_env.h"
#include "guestrelay_abi.h"

/* gr_filter_set.slot_of[] of an event without a program */
#define GR_FILTER_NONE		0xff

/**
 * struct gr_filter_op - one instruction, host byte order
 * @code: GR_FI_*
 * @width: load width in bytes
 * @jt: instructions skipped when a jump's condition holds
 * @jf: instructions skipped when it does not
 * @off: payload offset of a load or string operand
 * @arg: field size of a string operand
 * @k: constant; for strings, strtab offset (bits 0..15) and length
 *	(bits 16..31)
 */
struct gr_filter_op {
	u8 code;
	u8 width;
	u8 jt;
	u8 jf;
	u16 off;
	u16 arg;
	u64 k;
};

/**
 * struct gr_filter_prog - a private copy of one slot's program
 * @event_id: event filtered
 * @slot: slot it came from (the index of its gr_guest_status.filtered)
 * @nr_insns: instructions in @ops, 1..GR_FILTER_MAX_INSNS once verified
 * @strtab_len: bytes of @strtab used
 * @ops: the program
 * @strtab: string constants
 */
struct gr_filter_prog {
	u16 event_id;
	u8 slot;
	u8 nr_insns;
	u16 strtab_len;
	struct gr_filter_op ops[GR_FILTER_MAX_INSNS];
	char strtab[GR_FILTER_STRTAB_LEN];
};

/**
 * struct gr_filter_bounds - what a program of an event may read
 * @fixed: payload bytes every record of the event has (integer loads end
 *	at or before this)
 * @max: payload bytes a record may have (string operands end at or before
 *	this; at run time they are also cut at the record's length)
 */
struct gr_filter_bounds {
	u16 fixed;
	u16 max;
};

/**
 * struct gr_filter_err - why a filter area was refused
 * @reason: GR_FILTER_E_*
 * @slot: slot, or GR_FILTER_NO_SLOT
 * @insn: instruction, or GR_FILTER_NO_INSN
 */
struct gr_filter_err {
	u8 reason;
	u8 slot;
	u16 insn;
};

/**
 * struct gr_filter_set - the programs in effect, swapped as a whole
 * @nr_progs: used entries of @progs
 * @slot_of: per event id, its index in @progs or GR_FILTER_NONE
 * @progs: the verified programs
 */
struct gr_filter_set {
	u32 nr_progs;
	u8 slot_of[GR_WIDE_MAX_EVENTS];
	struct gr_filter_prog progs[GR_FILTER_SLOTS];
};

/*
 * The follow filter (spec 15): a set of pids, one bit each, for every pid
 * the kernel can hand out. A probe tests one bit (two for an event that
 * names a second task); fork, exec, rename and free hooks add and remove
 * bits. It never fills, so no task is ever left out for lack of room.
 */

/* Index of the follow filter's count among the per-slot filtered counts */
#define GR_FOLLOW_SLOT		GR_FILTER_SLOTS

/* gr_follow.other_off[] of an event that names no second task */
#define GR_FOLLOW_NO_OFF	0xffff

/**
 * struct gr_follow_spec - a verified private copy of the follow block
 * @flags: GR_FOLLOW_F_*; 0 = no follow filter (the rest is then 0)
 * @nr_pids: used entries of @pids
 * @comm_len: bytes of @comm, 0 = no comm glob
 * @pids: tasks named by the host, each in 1..GR_FOLLOW_PID_LIMIT-1
 * @comm: glob on a task's comm (gr_glob_match()), not NUL-terminated
 */
struct gr_follow_spec {
	u32 flags;
	u16 nr_pids;
	u8 comm_len;
	u32 pids[GR_FOLLOW_MAX_PIDS];
	char comm[GR_FOLLOW_COMM_LEN];
};

/**
 * struct gr_follow - the tasks followed, live
 * @spec: what the host asked for
 * @other_off: per event id, the payload offset of a second task's tid
 *	whose being followed also keeps the record (sched_switch's
 *	next_tid, the woken task of sched_wakeup), or GR_FOLLOW_NO_OFF
 * @nr_bits: bits of @bits; pids at or above are never followed
 * @tasks: bits set
 * @forks: children added because their parent was followed
 * @missing: pids of @spec with no task when the set was installed
 * @bits: bit p: pid p is followed
 */
struct gr_follow {
	struct gr_follow_spec spec;
	u16 other_off[GR_WIDE_MAX_EVENTS];
	u32 nr_bits;
	atomic_t tasks;
	atomic64_t forks;
	u32 missing;
	unsigned long *bits;
};

/**
 * gr_follow_has() - is @pid followed?
 * @f: the set
 * @pid: a thread id
 *
 * Context: any, including NMI; one load.
 */
static __always_inline notrace bool gr_follow_has(const struct gr_follow *f,
						  u32 pid)
{
	return pid < f->nr_bits &&
	       (READ_ONCE(f->bits[pid / BITS_PER_LONG]) >>
		(pid % BITS_PER_LONG)) & 1;
}

/* Little-endian load of @width bytes, byte by byte (any alignment) */
static __always_inline notrace u64 gr_filter_load(const u8 *p,
						  unsigned int width)
{
	u64 v = 0;
	unsigned int i;

	for (i = 0; i < width; i++)
		v |= (u64)READ_ONCE(p[i]) << (8 * i);
	return v;
}

/* @v, a value of @width bytes (1..8), sign-extended to 64 bits */
static __always_inline notrace u64 gr_filter_sext(u64 v, unsigned int width)
{
	unsigned int shift = 64 - 8 * width;

	return (u64)((s64)(v << shift) >> shift);
}

int gr_follow_read(const struct gr_host_ctrl *ctrl,
		   struct gr_follow_spec *spec, struct gr_filter_err *err);
bool gr_follow_add(struct gr_follow *f, u32 pid);
void gr_follow_del(struct gr_follow *f, u32 pid);
bool gr_follow_comm(const struct gr_follow_spec *spec, const char *comm);
bool gr_follow_keep(const struct gr_follow *f, unsigned int id,
		    const u8 *payload, u32 len, u32 tid);

int gr_filter_read(const struct gr_filter_slot *shared, unsigned int slot,
		   struct gr_filter_prog *prog, struct gr_filter_err *err);
int gr_filter_verify(const struct gr_filter_prog *prog,
		     const struct gr_filter_bounds *b,
		     struct gr_filter_err *err);
int gr_filter_read_area(const void *region, unsigned int nr_events,
			const struct gr_filter_bounds *bounds,
			struct gr_filter_set *set, struct gr_filter_err *err);
bool gr_filter_match(const struct gr_filter_prog *prog, const u8 *payload,
		     u32 len, u32 tid, u32 cpu);
bool gr_glob_match(const char *pat, u32 plen, const u8 *s, u32 slen);

#endif /* _GR_FILTER_H */
