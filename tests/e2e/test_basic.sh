#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2015,SC2119 # "A && ok || fail": ok always succeeds
#
# test_basic.sh - the real module in a real guest, traced by the real agent
#
# Boots the test guest (ivshmem-doorbell, 2 CPUs) running /gr/e2e-workload
# (the standard workload: fork/exec, pipes, block I/O on a loop device,
# ping) with the agent's default events and a 100 ms switch timer.
# Checks that events arrived from every CPU, of every kind the workload
# causes, including the exec of /gr/workload; that babeltrace2 reads the
# trace (exit 0) and prints exactly as many events as `guestrelay report
# --summary` counts; that nothing was lost or dropped; that the console
# has no WARNING:, BUG:, Oops or Call Trace; that the agent runs on; and
# that `guestrelay timeline` draws the trace as test_timeline.sh checks
# (one lane per CPU, busy time = span minus idle, Chromium renders it).
# Ends with "N passed, N failed"; exit 77 if it cannot run.

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

e2e_init
start_agent
vm=$(vm_name b)

boot_guest "$vm" --run e2e-workload --append "gr.secs=3" \
	--vm-args "--switch-timer-ms 100"
guest_ran "$vm" e2e-workload
check_workload_trace "$vm"
# guestrelay timeline draws this real guest's trace; Chromium renders it
t_import "timeline of $vm's trace" env GR_TIMELINE_TRACE="$(newest_trace "$vm")" \
	GR_TIMELINE_REAL_ONLY=1 bash "$E2E_TOP/tests/integration/test_timeline.sh"
st=$(json_get "$vm" 'v["state"]+","+v["stop_reason"]')
[ "$st" = "waiting,guest" ] &&
	ok "after power-off the agent closed the session and waits" ||
	fail "after power-off the agent closed the session and waits" \
		"state,stop_reason: $st"
agent_alive && ok "the agent is still running" ||
	fail "the agent is still running" "it exited" "$(tail -n 20 "$tmp/agent.log")"
finish
