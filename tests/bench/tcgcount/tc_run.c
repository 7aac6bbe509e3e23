// SPDX-License-Identifier: GPL-2.0
/*
 * tc_run.c - tcgcount's x86-64 instruction classification and the
 * statistics of a run's segments (mode, mean, min, max)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tcgcount.h"

/* Legacy prefixes of x86-64 (group 1 to 4) */
static int tc_is_prefix(uint8_t b)
{
	switch (b) {
	case 0xf0: case 0xf2: case 0xf3:		/* lock, repne, rep */
	case 0x2e: case 0x36: case 0x3e: case 0x26:	/* segments */
	case 0x64: case 0x65:
	case 0x66: case 0x67:				/* sizes */
		return 1;
	}
	return 0;
}

/* One-byte opcodes of the string instructions that a rep prefix repeats */
static int tc_is_string_op(uint8_t op)
{
	return (op >= 0xa4 && op <= 0xa7) || (op >= 0xaa && op <= 0xaf) ||
	       (op >= 0x6c && op <= 0x6f);
}

/**
 * tc_decode() - classify one x86-64 instruction from its bytes
 * @b: the instruction's bytes
 * @len: how many
 *
 * Return: TC_START, TC_STOP or TC_REPORT for a marker; else 0 or'ed with
 * TC_LOCKED (a LOCK prefix, or xchg with a memory operand, which the CPU
 * locks without one), TC_REP_STRING (a rep or repne prefix on a string
 * instruction) and TC_LOCAL_RMW (cmpxchg or xadd on memory without LOCK).
 */
unsigned int tc_decode(const uint8_t *b, size_t len)
{
	unsigned int kind = 0;
	int lock = 0, rep = 0;
	size_t i = 0;
	uint8_t op;

	if (len == 3 && b[0] == 0x66 && b[1] == 0x87) {
		if (b[2] == 0xdb)
			return TC_START;
		if (b[2] == 0xc9)
			return TC_STOP;
		if (b[2] == 0xd2)
			return TC_REPORT;
	}
	while (i < len && tc_is_prefix(b[i])) {
		if (b[i] == 0xf0)
			lock = 1;
		else if (b[i] == 0xf2 || b[i] == 0xf3)
			rep = 1;
		i++;
	}
	if (i < len && (b[i] & 0xf0) == 0x40)		/* REX */
		i++;
	if (i >= len)
		return 0;
	op = b[i];
	if (lock)
		kind |= TC_LOCKED;
	/* xchg r/m, r: 86 /r, 87 /r; a memory operand unless mod == 3 */
	if ((op == 0x86 || op == 0x87) && i + 1 < len && (b[i + 1] >> 6) != 3)
		kind |= TC_LOCKED;
	if (rep && tc_is_string_op(op))
		kind |= TC_REP_STRING;
	/*
	 * cmpxchg 0f b0/b1, xadd 0f c0/c1 on memory without LOCK: what
	 * Linux's local_t operations (local_cmpxchg(), local_add_return())
	 * are on x86, atomic against the own CPU only
	 */
	if (!lock && op == 0x0f && i + 2 < len &&
	    (b[i + 1] == 0xb0 || b[i + 1] == 0xb1 || b[i + 1] == 0xc0 ||
	     b[i + 1] == 0xc1) && (b[i + 2] >> 6) != 3)
		kind |= TC_LOCAL_RMW;
	return kind;
}

void tc_counts_sub(struct tc_counts *d, const struct tc_counts *a,
		   const struct tc_counts *b)
{
	d->insns = a->insns - b->insns;
	d->mem = a->mem - b->mem;
	d->atomics = a->atomics - b->atomics;
	d->local_rmw = a->local_rmw - b->local_rmw;
	d->reps = a->reps - b->reps;
	d->rep_execs = a->rep_execs - b->rep_execs;
}

int tc_run_init(struct tc_run *r, size_t max)
{
	memset(r, 0, sizeof(*r));
	r->seg = calloc(max, sizeof(*r->seg));
	if (!r->seg)
		return -1;
	r->max = max;
	return 0;
}

void tc_run_add(struct tc_run *r, const struct tc_counts *c)
{
	if (r->segs < r->max)
		r->seg[r->segs] = *c;
	r->segs++;
	r->sum.insns += c->insns;
	r->sum.mem += c->mem;
	r->sum.atomics += c->atomics;
	r->sum.local_rmw += c->local_rmw;
	r->sum.reps += c->reps;
	r->sum.rep_execs += c->rep_execs;
}

static int tc_cmp(const void *pa, const void *pb)
{
	const struct tc_counts *a = pa, *b = pb;

	if (a->insns != b->insns)
		return a->insns < b->insns ? -1 : 1;
	if (a->mem != b->mem)
		return a->mem < b->mem ? -1 : 1;
	if (a->atomics != b->atomics)
		return a->atomics < b->atomics ? -1 : 1;
	if (a->local_rmw != b->local_rmw)
		return a->local_rmw < b->local_rmw ? -1 : 1;
	if (a->reps != b->reps)
		return a->reps < b->reps ? -1 : 1;
	if (a->rep_execs != b->rep_execs)
		return a->rep_execs < b->rep_execs ? -1 : 1;
	return 0;
}

/**
 * tc_run_format() - the line of a run, and sorts its kept segments
 * @r: the run
 * @id: its number (1 for the first REPORT)
 * @buf: where the line goes, with its newline
 * @len: size of @buf
 *
 * The mode is the most frequent tuple (the smallest one on a tie).
 */
void tc_run_format(struct tc_run *r, unsigned long id, char *buf, size_t len)
{
	size_t kept = r->segs < r->max ? r->segs : r->max, i, j, best = 0;
	size_t best_n = 0;
	struct tc_counts mode = { 0 }, min = { 0 }, max = { 0 };
	double n = r->segs ? (double)r->segs : 1.0;

	qsort(r->seg, kept, sizeof(*r->seg), tc_cmp);
	for (i = 0; i < kept; i = j) {
		for (j = i + 1; j < kept && !tc_cmp(&r->seg[i], &r->seg[j]); j++)
			;
		if (j - i > best_n) {
			best_n = j - i;
			best = i;
		}
	}
	if (kept) {
		mode = r->seg[best];
		min = r->seg[0];
		max = r->seg[kept - 1];
	}
	snprintf(buf, len,
		 "tcgcount run=%lu segs=%llu mode_segs=%zu insns=%llu mem=%llu atomics=%llu local_rmw=%llu reps=%llu rep_execs=%llu mean_insns=%.2f mean_mem=%.2f mean_atomics=%.3f mean_rep_execs=%.2f min_insns=%llu max_insns=%llu dropped=%llu unpaired=%llu\n",
		 id, (unsigned long long)r->segs, best_n,
		 (unsigned long long)mode.insns, (unsigned long long)mode.mem,
		 (unsigned long long)mode.atomics,
		 (unsigned long long)mode.local_rmw,
		 (unsigned long long)mode.reps,
		 (unsigned long long)mode.rep_execs,
		 r->sum.insns / n, r->sum.mem / n, r->sum.atomics / n,
		 r->sum.rep_execs / n, (unsigned long long)min.insns,
		 (unsigned long long)max.insns,
		 (unsigned long long)(r->segs - kept),
		 (unsigned long long)r->unpaired);
}

void tc_run_reset(struct tc_run *r)
{
	r->segs = 0;
	r->unpaired = 0;
	memset(&r->sum, 0, sizeof(r->sum));
}

void tc_run_free(struct tc_run *r)
{
	free(r->seg);
	r->seg = NULL;
}
