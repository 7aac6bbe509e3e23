#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_vmsync.sh - the vmsync records of the clock-sync rounds (spec 9.8,
# GR_F_VMSYNC): Trace Compass's VM event matching on a guest trace and
# its host stream, without QEMU
#
# A real agent and a fake guest with --vmsync (vmsync_hg_guest and
# vmsync_gh_guest written around each sync answer) and a fake "QEMU"
# (--vcpu-threads 1), so that the agent records a host stream and gives
# the guest a vm_uid. The fake guest also polls for the rounds of a
# series (--sync-poll, spec 1.12 GR_F_SYNC_POLL): its polled answers
# carry vmsync records as the others do (how many rounds were polled is
# noted, not checked: on a loaded 2-CPU host, with the fake vCPU thread
# busy, agent and guest rarely spin at the same time). After about 8 s
# of rounds (a series of 8 at attach, then one per second and more):
#   - the guest trace and the host stream both pass babeltrace2
#   - vmsync_check.py: both read as LTTng 2.9 kernel traces, the host
#     stream declares vmsync_hg_host and vmsync_gh_host with integers cnt
#     and vm_uid; one vm_uid; each request q in all four events once
#     (cnt 2q host to guest, 2q + 1 guest to host), but for a last one in
#     flight; the sends before the receives on the mapped clocks within
#     the two clocks' error bounds
#   - a session whose events leave out vmsync has no vmsync record on
#     either side (the host gives a vm_uid only while the guest records
#     both events)
#   - a fake guest without --vmsync gets no vmsync record and its
#     session's host stream none either (the host gives a vm_uid only to
#     a guest that offers the bit, and writes its own records only then)
# Needs what test_host_steal.sh needs (root, tracefs, 2 CPUs).

set -u
. "$(dirname "$0")/lib_agent.sh"
la_init test_vmsync
la_host_stream_needs

la_agent_start || { bad agent-starts "see the log"; la_show_logs; la_finish; }
la_vm vm vms
gr vm-add "$vm" --events sched_switch,vmsync || bad vm-add "exit $rc: $err"
t_bg fg 60 "$la_tmp/fg.log" "$FG" --socket "$RUN/$vm.sock" --cpus 2 \
	--rate 100 --duration 60 --linger 3 --vcpu-threads 1 --sched --vmsync \
	--sync-poll
if ! la_wait_status "$vm" "s['state'] == 'attached' and len(s['host']['vcpus']) == 1" 20; then
	bad vcpu-found "status: $out"
	la_end
fi
ok vcpu-found
sleep 8
la_status "$vm" && note "$("$PY" -c 'import json, sys; s = json.loads(sys.argv[1])["stats"]; print("agent: %d sync rounds taken while spinning, %d spins missed" % (s["sync_polled"], s["sync_spin_missed"]))' "$out")"
la_fg_stop_session "$fg" "$vm"
if la_bt "$sess"; then ok guest-trace-babeltrace2; else bad guest-trace-babeltrace2 "$bt_out"; fi
if la_bt "$sess/host"; then ok host-stream-babeltrace2; else bad host-stream-babeltrace2 "$bt_out"; fi
"$PY" "$LA_TOP/tests/integration/vmsync_check.py" --min 8 "$sess" "$sess/host" \
	>"$la_tmp/vmsync.out" 2>&1
rc=$?
sed 's/^/# /' "$la_tmp/vmsync.out"
check vmsync-pairs-one-to-one "[ $rc = 0 ]" "$(tail -n 1 "$la_tmp/vmsync.out")"

# no vmsync record on either side: a session whose events leave out
# vmsync (its guest offers the bit), a guest that does not offer it
for case in "vmo sched_switch --vmsync" "vmn all"; do
	read -r name events opt <<<"$case"
	la_vm vm2 "$name"
	gr vm-add "$vm2" --events "$events" || bad "vm-add-$name" "exit $rc: $err"
	t_bg fg2 60 "$la_tmp/fg-$name.log" "$FG" --socket "$RUN/$vm2.sock" \
		--cpus 1 --rate 100 --duration 4 --linger 3 --vcpu-threads 1 $opt
	la_wait_fg "$fg2" 30
	la_wait_status "$vm2" "s['state'] == 'waiting'" 15
	sess2=$(la_sessions "$vm2" | tail -n 1)
	n=$(timeout -k 5 60 babeltrace2 "$sess2" "$sess2/host" 2>/dev/null | grep -c vmsync_)
	check "no-vmsync-$name" "[ -d '$sess2/host' ] && [ '$n' = 0 ]" \
		"$n vmsync records; $(ls -a "$sess2" 2>&1 | tr '\n' ' ')"
done
la_end
