#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_tcgcount.sh - tcgcount.so counts exactly: tc_known.S (no libc, so
# nothing runs but its own instructions) under qemu-x86_64 with the
# plugin gives the counts written in tc_known.S for each of its six runs,
# twice the same; the plugin refuses bad arguments.
#
#   bash tests/bench/tcgcount/test_tcgcount.sh   (test_bench_smoke.sh runs it)
#
# Skipped (77) without qemu-x86_64 (scripts/deps.sh bench: qemu-user).
# Prints "N passed, N failed".
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../../.." && pwd)
BUILD=${BUILD:-$TOP/build}
# shellcheck source=tests/lib/lib.sh
. "$TOP/tests/lib/lib.sh"
t_init test_tcgcount

command -v qemu-x86_64 >/dev/null ||
	t_skip "qemu-x86_64 not found (scripts/deps.sh bench installs qemu-user)"
t_tmpdir tcgcount
out=$BUILD/bench/tcgcount
if ! make -s -C "$HERE" BUILD="$BUILD" >"$T_TMP/build.log" 2>&1; then
	fail plugin-builds "make failed" "$(tail -n 20 "$T_TMP/build.log")"
	finish
fi
ok plugin-builds

# run N: the plugin's lines of one run of tc_known in $T_TMP/N.out
run() {
	timeout 60 qemu-x86_64 -plugin "$out/tcgcount.so,out=$T_TMP/$1.out" \
		"$out/tc_known" >"$T_TMP/$1.log" 2>&1
}

if ! run 1; then
	fail tc-known-runs "qemu-x86_64 exit $?" "$(cat "$T_TMP/1.log")"
	finish
fi
ok tc-known-runs

# expect NAME RUN FIELD=VALUE...: the plugin's line for RUN has each field
expect() {
	local name=$1 n=$2 line kv bad=""

	shift 2
	line=$(grep "^tcgcount run=$n " "$T_TMP/1.out")
	for kv in "$@"; do
		[[ " $line " == *" $kv "* ]] || bad="$bad $kv"
	done
	if [ -z "$line" ]; then
		fail "$name" "no line for run $n" "$(cat "$T_TMP/1.out")"
	elif [ -n "$bad" ]; then
		fail "$name" "expected$bad" "$line"
	else
		ok "$name"
	fi
}

common="segs=100 dropped=0 unpaired=0"
expect counts-plain-instructions 1 $common mode_segs=100 insns=10 mem=0 \
	atomics=0 local_rmw=0 reps=0 rep_execs=0
expect counts-loads-and-stores 2 $common insns=4 mem=4 atomics=0
expect counts-locked-and-implicitly-locked 3 $common insns=6 mem=8 atomics=3 \
	local_rmw=1
expect counts-rep-string-once-with-its-accesses 4 $common insns=4 mem=32 \
	reps=1 rep_execs=17 atomics=0
expect counts-every-turn-of-a-loop 5 $common insns=2001 mem=0
expect mode-is-the-common-path 6 $common mode_segs=75 insns=3 \
	mean_insns=3.25 min_insns=3 max_insns=4

if run 2 && cmp -s "$T_TMP/1.out" "$T_TMP/2.out"; then
	ok same-counts-twice
else
	fail same-counts-twice "the second run differs" \
		"$(diff "$T_TMP/1.out" "$T_TMP/2.out")"
fi

if timeout 60 qemu-x86_64 -plugin "$out/tcgcount.so,nosuch=1" \
	"$out/tc_known" >"$T_TMP/bad.log" 2>&1; then
	fail refuses-unknown-argument "qemu-x86_64 ran with it"
elif grep -q 'tcgcount: unknown argument nosuch=1' "$T_TMP/bad.log"; then
	ok refuses-unknown-argument
else
	fail refuses-unknown-argument "no message" "$(cat "$T_TMP/bad.log")"
fi
finish
