#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench_hoststream.sh - what the host stream costs (issue 22): the agent's
# CPU and the VM's throughput with the host stream on against off, the
# same guest, workload and agent, boots taken in turn
#
#   tests/bench/bench_hoststream.sh      (make bench runs it)
#
# 1. builds guestrelay.ko, the agent and the test guest (make module host
#    guest) unless BENCH_NO_BUILD=1, and tests/bench/grwl.c as a static
#    program, as bench_workload.sh does (build/bench/workload/);
# 2. the bench guest: build/guest plus /bin/grwl and /gr/bench-workload
#    (tests/bench/guest-workload) run with gr.only=gr: guestrelay.ko
#    loaded, recording the scheduler's events and every system call, while
#    grwl's pingpong and getppid run pinned to guest CPU 0 (vCPU 1 idles:
#    its thread sleeps and wakes on the host, what the host stream sees);
# 3. one private agent; per round two boots (TCG, 2 vCPUs), `vm-add
#    --host-stream off` and `on`, in turn (off first in odd rounds, on
#    first in even ones; the VM removed between them); for each
#    boot the agent's CPU time (the sum of /proc/PID/task/*/schedstat,
#    ns on a CPU) from before QEMU starts to after it left, and the host
#    stream's events (status --json at the end of the workload);
# 4. prints the table (tests/bench/hoststream_table.py), also written to
#    build/bench/hoststream.md: ops/s per workload (median [min-max] of
#    the runs), the agent's CPU seconds per boot and per second of the
#    boot, host events, and the ratios on/off.
#
# The host kernel's own cost of the host stream (perf's sched tracepoints
# on QEMU's threads, written into the agent's per-CPU rings) is charged to
# the threads the events fire on, QEMU's: it shows in the VM's ops/s.
#
# Environment: BENCH_QUICK=1 (1 round, fewer ops), BENCH_ROUNDS=N,
# BENCH_REPS=R, BENCH_PP=N, BENCH_SC=N, BENCH_TIMEOUT=S (QEMU),
# BENCH_NO_BUILD=1, BENCH_KEEP=1, BENCH_OUT=DIR (default build/bench),
# GUEST_KVER, KDIR. Exit: 0 table written (read its warnings); 1 failed;
# 77 QEMU, a static libc, /dev/shm, root or tracefs missing.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
bench_name=bench_hoststream
# shellcheck source=tests/bench/lib_bench.sh
. "$top/tests/bench/lib_bench.sh"
here=$top/tests/bench
bench_setup
out=${BENCH_OUT:-$build/bench}
events=$bench_wl_events
if [ "${BENCH_QUICK:-0}" = 1 ]; then
	pp=${BENCH_PP:-4000} sc=${BENCH_SC:-100000} reps=${BENCH_REPS:-3}
	rounds=${BENCH_ROUNDS:-1} qemu_timeout=${BENCH_TIMEOUT:-600}
else
	pp=${BENCH_PP:-20000} sc=${BENCH_SC:-1000000} reps=${BENCH_REPS:-3}
	rounds=${BENCH_ROUNDS:-2} qemu_timeout=${BENCH_TIMEOUT:-1200}
fi
[ "$(id -u)" = 0 ] ||
	skip "the host stream needs root here (perf events of the host's sched tracepoints)"
[ -r /sys/kernel/tracing/events/sched/sched_switch/id ] ||
	[ -r /sys/kernel/debug/tracing/events/sched/sched_switch/id ] ||
	skip "no tracefs: the agent cannot read the sched tracepoints' ids"

# ---- 1. build ----------------------------------------------------------------
wdir=$out/workload
bench_wl_build "$wdir"

# ---- 2. the guest ------------------------------------------------------------
bench_init gr-benchhs
mkdir -p "$tmp/image"
bench_wl_overlay "$tmp/overlay" "$wdir"
bench_guest_image "$tmp/overlay" "$tmp/image"

# ---- 3. the boots --------------------------------------------------------------
# shellcheck disable=SC2119 # no agent options
bench_start_agent
load_before=$(bench_load)
# agent_cpu: ns the agent's threads ran (schedstat: the scheduler's own
# count, finer than stat's clock ticks; its threads live as long as it)
agent_cpu() {
	cat "/proc/$agent_pid"/task/*/schedstat | awk '{ s += $1 } END { printf "%d\n", s }'
}
: >"$tmp/boots"
for r in $(seq "$rounds"); do
	# off first in odd rounds, on first in even ones: a drift of the
	# machine's load over the run weighs on both alike
	order="off on"
	[ $((r % 2)) = 0 ] && order="on off"
	for hs in $order; do
		vm=benchhs$$$hs$r
		bench_vm_extra="--host-stream $hs"
		say "round $r, host stream $hs: pingpong $pp, getppid $sc per run, $reps runs"
		c0=$(agent_cpu) w0=$(date +%s%N)
		bench_boot "$tmp/image" bench-workload \
			"gr.mod=0 gr.only=gr gr.pp=$pp gr.sc=$sc gr.reps=$reps gr.linger=1 clocksource=tsc tsc=reliable" \
			"$events" WL "$tmp/status-$hs-$r.json" "$tmp/console-$hs-$r.log"
		c1=$(agent_cpu) w1=$(date +%s%N)
		echo "$hs $r $((c1 - c0)) $(((w1 - w0) / 1000000)) $tmp/console-$hs-$r.log $tmp/status-$hs-$r.json" \
			>>"$tmp/boots"
		"$gr" --run-dir "$tmp/run" vm-remove "$vm" >/dev/null 2>&1 ||
			say "vm-remove $vm failed"
	done
done

# ---- 4. the table --------------------------------------------------------------
rc=0
python3 "$here/hoststream_table.py" --boots "$tmp/boots" \
	--pp "$pp" --sc "$sc" --reps "$reps" \
	--host-cores "$(nproc)" --host-cpu "$(bench_host_cpu)" \
	--qemu "$(bench_qemu_version), accelerator $(bench_accel_used)" \
	--load "$load_before / $(bench_load)" \
	--seconds $(($(date +%s) - t0)) >"$out/hoststream.md" || rc=$?
bench_report "$out/hoststream.md" "$rc"
