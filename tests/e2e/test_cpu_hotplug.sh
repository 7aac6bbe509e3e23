#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2015,SC2119 # "A && ok || fail": ok always succeeds
#
# test_cpu_hotplug.sh - CPU 1 goes offline and online twice while tracing
#
# The guest (2 CPUs) runs /gr/e2e-hotplug: /gr/cpu-hotplug under the
# workload, with a console mark carrying the guest time whenever the set
# of online CPUs changes. Checks:
#   - both offline/online cycles happened (console and marks);
#   - CPU 1 records nothing while it is offline, and events keep arriving
#     from both CPUs after each return (at least 20 sched_switch each in
#     the 300 ms after it and until the next change);
#   - CPU 0 records all along;
#   - the trace is readable (babeltrace2 = report), lost nothing, one
#     session; the console is clean;
#   - the event found by name timer:hrtimer_start (anyevent=, issue 25),
#     enabled at attach, before the first offline: CPU 1 records it
#     before the first offline, nothing while offline, and again after
#     each return (its perf counter is replaced when it comes online),
#     CPU 0 all along.

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

e2e_init
start_agent
vm=$(vm_name h)

# the module's default events and hrtimer_start (pinned hrtimers, the
# tick and the switch timer start them on every CPU)
events=sched_switch,sched_wakeup,sched_wakeup_new,sched_process_fork
events=$events,sched_process_exec,sched_process_exit,lttng_statedump
events=$events,hrtimer_start
boot_guest "$vm" --run e2e-hotplug \
	--append "gr.secs=6 gr.modargs=anyevent=timer:hrtimer_start" \
	--vm-args "--switch-timer-ms 100 --events $events"
guest_ran "$vm" e2e-hotplug
check_console "$vm"
log=$(console "$vm")
n=$(grep -acE "GR: cpu1 (offline|online) [12]" "$log")
[ "$n" -eq 4 ] && ok "CPU 1 went offline and online twice" ||
	fail "CPU 1 went offline and online twice" "$(grep -a 'GR: ' "$log")"

# the changes, in guest time: "STATE NS" with STATE 0 (CPU 1 offline) or
# 0-1 (both online)
sed -n 's/^GR: MARK online=\([0-9-]*\) \([0-9]*\).*/\1 \2/p' "$log" >"$tmp/changes"
seq=$(awk '{ printf "%s ", $1 }' "$tmp/changes")
if [ "$seq" = "0-1 0 0-1 0 0-1 " ]; then
	ok "the guest marked every change of the online CPUs ($seq)"
else
	fail "the guest marked every change of the online CPUs" "seen: $seq"
	finish
fi
end=$(mark_time "$vm" end)

dir=$(newest_trace "$vm")
[ "$(trace_dirs "$vm" | wc -l)" -eq 1 ] && ok "hotplug kept one session" ||
	fail "hotplug kept one session" "$(trace_dirs "$vm" | tr '\n' ' ')"
check_trace "$dir" "the trace" || finish
check_no_loss "$dir" "the trace"

# times CPU [EVENT]: that CPU's sched_switch (or EVENT) times (guest ns)
times() {
	"$GR" report --cpu "$1" --events "${2:-sched_switch}" "$dir" \
		2>/dev/null | report_ts
}
times 0 >"$tmp/cpu0"
times 1 >"$tmp/cpu1"
times 0 hrtimer_start >"$tmp/hr0"
times 1 hrtimer_start >"$tmp/hr1"
# between FILE A B: how many times in [A, B)
between() {
	awk -v a="$2" -v b="$3" '$1 >= a && $1 < b { n++ } END { print n + 0 }' "$1"
}

# first_after FILE A: the first time in FILE at or after A (0 if none)
first_after() {
	awk -v a="$2" '$1 >= a { print $1; f = 1; exit } END { if (!f) print 0 }' "$1"
}

# the marks come up to one 20 ms poll (and a fork) after the change
MARGIN=300000000
mapfile -t t < <(awk '{ print $2 }' "$tmp/changes")
t+=("$end")
# the anyevent: its counters were created at attach, before t[1]
n=$(between "$tmp/hr1" "${t[0]}" "${t[1]}")
[ "$n" -ge 5 ] &&
	ok "anyevent hrtimer_start: CPU 1 records it before the first offline ($n)" ||
	fail "anyevent hrtimer_start: CPU 1 records it before the first offline" \
		"$n records between ${t[0]} and ${t[1]}"
for k in 1 3; do
	off=${t[$k]} on=${t[$((k + 1))]} next=${t[$((k + 2))]}
	c=$((k / 2 + 1))
	for f in cpu1 hr1; do
		n1=$(between "$tmp/$f" $((off + 50000000)) $((on - MARGIN)))
		[ "$n1" -eq 0 ] &&
			ok "cycle $c: CPU 1 recorded nothing while offline ($f, $(((on - off) / 1000000)) ms)" ||
			fail "cycle $c: CPU 1 recorded nothing while offline ($f)" \
				"$n1 records between $((off + 50000000)) and $((on - MARGIN))"
	done
	for cpu in 0 1; do
		n2=$(between "$tmp/cpu$cpu" "$on" $((on + MARGIN)))
		n3=$(between "$tmp/cpu$cpu" "$on" "$next")
		if [ "$n2" -ge 20 ]; then
			ok "cycle $c: CPU $cpu records after CPU 1 came back ($n2 sched_switch in 300 ms, $n3 until the next change)"
		else
			fail "cycle $c: CPU $cpu records after CPU 1 came back" \
				"$n2 sched_switch in the 300 ms after $on, $n3 until $next"
		fi
	done
	n4=$(between "$tmp/cpu0" "$off" "$on")
	[ "$n4" -ge 20 ] &&
		ok "cycle $c: CPU 0 records while CPU 1 is offline ($n4)" ||
		fail "cycle $c: CPU 0 records while CPU 1 is offline" "$n4 sched_switch"
	# CPU 1's counter of the anyevent was replaced when it came online
	n5=$(between "$tmp/hr1" "$on" "$next")
	n6=$(between "$tmp/hr0" "$off" "$next")
	# its first record after CPU 1's first sched_switch back: at most
	# the time the counter took to come (an upper bound)
	back=$(first_after "$tmp/cpu1" $((off + 50000000)))
	gap=$((($(first_after "$tmp/hr1" "$back") - back) / 1000))
	[ "$n5" -ge 5 ] && [ "$n6" -ge 5 ] &&
		ok "cycle $c: anyevent hrtimer_start: CPU 1 records it after it came back ($n5 until the next change, the first ${gap} us after CPU 1's first sched_switch), CPU 0 across the change ($n6)" ||
		fail "cycle $c: anyevent hrtimer_start after CPU 1 came back" \
			"CPU 1: $n5 records between $on and $next, CPU 0: $n6 from $off"
done
finish
