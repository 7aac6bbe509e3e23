#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench_hist.sh - per-event cost of aggregation in the guest (spec 17,
# issue 21): guestrelay's hist request against ftrace's hist trigger with
# the same keys on the same event, counted in ONE guest boot
#
#   tests/bench/bench_hist.sh            (or: make bench)
#
# 1. builds guestrelay.ko, the agent, the test guest, grbench.ko and
#    tcgcount.so (lib_bench.sh, as bench_guest.sh);
# 2. boots the bench guest once under TCG with tcgcount.so (one vCPU,
#    noreplace-smp, gr.count=1): /gr/bench-hist runs sched_switch's
#    variants none, ftrace (recording), ftrace's hist triggers
#    keys=prev_pid, keys=prev_pid:vals=prev_prio and keys=prev_pid.log2
#    (the event not enabled), guestrelay recording (loaded with
#    events=lttng_statedump, so that no probe attaches before the host
#    enables sched_switch at bind), then guestrelay with
#    recording off and the same three hist requests, set by this script
#    when the guest asks (lib_bench.sh's bench_request); each call counted
#    alone between the plugin's markers (instructions, memory accesses,
#    atomics), 2 rounds of BENCH_COUNT_CALLS calls;
# 3. prints the table (tests/bench/hist_table.py), also written to
#    build/bench/hist.md; console in build/bench/hist.console, the
#    plugin's lines in build/bench/hist-counts.txt, guestrelay's hists
#    and status after each hist phase in build/bench/hist-VARIANT.json
#    and hist-VARIANT-status.json.
#
# Environment:
#   BENCH_QUICK=1        500 calls per counted run (default 2000)
#   BENCH_COUNT_CALLS=N  calls per counted run
#   BENCH_TIMEOUT=S      seconds QEMU may run (default 1200; quick 900)
#   BENCH_NO_BUILD=1     use what is already built
#   BENCH_KEEP=1         keep the temporary directory
#   GUEST_KVER, KDIR     the guest kernel, as for the top-level Makefile
# Exit status: 0 the table is written; 1 the benchmark failed, or a
# variant ran with other probes attached than it should, or the counts
# differ between rounds, or a hist did not count every call; 77 QEMU or
# /dev/shm missing.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
bench_name=bench_hist
# shellcheck source=tests/bench/lib_bench.sh
. "$top/tests/bench/lib_bench.sh"

# ---- 1. build (out, calls, plugin) -----------------------------------------
bench_counted_setup
vm=benchhist$$
lttng=0				# bench_probes_image: no LTTng in the guest

# ---- 2. the guest, counted ---------------------------------------------------
bench_init gr-benchhist
bench_probes_image "$out/guest-hist"
# shellcheck disable=SC2119 # no agent options
bench_start_agent
rm -f "$out"/hist-gr-hist*.json "$out/hist-disable-status.json"
bench_hist_prefix=$out/hist-
bench_counted_boot "$out/hist-counts.txt"
say "booting the guest under tcgcount.so: $calls calls per run, 2 rounds"
bench_boot "$out/guest-hist" bench-hist \
	"gr.mod=0 gr.count=1 gr.calls=$calls gr.reps=2 gr.modargs=events=lttng_statedump noreplace-smp clocksource=tsc tsc=reliable" \
	sched_switch BENCH "$out/hist-status.json" "$out/hist.console"

# ---- 3. the table ----------------------------------------------------------------
rc=0
python3 "$top/tests/bench/hist_table.py" \
	--console "$out/hist.console" --counts "$out/hist-counts.txt" \
	--status "$out/hist-status.json" --saved "$out/hist-" \
	--calls "$calls" --qemu "$(bench_qemu_version)" \
	--seconds $(($(date +%s) - t0)) >"$out/hist.md" || rc=$?
bench_report "$out/hist.md" "$rc"
