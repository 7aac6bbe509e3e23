#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2015,SC2119 # "A && ok || fail": ok always succeeds
#
# test_hist_guest.sh - aggregation in the guest (spec 17, issue 21), the
# guest's side against a scripted host
#
# The real guest module on ivshmem-plain, its host played by
# hist_host.py on the region file: a control block with GR_F_HIST and
# recording off, then six hist requests (sys_enter by id, the four
# latency pairs, one invalid). The guest publishes its hist area, answers
# every request (five run, the invalid one is refused with its reason),
# and while /gr/e2e-workload runs the maps fill in place with nothing
# recorded; the script reads them as a host does. The agent's side of
# spec 17 (CLI, merge, /metrics) is tested where it is built.

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

e2e_init
vm=$(vm_name h)
shm=/dev/shm/guestrelay-$vm
host=$E2E_TOP/tests/e2e/hist_host.py

# gr.settle: the host installs its requests before the workload starts
boot_plain "$vm" "$shm" "$host" \
	"gr.run=e2e-workload gr.secs=5 gr.settle=15" ||
	{ fail "the scripted host's region" "hist_host.py init failed"; finish; }

HIST_BOOT_WAIT=$BOOT_TIMEOUT python3 "$host" "$shm" req >"$tmp/req.out" 2>&1
take_checks "$tmp/req.out" $? "hist_host.py req"
if wait_console "$vm" "GR: MARK end" 120; then
	ok "the workload ran"
else
	fail "the workload ran" "no end mark" "$(tail -n 15 "$(console "$vm")")"
fi
python3 "$host" "$shm" read >"$tmp/read.out" 2>&1
take_checks "$tmp/read.out" $? "hist_host.py read"
guest_ran "$vm" e2e-workload
check_console "$vm"
finish
