#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench_client.sh - per-write cost of guestrelay's client API (issue 24)
# against the guest kernel's own relay_write() on a kernel relay channel,
# and of gr_klog() against trace_printk(), in ONE guest boot; then the
# same writes counted (instructions, memory accesses, atomics) in a
# second boot under tcgcount.so
#
#   tests/bench/bench_client.sh            (make bench runs it)
#
# 1. builds guestrelay.ko, the agent and the test guest (make module host
#    guest) unless BENCH_NO_BUILD=1, tests/bench/grcbench against the
#    guest kernel and guestrelay.ko's Module.symvers in a copy under
#    build/bench/grcbench, and tcgcount.so;
# 2. makes build/bench/client/: the test guest's vmlinux and its
#    initramfs with a second archive appended holding
#    /lib/modules/grcbench.ko (lib_bench.sh, bench_guest_image);
# 3. starts a private agent and boots the guest (one vCPU, 64 MiB region,
#    guestrelay.ko loaded by init with client_kib=16384) running
#    /gr/bench-client (scripts/guest/bench-client): per round, 64-byte
#    records with gr_relay_write() and relay_write(), __gr_relay_write()
#    and __relay_write(), gr_relay_reserve() and relay_reserve(), and
#    "grcbench: record I of N" lines with gr_klog() and trace_printk(),
#    timed in chunks of 1000 with interrupts off;
# 4. boots it again under TCG with tcgcount.so (noreplace-smp,
#    gr.count=1): the same writes, each counted alone, 2 rounds of
#    BENCH_COUNT_CALLS (default 2000);
# 5. after each boot checks that nothing measured was dropped: the host
#    stored gr_ok x 64 bytes of channels/grcbench/grcbench_* and one
#    klog line per gr_klog() call (channels/klog/klog_0.txt), the agent
#    counted no loss on either channel, grcbench counted no failed
#    guestrelay write or reserve, relay's buffer holds relay_calls x 64 bytes (its
#    subbuf_start callback), and ftrace's CPU 0 buffer holds every
#    trace_printk() line of a run with no overrun;
# 6. prints the table (tests/bench/client_table.py), also written to
#    build/bench/client.md; consoles in build/bench/client.console and
#    client-count.console, the plugin's lines in client-counts.txt.
#
# Environment: BENCH_QUICK=1 (10000 writes per run, 3 rounds, 1000
# counted), BENCH_CALLS=N, BENCH_REPS=R, BENCH_COUNT=0 (no counted boot),
# BENCH_COUNT_CALLS=N, BENCH_TIMEOUT=S (QEMU, per boot), BENCH_NO_BUILD=1,
# BENCH_KEEP=1, BENCH_ACCEL (timed boot; the counted one is TCG),
# BENCH_OUT=DIR (default build/bench), GUEST_KVER, KDIR.
# Exit: 0 table written; 1 failed, or a write was dropped (the numbers
# would flatter the one that dropped); 77 QEMU or /dev/shm missing.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
bench_name=bench_client
# shellcheck source=tests/bench/lib_bench.sh
. "$top/tests/bench/lib_bench.sh"
bench_setup
out=${BENCH_OUT:-$build/bench}
if [ "${BENCH_QUICK:-0}" = 1 ]; then
	calls=${BENCH_CALLS:-10000} reps=${BENCH_REPS:-3}
	ccalls=${BENCH_COUNT_CALLS:-1000}
	qemu_timeout=${BENCH_TIMEOUT:-600}
else
	calls=${BENCH_CALLS:-50000} reps=${BENCH_REPS:-5}
	ccalls=${BENCH_COUNT_CALLS:-2000}
	qemu_timeout=${BENCH_TIMEOUT:-1200}
fi
vm=benchcl$$
rec=64
# sched_process_exec alone: guestrelay's trace channel records the
# script's few programs, nothing inside the timed chunks
events=sched_process_exec
modargs=gr.modargs=client_kib=16384

# ---- 1. build ----------------------------------------------------------------
gdir=$out/client
mkdir -p "$gdir" "$out/grcbench"
bench_build_guest "$gdir"
if [ "${BENCH_NO_BUILD:-0}" != 1 ]; then
	say "building grcbench.ko against $kdir"
	cp -p "$top/tests/bench/grcbench/grcbench.c" \
		"$top/tests/bench/grcbench/Kbuild" "$out/grcbench/"
	make -C "$kdir" M="$out/grcbench" GR_TOP="$top" \
		KBUILD_EXTRA_SYMBOLS="$top/guest-module/Module.symvers" \
		modules >>"$gdir/build.log" 2>&1 ||
		die "grcbench.ko failed to build; see $gdir/build.log"
	if [ "${BENCH_COUNT:-1}" = 1 ]; then
		make -C "$top/tests/bench/tcgcount" BUILD="$build" \
			>>"$gdir/build.log" 2>&1 ||
			die "tcgcount.so failed to build; see $gdir/build.log"
	fi
fi
bench_need_guest
[ -s "$out/grcbench/grcbench.ko" ] || die "no $out/grcbench/grcbench.ko"

# ---- 2. the guest --------------------------------------------------------------
bench_init gr-bench-client
mkdir -p "$tmp/overlay/lib/modules"
cp "$out/grcbench/grcbench.ko" "$tmp/overlay/lib/modules/"
bench_guest_image "$tmp/overlay" "$gdir"

# check_boot CONSOLE STATUS_JSON SESSION_DIR: the checks of step 5, one
# "GR: CLB check NAME ok|FAIL DETAIL" line each appended to CONSOLE
check_boot() {
	python3 "$top/tests/bench/client_table.py" --check "$1" \
		--status "$2" --session "$3" --rec "$rec" >"$tmp/checks"
	cat "$tmp/checks" >>"$1"
}

# last_session: the VM's newest session directory (named by its UTC start,
# so they sort by time): that of the boot just ended
last_session() {
	local s
	s=$(find "$tmp/store/$vm" -mindepth 1 -maxdepth 1 -type d 2>/dev/null |
		LC_ALL=C sort | tail -n 1)
	echo "${s:-$tmp/store/$vm/none}"
}

# ---- 3. agent and the timed boot -------------------------------------------------
# shellcheck disable=SC2119 # no agent options
bench_start_agent
load_before=$(bench_load)
bench_launch_extra=(--smp 1)
say "booting one guest: $calls writes per run, $reps rounds"
bench_boot "$gdir" bench-client \
	"$modargs gr.calls=$calls gr.reps=$reps ${BENCH_APPEND:-}" \
	"$events" CLB "$out/client-status.json" "$out/client.console"
accel=$(bench_accel_used)
check_boot "$out/client.console" "$out/client-status.json" "$(last_session)"

# ---- 4. the same writes counted --------------------------------------------------
count_args=()
if [ "${BENCH_COUNT:-1}" = 1 ]; then
	plugin=$build/bench/tcgcount/tcgcount.so
	[ -s "$plugin" ] || die "no $plugin (run without BENCH_NO_BUILD=1)"
	rm -f "$out/client-counts.txt"
	bench_accel=tcg
	bench_qemu_extra=(-plugin "$plugin,out=$out/client-counts.txt")
	say "booting it again under tcgcount.so: $ccalls writes per run, 2 rounds"
	bench_boot "$gdir" bench-client \
		"$modargs gr.count=1 gr.calls=$ccalls gr.reps=2 noreplace-smp ${BENCH_APPEND:-}" \
		"$events" CLB "$out/client-count-status.json" \
		"$out/client-count.console"
	check_boot "$out/client-count.console" \
		"$out/client-count-status.json" "$(last_session)"
	count_args=(--count-console "$out/client-count.console"
		    --counts "$out/client-counts.txt")
fi

# ---- 6. the table ------------------------------------------------------------------
rc=0
python3 "$top/tests/bench/client_table.py" --console "$out/client.console" \
	"${count_args[@]}" --accel "$accel" --calls "$calls" --reps "$reps" \
	--rec "$rec" --host-cpu "$(bench_host_cpu)" \
	--qemu "$(bench_qemu_version)" --host-cores "$(nproc)" \
	--load "$load_before / $(bench_load)" \
	--seconds $(($(date +%s) - t0)) >"$out/client.md" || rc=$?
bench_report "$out/client.md" "$rc"
