#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2015,SC2119 # "A && ok || fail": ok always succeeds
#
# test_hist.sh - aggregation in the guest end to end (spec 17, issue 21):
# the real agent, CLI and module against ftrace's hist triggers in the
# same guest and against the stored trace
#
# The guest (/gr/e2e-hist) holds two tasks X and Y blocked on a fifo and
# prints their pids. Through the CLI the host sets five hist requests
# (a misspelt key is refused first, the token marked): sched_switch
# keyed by prev_tid and sys_enter keyed by id, both filtered on X and Y,
# and three latency presets: runq filtered on next_comm "grkid" (X and Y
# are named so, and so are the subshells X forks, which start with a
# sched_wakeup_new), syscall filtered on X or Y, block unfiltered. Once the module has the five
# running, the guest calls sync(2) (the reference's start), sets ftrace's
# hist triggers on the same events with the same filters, releases X and
# Y (300 ping-pong rounds over two fifos) while it writes and reads a
# loop device directly, and prints ftrace's hist files. Every event of X
# and Y happens after both sides were set, so:
#   - each of guestrelay's two tables equals ftrace's, key by key;
#   - the run-queue, system-call and block latency histograms have
#     exactly the latencies computed from the trace the agent stored of
#     the same run (sched_wakeup or sched_wakeup_new to sched_switch-in
#     of a task named grkid, the new tasks' first runs among them; sys_enter
#     to sys_exit of X and Y, by call; block_rq_issue to
#     block_rq_complete of the same sector, by device; pairs that start
#     after the sync), log2 of ns, bucket by bucket but for deltas within
#     0.1% of a power of two (two clock conversions);
#   - /metrics serves the latency histogram as a Prometheus histogram;
#   - with recording off (guestrelay disable VM all) a sixth request,
#     set then, fills over a workload, and nothing more is stored.

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

e2e_init bt2
QEMU_TIMEOUT=${GR_QEMU_TIMEOUT:-200}
mport=$(python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])')
start_agent --metrics "127.0.0.1:$mport"
vm=$(vm_name hi)
check=$(dirname "$0")/hist_check.py

rec=sched_switch,sched_wakeup,sched_wakeup_new,sys_enter,sys_exit
rec=$rec,block_rq_issue,block_rq_complete
boot_guest "$vm" --run e2e-hist \
	--vm-args "--switch-timer-ms 100 --events $rec"
log=$(console "$vm")
wait_guest_pid "$vm" HIST "guestrelay's hist against ftrace's" \
	"no hist triggers in the guest's tracefs"
x=$guest_pid
y=$(grep -ao "GR: HIST pid [0-9]* [0-9]*" "$log" | head -n1 |
	awk '{ print $5 }')
ok "the guest holds tasks $x and $y"

out=$(gr hist "$vm" sched_switch "keys=prev_tidd" 2>&1)
rc=$?
[ "$rc" -eq 1 ] && printf '%s\n' "$out" | grep -q "prev_tidd" &&
	printf '%s\n' "$out" | grep -q '\^' &&
	ok "a misspelt key is refused, the token marked" ||
	fail "a misspelt key is refused, the token marked" "exit $rc" "$out"

f_sw="prev_tid == $x || prev_tid == $y"
f_sys="common_pid == $x || common_pid == $y"
f_rq='next_comm == "grkid"'
out=$(gr hist "$vm" sched_switch "keys=prev_tid" --filter "$f_sw" 2>&1) &&
	out2=$(gr hist "$vm" sys_enter "keys=id" --filter "$f_sys" 2>&1) &&
	out3=$(gr hist "$vm" --latency runq --filter "$f_rq" 2>&1) &&
	out4=$(gr hist "$vm" --latency syscall --filter "$f_sys" 2>&1) &&
	out5=$(gr hist "$vm" --latency block 2>&1) &&
	ok "five hist requests are accepted" ||
	fail "five hist requests are accepted" "$out" "${out2:-}" "${out3:-}" \
		"${out4:-}" "${out5:-}"

if ! wait_console "$vm" "GR: HIST done|GR: HIST not running" 180 ||
   grep -qa "GR: HIST not running" "$log"; then
	fail "the guest ran the comparison" "$(tail -n 20 "$log")" \
		"$(gr hist "$vm" 2>&1 | head -n 40)"
	finish
fi
ok "the guest ran both sides over the same events"

gr hist "$vm" sched_switch >"$tmp/sw.txt" 2>&1
gr hist "$vm" sys_enter >"$tmp/sys.txt" 2>&1
for t in runq syscall block; do
	gr --json hist "$vm" "$t" >"$tmp/$t.json" 2>&1
done
/usr/bin/python3 "$check" ftrace "$log" sched_switch sched_switch "$tmp/sw.txt" \
	>"$tmp/c1.out" 2>&1
take_checks "$tmp/c1.out" $? "sched_switch by prev_tid"
/usr/bin/python3 "$check" ftrace "$log" sys_enter sys_enter "$tmp/sys.txt" \
	>"$tmp/c2.out" 2>&1
take_checks "$tmp/c2.out" $? "sys_enter by id"

# /metrics: the latency histogram, per VM
curl -sS -m 10 "http://127.0.0.1:$mport/metrics" >"$tmp/metrics.txt" 2>&1
grep -q "^guestrelay_vm_hist_runq_seconds_bucket{vm=\"$vm\",le=\"+Inf\"}" \
	"$tmp/metrics.txt" &&
	grep -q "^guestrelay_vm_hist_runq_seconds_count{vm=\"$vm\"}" \
	"$tmp/metrics.txt" &&
	ok "/metrics serves the run-queue latency as a histogram" ||
	fail "/metrics serves the run-queue latency as a histogram" \
		"$(grep -a hist "$tmp/metrics.txt" | head -n 10)"

# recording off: a table fills, nothing more is stored
out=$(gr disable "$vm" all 2>&1) && ok "recording stops (every event disabled)" ||
	fail "recording stops (every event disabled)" "$out"
sleep 1
b0=$(json_get "$vm" 'v["stats"]["bytes"]')
out=$(gr hist "$vm" sched_switch "keys=common_cpu:name=switches" 2>&1) &&
	ok "a sixth request is accepted with recording stopped" ||
	fail "a sixth request is accepted with recording stopped" "$out"
if ! wait_console "$vm" "GR: HIST off done|GR: HIST no sixth" 120 ||
   ! grep -qa "GR: HIST off done" "$log"; then
	fail "the guest ran its workload with recording stopped" \
		"$(tail -n 20 "$log")"
else
	b1=$(json_get "$vm" 'v["stats"]["bytes"]')
	gr hist "$vm" switches >"$tmp/off.txt" 2>&1
	hits=$(awk '$1 == "Hits:" { print $2; exit }' "$tmp/off.txt")
	[ "${hits:-0}" -gt 0 ] 2>/dev/null &&
		ok "with recording stopped the table fills ($hits switches)" ||
		fail "with recording stopped the table fills" \
			"$(head -n 30 "$tmp/off.txt")" "$(gr status "$vm" 2>&1)"
	[ -n "$b0" ] && [ "$b0" = "$b1" ] &&
		ok "with recording stopped nothing more is stored ($b0 bytes)" ||
		fail "with recording stopped nothing more is stored" "$b0 -> $b1"
	# the session closed (guestrelay stop): the tables go on counting
	# (the guest polls its log meanwhile, so it switches)
	out=$(gr stop "$vm" 2>&1) || fail "guestrelay stop" "$out"
	sleep 2
	gr hist "$vm" switches >"$tmp/stop1.txt" 2>&1
	sleep 2
	gr hist "$vm" switches >"$tmp/stop2.txt" 2>&1
	h1=$(awk '$1 == "Hits:" { print $2; exit }' "$tmp/stop1.txt")
	h2=$(awk '$1 == "Hits:" { print $2; exit }' "$tmp/stop2.txt")
	[ "${h1:-0}" -ge "${hits:-0}" ] 2>/dev/null &&
		[ "${h2:-0}" -gt "${h1:-0}" ] 2>/dev/null &&
		grep -q "\[active\]" "$tmp/stop2.txt" &&
		ok "with the session stopped the table counts on ($h1 -> $h2)" ||
		fail "with the session stopped the table counts on" \
			"${h1:-?} -> ${h2:-?}" "$(head -n 12 "$tmp/stop2.txt")"
	gr hist "$vm" switches --remove >/dev/null 2>&1
fi

guest_ran "$vm" e2e-hist
check_console "$vm"

dir=$(newest_trace "$vm")
check_trace "$dir" "the trace" || finish
check_no_loss "$dir" "guestrelay's trace"
/usr/bin/python3 "$check" latency "$dir" "$tmp" "$x" "$y" >"$tmp/c3.out" 2>&1
take_checks "$tmp/c3.out" $? "the latencies against the trace"
finish
