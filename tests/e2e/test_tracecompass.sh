#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2015,SC2119 # "A && ok || fail": ok always succeeds
#
# test_tracecompass.sh - a real guest's trace as Trace Compass reads it
#
# Boots the test guest (2 CPUs, ivshmem-doorbell) running
# /gr/e2e-tracecompass: the standard workload in the background, and in
# its middle a dump of every thread of /proc (tid, pid, ppid, state, CPU,
# comm) between two console marks. The agent records the events Trace
# Compass's kernel analysis handles (the default set plus sched_waking,
# sched_process_free, sched_pi_setprio, sys_enter and sys_exit, and
# block_rq_insert for its Disk I/O analysis, with the guest's reads and
# writes on a loop device behind mq-deadline), and by name the two its
# Kernel Memory Usage reads (kmem_mm_page_alloc and kmem_mm_page_free in
# the metadata, with their page order), and net_dev_queue and
# netif_receive_skb with the packets' IP and TCP headers for its network
# analyses, over TCP connections the guest makes on its loopback.
# tests/e2e/tc_check.py, written from Trace Compass's layout classes and
# KernelStateProvider, then reads the trace with python3-bt2 and checks
# the env, the event and field names and types, system calls named one
# by one (syscall_entry_<name>, each event's number checked against the
# host's asm/unistd_64.h, and a shell's getppid with its tid and
# return value: GR_F_SYSCALLS, spec 7.2), the disk requests as its Disk
# I/O analysis queues them (rwbs: lttng-modules' flags), the TCP key
# paths of its network analyses with every packet received on lo matched
# to one queued (TcpLttngEventMatching), and a replay of
# the scheduler events against the guest's /proc (see its docstring).
# Also: report prints rwbs as ftrace's letters; babeltrace2 reads the
# trace and counts as report does; no loss; a clean console. Ends with
# "N passed, N failed"; exit 77 if it cannot run.

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

e2e_init bt2
start_agent
vm=$(vm_name tc)
events="sched_switch,sched_wakeup,sched_wakeup_new,sched_waking"
events="$events,sched_process_fork,sched_process_exec,sched_process_exit"
events="$events,sched_process_free,sched_migrate_task,sched_pi_setprio"
events="$events,irq_handler_entry,irq_handler_exit,softirq_entry"
events="$events,softirq_exit,block_rq_insert,block_rq_issue,block_rq_complete"
events="$events,net_dev_xmit,netif_receive_skb,net_dev_queue,sys_enter,sys_exit"
# by name (spec 18), for Kernel Memory Usage
events="$events,kmem:mm_page_alloc,kmem:mm_page_free"

# a machine UUID, as libvirt gives its domains: the guest's DMI product
# UUID, which the trace's env must carry as product_uuid
boot_guest "$vm" --run e2e-tracecompass --append "gr.secs=4" \
	--uuid 5a0e3f6c-2b1d-4c8e-9f7a-0123456789ab \
	--vm-args "--switch-timer-ms 100 --events $events"
guest_ran "$vm" e2e-tracecompass
check_console "$vm"
dir=$(newest_trace "$vm")
check_trace "$dir" "$vm's trace"
check_no_loss "$dir" "$vm's trace"
log=$(console "$vm")
# the integer rwbs (spec 7.5) as the letters ftrace shows
"$GR" report --events block_rq_insert,block_rq_complete "$dir" \
	>"$tmp/block.txt" 2>&1
grep -qE 'block_rq_insert: .* rwbs=WS? ' "$tmp/block.txt" &&
	grep -qE 'block_rq_complete: .* rwbs=RS?$' "$tmp/block.txt" &&
	ok "report prints rwbs as ftrace's letters (W..., R...)" ||
	fail "report prints rwbs as ftrace's letters" \
		"$(grep -m 4 rwbs "$tmp/block.txt")"
host_boot=/proc/sys/kernel/random/boot_id
/usr/bin/python3 "$E2E_TOP/tests/e2e/tc_check.py" "$dir" "$log" \
	"$host_boot" >"$tmp/tc.out" 2>&1
take_checks "$tmp/tc.out" $? "tc_check.py"
finish
