#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2015,SC2119 # "A && ok || fail": ok always succeeds
#
# test_anyevent.sh - any trace event of the guest kernel, by name
# (issue 25): found, laid out as its tracefs format, recorded like ftrace
#
# One boot (single-threaded TCG, gr.mod=0): /gr/e2e-anyevent loads
# guestrelay.ko with anyevent= naming 22 events of 12 systems (timer,
# workqueue, power, block, signal, task, kmem, skb, net, printk, rcu,
# sched), one the module records natively
# (block_rq_issue), one whose fields are defined by code (a system call
# event) and one that does not exist, and with events= naming the 22;
# the agent records the same 22 (vm-add --events). Then ftrace records
# them too over the workload and the guest prints ftrace's binary pages.
# Checks:
#   - the module loads; the catalogue counts 22 found, 1 missing, 2 refused;
#   - each event found is in the catalogue with tracefs' id and number of
#     fields, and a payload layout equal to its tracefs format;
#   - babeltrace2 reads the trace, no loss;
#   - per event, per CPU, ftrace's records over its interval are in
#     guestrelay's trace in the same order, field by field
#     (anyevent_check.py; a record an interrupt put between the two
#     tracers' probes and jiffies read by each are allowed, and counted;
#     kmem:kmem_cache_free is recorded but not compared, see
#     anyevent_check.py's NOT_COMPARED);
#     an event without records in ftrace's interval
#     is reported, not compared, and at least 5 events of 3 systems must
#     be compared;
#   - the module unloads; the console has no WARNING:, BUG:, Oops or
#     Call Trace.

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

e2e_init bt2
start_agent
vm=$(vm_name ae)
events=timer_start,timer_expire_entry,timer_cancel,hrtimer_start
events=$events,hrtimer_expire_entry,workqueue_queue_work
events=$events,workqueue_execute_start,workqueue_execute_end
events=$events,workqueue_activate_work,cpu_idle,block_bio_queue
events=$events,block_getrq,block_unplug,signal_generate,task_newtask
events=$events,mm_page_free,kmem_cache_free,consume_skb,net_dev_queue
events=$events,console,rcu_utilization,sched_stat_runtime
boot_guest "$vm" --run e2e-anyevent --append "gr.mod=0 gr.secs=2" \
	--vm-args "--switch-timer-ms 100 --events $events"
guest_ran "$vm" e2e-anyevent
check_console "$vm"
log=$(console "$vm")

grep -aq "GR: ANYLOAD ok" "$log" && ok "guestrelay.ko loads with anyevent=" ||
	fail "guestrelay.ko loads with anyevent=" "$(grep -a 'GR:' "$log")"
cat=$(sed -n '/GR: MARK catalogue /,/GR: MARK catalogue_end/p' "$log" | tr -d '\r')
want=$(grep -a "GR: ANYTRACE " "$log" | tr -d '\r' | wc -l)
found=$((want - 2))
grep -q "^found $found missing 1 refused 2$" <<<"$cat" &&
	ok "catalogue: $found found, the absent event missing, 2 refused" ||
	fail "catalogue: $found found, 1 missing, 2 refused" "$cat"
bad=0
while read -r _ _ e _ id _ n; do
	case "$e" in
	block:block_rq_issue | syscalls:*) continue ;;
	esac
	grep -q "^$e id $id fields $n$" <<<"$cat" || {
		bad=$((bad + 1))
		echo "  tracefs: $e id $id fields $n" >&2
	}
done < <(grep -a "GR: ANYTRACE " "$log" | tr -d '\r')
[ "$found" -ge 5 ] && [ "$bad" -eq 0 ] &&
	ok "$found events: the catalogue's id and field count equal tracefs'" ||
	fail "the catalogue's id and field count equal tracefs'" \
		"$bad of $found differ" "$cat"
grep -aq "GR: ANYRMMOD ok" "$log" && ok "the module unloads" ||
	fail "the module unloads" "$(grep -a 'GR: ANYRMMOD' "$log")"
echo "# available events in this guest: $(grep -a 'GR: ANYAVAIL' "$log" | tr -d '\r' | awk '{print $3}')"

if grep -qa "GR: FTRACE no mono clock" "$log"; then
	skip_check "the comparison with ftrace" "the guest has no mono trace clock"
	finish
fi
if ! grep -qa "GR: ANYRAW end" "$log"; then
	fail "the guest printed ftrace's pages" "no 'GR: ANYRAW end'" \
		"$(tail -n 20 "$log")"
	finish
fi
dir=$(newest_trace "$vm")
check_trace "$dir" "the trace" || finish
check_no_loss "$dir" "guestrelay's trace"
/usr/bin/python3 "$(dirname "$0")/anyevent_check.py" "$log" "$dir" \
	>"$tmp/compare.out" 2>&1
take_checks "$tmp/compare.out" $? "the comparison"
finish
