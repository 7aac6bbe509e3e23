#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2015,SC2119 # "A && ok || fail": ok always succeeds
#
# test_statedump.sh - no blind spot after insmod, and the state dump
#
# Boots the test guest GR_SD_RUNS times (default 5) with gr.mod=0 running
# /gr/e2e-statedump: it loads guestrelay.ko itself and execs a marker
# right after insmod, then lists its threads from /proc. In each trace
# (tests/e2e/statedump_check.py, babeltrace2's python bindings): the
# marker exec is there (spec 9.6: the guest records its own events until
# the agent chose); one state dump, lttng_statedump_start ... _end, whose
# thread list is /proc's once the forks and exits after it are counted,
# with the same tgid, parent and name; interrupt handlers; the loop
# device; babeltrace2's default output has no layout field (_gr_*, spec
# 7.5). Also: babeltrace2 reads the trace, the console is clean, the
# dump's cost (dump_stats) is printed. Then one more guest lingers while
# the agent stops and starts its session: the second session's trace has
# a state dump of its own (spec 9.7). Ends with "N passed, N failed";
# exit 77 if it cannot run.

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

e2e_init bt2
start_agent
runs=${GR_SD_RUNS:-5}
found=0
for r in $(seq 1 "$runs"); do
	vm=$(vm_name "sd$r")
	boot_guest "$vm" --run e2e-statedump --append "gr.mod=0"
	guest_ran "$vm" e2e-statedump || continue
	check_console "$vm"
	dir=$(newest_trace "$vm")
	check_trace "$dir" "run $r's trace"
	note "run $r: $(grep -a 'GR: DUMPSTATS' "$(console "$vm")" | tr -d '\r')"
	/usr/bin/python3 "$E2E_TOP/tests/e2e/statedump_check.py" "$dir" \
		"$(console "$vm")" >"$tmp/check.$r" 2>&1
	take_checks "$tmp/check.$r" $? "statedump_check.py (run $r)"
	grep -q '^ok - the marker exec' "$tmp/check.$r" && found=$((found + 1))
	# spec 7.5, 6.12: babeltrace2's default output shows the fields only
	n=$(timeout 60 babeltrace2 "$dir" 2>/dev/null | grep -c '_gr_')
	[ "$n" -eq 0 ] &&
		ok "run $r: babeltrace2 prints no layout field (_gr_*)" ||
		fail "run $r: babeltrace2 prints no layout field (_gr_*)" \
			"$n lines" "$(timeout 60 babeltrace2 "$dir" 2>/dev/null |
				       grep -m 3 '_gr_')"
done

# a second session on the same publication (stop, start) has a state
# dump of its own (spec 9.7: the agent writes a new session_id)
vm=$(vm_name sdss)
boot_guest "$vm" --run e2e-statedump --append "gr.mod=0 gr.linger=12"
if wait_console "$vm" '^GR: LINGER' 60; then
	gr stop "$vm" >"$tmp/stop.out" 2>&1 || note "stop: $(cat "$tmp/stop.out")"
	gr start "$vm" >"$tmp/start.out" 2>&1 || note "start: $(cat "$tmp/start.out")"
	sleep 3
	gr stop "$vm" >/dev/null 2>&1
	n=$(trace_dirs "$vm" | wc -l)
	dir=$(newest_trace "$vm")
	timeout 60 babeltrace2 "$dir" >"$tmp/ss.out" 2>&1
	s=$(grep -c ' lttng_statedump_start:' "$tmp/ss.out")
	e=$(grep -c ' lttng_statedump_end:' "$tmp/ss.out")
	t=$(grep -c ' lttng_statedump_process_state:' "$tmp/ss.out")
	[ "$n" -eq 2 ] && [ "$s" -eq 1 ] && [ "$e" -eq 1 ] && [ "$t" -gt 20 ] &&
		ok "stop and start: the second session has its own state dump ($t threads)" ||
		fail "stop and start: the second session has its own state dump" \
			"$n sessions; in the newest: $s starts, $e ends, $t threads" \
			"$(tail -n 3 "$tmp/ss.out")"
else
	fail "the lingering guest came up" "no GR: LINGER" \
		"$(tail -n 10 "$(console "$vm")")"
fi
guest_ran "$vm" e2e-statedump
[ "$found" -eq "$runs" ] &&
	ok "the marker after insmod is in $found of $runs traces" ||
	fail "the marker after insmod is in every trace" "$found of $runs"
agent_alive && ok "the agent is still running" ||
	fail "the agent is still running" "it exited" "$(tail -n 20 "$tmp/agent.log")"
finish
