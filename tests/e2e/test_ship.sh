#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2015,SC2119 # "A && ok || fail": ok always succeeds
#
# test_ship.sh - the real module in a real guest, its trace shipped through
# a real NATS JetStream and collected elsewhere byte for byte (issue 9)
#
# Starts a `nats-server -js` on loopback (tests/lib/nats.sh), the agent
# with --ship to it and --metrics on a free loopback port, and a
# `guestrelay collect` of the stream into a directory of its own; stops
# the server, boots the test guest (ivshmem-doorbell, 2 CPUs) running
# /gr/e2e-workload, which powers off and so ends the VM's session, then
# starts the server again (same ports and store). Checks: what the agent
# stored is the standard workload's trace (as in test_basic.sh); while
# NATS is down, `status --json` has the VM's "ship" object with a growing
# backlog, not connected, and /metrics has the same backlog; once NATS is
# back, the backlog goes to 0 bytes and 0 packets (connected) and /metrics
# says guestrelay_vm_ship_backlog_bytes 0 for the VM; the collected tree
# equals the agent's store (cmp of every file, none missing or extra)
# within a bounded wait; babeltrace2 reads the collected trace and counts
# as many events in it as in the stored one; the collector rejected
# nothing. Every server is stopped at exit.
# Ends with "N passed, N failed"; exit 77 if it cannot run (no QEMU, no
# test guest, no nats-server, ...).

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
# the shipping tests' helpers (collectors, tree comparison); they need
# LA_TOP (the top of the tree) and la_tmp (where collectors log)
LA_TOP=$E2E_TOP
# shellcheck source=tests/integration/lib_ship.sh
. "$E2E_TOP/tests/integration/lib_ship.sh"

# metric_backlog: the VM's guestrelay_vm_ship_backlog_bytes from /metrics
# into $mb (the whole page into $page)
metric_backlog() {
	page=$(curl -sS -m 10 "http://127.0.0.1:$MPORT/metrics" 2>&1)
	mb=$(awk -v s="guestrelay_vm_ship_backlog_bytes{vm=\"$vm\"" \
		'index($0, s) == 1 { print $2 }' <<<"$page")
}

e2e_init
nats_need
command -v curl >/dev/null || e2e_skip "curl not found"
la_tmp=$tmp
COL=$tmp/col
# the host name the agent ships under, whatever this machine is called
HOST=e2eship$$

if ! nats_start_single "$tmp/nats"; then
	fail "nats-server -js starts" "see above"
	finish
fi
ok "nats-server -js starts ($NATS_URL)"
MPORT=$(nats_free_ports 1)
start_agent --ship "$NATS_URLS" --host "$HOST" --metrics "127.0.0.1:$MPORT"
ls_collect_start col
vm=$(vm_name s)

# NATS is down while the guest runs: the agent stores on, and the backlog
# it shows is real (with NATS up it is acknowledged too fast to be seen)
nats_stop 0
ok "nats-server stopped before the guest boots"
boot_guest "$vm" --run e2e-workload --append "gr.secs=3" \
	--vm-args "--switch-timer-ms 100"

# while the guest runs (its launcher is bounded by QEMU_TIMEOUT): the
# VM's status has the "ship" object, its backlog grows
seen=0 peak=0
while kill -0 "${LAUNCH_PID[$vm]}" 2>/dev/null; do
	b=$(json_get "$vm" 'v["ship"]["backlog_bytes"] if "ship" in v else "none"' 2>/dev/null)
	if [[ $b =~ ^[0-9]+$ ]]; then
		seen=$((seen + 1))
		[ "$b" -gt "$peak" ] && peak=$b
	fi
	sleep 0.3
done
[ "$seen" -gt 0 ] && [ "$peak" -gt 0 ] &&
	ok "status --json: the ship backlog grows while the guest runs and NATS is down ($seen looks, up to $peak bytes)" ||
	fail "status --json: the ship backlog grows while the guest runs and NATS is down" \
		"$seen looks, up to $peak bytes" \
		"$(gr status --json "$vm" 2>&1 | head -n 40)"

guest_ran "$vm" e2e-workload
st=$(json_get "$vm" 'v["state"]+","+v["stop_reason"]')
[ "$st" = "waiting,guest" ] &&
	ok "after power-off the agent closed $vm's session" ||
	fail "after power-off the agent closed $vm's session" \
		"state,stop_reason: $st"
check_workload_trace "$vm"
stored=$(newest_trace "$vm")
n_stored=${TRACE_EVENTS:-0}
bl=$(json_get "$vm" 'str(v["ship"]["backlog_bytes"])+","+str(v["ship"]["connected"])')
[ "${bl%,*}" -gt 0 ] 2>/dev/null && [ "${bl#*,}" = False ] &&
	ok "status --json: after the run the session is backlog, NATS unreachable (${bl%,*} bytes)" ||
	fail "status --json: after the run the session is backlog, NATS unreachable" \
		"backlog_bytes,connected: $bl"
metric_backlog
[ "${mb:-0}" -gt 0 ] 2>/dev/null &&
	ok "/metrics: guestrelay_vm_ship_backlog_bytes of $vm is $mb while NATS is down" ||
	fail "/metrics: guestrelay_vm_ship_backlog_bytes of $vm is above 0 while NATS is down" \
		"value '${mb:-none}'" "$(grep ship_backlog <<<"$page")"
if ! nats_restart 0 30; then
	fail "nats-server restarts" "see above"
	finish
fi
ok "nats-server restarts"

# the backlog drains: status and metrics say 0
bl=
for _ in $(seq 60); do
	bl=$(json_get "$vm" 'str(v["ship"]["backlog_bytes"])+","+str(v["ship"]["backlog_packets"])+","+str(v["ship"]["connected"])')
	[ "$bl" = "0,0,True" ] && break
	sleep 0.5
done
[ "$bl" = "0,0,True" ] &&
	ok "status --json: the ship backlog went to 0 bytes, 0 packets, connected" ||
	fail "status --json: the ship backlog went to 0 bytes, 0 packets, connected" \
		"backlog_bytes,backlog_packets,connected: $bl" \
		"$(grep 'ship' "$tmp/agent.log" | tail -n 10)"
metric_backlog
[ "$mb" = 0 ] &&
	ok "/metrics: guestrelay_vm_ship_backlog_bytes of $vm is 0" ||
	fail "/metrics: guestrelay_vm_ship_backlog_bytes of $vm is 0" \
		"value '${mb:-none}'" "$(grep ship_backlog <<<"$page")"

# the collector catches up: its tree equals the store, file for file
if ls_wait_equal 60; then
	ok "the collected tree equals the store ($(find "$COL/$HOST" -type f | wc -l) files, $(du -sb "$COL/$HOST" | cut -f1) bytes, cmp of each)"
else
	fail "the collected tree equals the store" "after 60 s" "$diff_out" \
		"$(tail -n 10 "$tmp"/collect.*.log)"
fi
collected=$(ls_collected "$vm")
[ "$(grep -c . <<<"$collected")" -eq 1 ] &&
	ok "one collected session for $vm" ||
	fail "one collected session for $vm" "'$collected'"
[ "$(basename "$collected")" = "$(basename "$stored")" ] &&
	ok "the collected session is the stored one ($(basename "$stored"))" ||
	fail "the collected session is the stored one" \
		"stored '$stored', collected '$collected'"
check_trace "$collected" "the collected trace"
[ "$TRACE_EVENTS" -gt 0 ] && [ "$TRACE_EVENTS" -eq "$n_stored" ] &&
	ok "babeltrace2 counts as many events in the collected trace as in the stored one ($n_stored)" ||
	fail "babeltrace2 counts as many events in the collected trace as in the stored one" \
		"stored $n_stored, collected $TRACE_EVENTS"
r=$(ls_cstat rejected)
[ "$r" -eq 0 ] && ok "the collector rejected nothing" ||
	fail "the collector rejected nothing" "$r rejected" \
		"$(cat "$COL"/.collect/stats.* 2>/dev/null)"
agent_alive && ok "the agent is still running" ||
	fail "the agent is still running" "it exited" "$(tail -n 20 "$tmp/agent.log")"
ls_collect_stop col
finish
