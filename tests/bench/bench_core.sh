#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench_core.sh - instructions per event of the guest's relay core against
# the floor, counted by callgrind (tests/bench/relay_ir.c)
#
#   tests/bench/bench_core.sh            (make bench runs it)
#
# Builds relay_ir from guest-module/gr_relay.[ch], gr_ctf_packet.c,
# gr_record.c, gr_relay_client.c, gr_layout.c, gr_filter.c, gr_hist.c in
# userspace (tests/shim, -O2 as the unit tests), then for each path and
# payload size runs it under `valgrind --tool=callgrind` with N and 2N
# events; (I(2N) - I(N)) / N is the cost of one event, start-up excluded,
# sub-buffer switches included at their real rate. Instruction counts are
# the same whatever else the machine does, so this table is the stable
# complement of bench_guest.sh's emulated timings. The userspace build
# differs from the module in two places, the same for every path: the
# clock (clock_gettime(), which valgrind runs as a system call, so it
# counts little) and interrupts (no save/restore in userspace).
#
# Environment: BENCH_QUICK=1 (N = 5000 instead of 20000), BENCH_OUT=DIR
# (default build/bench). Output: the table on stdout and in
# DIR/core.md. Exit: 0 table written; 1 failed; 77 valgrind missing.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
out=${BENCH_OUT:-$build/bench}
n=20000
[ "${BENCH_QUICK:-0}" = 1 ] && n=5000
paths="clock floor rec keep drop fkeep fdrop write reserve hrec hagg"
# irq_handler_exit, sys_enter and sched_switch, sched_process_exec
payloads="8 56 248"

say() { echo "bench_core: $*" >&2; }
command -v valgrind >/dev/null || "$top/scripts/deps.sh" bench >&2 || true
if ! command -v valgrind >/dev/null; then
	say "valgrind not found (scripts/deps.sh bench); skipped"
	exit 77
fi
mkdir -p "$out"
bin=$out/relay_ir
say "building $bin"
cc -std=gnu11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE \
	-I"$top/spec" -I"$top/tests/shim" -I"$top/guest-module" \
	-o "$bin" "$top/tests/bench/relay_ir.c" \
	"$top/guest-module/gr_relay.c" "$top/guest-module/gr_ctf_packet.c" \
	"$top/guest-module/gr_record.c" "$top/guest-module/gr_relay_client.c" \
	"$top/guest-module/gr_layout.c" "$top/guest-module/gr_filter.c" \
	"$top/guest-module/gr_hist.c" -pthread

# ir PATH PAYLOAD N: instructions callgrind counted for the whole run
ir() {
	valgrind --tool=callgrind --callgrind-out-file=/dev/null \
		"$bin" "$1" "$2" "$3" 2>&1 >/dev/null |
		sed -nE 's/.*Collected : ([0-9]+).*/\1/p; s/.*I +refs: +([0-9,]+).*/\1/p' |
		tr -d , | head -n 1
}

declare -A per
for len in $payloads; do
	for p in $paths; do
		a=$(ir "$p" "$len" "$n")
		b=$(ir "$p" "$len" $((2 * n)))
		if [ -z "$a" ] || [ -z "$b" ]; then
			say "no instruction count for $p $len"
			exit 1
		fi
		per[$p.$len]=$(awk -v a="$a" -v b="$b" -v n="$n" \
			'BEGIN { printf "%.1f", (b - a) / n }')
	done
done

{
	echo "## Relay core: instructions per event (callgrind)"
	echo
	echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(valgrind --version), cc $(cc -dumpfullversion), N = $n and $((2 * n)) events per run."
	echo "floor = clock + 16-byte header + payload at a bump pointer; rec = a probe's"
	echo "gr_rec_begin/fill/gr_rec_commit; write = gr_chan_write() of a staged payload;"
	echo "reserve = gr_chan_reserve() + fill; keep / drop = rec with a filter program"
	echo "(spec 14) on the event that keeps / drops every record; pid keeps / drops = rec"
	echo "with a follow filter (spec 15) whose set holds / does not hold the writer (rec"
	echo "itself is the path without a pid filter). The target of issue 12:"
	echo "rec <= 1.25 x floor."
	echo
	echo "| payload B | clock | floor | rec | rec, filter keeps | rec, filter drops | rec, pid keeps | rec, pid drops | write | reserve | rec / floor | rec - floor | pid keeps / rec |"
	echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	for len in $payloads; do
		awk -v l="$len" -v c="${per[clock.$len]}" -v f="${per[floor.$len]}" \
		    -v r="${per[rec.$len]}" -v k="${per[keep.$len]}" \
		    -v d="${per[drop.$len]}" -v fk="${per[fkeep.$len]}" \
		    -v fd="${per[fdrop.$len]}" -v w="${per[write.$len]}" \
		    -v s="${per[reserve.$len]}" 'BEGIN {
			printf "| %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.2f | %.1f | %.2f |\n",
			       l, c, f, r, k, d, fk, fd, w, s, r / f, r - f, fk / r }'
	done
	echo
	echo "## Aggregation in the guest (spec 17): instructions per event (callgrind)"
	echo
	echo "hrec = rec with a hist request counting the event (key log2 of a payload"
	echo "word, its sum as value) in a 1024-entry per-CPU map; hagg = the same request"
	echo "with the event not recorded (payload into the CPU's scratch buffer, counted"
	echo "only). Baseline: rec and floor of the same run."
	echo
	echo "| payload B | floor | rec | rec + hist | hist only | rec + hist - rec | hist only / rec |"
	echo "|---:|---:|---:|---:|---:|---:|---:|"
	for len in $payloads; do
		awk -v l="$len" -v f="${per[floor.$len]}" -v r="${per[rec.$len]}" \
		    -v h="${per[hrec.$len]}" -v a="${per[hagg.$len]}" 'BEGIN {
			printf "| %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.2f |\n",
			       l, f, r, h, a, h - r, a / r }'
	done
} | tee "$out/core.md"
