/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tcgcount.h - the plugin's instruction decoder and per-run statistics
 * (tc_run.c), apart from the QEMU glue (tcgcount.c)
 */
#ifndef TCGCOUNT_H
#define TCGCOUNT_H

#include <stddef.h>
#include <stdint.h>

/* tc_decode(): what an instruction is to the plugin */
#define TC_MARKER_MASK	0x3u
#define TC_START	0x1u	/* 66 87 db: xchg %bx,%bx */
#define TC_STOP		0x2u	/* 66 87 c9: xchg %cx,%cx */
#define TC_REPORT	0x3u	/* 66 87 d2: xchg %dx,%dx */
#define TC_LOCKED	0x4u	/* LOCK prefix, or xchg with memory */
#define TC_REP_STRING	0x8u	/* rep/repne + a string instruction */
#define TC_LOCAL_RMW	0x10u	/* cmpxchg or xadd on memory, no LOCK */

/* What one segment executed, or the counters at one moment */
struct tc_counts {
	uint64_t insns;		/* instructions (a rep-string one once) */
	uint64_t mem;		/* memory accesses, loads and stores */
	uint64_t atomics;	/* locked instructions */
	uint64_t local_rmw;	/* cmpxchg/xadd on memory without LOCK */
	uint64_t reps;		/* rep-string instructions (also in insns) */
	uint64_t rep_execs;	/* TCG executions of rep-string instructions */
};

/* The segments of one run (between two REPORT markers) */
struct tc_run {
	struct tc_counts *seg;	/* the first @max segments */
	size_t max;
	uint64_t segs;		/* segments, also those past @max */
	uint64_t unpaired;	/* STOP markers without a START */
	struct tc_counts sum;	/* over all @segs */
};

unsigned int tc_decode(const uint8_t *b, size_t len);
void tc_counts_sub(struct tc_counts *d, const struct tc_counts *a,
		   const struct tc_counts *b);
int tc_run_init(struct tc_run *r, size_t max);
void tc_run_add(struct tc_run *r, const struct tc_counts *c);
void tc_run_format(struct tc_run *r, unsigned long id, char *buf, size_t len);
void tc_run_reset(struct tc_run *r);
void tc_run_free(struct tc_run *r);

#endif /* TCGCOUNT_H */
