#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_anyevent_agent.sh - descriptors a guest adds at run time (spec 18,
# GR_F_ANYEVENT), the agent's side (rules M1-M3): the real agent serves a
# plain VM whose guest is build/tests/anyevent_guest
# (tests/integration/anyevent_guest.c), which publishes a table of two
# events in six descriptor slots, then adds kmem kfree as descriptor 2.
# Checks:
#   - before the guest added it, `enable kfree` is refused (unknown)
#   - the agent adopts it (its log says so) and `enable kfree` works; the
#     guest sees the enable bit of id 2 only once desc_live covers it,
#     never one above (M3)
#   - the packet the guest then stores (a sched_switch and a kfree) is
#     stored: babeltrace2 reads the session, kfree as kmem_kfree with its
#     fields, and the metadata declares it after the table's events
#   - a second descriptor named kfree again is refused whole: logged
#     once, counted in guestrelay_vm_events_added_refused_total, its id
#     never enabled; guestrelay_vm_events_added_total counts the one
#     adopted
# Every process runs under a time limit and is stopped at exit.

set -u
# shellcheck source=tests/integration/lib_agent.sh
. "$(dirname "$0")/lib_agent.sh"
la_init test_anyevent_agent
out='' err='' rc=0 ag=''	# set by gr and t_bg

AG=$BUILD/tests/anyevent_guest
[ -x "$AG" ] || la_skip "no $AG (make -C tests integration)"
command -v curl >/dev/null || la_skip "curl is needed (scripts/deps.sh metrics)"
command -v babeltrace2 >/dev/null || la_skip "babeltrace2 is needed"

la_vm A anyev
read -r MPORT < <(la_free_ports 1)
MURL=http://127.0.0.1:$MPORT/metrics
AGLOG=$la_tmp/anyevent_guest.log

la_agent_start --metrics "127.0.0.1:$MPORT" ||
	{ bad agent-starts "see the log"; la_show_logs; la_finish; }
gr vm-add "$A" --plain --size 1M
check vm-add "[ $rc -eq 0 ]" "exit $rc: $err"

t_bg ag 60 "$AGLOG" "$AG" "/dev/shm/guestrelay-$A" 50
la_wait_grep "$AGLOG" '^published' 10
check guest-publishes "[ $? -eq 0 ]" "$(cat "$AGLOG")"
# attached: the table's events are known (before, enable waits for them)
la_wait_status "$A" "s['state'] == 'attached'" 10
check attached "[ $? -eq 0 ]" "$out"
gr enable "$A" sched_switch
check enable-table-event "[ $rc -eq 0 ]" "exit $rc: $err"
# the guest adds it 2 s after it published; asked for it by name (spec
# 18), this guest, which answers no request, lets the agent's request
# time out: refused either way, and no enable bit for it (below)
gr enable "$A" kfree
check enable-before-added-is-refused \
	"[ $rc -ne 0 ] && grep -qE \"unknown event 'kfree'|did not answer\" <<<\"\$err\"" \
	"exit $rc: $err"

# ---- the guest adds kfree; the agent adopts it ---------------------------------
la_wait_grep "$AGLOG" '^added 2' 10
check guest-adds "[ $? -eq 0 ]" "$(cat "$AGLOG")"
la_wait_grep "$LA_AGENT_LOG" '1 event the guest added adopted (ids 2..2)' 10
check agent-adopts "[ $? -eq 0 ]" "$(tail -n 5 "$LA_AGENT_LOG")"
la_wait_status "$A" "s['stats']['desc_added'] == 1" 5
check status-counts-the-added-event "[ $? -eq 0 ]" "$out"
gr enable "$A" kfree
check enable-added-event "[ $rc -eq 0 ]" "exit $rc: $err"
la_wait_grep "$AGLOG" '^produced' 10
check guest-sees-the-enable-bit "[ $? -eq 0 ]" "$(cat "$AGLOG")"
la_wait_grep "$AGLOG" '^added 3' 10
check guest-adds-a-duplicate "[ $? -eq 0 ]" "$(cat "$AGLOG")"
la_wait_grep "$LA_AGENT_LOG" 'event descriptors 3..3 the guest added are refused: two events have the same name' 10
check agent-refuses-the-duplicate "[ $? -eq 0 ]" "$(tail -n 5 "$LA_AGENT_LOG")"
gr enable "$A" all
check enable-all "[ $rc -eq 0 ]" "exit $rc: $err"
sleep 0.5
n=$(grep -c 'refused: two events have the same name' "$LA_AGENT_LOG")
check refusal-logged-once "[ \"$n\" = 1 ]" "logged $n times"
check no-enable-bit-too-early "! grep -q '^enable bit' \"\$AGLOG\"" \
	"$(grep '^enable bit' "$AGLOG")"

# ---- metrics ----------------------------------------------------------------------------
m=$(curl -s "$MURL")
check metrics-added \
	"grep -q '^guestrelay_vm_events_added_total{vm=\"$A\"} 1\$' <<<\"\$m\"" \
	"$(grep events_added <<<"$m")"
check metrics-refused \
	"grep -q '^guestrelay_vm_events_added_refused_total{vm=\"$A\",what=\"batch\"} 1\$' <<<\"\$m\"" \
	"$(grep events_added <<<"$m")"

# ---- the trace ---------------------------------------------------------------------------
gr stop "$A"
check stop "[ $rc -eq 0 ]" "exit $rc: $err"
sess=$(la_sessions "$A" | tail -n 1)
bt=$(timeout -k 5 60 babeltrace2 "$sess" 2>&1)
check babeltrace-reads-the-trace "[ $? -eq 0 ] && ! grep -q ERROR <<<\"\$bt\"" "$bt"
check trace-has-the-added-event \
	"grep -q 'anyguest kmem_kfree: .*call_site = 0xFFFFFFFF81234567, ptr = 0xFFFF888003C4D000' <<<\"\$bt\"" \
	"$bt"
check trace-has-the-table-event "grep -q 'anyguest sched_switch:' <<<\"\$bt\"" "$bt"
check metadata-declares-it-last \
	"[ \"\$(grep -o 'name = \"[a-z_]*\"' \"\$sess/metadata\" | tail -n 1)\" = 'name = \"kmem_kfree\"' ]" \
	"$(grep -o 'name = "[a-z_]*"' "$sess/metadata")"

t_term_job "$ag"
la_wait_fg "$ag" 10 >/dev/null
la_end
