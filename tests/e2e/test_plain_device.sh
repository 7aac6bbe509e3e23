#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2015,SC2119 # "A && ok || fail": ok always succeeds
#
# test_plain_device.sh - ivshmem-plain (polling) against ivshmem-doorbell
#
# The checks of test_basic.sh for a guest on the plain device (no
# interrupts: the agent polls with an adaptive interval, the guest's tick
# polls the control block), then the same workload on the doorbell device.
# `status --json` must show no doorbell at all for the plain device, and
# doorbells in both directions for the doorbell device; the doorbells per
# stored sub-buffer of the doorbell run are printed (event-index
# suppression keeps them rare).

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

e2e_init
start_agent
p=$(vm_name p)
d=$(vm_name d)

boot_guest "$p" --plain --run e2e-workload --append "gr.secs=3" \
	--vm-args "--switch-timer-ms 100"
guest_ran "$p" e2e-workload
check_workload_trace "$p"
read -r dev din dout polls packets <<<"$(json_get "$p" \
	'" ".join(map(str, [v["device"], v["stats"]["doorbells_in"], v["stats"]["doorbells_out"], v["stats"]["polls"], v["stats"]["packets"]]))')"
note "$p (plain): $packets sub-buffers, $polls polls, doorbells in $din out $dout"
[ "$dev" = plain ] && [ "$din" = 0 ] && [ "$dout" = 0 ] &&
	ok "plain device: no doorbell in either direction" ||
	fail "plain device: no doorbell in either direction" \
		"device $dev, doorbells in $din, out $dout"

boot_guest "$d" --run e2e-workload --append "gr.secs=3" \
	--vm-args "--switch-timer-ms 100"
guest_ran "$d" e2e-workload
check_workload_trace "$d"
read -r dev din dout polls packets <<<"$(json_get "$d" \
	'" ".join(map(str, [v["device"], v["stats"]["doorbells_in"], v["stats"]["doorbells_out"], v["stats"]["polls"], v["stats"]["packets"]]))')"
note "$d (doorbell): $packets sub-buffers, $polls polls, doorbells in $din out $dout"
if [ "$dev" = doorbell ] && [ "${din:-0}" -gt 0 ] && [ "${dout:-0}" -gt 0 ]; then
	ok "doorbell device: doorbells in both directions"
	note "doorbell device: $(awk -v a="$din" -v b="$packets" 'BEGIN { printf "%.3f", a / b }') guest->host doorbells and $(awk -v a="$dout" -v b="$packets" 'BEGIN { printf "%.3f", a / b }') host->guest doorbells per stored sub-buffer"
else
	fail "doorbell device: doorbells in both directions" \
		"device $dev, doorbells in $din, out $dout"
fi
agent_alive && ok "the agent is still running" ||
	fail "the agent is still running" "it exited" "$(tail -n 20 "$tmp/agent.log")"
finish
