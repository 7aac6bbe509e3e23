#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench_guest.sh - per-event cost of guestrelay's probes against ftrace's
# and LTTng's events on the same tracepoints, and against a floor (the
# least a tracer could do per event), with the clocks an event can be
# stamped with, measured in ONE guest boot
#
#   tests/bench/bench_guest.sh            (or: make bench)
#
# 1. builds guestrelay.ko, the agent and the test guest (make module host
#    guest), and tests/bench/grbench against the guest kernel, in a copy
#    under build/bench/ so the source tree stays clean; installs LTTng
#    (scripts/deps.sh bench) and builds its modules for the guest kernel,
#    cached in build/bench/lttng/KVER (lib_bench.sh, bench_lttng_setup);
# 2. makes build/bench/guest/: the test guest's vmlinux and its initramfs
#    with a second cpio archive appended that adds
#    /lib/modules/grbench.ko and LTTng (lttng, lttng-sessiond,
#    lttng-consumerd, their libraries, the modules with depmod's index,
#    /gr/bench-lttng) (the kernel unpacks concatenated archives;
#    build/guest and scripts/mkguest.sh stay as they are);
# 3. starts a private agent, boots the guest with scripts/launch-guest.sh
#    (ivshmem-doorbell, 64 MiB, stream mode, the four benchmarked events
#    enabled from the host) running /gr/bench-probes with gr.mod=0;
# 4. when the guest prints "GR: BENCH done", reads guestrelay's counters
#    from the agent (events written, lost by cause), so drops show;
# 4b. boots the same guest again under TCG with tcgcount.so
#    (tests/bench/tcgcount, built here), one vCPU, noreplace-smp and
#    gr.count=1: the same variants and targets, each call counted alone
#    (instructions, memory accesses, atomics; count_table.py), 2 rounds of
#    BENCH_COUNT_CALLS (default 2000) calls; the plugin's lines go to
#    build/bench/guest-counts.txt, the console to guest-count.console;
# 5. prints the table (tests/bench/guest_table.py), also written to
#    build/bench/guest.md; the console is kept in build/bench/guest.console.
#
# Environment:
#   BENCH_QUICK=1      20000 calls per run, 3 rounds (under a minute)
#   BENCH_CALLS=N      calls per run (default 100000)
#   BENCH_REPS=R       rounds of every variant (default 5)
#   BENCH_TIMEOUT=S    seconds QEMU may run (default 1800; quick 900)
#   BENCH_CLOCKSOURCE  the guest's clocksource: tsc (default: boots with
#                      "clocksource=tsc tsc=reliable"), guest (the kernel's
#                      own choice: hpet under TCG, an emulated MMIO read
#                      that then dominates every event of both tracers),
#                      or a name passed as clocksource=NAME
#   BENCH_APPEND=TEXT  more guest kernel command line
#   BENCH_LTTNG=0      leave LTTng out (no install, no build, no column)
#   BENCH_NO_BUILD=1   use what is already built
#   BENCH_KEEP=1       keep the temporary directory (agent log, trace)
#   BENCH_ACCEL=A      auto (default), kvm or tcg: the timed boot's
#                      accelerator (auto: KVM where it is a hardware KVM,
#                      else TCG, saying why); the counted boot is TCG
#   BENCH_COUNT=0      no counted boot (no counts in the table)
#   BENCH_COUNT_CALLS=N  calls per counted run (default 2000)
#   GUEST_KVER, KDIR   the guest kernel, as for the top-level Makefile
# Exit status: 0 the table is written (possibly with warnings: read them);
# 1 the benchmark failed, or a variant ran with other probes attached than
# it should (then its numbers mean nothing), or LTTng is missing and cannot
# be installed; 77 QEMU or /dev/shm missing.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
bench_name=bench_guest
# shellcheck source=tests/bench/lib_bench.sh
. "$top/tests/bench/lib_bench.sh"
bench_setup
out=$build/bench
events=sched_switch,sys_enter,irq_handler_exit,sched_process_exec
if [ "${BENCH_QUICK:-0}" = 1 ]; then
	calls=${BENCH_CALLS:-20000} reps=${BENCH_REPS:-3}
	qemu_timeout=${BENCH_TIMEOUT:-900}
else
	calls=${BENCH_CALLS:-100000} reps=${BENCH_REPS:-5}
	qemu_timeout=${BENCH_TIMEOUT:-1800}
fi
case "${BENCH_CLOCKSOURCE:-tsc}" in
tsc) clock_args="clocksource=tsc tsc=reliable" ;;
guest) clock_args="" ;;
*) clock_args="clocksource=$BENCH_CLOCKSOURCE" ;;
esac
vm=bench$$

# ---- 1. build --------------------------------------------------------------
mkdir -p "$out"
bench_build_guest "$out"
bench_build_grbench "$out" "${BENCH_COUNT:-1}"
bench_need_guest
bench_lttng_setup
bench_lttng_buffers "$calls"

# ---- 2. the guest: build/guest plus an archive holding grbench.ko ------------
bench_init gr-bench
bench_probes_image "$out/guest"

# ---- 3. agent and guest --------------------------------------------------------
# shellcheck disable=SC2119 # no agent options
bench_start_agent
load_before=$(bench_load)
say "booting one guest: $calls calls per run, $reps rounds, LTTng $lttng"
bench_boot "$out/guest" bench-probes \
	"gr.mod=0 gr.calls=$calls gr.reps=$reps gr.ltsub=$lt_sub gr.ltnum=$lt_num $clock_args ${BENCH_APPEND:-}" \
	"$events" BENCH "$out/guest-status.json" "$out/guest.console"

accel=$(bench_accel_used)

# ---- 4b. the same runs counted, under TCG with tcgcount.so -----------------------
count_args=()
if [ "${BENCH_COUNT:-1}" = 1 ]; then
	plugin=$build/bench/tcgcount/tcgcount.so
	[ -s "$plugin" ] || die "no $plugin (run without BENCH_NO_BUILD=1)"
	ccalls=${BENCH_COUNT_CALLS:-2000}
	rm -f "$out/guest-counts.txt"
	bench_accel=tcg
	bench_launch_extra=(--smp 1)
	bench_qemu_extra=(-plugin "$plugin,out=$out/guest-counts.txt")
	say "booting it again under tcgcount.so: $ccalls calls per run, 2 rounds"
	bench_boot "$out/guest" bench-probes \
		"gr.mod=0 gr.count=1 gr.calls=$ccalls gr.reps=2 gr.ltsub=$lt_sub gr.ltnum=$lt_num noreplace-smp $clock_args ${BENCH_APPEND:-}" \
		"$events" BENCH "$out/guest-count-status.json" \
		"$out/guest-count.console"
	count_args=(--count-console "$out/guest-count.console"
		    --counts "$out/guest-counts.txt")
fi

# ---- 5. the table ----------------------------------------------------------------
rc=0
python3 "$top/tests/bench/guest_table.py" --console "$out/guest.console" \
	--accel "$accel" "${count_args[@]}" \
	--status "$out/guest-status.json" --calls "$calls" --reps "$reps" \
	--shm-size "$shm_size" --host-cpu "$(bench_host_cpu)" \
	--qemu "$(bench_qemu_version)" --lttng "$lttng" --guest-mem "$guest_mem" \
	--clock-args "${clock_args:-none}" --host-cores "$(nproc)" \
	--load "$load_before / $(bench_load)" \
	--seconds $(($(date +%s) - t0)) >"$out/guest.md" || rc=$?
bench_report "$out/guest.md" "$rc"
