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
	u8 slot_of[GR_MAX_EVENTS];
	struct gr_filter_prog progs[GR_FILTER_SLOTS];
};

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
