#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench_anyevent.sh - per-event cost of guestrelay's generic path (the
# anyevent= module parameter, guest-module/gr_anyevent.c: a perf counter
# per CPU on the tracepoint, PERF_SAMPLE_RAW, issue 25) against its native
# probe, ftrace and LTTng, counted in ONE guest boot
#
#   tests/bench/bench_anyevent.sh            (or: make bench)
#
# The module refuses anyevent= for an event its table records natively
# (the name is taken), so one tracepoint cannot be recorded both ways. The
# benchmark takes the two tracepoints of one event class instead:
# irq:softirq_entry, recorded by guestrelay's native probe, and
# irq:softirq_raise, which has none and is recorded through anyevent=
# (guestrelay.ko loaded with anyevent=irq:softirq_raise, the host enabling
# both). Same prototype (unsigned int vec_nr), same fields, same ftrace,
# perf and LTTng code (the class "softirq"), so the rows differ only in
# guestrelay's path. One module load records both.
#
# 1. builds guestrelay.ko, the agent, the test guest, grbench.ko and
#    tcgcount.so, and LTTng's modules (lib_bench.sh, as bench_guest.sh);
# 2. boots the bench guest once under TCG with tcgcount.so (one vCPU,
#    noreplace-smp, gr.count=1, gr.set=anyevent): /gr/bench-probes runs the
#    variants none, lttng, ftrace, both and gr over the two targets, each
#    call counted alone between the plugin's markers (instructions, memory
#    accesses, atomics), 2 rounds of BENCH_COUNT_CALLS calls;
# 3. prints the table (tests/bench/anyevent_table.py), also written to
#    build/bench/anyevent.md; console in build/bench/anyevent.console,
#    the plugin's lines in build/bench/anyevent-counts.txt.
#
# Environment:
#   BENCH_QUICK=1        500 calls per counted run (default 2000)
#   BENCH_COUNT_CALLS=N  calls per counted run
#   BENCH_TIMEOUT=S      seconds QEMU may run (default 1200; quick 900)
#   BENCH_LTTNG=0        leave LTTng out (no install, no build, no column)
#   BENCH_NO_BUILD=1     use what is already built
#   BENCH_KEEP=1         keep the temporary directory
#   GUEST_KVER, KDIR     the guest kernel, as for the top-level Makefile
# Exit status: 0 the table is written; 1 the benchmark failed, or a
# variant ran with other probes attached than it should, or the counts
# differ between rounds; 77 QEMU or /dev/shm missing.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
bench_name=bench_anyevent
# shellcheck source=tests/bench/lib_bench.sh
. "$top/tests/bench/lib_bench.sh"

# ---- 1. build (out, calls, plugin) -----------------------------------------
bench_counted_setup
clock_args="clocksource=tsc tsc=reliable"
vm=benchae$$
bench_lttng_setup
bench_lttng_buffers "$calls"

# ---- 2. the guest, counted ---------------------------------------------------
bench_init gr-benchae
bench_probes_image "$out/guest-anyevent"
# shellcheck disable=SC2119 # no agent options
bench_start_agent
bench_counted_boot "$out/anyevent-counts.txt"
say "booting the guest under tcgcount.so: $calls calls per run, 2 rounds, LTTng $lttng"
bench_boot "$out/guest-anyevent" bench-probes \
	"gr.mod=0 gr.count=1 gr.set=anyevent gr.modargs=anyevent=irq:softirq_raise gr.calls=$calls gr.reps=2 gr.ltsub=$lt_sub gr.ltnum=$lt_num noreplace-smp $clock_args" \
	softirq_entry,softirq_raise BENCH "$out/anyevent-status.json" \
	"$out/anyevent.console"

# ---- 3. the table ----------------------------------------------------------------
rc=0
python3 "$top/tests/bench/anyevent_table.py" \
	--console "$out/anyevent.console" --counts "$out/anyevent-counts.txt" \
	--status "$out/anyevent-status.json" --lttng "$lttng" \
	--calls "$calls" --qemu "$(bench_qemu_version)" \
	--seconds $(($(date +%s) - t0)) >"$out/anyevent.md" || rc=$?
bench_report "$out/anyevent.md" "$rc"
