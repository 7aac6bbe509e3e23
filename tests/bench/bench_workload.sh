#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench_workload.sh - what tracing costs a real workload in a real guest:
# ops/s with no tracer, with LTTng, with ftrace, with guestrelay, in ONE
# guest boot
#
#   tests/bench/bench_workload.sh       (make bench runs it)
#
# 1. builds guestrelay.ko, the agent and the test guest (make module host
#    guest) unless BENCH_NO_BUILD=1, and tests/bench/grwl.c as a static
#    program (cc -static -O2) under build/bench/workload/; installs LTTng
#    (scripts/deps.sh bench) and builds its modules for the guest kernel,
#    cached in build/bench/lttng/KVER (lib_bench.sh, bench_lttng_setup);
# 2. makes build/bench/workload/: the test guest's vmlinux and its
#    initramfs with a second cpio archive appended holding /bin/grwl,
#    /gr/bench-workload (tests/bench/guest-workload) and LTTng (tools,
#    libraries, modules, /gr/bench-lttng); build/guest stays as it is;
# 3. starts a private agent and boots the guest (scripts/launch-guest.sh,
#    TCG, 2 CPUs, ivshmem-doorbell, 64 MiB, stream mode, the same events
#    as ftrace's: sched_switch, sched_wakeup, sched_wakeup_new,
#    sched_process_fork/exec/exit, sched_migrate_task, sys_enter,
#    sys_exit) with gr.mod=0; the guest runs the workloads with no tracer,
#    with LTTng (the same sched events, every system call's entry and
#    exit), with ftrace, then loads guestrelay.ko and runs them again;
# 4. on "GR: WL done" reads guestrelay's counters (events written, lost);
# 5. prints the table (tests/bench/workload_table.py), also written to
#    build/bench/workload.md; the console is kept as workload.console.
#
# Workloads (grwl.c, pinned to guest CPU 0): pingpong = one byte back and
# forth between two processes over two pipes (per round trip two context
# switches, two wakeups, four syscalls); getppid = one syscall per op.
#
# BENCH_WL_SET=all (tests/bench/bench_allevents.sh): every event the
# guest's kernel has instead of the nine, for each tracer (guest-workload
# says how), LTTng with every probe module that builds for the guest
# kernel; getppid 200000 calls per run (quick 40000); the table by
# tests/bench/allevents_table.py in build/bench/allevents.md (console
# allevents.console).
#
# Environment: BENCH_QUICK=1 (fewer ops, 3 rounds), BENCH_REPS=R,
# BENCH_PP=N, BENCH_SC=N (ops per run), BENCH_TIMEOUT=S (QEMU),
# BENCH_NO_BUILD=1, BENCH_KEEP=1, BENCH_OUT=DIR (default build/bench),
# BENCH_LTTNG=0 (leave LTTng out: no install, no build, no column),
# GUEST_KVER, KDIR. Exit: 0 table written (read its warnings); 1 failed,
# or LTTng missing and not installable; 77 QEMU, a static libc or /dev/shm
# missing.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
bench_name=bench_workload
# shellcheck source=tests/bench/lib_bench.sh
. "$top/tests/bench/lib_bench.sh"
here=$top/tests/bench
bench_setup
out=${BENCH_OUT:-$build/bench}
set=${BENCH_WL_SET:-wl}
events=$bench_wl_events name=workload table=workload_table.py
sc_full=1000000 sc_quick=100000
if [ "$set" = all ]; then
	name=allevents table=allevents_table.py
	sc_full=200000 sc_quick=40000
	bench_lttng_probes=all
fi
if [ "${BENCH_QUICK:-0}" = 1 ]; then
	pp=${BENCH_PP:-4000} sc=${BENCH_SC:-$sc_quick} reps=${BENCH_REPS:-3}
	qemu_timeout=${BENCH_TIMEOUT:-600}
else
	pp=${BENCH_PP:-20000} sc=${BENCH_SC:-$sc_full} reps=${BENCH_REPS:-5}
	qemu_timeout=${BENCH_TIMEOUT:-1200}
fi
vm=benchwl$$

# ---- 1. build ----------------------------------------------------------------
wdir=$out/workload
bench_wl_build "$wdir"
bench_lttng_setup
# LTTng's channel, per CPU: 4 MiB sub-buffers, as many (a power of two) as
# hold the events of one getppid run (two per call, up to 32 B each) even
# if the consumer daemon fell behind; guest memory for the buffers and the
# tmpfs trace of the phase
lt_sub=4194304 lt_num=2
while [ $((lt_sub * lt_num)) -lt $((sc * 64)) ]; do
	lt_num=$((lt_num * 2))
done
[ "$lttng" = 1 ] && guest_mem=$((1024 + 2 * lt_sub * lt_num / 1048576))
# every event: LTTng's trace of a phase on the guest's tmpfs is larger
[ "$lttng" = 1 ] && [ "$set" = all ] && guest_mem=$((guest_mem + 1024))

# ---- 2. the guest: build/guest plus an archive with grwl and the script ------
bench_init gr-benchwl
bench_wl_overlay "$tmp/overlay" "$wdir"
[ "$lttng" = 1 ] && bench_lttng_overlay "$tmp/overlay"
bench_guest_image "$tmp/overlay" "$wdir"

# ---- 3. agent and guest ------------------------------------------------------
# shellcheck disable=SC2119 # no agent options
bench_start_agent
bench_hist_prefix=$out/$name-	# bench_request's saved answers
load_before=$(bench_load)
say "booting one guest: events $set, pingpong $pp, getppid $sc per run, $reps rounds, LTTng $lttng"
bench_boot "$wdir" bench-workload \
	"gr.mod=0 gr.set=$set gr.pp=$pp gr.sc=$sc gr.reps=$reps gr.ltsub=$lt_sub gr.ltnum=$lt_num clocksource=tsc tsc=reliable" \
	"$events" WL "$out/$name-status.json" "$out/$name.console"

# ---- 5. the table --------------------------------------------------------------
rc=0
python3 "$here/$table" --console "$out/$name.console" \
	--status "$out/$name-status.json" --pp "$pp" --sc "$sc" \
	--reps "$reps" --host-cores "$(nproc)" --lttng "$lttng" \
	--guest-mem "$guest_mem" \
	--host-cpu "$(bench_host_cpu)" \
	--qemu "$(bench_qemu_version), accelerator $(bench_accel_used)" \
	--load "$load_before / $(bench_load)" \
	--seconds $(($(date +%s) - t0)) >"$out/$name.md" || rc=$?
bench_report "$out/$name.md" "$rc"
