#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2015 # "A && ok || fail": ok always succeeds
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
# device. Also: babeltrace2 reads the trace, the console is clean, the
# dump's cost (dump_stats) is printed. Ends with "N passed, N failed";
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
done
[ "$found" -eq "$runs" ] &&
	ok "the marker after insmod is in $found of $runs traces" ||
	fail "the marker after insmod is in every trace" "$found of $runs"
agent_alive && ok "the agent is still running" ||
	fail "the agent is still running" "it exited" "$(tail -n 20 "$tmp/agent.log")"
finish
