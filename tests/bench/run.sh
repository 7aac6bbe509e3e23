#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh - `make bench`: every benchmark, in order, each building what it
# needs. A benchmark that cannot run here (exit 77: a tool missing, no
# /dev/shm) is reported as skipped with its reason and the others go on;
# one that fails is reported, the others go on, and the exit status is 1.
# Ends with "N ran, N failed, N skipped".
#
#   tests/bench/run.sh [NAME...]     (default: all; NAME as bench_NAME.sh)
#   BENCH_QUICK=1 make bench         short runs (tests/bench/README.md)
#   BENCH_SMOKE=1 make bench         the smallest sizes, of the set
#                                    BENCH_SMOKE_SET (default "core guest
#                                    host"), without LTTng: that make
#                                    bench builds and runs, measuring
#                                    nothing (tests/bench/fresh_clone.sh)
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
BUILD=${BUILD:-$TOP/build}
export BUILD
all="core guest anyevent hist client host workload allevents hoststream volume ship fleet live"
if [ "${BENCH_SMOKE:-0}" = 1 ]; then
	all=${BENCH_SMOKE_SET:-"core guest host"}
	export BENCH_QUICK=1 BENCH_TINY=1 BENCH_LTTNG=0 BENCH_CALLS=2000
	export BENCH_REPS=1 BENCH_COUNT_CALLS=200
fi
[ $# -gt 0 ] && all="$*"
mkdir -p "$BUILD/bench"
ran=0 failed=0 skipped=0 failures=""

for b in $all; do
	log=$BUILD/bench/run-$b.log
	echo "== bench_$b.sh (log $log)"
	"$HERE/bench_$b.sh" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	case $rc in
	0) ran=$((ran + 1)) ;;
	77)
		skipped=$((skipped + 1))
		echo "== bench_$b.sh skipped: $(grep -i 'skip\|not found\|missing' "$log" | tail -n 1)"
		;;
	*)
		failed=$((failed + 1))
		failures="$failures $b"
		echo "== bench_$b.sh FAILED (exit $rc)"
		;;
	esac
done
[ -n "$failures" ] && echo "failed:$failures"
echo "$ran ran, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
