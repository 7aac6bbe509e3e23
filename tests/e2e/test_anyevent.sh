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
# the agent records the same 22 (vm-add --events). The agent adds 6
# more at run time (spec 18): 4 named by patterns at vm-add (3 new ones
# of timer:hrtimer_*, a bare name; nosuch:* names none) and 2 by
# `guestrelay enable` while the guest waits for them. Then ftrace
# records all of them too over the workload and the guest prints
# ftrace's binary pages.
# Checks:
#   - enable by system:name at run time; a pattern naming nothing is
#     refused with the guest's reason; `guestrelay events` lists as many
#     events as the guest's available_events; `events 'timer:*' --json`
#     holds the timer events with timer_start's fields;
#   - the guest has the 6 events added at run time in its catalogue;
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
# events by name at run time (spec 18): patterns at vm-add, whose events
# the agent asks the guest for once it published (hrtimer_init,
# hrtimer_expire_exit and hrtimer_cancel are new; hrtimer_start and
# hrtimer_expire_entry came with anyevent=; a pattern naming nothing),
# and two more by `guestrelay enable` while the guest waits for them
rt="timer:hrtimer_*,sched_wake_idle_without_ipi,nosuch:*"
boot_guest "$vm" --run e2e-anyevent --append "gr.mod=0 gr.secs=2 gr.rt=6" \
	--vm-args "--switch-timer-ms 100 --events $events,$rt"
log=$(console "$vm")
if wait_console "$vm" "GR: ANYAVAIL" 120; then
	out=$(gr enable "$vm" irq:softirq_raise kmem:kmem_cache_alloc 2>&1)
	rc=$?
	[ "$rc" = 0 ] && grep -q "irq:softirq_raise" <<<"$out" &&
		grep -q "kmem:kmem_cache_alloc" <<<"$out" &&
		ok "enable by system:name at run time adds 2 events" ||
		fail "enable by system:name at run time adds 2 events" \
			"exit $rc" "$out"
	out=$(gr enable "$vm" 'nosuch:*' 2>&1)
	rc=$?
	[ "$rc" != 0 ] && grep -q "nosuch" <<<"$out" &&
		ok "a pattern naming no event is refused with the guest's reason" ||
		fail "a pattern naming no event is refused" "$out"
	gr events "$vm" >"$tmp/events.out" 2>&1
	gr events "$vm" 'block:' >"$tmp/events-block.out" 2>&1
	avail=$(grep -a "GR: ANYAVAIL" "$log" | tr -d '\r' | awk '{print $3}')
	listed=$(grep -c '^[a-z_0-9]*:[a-z_0-9]* ' "$tmp/events.out")
	[ "$listed" -gt 0 ] && [ "$listed" = "$avail" ] &&
		ok "guestrelay events lists every event tracefs lists ($listed)" ||
		fail "guestrelay events lists every event tracefs lists" \
			"$listed listed, tracefs $avail" "$(head -n 5 "$tmp/events.out")"
	gr events "$vm" 'timer:*' --json >"$tmp/events.json" 2>&1
	/usr/bin/python3 - "$tmp/events.json" <<'PY' >"$tmp/events.check" 2>&1
import json, sys
evs = {e["event"]: e for e in json.load(open(sys.argv[1]))}
bad = [e for e in evs if not e.startswith("timer:")]
want = {"timer:timer_start", "timer:hrtimer_cancel", "timer:hrtimer_init"}
miss = want - set(evs)
f = evs.get("timer:timer_start", {}).get("fields", [])
names = [x.get("name") for x in f]
if bad or miss or "expires" not in names or "function" not in names:
    print("FAIL - events 'timer:*' --json: other %s, missing %s, "
          "timer_start fields %s" % (bad, sorted(miss), names))
else:
    print("ok - events 'timer:*' --json: %d timer events, "
          "timer_start's fields %s" % (len(evs), " ".join(names)))
PY
	take_checks "$tmp/events.check" 0 "events --json"
else
	fail "the guest loaded the module" "$(tail -n 20 "$log")"
fi
guest_ran "$vm" e2e-anyevent
check_console "$vm"

grep -aq "GR: ANYLOAD ok" "$log" && ok "guestrelay.ko loads with anyevent=" ||
	fail "guestrelay.ko loads with anyevent=" "$(grep -a 'GR:' "$log")"
cat=$(sed -n '/GR: MARK catalogue /,/GR: MARK catalogue_end/p' "$log" | tr -d '\r')
want=$(grep -a "GR: ANYTRACE " "$log" | tr -d '\r' | wc -l)
nrt=$(grep -a "GR: ANYRT [a-z]" "$log" | tr -d '\r' | wc -l)
[ "$nrt" = 6 ] && ! grep -aq "GR: ANYRT timeout" "$log" &&
	ok "the guest has the 6 events the host added at run time" ||
	fail "the guest has the 6 events the host added at run time" \
		"$(grep -a 'GR: ANYRT' "$log")"
found=$((want - nrt - 2))
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
