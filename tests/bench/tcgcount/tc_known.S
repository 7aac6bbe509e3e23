/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tc_known.S - instruction sequences whose counts are known, for
 * test_tcgcount.sh: each run repeats one segment (START ... STOP) 100
 * times, then REPORTs; the test compares the plugin's line with the
 * counts written next to each run here. No libc: nothing runs but this.
 */
#define START	.byte 0x66, 0x87, 0xdb	/* xchg %bx,%bx */
#define STOP	.byte 0x66, 0x87, 0xc9	/* xchg %cx,%cx */
#define REPORT	.byte 0x66, 0x87, 0xd2	/* xchg %dx,%dx */
#define SEGS	100

	.bss
	.balign 64
buf:	.skip 64
dst:	.skip 64

	.data
src:	.ascii "0123456789abcdef"

	.text
	.globl _start
_start:
	/* run 1: 10 nops: insns 10, nothing else */
	mov	$SEGS, %r12
1:	START
	.rept 10
	nop
	.endr
	STOP
	dec	%r12
	jnz	1b
	REPORT

	/* run 2: a push, a pop, a load, a store: insns 4, mem 4 */
	mov	$SEGS, %r12
1:	START
	push	%rax
	pop	%rax
	mov	buf(%rip), %rax
	mov	%rax, buf+8(%rip)
	STOP
	dec	%r12
	jnz	1b
	REPORT

	/*
	 * run 3: locked read-modify-writes (each a load and a store),
	 * register xchg (not locked) and a cmpxchg without LOCK (a load and
	 * a store, local_rmw): insns 6, mem 8, atomics 3, local_rmw 1
	 */
	mov	$SEGS, %r12
1:	START
	lock incq buf(%rip)
	xchg	%rax, buf+8(%rip)
	xchg	%rax, %rbx
	xchg	%rbx, %rax
	lock cmpxchg %rcx, buf+16(%rip)
	cmpxchg	%rcx, buf+24(%rip)
	STOP
	dec	%r12
	jnz	1b
	REPORT

	/*
	 * run 4: rep movsb of 16 bytes: insns 4 (the rep movsb once), reps 1,
	 * rep_execs 17 (TCG: one execution per byte and a last one that
	 * finds %rcx at 0), mem 32 (a load and a store per byte)
	 */
	mov	$SEGS, %r12
1:	START
	lea	src(%rip), %rsi
	lea	dst(%rip), %rdi
	mov	$16, %ecx
	rep movsb
	STOP
	dec	%r12
	jnz	1b
	REPORT

	/* run 5: a loop of 1000 turns: insns 1 + 2 x 1000 = 2001 */
	mov	$SEGS, %r12
1:	START
	mov	$1000, %ecx
2:	dec	%ecx
	jnz	2b
	STOP
	dec	%r12
	jnz	1b
	REPORT

	/*
	 * run 6: one segment in four takes a longer path: 3 insns in 75
	 * segments (test, jnz, nop), 4 in 25 (test, jnz, nop, nop): mode
	 * insns 3 in 75 segments, mean 3.25, min 3, max 4
	 */
	mov	$SEGS, %r12
1:	START
	test	$3, %r12
	jnz	3f
	nop
3:	nop
	STOP
	dec	%r12
	jnz	1b
	REPORT

	mov	$60, %eax		/* exit(0) */
	xor	%edi, %edi
	syscall
