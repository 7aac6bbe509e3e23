#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2015,SC2119 # "A && ok || fail": ok always succeeds
#
# test_byname_guest.sh - events by name (spec 18, GR_F_ANYEVENT), the
# guest's side against a scripted host
#
# The real guest module on ivshmem-plain, its host played by
# byname_host.py on the region file: a control block with GR_F_ANYEVENT
# and recording off. The guest (/gr/e2e-byname) publishes room for 32
# more descriptors and answers: requests refused whole, LIST of one event
# and of all of them in pages (as many lines as tracefs lists), ADD of
# names, globs, a native event, a system call event and a missing name,
# the added event enabled and recorded, the CPU hotplug states set up
# with it; with tracefs unmounted one more ADD; after the
# device is bound again a publication from the table and the same ids
# again; with byname=0 EPERM. Spec 18.4 (GR_F_PROBE) in the same boot:
# PROBE refused without the feature, heads refused by the guest (P2),
# definitions refused by the kernel with its reason (P3), a p probe with a
# user string and an r probe with $retval created (A, LIST p), enabled
# and recorded (the path the guest opens), UNPROBE (D, nothing recorded
# after), P5 (K, the old id recorded again; R EEXIST for another layout),
# the probes in the guest's kprobe_events while alive, gone after
# UNPROBE, the new publication and rmmod, the guest's own kprobe events
# left alone, hostprobe=0 EPERM. Then the catalogue lists the events
# added after the new publication, not those before, and the module
# unloads.
# The agent's side of spec 18 is tested where it is built.

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

e2e_init
vm=$(vm_name b)
shm=/dev/shm/guestrelay-$vm
host=$E2E_TOP/tests/e2e/byname_host.py

boot_plain "$vm" "$shm" "$host" "gr.run=e2e-byname gr.linger=20" ||
	{ fail "the scripted host's region" "byname_host.py init failed"; finish; }

BYNAME_BOOT_WAIT=$BOOT_TIMEOUT python3 "$host" "$shm" run \
	"$tmp/$vm.console" >"$tmp/run.out" 2>&1
take_checks "$tmp/run.out" $? "byname_host.py run"
if wait_console "$vm" "GR: MARK catalogue_end" 120; then
	cat=$(sed -n '/GR: MARK catalogue /,/GR: MARK catalogue_end/p' \
		"$(console "$vm")" | tr -d '\r')
	grep -q "^timer:timer_start id " <<<"$cat" &&
		! grep -q "^irq:softirq_raise id " <<<"$cat" &&
		grep -q "^guestrelay:gr_ret id " <<<"$cat" &&
		grep -q "^added 2 cut [0-9]*$" <<<"$cat" &&
		ok "the catalogue lists the events added since the new publication" ||
		fail "the catalogue lists the events added since the new publication" "$cat"
else
	fail "the guest printed its catalogue" \
		"$(tail -n 15 "$(console "$vm")")"
fi
grep -aq "GR: HOTPLUG 2" "$(console "$vm")" &&
	ok "the CPU hotplug states set up with the first event added" ||
	fail "the CPU hotplug states set up with the first event added" \
		"$(grep -a 'GR: HOTPLUG' "$(console "$vm")")"
guest_ran "$vm" e2e-byname
con=$(console "$vm")
grep -aq "GR: KPROBES alive guestrelay/gr_open guestrelay/gr_ret guestrelay/gr_taken \." \
	"$con" && ok "the host's probes in the guest's kprobe_events" ||
	fail "the host's probes in the guest's kprobe_events" \
		"$(grep -a 'GR: KPROBES' "$con")"
fmt=$(sed -n '/GR: MARK format /,/GR: MARK format_end/p' "$con" | tr -d '\r')
grep -q "field:__data_loc char\[\] path;" <<<"$fmt" &&
	grep -q "field:u64 ret;" <<<"$fmt" &&
	ok "the probes' tracefs formats: path a string, ret a u64" ||
	fail "the probes' tracefs formats: path a string, ret a u64" "$fmt"
grep -aq "GR: KPROBES unloaded guestrelay/gr_taken \. admin 1" "$con" &&
	ok "P7: rmmod deleted the host's probes, not the guest's own" ||
	fail "P7: rmmod deleted the host's probes, not the guest's own" \
		"$(grep -a 'GR: KPROBES' "$con")"
grep -aq "GR: RMMOD ok" "$(console "$vm")" && ok "the module unloads" ||
	fail "the module unloads" "$(grep -a 'GR: RMMOD' "$(console "$vm")")"
check_console "$vm"
finish
