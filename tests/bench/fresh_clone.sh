#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fresh_clone.sh - `make bench` works from a fresh clone: clones this
# repository's HEAD into a temporary directory (nothing built there) and
# runs `BENCH_SMOKE=1 make bench` in it: every benchmark of the chosen
# set builds what it needs and runs at its smallest size (tests/bench/
# run.sh; the set is BENCH_SMOKE_SET, default "core guest host": the
# userspace counts, a guest boot with the counted boot under tcgcount.so,
# the agent with fake guests). Measures nothing; the integration tier
# runs it (scripts/run-tests.sh).
#
# Prints "N passed, N failed" (one check); exit 77 without git or QEMU.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
command -v git >/dev/null || { echo "skip: git not found"; exit 77; }
command -v qemu-system-x86_64 >/dev/null ||
	{ echo "skip: qemu-system-x86_64 not found (scripts/deps.sh guest)"; exit 77; }
tmp=$(mktemp -d /tmp/bench_fresh.XXXXXX) || exit 1
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	if [ "${KEEP:-0}" = 1 ]; then echo "kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT

git clone -q "$TOP" "$tmp/clone" || { echo "0 passed, 1 failed"; exit 1; }
echo "fresh clone of $(git -C "$TOP" rev-parse --short HEAD) in $tmp/clone"
cd "$tmp/clone" || exit 1
# stopped by the caller's time limit: say where the bench was, stop it
# (its own process group: make, the benchmarks, their guests), then fail
mk=
# shellcheck disable=SC2317 # the TERM trap calls it
on_term() {
	echo "FAIL - make-bench-from-a-fresh-clone: stopped by the time limit" \
		"($(uptime)); the log so far:"
	tail -n 40 "$tmp/bench.log" | sed 's/^/    | /'
	for f in "$tmp"/clone/build/bench/run-*.log; do
		[ -f "$f" ] && echo "    | -- $(basename "$f"): $(tail -n 1 "$f")"
	done
	[ -n "$mk" ] && kill -TERM -- "-$mk" 2>/dev/null
	echo "0 passed, 1 failed"
	exit 1
}
trap on_term TERM
BENCH_SMOKE=1 setsid make -j2 bench >"$tmp/bench.log" 2>&1 &
mk=$!
wait "$mk"
rc=$?
mk=
if [ "$rc" = 0 ]; then
	tail -n 3 "$tmp/bench.log"
	echo "ok - make-bench-from-a-fresh-clone"
	echo "1 passed, 0 failed"
	exit 0
fi
tail -n 40 "$tmp/bench.log" | sed 's/^/    | /'
echo "FAIL - make-bench-from-a-fresh-clone: see the log above"
echo "0 passed, 1 failed"
exit 1
