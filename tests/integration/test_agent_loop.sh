#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_agent_loop.sh - the agent's loop makes one io_uring_enter() per
# iteration and no system call per doorbell, counted by strace
#
# A fake guest on the doorbell device streams into the agent in two runs:
# quiet (1 CPU, 50 ticks/s, switch timer 10 ms: a doorbell per
# sub-buffer, about 100 a second) and busy (2 CPUs, 30000 ticks/s). In
# each, `strace -c -f` counts the agent's system calls for 1.5 s while
# the guest runs; `guestrelay ping --json` before and after gives the
# loop's iterations over an interval that contains strace's. Asserts:
#   - io_uring_enter calls <= loop iterations (timeouts, writes, fsyncs
#     and doorbell reads are queued and handed to the kernel by the one
#     enter that also waits)
#   - read() calls < a tenth of the doorbells the agent took in: doorbell
#     eventfds are read through the ring (IORING_OP_READ), re-armed on
#     completion, not with a read() each (the quiet run must see
#     doorbells: its ring asks for every sub-buffer; the busy one's
#     almost never rings)
# and prints both counts per run.

set -u
. "$(dirname "$0")/lib_agent.sh"
la_init test_agent_loop

command -v strace >/dev/null || la_skip "strace is needed"

# loop_iters: the agent's loop iterations so far
loop_iters() {
	gr ping --json || { echo 0; return; }
	"$PY" -c 'import json, sys; print(json.loads(sys.argv[1]).get("loop", {}).get("iterations", 0))' "$out"
}

# db_in VM: doorbells_in so far
db_in() {
	la_field "$1" stats.doorbells_in
}

# run NAME VM-ADD-OPTS... -- FAKEGUEST-OPTS...
run() {
	local name=$1 vm add=() fgo=() f i0 i1 d0 d1 enters reads iters db

	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		add+=("$1")
		shift
	done
	shift
	fgo=("$@")
	la_vm vm "lp$name"
	if ! gr vm-add "$vm" --events all "${add[@]}"; then
		bad "$name-vm-add" "exit $rc: $err"
		return
	fi
	t_bg f 30 "$la_tmp/fg-$name.log" "$FG" --socket "$RUN/$vm.sock" \
		"${fgo[@]}" --duration 4 --linger 5 --stats "$la_tmp/$name.stats"
	la_wait_status "$vm" "s['state'] == 'attached' and s['stats']['packets'] > 2" 10 ||
		bad "$name-attached" "$out"
	i0=$(loop_iters)
	d0=$(db_in "$vm")
	timeout -s INT 1.5 strace -c -f -e trace=io_uring_enter,read \
		-o "$la_tmp/strace-$name" -p "$la_agent_pid" >/dev/null 2>&1
	d1=$(db_in "$vm")
	i1=$(loop_iters)
	enters=$(awk '$NF == "io_uring_enter" { print $4 }' "$la_tmp/strace-$name")
	reads=$(awk '$NF == "read" { print $4 }' "$la_tmp/strace-$name")
	enters=${enters:-0} reads=${reads:-0}
	iters=$((i1 - i0)) db=$((d1 - d0))
	echo "# $name: $iters loop iterations (ping to ping), $enters io_uring_enter, $reads read, $db doorbells in (strace -c over 1.5 s)"
	check "$name-strace-saw-the-loop ($enters enters)" "[ $enters -gt 0 ]" \
		"$(cat "$la_tmp/strace-$name")"
	check "$name-one-enter-per-iteration ($enters <= $iters)" \
		"[ $enters -le $iters ]" "$(cat "$la_tmp/strace-$name")"
	check "$name-no-read-per-doorbell ($reads reads, $db doorbells)" \
		"[ $reads -eq 0 ] || [ $((reads * 10)) -lt $db ]" \
		"$(cat "$la_tmp/strace-$name")"
	# a quiet ring asks for each sub-buffer (spec 8.4): doorbells ring
	[ "$name" = quiet ] && check "quiet-rings-doorbells ($db)" \
		"[ $db -gt 0 ]" "no doorbell in 1.5 s"
	la_wait_fg "$f" 25
	rc=$?
	check "$name-fakeguest-exits-0" "[ $rc -eq 0 ]" "exit $rc"
	gr vm-remove "$vm"
}

la_agent_start ||
	{ bad agent-starts "see the log"; la_show_logs; la_finish; }
ok agent-starts
run quiet --size 4M --switch-timer-ms 10 -- --cpus 1 --rate 50
run busy -- --cpus 2 --rate 30000

la_end
