#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh - run the libFuzzer targets of tests/fuzz/ (build/fuzz/fuzz_*)
#
#   tests/fuzz/run.sh [TARGET...]      (make fuzz; make check runs it short)
#
# Each target runs FUZZ_SECONDS (default 300; the smoke tier of make
# check sets 5) from its seed corpus tests/fuzz/corpus/<target>/ (read
# only) and a working corpus build/fuzz/corpus/<target>/ that grows across
# runs. A crash, leak, timeout or sanitizer report fails the target; its
# reproducer is in build/fuzz/artifacts/ (copy it into the seed corpus as
# a regression once fixed). Then the babeltrace2 check: every CTF metadata
# the writer made for an accepted input of the region target's corpora
# (up to FUZZ_BT_SAMPLE files, default 200) is read by babeltrace2.
# FUZZ_JOBS targets run at once (default: the number of CPUs). Prints
# executions per target and in total, and "N passed, N failed".
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
B=${BUILD:-$TOP/build}/fuzz
SECS=${FUZZ_SECONDS:-300}
SAMPLE=${FUZZ_BT_SAMPLE:-200}
passed=0 failed=0 total=0

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
	for f in "$HERE"/fuzz_*.c; do
		t=$(basename "$f" .c)
		targets+=("${t#fuzz_}")
	done
fi
for t in "${targets[@]}"; do
	[ -x "$B/fuzz_$t" ] || { echo "$t: not built (make -C tests/fuzz)"; exit 77; }
done
mkdir -p "$B/artifacts"

# fuzz_one TARGET: one target's run, its exit status in $B/TARGET.rc
fuzz_one() {
	local t=$1 work=$B/corpus/$1

	mkdir -p "$work" "$HERE/corpus/$t"
	# -timeout: one input may take 10 s at most (a hang is a finding)
	timeout -k 10 $((SECS + 120)) "$B/fuzz_$t" -max_total_time="$SECS" \
		-timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$B/artifacts/$t-" "$work" "$HERE/corpus/$t" \
		>"$B/$t.log" 2>&1
	echo $? >"$B/$t.rc"
}

# FUZZ_JOBS targets at a time (default: one per CPU): each is one
# process fuzzing for SECS, so that a run takes the time of its targets
# over the CPUs
jobs=${FUZZ_JOBS:-$(nproc)}
running=0
for t in "${targets[@]}"; do
	rm -f "$B/$t.rc"
	if [ "$running" -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
	fuzz_one "$t" &
	running=$((running + 1))
done
wait
for t in "${targets[@]}"; do
	log=$B/$t.log
	rc=$(cat "$B/$t.rc" 2>/dev/null || echo 1)
	n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
	n=${n:-0}
	total=$((total + n))
	if [ "$rc" -eq 0 ]; then
		echo "ok - fuzz_$t: $n executions in ${SECS} s, corpus $(ls "$B/corpus/$t" | wc -l)"
		passed=$((passed + 1))
	else
		echo "FAIL - fuzz_$t: exit $rc after $n executions; reproducer in $B/artifacts/"
		grep -E "ERROR|SUMMARY|fuzz:" "$log" | head -n 8 | sed 's/^/    | /'
		failed=$((failed + 1))
	fi
done

# what the writer emits for accepted layouts, babeltrace2 reads
if printf '%s\n' "${targets[@]}" | grep -qx region; then
	md=$(mktemp -d /tmp/fuzz-metadata.XXXXXX)
	trace=$(mktemp -d /tmp/fuzz-trace.XXXXXX)
	files=$( (ls "$HERE/corpus/region"/* "$B/corpus/region"/* 2>/dev/null) |
		 shuf -n "$SAMPLE" --random-source=/dev/zero)
	# shellcheck disable=SC2086 # a list of files
	FUZZ_METADATA_DIR=$md "$B/fuzz_region" $files >/dev/null 2>&1
	n=0 bad=0
	for m in "$md"/metadata.*; do
		[ -f "$m" ] || continue
		n=$((n + 1))
		cp "$m" "$trace/metadata"
		if ! timeout 30 babeltrace2 "$trace" >/dev/null 2>"$trace.err"; then
			bad=$((bad + 1))
			[ "$bad" -le 3 ] && { echo "    babeltrace2 refused $m:";
				tail -n 3 "$trace.err" | sed 's/^/    | /'; }
			cp "$m" "$B/artifacts/" 2>/dev/null
		fi
	done
	if [ "$n" -gt 0 ] && [ "$bad" -eq 0 ]; then
		echo "ok - babeltrace2 reads the metadata of all $n accepted layouts sampled"
		passed=$((passed + 1))
	else
		echo "FAIL - babeltrace2 refused $bad of $n metadata files (kept in $B/artifacts/)"
		failed=$((failed + 1))
	fi
	rm -rf "$md" "$trace" "$trace.err"
fi
# fuzz_report's and fuzz_collect's directories, of their processes that
# are gone: a run beside this one (a long make fuzz while make check runs
# the smoke tier) keeps its own
for d in /dev/shm/fuzz_report.* /dev/shm/fuzz_collect.*; do
	[ -d "$d" ] || continue
	kill -0 "${d##*.}" 2>/dev/null || rm -rf "$d"
done
echo "# fuzz: $total executions in all"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
