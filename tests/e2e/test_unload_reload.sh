#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2015,SC2119 # "A && ok || fail": ok always succeeds
#
# test_unload_reload.sh - guestrelay.ko unloaded and loaded again under load
#
# The guest (single-threaded TCG, as DESIGN.md requires for repeated
# probe (un)registration) runs /gr/e2e-reload: GR_FAULT_ROUNDS (2) rounds of
# /gr/unload-under-load (unload, reload, unload while the workload runs),
# loading the module again between the rounds. Every load publishes a new
# instance. Checks:
#   - every unload and load succeeded (console);
#   - the agent saw each instance: one session per load, each with its own
#     guest_instance_id, and logged each withdrawal;
#   - every session holds events and is read by babeltrace2 with the
#     count report gives, without damage;
#   - the console has no WARNING:, BUG:, Oops or Call Trace.

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

e2e_init
start_agent
vm=$(vm_name u)
# GR_FAULT_ROUNDS: rounds of unload/reload/unload (default 2; long runs 50)
ROUNDS=${GR_FAULT_ROUNDS:-2}
LOADS=$((2 * ROUNDS))
QEMU_TIMEOUT=$((QEMU_TIMEOUT + 25 * ROUNDS))

boot_guest "$vm" --single-thread --run e2e-reload --append "gr.rounds=$ROUNDS" \
	--vm-args "--switch-timer-ms 100"
guest_ran "$vm" e2e-reload
check_console "$vm"
log=$(console "$vm")

n1=$(grep -ac "GR: unload 1 ok" "$log")
n2=$(grep -ac "GR: reload ok" "$log")
n3=$(grep -ac "GR: unload 2 ok" "$log")
n4=$(grep -ac "GR: load [0-9]* ok" "$log")
if [ "$n1" -eq "$ROUNDS" ] && [ "$n2" -eq "$ROUNDS" ] &&
   [ "$n3" -eq "$ROUNDS" ] && [ "$n4" -eq $((ROUNDS - 1)) ] &&
   ! grep -qa "GR: .*failed" "$log"; then
	ok "$((2 * ROUNDS)) unloads and $((2 * ROUNDS - 1)) reloads under load succeeded"
else
	fail "$((2 * ROUNDS)) unloads and $((2 * ROUNDS - 1)) reloads under load succeeded" \
		"unload1 $n1, reload $n2, unload2 $n3, load $n4" "$(grep -a 'GR:' "$log")"
fi

mapfile -t dirs < <(trace_dirs "$vm")
[ "${#dirs[@]}" -eq "$LOADS" ] &&
	ok "one session per load (${#dirs[@]})" ||
	fail "one session per load" "${#dirs[@]} sessions for $LOADS loads" \
		"$(grep -a "$vm" "$tmp/agent.log" | tail -n 20)"
w=$(grep -c "$vm: the guest withdrew its layout" "$tmp/agent.log")
[ "$w" -eq "$LOADS" ] && ok "the agent saw each of the $LOADS withdrawals" ||
	fail "the agent saw each withdrawal" "$w logged for $LOADS unloads"

ids=()
i=0
for d in "${dirs[@]}"; do
	i=$((i + 1))
	check_trace "$d" "session $i" || continue
	[ "$TRACE_EVENTS" -gt 0 ] && ok "session $i holds $TRACE_EVENTS events" ||
		fail "session $i holds events" "none"
	ds=$(summary_field "$d" "damaged spots")
	[ "${ds:-x}" = 0 ] && ok "session $i has no damage" ||
		fail "session $i has no damage" "damaged spots ${ds:-?}" \
			"$("$GR" report --summary "$d" 2>&1 | tail -n 8)"
	de=$(summary_field "$d" "discarded events")
	lp=$(summary_field "$d" "lost packets")
	note "session $i: $(basename "$d"), $TRACE_EVENTS events, lost packets ${lp:-?}, discarded events ${de:-?}"
	ids+=("$(sed -n 's/^[[:space:]]*guest_instance_id = "\(.*\)";/\1/p' "$d/metadata")")
done
uniq_ids=$(printf '%s\n' "${ids[@]}" | sort -u | grep -c .)
[ "$uniq_ids" -eq "$LOADS" ] &&
	ok "each session has its own guest instance (${ids[*]})" ||
	fail "each session has its own guest instance" "ids: ${ids[*]}"
st=$(json_get "$vm" 'v["state"]')
[ "$st" = waiting ] && ok "after the last unload the agent waits for the guest" ||
	fail "after the last unload the agent waits for the guest" "state '$st'"
agent_alive && ok "the agent is still running" ||
	fail "the agent is still running" "$(tail -n 10 "$tmp/agent.log")"
finish
