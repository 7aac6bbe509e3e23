#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2015,SC2119 # "A && ok || fail": ok always succeeds
#
# test_flight_panic.sh - flight-recorder mode and a guest kernel panic
#
# The VM is added in flight-recorder mode with 4 sub-buffers of 64 KiB per
# CPU, so the guest overwrites its oldest sub-buffers all the time. The
# guest (/gr/e2e-panic) runs the workload, then executes /tmp/grlast-NONCE
# (a fresh name per run) which crashes the kernel with sysrq c; the
# module's panic notifier closes the rings and sets GR_STATE_PANIC.
#
# Twice:
#   exit:  panic=-1 with QEMU's -no-reboot: QEMU leaves at once and the
#          agent takes the snapshot when it sees QEMU go;
#   hang:  panic=0: the guest stays panicked, QEMU stays up, the host runs
#          `guestrelay snapshot` (the guest cannot acknowledge the flush:
#          the agent waits for its 5 s command timeout), then kills QEMU.
# Each time: `status --json` says the guest panicked and overwrote
# sub-buffers; babeltrace2 reads the snapshot and counts what report
# counts; the snapshot holds the exec of /tmp/grlast-NONCE, after the
# guest's panic mark and followed by fewer than 300 events on its CPU; it
# covers a window shorter than the run (older events were overwritten); the
# console is clean up to the intended crash, which it shows.

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

e2e_init
start_agent

# check_snapshot LABEL DIR NONCE: what the snapshot must hold
check_snapshot() {
	local label=$1 dir=$2 nonce=$3 exec_line exec_ts exec_cpu last_ts first_ts name mark after

	check_trace "$dir" "$label: the snapshot" || return
	name="$label: the snapshot holds the exec of /tmp/grlast-$nonce"
	"$GR" report --events sched_process_exec "$dir" >"$tmp/exec.txt" 2>&1
	exec_line=$(grep "filename=/tmp/grlast-$nonce\$" "$tmp/exec.txt")
	exec_ts=$(report_ts <<<"$exec_line")
	exec_cpu=$(sed -nE 's/^.*\[([0-9]+)\] .*/\1/p' <<<"$exec_line")
	if [ -n "$exec_ts" ]; then
		ok "$name"
	else
		fail "$name" "not found; last execs:" "$(tail -n 3 "$tmp/exec.txt")"
		return
	fi
	if babeltrace2 "$dir" 2>/dev/null |
	   grep -q "sched_process_exec: .*filename = \"/tmp/grlast-$nonce\""; then
		ok "$label: babeltrace2 shows the same exec"
	else
		fail "$label: babeltrace2 shows the same exec" "not found"
	fi
	"$GR" report "$dir" 2>/dev/null | report_ts >"$tmp/all.ts"
	first_ts=$(head -n 1 "$tmp/all.ts")
	last_ts=$(sort -n "$tmp/all.ts" | tail -n 1)
	mark=$(mark_time "$vm" panic)
	# "among the last" in events on the exec's CPU, not in time: how long
	# the guest takes from the exec to the crash depends on the host's
	# load under TCG, and the other vCPU runs the workload until the
	# panic's stop IPI reaches it
	"$GR" report --cpu "$exec_cpu" "$dir" 2>/dev/null | report_ts >"$tmp/cpu.ts"
	after=$(awk -v t="$exec_ts" '$1 > t' "$tmp/cpu.ts" | wc -l)
	if [ -n "$mark" ] && [ "$exec_ts" -gt "$mark" ] &&
	   [ $((last_ts - exec_ts)) -ge 0 ] && [ "$after" -lt 300 ]; then
		ok "$label: the exec follows the panic mark and is among the last events ($(((exec_ts - mark) / 1000)) us after the mark, $after events on CPU $exec_cpu and $(((last_ts - exec_ts) / 1000)) us before the last event)"
	else
		fail "$label: the exec follows the panic mark and is among the last events" \
			"mark ${mark:-?}, exec at $exec_ts on CPU ${exec_cpu:-?}, last event at ${last_ts:-?}, $after events after the exec on that CPU"
	fi
	# the run lasted 2 s after attaching: a 4 x 64 KiB window is shorter
	if [ -n "$first_ts" ] && [ -n "$mark" ] &&
	   [ "$first_ts" -gt $((mark - 1500000000)) ]; then
		ok "$label: the snapshot is a window of the last $(((last_ts - first_ts) / 1000000)) ms"
	else
		fail "$label: the snapshot is a window of the last events" \
			"first event ${first_ts:-?}, panic mark ${mark:-?}"
	fi
}

# check_panic_status LABEL VM [overwritten]: the agent reports the
# guest's panic (and, while QEMU is up, the sub-buffers it overwrote: the
# guest's counters are gone once the agent let the guest go)
check_panic_status() {
	local st ow

	st=$(json_get "$2" 'v["guest_state"]')
	[ "$st" = panic ] && ok "$1: status --json: guest_state panic" ||
		fail "$1: status --json: guest_state panic" "guest_state '$st'"
	if [ "${3:-}" = overwritten ]; then
		ow=$(json_get "$2" 'v["stats"]["overwritten"]')
		[ "${ow:-0}" -gt 0 ] &&
			ok "$1: status --json: the guest overwrote $ow sub-buffers" ||
			fail "$1: status --json: the guest overwrote sub-buffers" "overwritten '$ow'"
	fi
	grep -q "$2: the guest panicked" "$tmp/agent.log" &&
		ok "$1: the agent logged the panic" ||
		fail "$1: the agent logged the panic" "$(tail -n 5 "$tmp/agent.log")"
}

# check_panic_console LABEL VM NONCE
check_panic_console() {
	local log

	log=$(console "$2")
	check_console "$2" "GR: MARK panic"
	grep -qa "Kernel panic - not syncing: sysrq triggered crash" "$log" &&
	grep -qa "Comm: grlast-$3" "$log" &&
		ok "$1: the console shows the intended crash" ||
		fail "$1: the console shows the intended crash" "$(tail -n 10 "$log")"
	! grep -qa "GR: still alive" "$log" ||
		fail "$1: sysrq c crashed the guest" "the script went on"
}

VM_ARGS="--mode flight --subbufs 4 --subbuf-size 65536 --switch-timer-ms 100"

# 1. panic=-1 and -no-reboot: QEMU exits, the agent snapshots on its own
vm=$(vm_name x)
nonce=x$(printf %04x $((RANDOM % 65536)))
boot_guest "$vm" --run e2e-panic --append "gr.nonce=$nonce" --vm-args "$VM_ARGS"
wait_guest "$vm"
rc=$?
[ "$rc" -eq 0 ] && ok "exit: QEMU left after the panic (panic=-1, -no-reboot)" ||
	fail "exit: QEMU left after the panic" "exit $rc" "$(tail -n 5 "$(console "$vm")")"
check_panic_console exit "$vm" "$nonce"
# the agent snapshots the rings when it sees QEMU go, then closes the
# session and waits for a guest again
st=""
for _ in $(seq 50); do
	st=$(json_get "$vm" 'v["state"]')
	[ "$st" = waiting ] && break
	sleep 0.1
done
snap=$(snapshot_dirs "$vm" | tail -n 1)
if [ "$st" = waiting ] && [ -n "$snap" ]; then
	ok "exit: the agent took a snapshot when QEMU left"
	check_snapshot exit "$snap" "$nonce"
else
	fail "exit: the agent took a snapshot when QEMU left" \
		"state '$st', snapshots: $(snapshot_dirs "$vm" | tr '\n' ' ')" \
		"$(tail -n 5 "$tmp/agent.log")"
fi
check_panic_status exit "$vm"

# 2. panic=0: the guest stays panicked; snapshot on demand
vm=$(vm_name h)
nonce=h$(printf %04x $((RANDOM % 65536)))
boot_guest "$vm" --run e2e-panic --append "gr.nonce=$nonce panic=0" \
	--vm-args "$VM_ARGS"
if wait_console "$vm" "Kernel panic - not syncing" 40; then
	ok "hang: the guest panicked"
else
	fail "hang: the guest panicked" "no panic on the console" \
		"$(tail -n 10 "$(console "$vm")")"
	finish
fi
st=""
for _ in $(seq 50); do
	st=$(json_get "$vm" 'v["guest_state"]')
	[ "$st" = panic ] && break
	sleep 0.1
done
pid=$(qemu_pid "$vm")
[ -n "$pid" ] && ok "hang: QEMU stays up with panic=0" ||
	fail "hang: QEMU stays up with panic=0" "it left"
t0=$(date +%s%N)
if out=$(gr snapshot "$vm" 2>&1); then
	t1=$(date +%s%N)
	ok "hang: guestrelay snapshot of the panicked guest ($(((t1 - t0) / 1000000)) ms)"
else
	fail "hang: guestrelay snapshot of the panicked guest" "$out"
fi
snap=$(snapshot_dirs "$vm" | tail -n 1)
if [ -n "$snap" ] && grep -qF "$(basename "$snap")" <<<"$out"; then
	ok "hang: the command named the snapshot it wrote"
else
	fail "hang: the command named the snapshot it wrote" "output '$out', snapshots: $(snapshot_dirs "$vm" | tr '\n' ' ')"
fi
[ -n "$snap" ] && check_snapshot hang "$snap" "$nonce"
check_panic_status hang "$vm" overwritten
pid=$(qemu_pid "$vm")
[ -n "$pid" ] && kill -9 "$pid"
wait_guest "$vm"
check_panic_console hang "$vm" "$nonce"
agent_alive && gr ping >/dev/null 2>&1 &&
	ok "the agent is still running" ||
	fail "the agent is still running" "$(tail -n 10 "$tmp/agent.log")"
finish
