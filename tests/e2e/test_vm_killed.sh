#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2015,SC2119 # "A && ok || fail": ok always succeeds
#
# test_vm_killed.sh - QEMU killed with SIGKILL in the middle of a stream
#
# One agent serves two VMs running the workload. Once the first one's
# trace is growing, its QEMU gets SIGKILL; it boots again and is killed
# again, GR_FAULT_ROUNDS times (default 2; long runs 10 and more), while
# the second VM runs all along. Checks, every round:
#   - the agent keeps running (ping) and lets the killed VM go (its status
#     says QEMU is no longer connected);
#   - the killed VM's trace is readable by babeltrace2 and `report`, with
#     no damage, and holds events up to shortly before the kill;
#   - the second VM is unaffected: it records on after the kill, finishes
#     its run, and its trace is readable and lost nothing;
#   - the killed VM boots again on the same agent into a new session,
#     one per boot.

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

e2e_init
start_agent
a=$(vm_name k)
b=$(vm_name s)
ROUNDS=${GR_FAULT_ROUNDS:-2}

# the second VM's run must outlast every round: a round took 20 s on an
# idle machine and 23 s on a loaded one, where 10 rounds outran a
# 5 + 20 * ROUNDS s run and the last round found it powered off
QEMU_TIMEOUT=$((QEMU_TIMEOUT + 50 * ROUNDS))
boot_guest "$b" --smp 1 --run e2e-workload \
	--append "gr.secs=$((5 + 30 * ROUNDS))" --vm-args "--switch-timer-ms 100"
killed_dirs=()
for round in $(seq "$ROUNDS"); do
boot_guest "$a" --run e2e-workload --append "gr.secs=30" \
	--vm-args "--switch-timer-ms 100"

if ! wait_console "$a" "GR: MARK start" 60; then
	fail "$a started its workload" "no mark" "$(tail -n 10 "$(console "$a")")"
	finish
fi
# mid-stream: the trace is growing
grown=0
for _ in $(seq 100); do
	p=$(json_get "$a" 'v["stats"]["packets"]')
	[ "${p:-0}" -ge 8 ] && grown=1 && break
	sleep 0.1
done
[ "$grown" = 1 ] && ok "$a's trace is growing ($p packets)" ||
	fail "$a's trace is growing" "packets '$p'"
sleep 0.5
pid=$(qemu_pid "$a")
if [ -z "$pid" ]; then
	fail "SIGKILL to $a's QEMU" "no QEMU process"
	finish
fi
packets_before=$(json_get "$a" 'v["stats"]["packets"]')
kill_ns=$(date +%s%N)
kill -9 "$pid"
wait_guest "$a"
rc=$?
[ "$rc" -eq 137 ] && ok "SIGKILL to $a's QEMU mid-stream ($packets_before packets stored)" ||
	fail "SIGKILL to $a's QEMU mid-stream" "launcher exit $rc"

state=""
for _ in $(seq 50); do
	state=$(json_get "$a" 'v["state"]+","+str(v["connected"])')
	[ "$state" = "waiting,False" ] && break
	sleep 0.1
done
[ "$state" = "waiting,False" ] &&
	ok "the agent let $a go (waiting for a guest again)" ||
	fail "the agent let $a go" "state,connected: $state" "$(tail -n 5 "$tmp/agent.log")"
agent_alive && gr ping >/dev/null 2>&1 && ok "the agent answers ping after the kill" ||
	fail "the agent answers ping after the kill" "$(tail -n 10 "$tmp/agent.log")"

check_console "$a"
dir=$(newest_trace "$a")
check_trace "$dir" "$a's trace"
check_no_loss "$dir" "$a's trace"
last=$(event_times "$dir" sched_switch --host-time | tail -n 1)
if [ -n "$last" ] && [ $((kill_ns - last)) -lt 1000000000 ]; then
	ok "$a's trace holds events up to $(((kill_ns - last) / 1000000)) ms before the kill"
else
	fail "$a's trace holds events up to shortly before the kill" \
		"last sched_switch at ${last:-none}, kill at $kill_ns"
fi
killed_dirs+=("$dir")
note "round $round of $ROUNDS: $a killed after $packets_before packets"
done

# the other VM went on
if [ -n "$(qemu_pid "$b")" ]; then
	ok "$b is still running after $a was killed"
else
	fail "$b is still running after $a was killed" "its QEMU left" \
		"$(tail -n 5 "$(console "$b")")"
fi
guest_ran "$b" e2e-workload
check_console "$b"
dirb=$(newest_trace "$b")
check_trace "$dirb" "$b's trace"
check_no_loss "$dirb" "$b's trace"
lastb=$(event_times "$dirb" sched_switch --host-time | tail -n 1)
if [ -n "$lastb" ] && [ "$lastb" -gt $((kill_ns + 1000000000)) ]; then
	ok "$b recorded on after the kill ($(((lastb - kill_ns) / 1000000)) ms after)"
else
	fail "$b recorded on after the kill" "last sched_switch ${lastb:-none}, kill $kill_ns"
fi
[ "$(trace_dirs "$b" | wc -l)" -eq 1 ] && ok "$b kept its one session" ||
	fail "$b kept its one session" "$(trace_dirs "$b" | tr '\n' ' ')"

# the killed VM comes back
boot_guest "$a" --run e2e-workload --append "gr.secs=1" \
	--vm-args "--switch-timer-ms 100"
guest_ran "$a" e2e-workload
check_console "$a"
n=$(trace_dirs "$a" | wc -l)
dir2=$(newest_trace "$a")
if [ "$n" -eq $((ROUNDS + 1)) ] && [ "$dir2" != "$dir" ] &&
   [ "$(printf '%s\n' "${killed_dirs[@]}" | sort -u | wc -l)" -eq "$ROUNDS" ]; then
	ok "$a booted again into a new session"
	check_trace "$dir2" "$a's second trace"
	check_no_loss "$dir2" "$a's second trace"
else
	fail "$a booted again into a new session" "sessions: $(trace_dirs "$a" | tr '\n' ' ')"
fi
agent_alive && ok "the agent is still running" ||
	fail "the agent is still running" "$(tail -n 10 "$tmp/agent.log")"
finish
