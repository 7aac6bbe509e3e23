// SPDX-License-Identifier: GPL-2.0
/*
 * tcgcount.so - a QEMU TCG plugin that counts, exactly, what the guest
 * executes between two marker instructions: instructions, memory
 * accesses, locked (atomic) instructions and rep-string iterations
 *
 *   qemu-system-x86_64 -smp 1 ... -plugin FILE/tcgcount.so,out=RESULTS
 *   qemu-x86_64 -plugin FILE/tcgcount.so,out=RESULTS PROGRAM
 *
 * Markers (x86-64 no-ops that compilers never emit; TCG translates them
 * as any other instruction):
 *
 *   66 87 db   xchg %bx,%bx   START: a segment begins
 *   66 87 c9   xchg %cx,%cx   STOP:  the segment ends; its counts are kept
 *   66 87 d2   xchg %dx,%dx   REPORT: one line for the segments kept since
 *                             the last REPORT, written to RESULTS
 *
 * The markers themselves are not counted. A segment is typically one
 * call of the code under test (tests/bench/grbench: one tracepoint call
 * with interrupts off), and a run many segments; the line gives the most
 * frequent count tuple (the mode: the common path, which does not move
 * from run to run), the mean (which includes the rare paths, such as a
 * sub-buffer switch, at the rate they occurred), the minimum and the
 * maximum:
 *
 *   tcgcount run=K segs=N mode_segs=M insns=I mem=A atomics=L
 *     local_rmw=W reps=S rep_execs=R mean_insns=.. mean_mem=.. mean_atomics=..
 *     mean_rep_execs=.. min_insns=.. max_insns=..
 *
 * What is counted, and how:
 *
 *   insns      instructions executed, a rep-prefixed string instruction
 *              once however many iterations it made (inline counter on
 *              every other instruction; an execution callback on the
 *              rep-string ones, which TCG executes once per iteration)
 *   reps       rep-prefixed string instructions (each also one of insns)
 *   rep_execs  executions of rep-prefixed string instructions: TCG runs
 *              one iteration per execution and one more that finds the
 *              count at zero (rep movsb of 16 bytes: 17); their loads
 *              and stores are in mem, one or two per iteration (hardware
 *              moves many bytes per cycle instead)
 *   mem        memory accesses as TCG performs them (inline counter on
 *              every access, loads and stores; a 16-byte SSE access is
 *              two, as TCG splits it)
 *   atomics    instructions with a LOCK prefix (0xf0), and xchg with a
 *              memory operand (0x86/0x87, ModRM mod != 3), which the CPU
 *              locks implicitly; decoded from the instruction bytes at
 *              translation
 *   local_rmw  cmpxchg and xadd on memory without a LOCK prefix (Linux's
 *              local_t operations on x86: atomic against interrupts on
 *              the own CPU, not against other CPUs, and cheaper than a
 *              locked one, but not free)
 *
 * The counters are the inline operations of the plugin API: one
 * increment of a shared 64-bit counter, without a call. They are exact
 * only when one vCPU runs, so in system emulation the plugin refuses to
 * load unless the machine has exactly one vCPU (-smp 1; boot the guest
 * with "noreplace-smp" so that Linux keeps its LOCK prefixes, which it
 * patches out on a one-CPU machine). In user mode the program must be
 * single-threaded.
 *
 * Arguments: out=FILE (default: standard error), max=N (segments kept
 * per run, default 1000000; more are counted in the run but left out of
 * mode, min and max, and the line says dropped=D).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tcg_plugin_api.h"
#include "tcgcount.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

/* The counters the translated code increments (one vCPU: no races) */
static struct tc_counts tc_now;
/* Executions of rep-string instructions (TCG: one per iteration, + 1) */
static uint64_t tc_rep_execs;
/* tc_now.insns and the instruction address at the last rep execution */
static uint64_t tc_rep_last_insns = UINT64_MAX, tc_rep_last_pc;

/* The open segment and the run's segments */
static struct tc_counts tc_start;
static int tc_in_segment;
static struct tc_run tc_run;
static unsigned long tc_runs;
static FILE *tc_out;

/* Translation-time description of an instruction that gets a callback */
struct tc_insn_cb {
	uint64_t pc;
};

static void tc_snapshot(struct tc_counts *c)
{
	*c = tc_now;
	c->rep_execs = tc_rep_execs;
}

static void tc_on_start(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	(void)udata;
	tc_snapshot(&tc_start);
	tc_in_segment = 1;
	tc_rep_last_insns = UINT64_MAX;
}

static void tc_on_stop(unsigned int vcpu, void *udata)
{
	struct tc_counts end, d;

	(void)vcpu;
	(void)udata;
	if (!tc_in_segment) {
		tc_run.unpaired++;
		return;
	}
	tc_snapshot(&end);
	tc_counts_sub(&d, &end, &tc_start);
	tc_run_add(&tc_run, &d);
	tc_in_segment = 0;
	tc_rep_last_insns = UINT64_MAX;
}

static void tc_on_report(unsigned int vcpu, void *udata)
{
	char line[512];

	(void)vcpu;
	(void)udata;
	tc_runs++;
	tc_run_format(&tc_run, tc_runs, line, sizeof(line));
	fputs(line, tc_out);
	fflush(tc_out);
	tc_run_reset(&tc_run);
}

/*
 * A rep-string instruction runs once per iteration, each time from its
 * own address with no other instruction in between (tc_now.insns does
 * not move): only an execution that follows something else starts a new
 * instruction.
 */
static void tc_on_rep(unsigned int vcpu, void *udata)
{
	const struct tc_insn_cb *ic = udata;

	(void)vcpu;
	tc_rep_execs++;
	if (tc_now.insns == tc_rep_last_insns && ic->pc == tc_rep_last_pc)
		return;
	tc_now.insns++;
	tc_now.reps++;
	tc_rep_last_insns = tc_now.insns;
	tc_rep_last_pc = ic->pc;
}

static void tc_on_tb(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	(void)id;
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		const uint8_t *b = qemu_plugin_insn_data(insn);
		size_t len = qemu_plugin_insn_size(insn);
		struct tc_insn_cb *ic;
		unsigned int kind = tc_decode(b, len);

		switch (kind & TC_MARKER_MASK) {
		case TC_START:
			qemu_plugin_register_vcpu_insn_exec_cb(insn, tc_on_start,
				QEMU_PLUGIN_CB_NO_REGS, NULL);
			continue;
		case TC_STOP:
			qemu_plugin_register_vcpu_insn_exec_cb(insn, tc_on_stop,
				QEMU_PLUGIN_CB_NO_REGS, NULL);
			continue;
		case TC_REPORT:
			qemu_plugin_register_vcpu_insn_exec_cb(insn, tc_on_report,
				QEMU_PLUGIN_CB_NO_REGS, NULL);
			continue;
		}
		if (kind & TC_REP_STRING) {
			/*
			 * Lives as long as the translation may run; TBs are
			 * few enough (a boot translates some 10^5) to keep.
			 */
			ic = malloc(sizeof(*ic));
			if (!ic)
				abort();
			ic->pc = qemu_plugin_insn_vaddr(insn);
			qemu_plugin_register_vcpu_insn_exec_cb(insn, tc_on_rep,
				QEMU_PLUGIN_CB_NO_REGS, ic);
		} else {
			qemu_plugin_register_vcpu_insn_exec_inline(insn,
				QEMU_PLUGIN_INLINE_ADD_U64, &tc_now.insns, 1);
		}
		if (kind & TC_LOCKED)
			qemu_plugin_register_vcpu_insn_exec_inline(insn,
				QEMU_PLUGIN_INLINE_ADD_U64, &tc_now.atomics, 1);
		if (kind & TC_LOCAL_RMW)
			qemu_plugin_register_vcpu_insn_exec_inline(insn,
				QEMU_PLUGIN_INLINE_ADD_U64, &tc_now.local_rmw, 1);
		qemu_plugin_register_vcpu_mem_inline(insn, QEMU_PLUGIN_MEM_RW,
			QEMU_PLUGIN_INLINE_ADD_U64, &tc_now.mem, 1);
	}
}

static void tc_on_exit(qemu_plugin_id_t id, void *udata)
{
	(void)id;
	(void)udata;
	if (tc_run.segs || tc_run.unpaired)
		tc_on_report(0, NULL);
	if (tc_out != stderr)
		fclose(tc_out);
	tc_run_free(&tc_run);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *out = NULL;
	unsigned long max = 1000000;
	char *end;
	int i;

	if (strcmp(info->target_name, "x86_64")) {
		fprintf(stderr, "tcgcount: decodes x86-64 only, not %s\n",
			info->target_name);
		return -1;
	}
	if (info->system_emulation && info->system.max_vcpus != 1) {
		fprintf(stderr, "tcgcount: exact counts need one vCPU (-smp 1), not %d\n",
			info->system.max_vcpus);
		return -1;
	}
	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			out = argv[i] + 4;
		} else if (!strncmp(argv[i], "max=", 4)) {
			errno = 0;
			max = strtoul(argv[i] + 4, &end, 10);
			if (errno || *end || !max) {
				fprintf(stderr, "tcgcount: bad %s\n", argv[i]);
				return -1;
			}
		} else {
			fprintf(stderr, "tcgcount: unknown argument %s (out=FILE, max=N)\n",
				argv[i]);
			return -1;
		}
	}
	tc_out = stderr;
	if (out) {
		tc_out = fopen(out, "w");
		if (!tc_out) {
			fprintf(stderr, "tcgcount: %s: %s\n", out, strerror(errno));
			return -1;
		}
	}
	if (tc_run_init(&tc_run, max)) {
		fprintf(stderr, "tcgcount: no memory for %lu segments\n", max);
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tc_on_tb);
	qemu_plugin_register_atexit_cb(id, tc_on_exit, NULL);
	return 0;
}
