#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench_statedump.sh - what the state dump (spec 9.7) holds, and for how
# long, with many threads
#
#   tests/bench/bench_statedump.sh        (BENCH_THREADS=N, default 10000)
#
# Builds tests/bench/grthreads.c static, appends it and the guest script
# (tests/bench/guest-statedump) to the test guest's initramfs, boots it
# (TCG, 2 CPUs, 1 GiB) with gr.mod=0 under a private agent recording the
# agent's default events; the guest starts N idle threads, loads
# guestrelay.ko and prints the module's dump_stats of the state dump it
# takes at publication: threads dumped, RCU read-side sections, total
# duration, longest section. Prints them as a table, also written to
# build/bench/statedump.md. Timings are TCG's: emulated, compare only
# within one run. Environment: BENCH_THREADS, BENCH_TIMEOUT=S (QEMU),
# BENCH_NO_BUILD=1, BENCH_KEEP=1, BENCH_OUT=DIR. Exit 0, 1 failed, 77 no
# QEMU or static libc.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
bench_name=bench_statedump
# shellcheck source=tests/bench/lib_bench.sh
. "$top/tests/bench/lib_bench.sh"
here=$top/tests/bench
bench_setup
out=${BENCH_OUT:-$build/bench}
threads=${BENCH_THREADS:-10000}
qemu_timeout=${BENCH_TIMEOUT:-400}
guest_mem=1024
vm=benchsd$$

wdir=$out/statedump
mkdir -p "$wdir"
bench_build_guest "$wdir"
${CC:-cc} -static -O2 -Wall -Wextra -pthread -o "$wdir/grthreads" \
	"$here/grthreads.c" >>"$wdir/build.log" 2>&1 ||
	skip "cannot build a static program (libc6-dev's libc.a?); see $wdir/build.log"
bench_need_guest

bench_init gr-benchsd
mkdir -p "$tmp/overlay/bin" "$tmp/overlay/gr"
cp "$wdir/grthreads" "$tmp/overlay/bin/grthreads"
cp "$here/guest-statedump" "$tmp/overlay/gr/bench-statedump"
chmod 755 "$tmp/overlay/bin/grthreads" "$tmp/overlay/gr/bench-statedump"
bench_guest_image "$tmp/overlay" "$wdir"

# shellcheck disable=SC2119 # no agent options
bench_start_agent
load_before=$(bench_load)
say "booting one guest with $threads idle threads"
bench_boot "$wdir" bench-statedump "gr.mod=0 gr.threads=$threads" \
	sched_switch,sched_process_fork,sched_process_exit,lttng_statedump SD \
	"$out/statedump-status.json" "$out/statedump.console"

stats=$(sed -n 's/^GR: SD stats //p' "$out/statedump.console" | tr -d '\r')
have=$(sed -n 's/^GR: SD threads //p' "$out/statedump.console" | tr -d '\r')
# "dumps D threads T batches B total_ns N max_hold_ns H"
read -r _ _ _ dumped _ batches _ total _ hold <<<"$stats"
{
	echo "# State dump with $threads idle threads (TCG, 2 vCPUs, $(bench_qemu_version))"
	echo
	echo "host load before/after: $load_before / $(bench_load)"
	echo
	echo "| threads in /proc | threads dumped | RCU sections | whole dump | longest hold |"
	echo "|---|---|---|---|---|"
	awk -v h="$have" -v d="$dumped" -v b="$batches" -v t="$total" \
		-v m="$hold" 'BEGIN { printf "| %s | %s | %s | %.1f ms | %.1f us |\n",
			h, d, b, t / 1e6, m / 1e3 }'
} >"$out/statedump.md"
cat "$out/statedump.md"
