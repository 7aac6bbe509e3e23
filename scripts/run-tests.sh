#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build and run guestrelay's test tiers and print one closing line for CI:
#   N passed, N failed, N skipped
# Usage: scripts/run-tests.sh TIER...   (style unit fuzz integration e2e
#        stress libvirt)
#
# A CUnit program counts as its CUnit test results; any other test program
# counts as one test. Exit status 77 means "skipped" (the program prints why);
# a skip is never a pass. Each program runs under a time limit
# (GR_TEST_TIMEOUT seconds, default 600).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
build=${BUILD:-$top/build}
logs="$build/test-logs"
mkdir -p "$logs"
limit=${GR_TEST_TIMEOUT:-600}
# the integration tier's lanes (tier_integration): 2 on 2 CPUs or more
lanes=${GR_TEST_LANES:-$(($(nproc) >= 2 ? 2 : 1))}
# integration tests that measure host scheduling or clock precision, or
# bound a recovery in seconds (test_ship_hang: 10 s to fail over, missed
# once beside the other lane): never beside another test
SOLO_TESTS="test_host_steal test_sync_tsc test_vmsync test_agent_throughput test_agent_doorbell_storm test_ship_hang"
# builds use every CPU (the tests themselves run one at a time)
jobs=$(nproc)
passed=0
failed=0
skipped=0
failures=()
whats=()

# run_prog NAME CMD...: run one test program, account for its results.
run_prog() {
	local r

	r=$(timed_run "$@")
	# shellcheck disable=SC2086 # "NAME RC T0 T1"
	account $r
}

# timed_run NAME CMD...: run one test program under the time limit, its
# output in NAME.log; prints "NAME RC T0 T1" (exit status, start and end
# in seconds) for account(), counts nothing (a background lane's part)
timed_run() {
	local name=$1 t0 rc
	shift
	t0=$(date +%s)
	timeout --kill-after=15 "$limit" "$@" >"$logs/$name.log" 2>&1 </dev/null
	rc=$?
	echo "$name $rc $t0 $(date +%s)"
}

# collect PID FILE: wait for a background lane, then count the programs
# it ran, each a timed_run line of FILE
collect() {
	local name rc t0 t1

	wait "$1"
	while read -r name rc t0 t1; do
		account "$name" "$rc" "$t0" "$t1"
	done <"$2"
}

# account NAME RC T0 T1: count the results of a test program that ran
# from T0 to T1 (seconds) with exit status RC, its output in NAME.log
account() {
	local name=$1 rc=$2 t0=$3 t1=$4
	local log="$logs/$name.log" line plain ran pass fail skip
	line=$(grep -E '^[[:space:]]+tests[[:space:]]+[0-9]+' "$log" | tail -n1)
	plain=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n1)
	if [ "$rc" -eq 77 ]; then
		skipped=$((skipped + 1))
		echo "SKIP $name ($((t1 - t0))s): $(grep -i 'skip' "$log" | tail -n1)"
		return
	fi
	if [ -n "$line" ]; then
		read -r _ _ ran pass fail _ <<<"$line"
		passed=$((passed + pass))
		failed=$((failed + fail))
		# tests gr_test_main() did not register (tests/lib/gr_test.c)
		skip=$(grep -c '^SKIP test ' "$log")
		skipped=$((skipped + skip))
		if [ "$rc" -ne 0 ] && [ "$fail" -eq 0 ]; then
			failed=$((failed + 1))	# crashed or failed outside CUnit
		fi
	elif [ -n "$plain" ]; then
		# a script's own "N passed, N failed[, N skipped]" line
		read -r pass _ fail _ <<<"${plain//,/}"
		skip=$(sed -n 's/.* \([0-9][0-9]*\) skipped.*/\1/p' <<<"$plain")
		passed=$((passed + pass))
		failed=$((failed + fail))
		skipped=$((skipped + ${skip:-0}))
		if [ "$rc" -ne 0 ] && [ "$fail" -eq 0 ]; then
			failed=$((failed + 1))
		fi
		line="$plain"
		ran=$((pass + fail))
	elif [ "$rc" -eq 0 ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi
	if [ "$rc" -eq 0 ]; then
		echo "PASS $name ($((t1 - t0))s)${line:+: ${ran} tests}"
	else
		[ "$rc" -eq 124 ] && echo "     $name: timed out after ${limit}s" >>"$log"
		echo "FAIL $name (exit $rc, $((t1 - t0))s); log $log:"
		tail -n 60 "$log" | sed 's/^/    | /'
		failures+=("$name")
		# the first failed checks, repeated under the closing lines
		whats+=("$(grep -m 3 -E '^(not ok|FAIL)( -|:)|^(ERROR|FAIL):|Assertion' "$log" |
			   cut -c 1-200 | sed "s|^|  $name: |")")
	fi
}

tier_style() {
	local f
	run_prog include-layers scripts/check-includes.sh
	while IFS= read -r f; do
		run_prog "checkpatch-$(basename "$f")" scripts/checkpatch.sh "$f"
	done < <(find guest-module spec tests/e2e/grtp -name '*.[ch]' \
		-not -name '*.mod.c' | sort)
}

tier_unit() {
	run_prog module-build make -s -j"$jobs" -C guest-module KDIR="$KDIR"
	if ! make -s -j"$jobs" -C tests unit >"$logs/build-unit.log" 2>&1; then
		failed=$((failed + 1)); failures+=(build-unit)
		echo "FAIL build-unit:"; tail -n 40 "$logs/build-unit.log" | sed 's/^/    | /'
		return
	fi
	local t
	for t in "$build"/tests/unit/test_*; do
		[ -x "$t" ] && run_prog "unit-$(basename "$t")" "$t"
	done
}

# build_step NAME CMD...: a build the following tests need; a failure counts
build_step() {
	local name=$1; shift
	if ! "$@" >"$logs/build-$name.log" 2>&1; then
		failed=$((failed + 1)); failures+=("build-$name")
		echo "FAIL build-$name:"
		tail -n 40 "$logs/build-$name.log" | sed 's/^/    | /'
		return 1
	fi
}

# run_scripts DIR PREFIX: every DIR/test_*.sh, each under the time limit
run_scripts() {
	local t n=0
	for t in "$1"/test_*.sh; do
		[ -f "$t" ] || continue
		run_prog "$2-$(basename "$t" .sh)" bash "$t"
		n=$((n + 1))
	done
	return $((n == 0))
}

tier_integration() {
	build_step host make -s -j"$jobs" -C host-agent || return
	build_step fakeguest make -s -j"$jobs" -C tests/fakeguest || return
	build_step guest make -s -j"$jobs" guest || return
	if ! make -s -j"$jobs" -C tests integration >"$logs/build-integration.log" 2>&1; then
		failed=$((failed + 1)); failures+=(build-integration)
		echo "FAIL build-integration:"
		tail -n 40 "$logs/build-integration.log" | sed 's/^/    | /'
		return
	fi
	local t n lane_a=() lane_b=() solo=() lane_pid=""
	for t in "$build"/tests/integration/test_*; do
		[ -x "$t" ] || continue
		run_prog "integration-$(basename "$t")" "$t"
	done
	# Two lanes (GR_TEST_LANES=2, the default on 2 CPUs or more): the
	# shipping tests (test_ship_*: NATS servers, fault windows, waits)
	# run one after the other beside the others, which run one after the
	# other too; SOLO_TESTS run after both lanes, alone. One lane: all
	# in order.
	for t in tests/integration/test_*.sh; do
		n=$(basename "$t" .sh)
		if [ "$lanes" -lt 2 ]; then
			lane_a+=("$t")
		elif [[ " $SOLO_TESTS " == *" $n "* ]]; then
			solo+=("$t")
		elif [[ $n == test_ship_* ]]; then
			lane_b+=("$t")
		else
			lane_a+=("$t")
		fi
	done
	if [ ${#lane_b[@]} -gt 0 ]; then
		(
			for t in "${lane_b[@]}"; do
				timed_run "integration-$(basename "$t" .sh)" bash "$t"
			done >"$logs/lane-b.done"
		) &
		lane_pid=$!
	fi
	for t in "${lane_a[@]}"; do
		run_prog "integration-$(basename "$t" .sh)" bash "$t"
	done
	[ -z "$lane_pid" ] || collect "$lane_pid" "$logs/lane-b.done"
	for t in "${solo[@]}"; do
		run_prog "integration-$(basename "$t" .sh)" bash "$t"
	done
	[ -n "$fresh_pid" ] ||
		run_prog bench-fresh-clone bash tests/bench/fresh_clone.sh
}

# make bench from a fresh clone builds what it needs and runs at the
# smallest sizes (tests/bench/fresh_clone.sh: a clone, a build, two guest
# boots, nothing timed). When the style, unit or fuzz tier runs before
# the integration tier, it runs beside them from the start (they run one
# program at a time: a CPU is idle) and is collected before the
# integration tier, whose tests it must not disturb; else it is the
# integration tier's last test.
fresh_pid=""
fresh_start() {
	timed_run bench-fresh-clone bash tests/bench/fresh_clone.sh \
		>"$logs/bench-fresh-clone.done" &
	fresh_pid=$!
}

fresh_collect() {
	[ -z "$fresh_pid" ] || collect "$fresh_pid" "$logs/bench-fresh-clone.done"
}

tier_e2e() {
	build_step host make -s -j"$jobs" -C host-agent || return
	build_step guest make -s -j"$jobs" guest || return
	run_scripts tests/e2e e2e ||
		echo "e2e: no tests in this tier yet"
}

tier_libvirt() {
	build_step host make -s -j"$jobs" -C host-agent || return
	build_step guest make -s -j"$jobs" guest || return
	run_scripts tests/libvirt libvirt ||
		echo "libvirt: no tests in this tier yet"
}

# tests/stress: boots of the test guest that load guestrelay.ko under
# host load, GR_STRESS_BOOTS per mode (default 4: 4 at boot + 4 by
# insmod, the short form `make check` runs; `make check-stress
# GR_STRESS_BOOTS=100` is the long form). Each boot may take minutes on
# a loaded host, so the tier's time limit grows with the boots.
tier_stress() {
	build_step host make -s -j"$jobs" -C host-agent || return
	build_step guest make -s -j"$jobs" guest || return
	local saved=$limit
	limit=$((${GR_STRESS_BOOTS:-4} * 2 * ${GR_STRESS_BOUND:-300} + 900))
	run_scripts tests/stress stress ||
		echo "stress: no tests in this tier yet"
	limit=$saved
}

# the libFuzzer targets, each for FUZZ_SMOKE_SECONDS (default 5) from its
# seed corpus, and babeltrace2 over the metadata of accepted layouts;
# `make fuzz` runs them long
tier_fuzz() {
	if ! scripts/deps.sh fuzz >"$logs/deps-fuzz.log" 2>&1; then
		skipped=$((skipped + 1))
		echo "SKIP fuzz: clang/libFuzzer not installable ($logs/deps-fuzz.log)"
		return
	fi
	build_step fuzz make -s -j"$jobs" -C tests/fuzz || return
	run_prog fuzz-smoke env FUZZ_SECONDS="${FUZZ_SMOKE_SECONDS:-5}" \
		FUZZ_BT_SAMPLE=50 tests/fuzz/run.sh
}

export KDIR=${KDIR:-/lib/modules/$(scripts/guest-kver.sh)/build}
for tier in "$@"; do
	case "$tier" in
	style|unit|fuzz) ;;
	integration) [ -z "$fresh_pid" ] && [ "$tier" != "$1" ] && fresh_start
		     break ;;
	*) break ;;
	esac
done
for tier in "$@"; do
	case "$tier" in
	style|unit|fuzz|integration|e2e|stress|libvirt)
		[ "$tier" = integration ] && fresh_collect
		echo "== $tier"
		"tier_$tier" ;;
	*)
		echo "run-tests.sh: unknown tier '$tier'" >&2
		exit 2 ;;
	esac
done

if [ ${#failures[@]} -ne 0 ]; then
	echo "failed: ${failures[*]}"
	printf '%s\n' "${whats[@]}" | grep -v '^$'
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
