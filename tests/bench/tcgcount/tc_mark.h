/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tc_mark.h - the markers of tcgcount.so (tcgcount.c) for guest kernel
 * code: what runs between tc_mark_start() and tc_mark_stop() is counted,
 * tc_mark_report() ends a run and writes its line. x86-64 no-ops that no
 * compiler emits (tc_known.S uses the same bytes); without the plugin
 * they cost a cycle or so. Included by grbench.c and grcbench.c.
 */
#ifndef _TC_MARK_H
#define _TC_MARK_H

static __always_inline void tc_mark_start(void)
{
	asm volatile(".byte 0x66, 0x87, 0xdb" ::: "memory");	/* xchg %bx,%bx */
}

static __always_inline void tc_mark_stop(void)
{
	asm volatile(".byte 0x66, 0x87, 0xc9" ::: "memory");	/* xchg %cx,%cx */
}

static __always_inline void tc_mark_report(void)
{
	asm volatile(".byte 0x66, 0x87, 0xd2" ::: "memory");	/* xchg %dx,%dx */
}

#endif /* _TC_MARK_H */
