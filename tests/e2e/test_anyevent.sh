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
# the agent records the same 22 (vm-add --events). The agent adds 11
# more at run time (spec 18): 6 named by patterns at vm-add (3 new ones
# of timer:hrtimer_*, a bare name, grtp:grtp_*: the events of grtp.ko,
# loaded first, grtp_dynarr with two dynamic arrays of integers and a
# bitmask, which the guest lays out only once the host accepted
# GR_F_DYNARR, and grtp_array with fixed arrays of integers and a
# struct, only once it accepted GR_F_ARRAYS (spec 1.14), both fired
# while both tracers record; nosuch:* names none) and 5 by
# `guestrelay enable` while the guest waits for them (v1.15, spec 20:
# net:netif_rx_entry with 19 fields, net:net_dev_start_xmit with 17 and
# filemap:mm_filemap_delete_from_page_cache, a name of 32 characters,
# which need a descriptor's extension), and 2 kprobe events
# the host defines (spec 18.4, `guestrelay probe`: an entry probe with
# the opened path and a return probe). Then ftrace records all of them
# too over the workload and the guest prints ftrace's binary pages; the
# host then deletes its probes while the guest watches kprobe_events.
# Checks:
#   - enable by system:name at run time; a pattern naming nothing is
#     refused with the guest's reason; `guestrelay events` lists as many
#     events as the guest's available_events; `events 'timer:*' --json`
#     holds the timer events with timer_start's fields;
#   - probes from the host: p: and r: defined and recording, a malformed
#     one and one on an unknown symbol refused with the kernel's reason;
#     the path the guest opens is in the entry probe's records and the
#     return probe's records carry return values; both probes are in the
#     guest's kprobe_events while alive and gone after `probe -:NAME`;
#     the entry probe has two strings (path and comm, spec 1.11), which
#     babeltrace2 shows as strings and the comparison with ftrace covers;
#   - the guest has the 13 events added at run time in its catalogue;
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
#     be compared, grtp_dynarr's dynamic arrays and grtp_array's fixed
#     ones among them, and the three events that need a descriptor's
#     extension (v1.15, spec 20: the guest deletes a file in ftrace's
#     interval for filemap's);
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
events=$events,mm_page_free,kmem_cache_free,consume_skb,netif_rx
events=$events,console,rcu_utilization,sched_stat_runtime
# events by name at run time (spec 18): patterns at vm-add, whose events
# the agent asks the guest for once it published (hrtimer_init,
# hrtimer_expire_exit and hrtimer_cancel are new; hrtimer_start and
# hrtimer_expire_entry came with anyevent=; a pattern naming nothing),
# and two more by `guestrelay enable` while the guest waits for them
rt="timer:hrtimer_*,sched_wake_idle_without_ipi,grtp:grtp_*,nosuch:*"
boot_guest "$vm" --run e2e-anyevent --append "gr.mod=0 gr.secs=2 gr.rt=13 gr.probes=1" \
	--vm-args "--switch-timer-ms 100 --events $events,$rt"
log=$(console "$vm")
if wait_console "$vm" "GR: ANYAVAIL" 120; then
	out=$(gr enable "$vm" irq:softirq_raise kmem:kmem_cache_alloc \
		net:netif_rx_entry net:net_dev_start_xmit \
		filemap:mm_filemap_delete_from_page_cache 2>&1)
	rc=$?
	[ "$rc" = 0 ] && grep -q "irq:softirq_raise" <<<"$out" &&
		grep -q "kmem:kmem_cache_alloc" <<<"$out" &&
		grep -q "net:netif_rx_entry" <<<"$out" &&
		grep -q "filemap:mm_filemap_delete_from_page_cache" <<<"$out" &&
		ok "enable by system:name at run time adds 5 events (3 with a descriptor's extension)" ||
		fail "enable by system:name at run time adds 5 events" \
			"exit $rc" "$out"
	out=$(gr enable "$vm" 'nosuch:*' 2>&1)
	rc=$?
	[ "$rc" != 0 ] && grep -q "nosuch" <<<"$out" &&
		ok "a pattern naming no event is refused with the guest's reason" ||
		fail "a pattern naming no event is refused" "$out"
	# probes from the host (spec 18.4); two strings in one record
	# (spec 1.11, GR_F_DYNARR): the path and the task's comm
	# shellcheck disable=SC2016 # $comm is the kprobe's fetch argument
	out=$(gr probe "$vm" \
		'p:gropen do_sys_openat2 dfd=%di path=+0(%si):ustring comm=$comm' 2>&1)
	rc=$?
	[ "$rc" = 0 ] && grep -q "gropen" <<<"$out" &&
		ok "probe p: defined from the host and recording" ||
		fail "probe p: defined from the host" "exit $rc" "$out"
	# shellcheck disable=SC2016 # $retval is the kprobe's fetch argument
	out=$(gr probe "$vm" 'r:gropenr do_sys_openat2 ret=$retval' 2>&1)
	rc=$?
	[ "$rc" = 0 ] && grep -q "gropenr" <<<"$out" &&
		ok "probe r: (return probe) defined from the host" ||
		fail "probe r: defined from the host" "exit $rc" "$out"
	out=$(gr probe "$vm" 'p:grbad do_sys_openat2 x=%nosuchreg' 2>&1)
	rc=$?
	[ "$rc" != 0 ] && grep -qi "error" <<<"$out" &&
		ok "a malformed probe is refused with the kernel's reason" ||
		fail "a malformed probe is refused with the kernel's reason" \
			"exit $rc" "$out"
	echo "# malformed probe: $(head -n 2 <<<"$out" | tr '\n' ' ')"
	out=$(gr probe "$vm" 'p:grnosym gr_no_such_function' 2>&1)
	rc=$?
	[ "$rc" != 0 ] && grep -qi "ENOENT\|symbol" <<<"$out" &&
		ok "a probe on an unknown symbol is refused (ENOENT)" ||
		fail "a probe on an unknown symbol is refused (ENOENT)" \
			"exit $rc" "$out"
	gr events "$vm" >"$tmp/events.out" 2>&1
	gr events "$vm" 'block:' >"$tmp/events-block.out" 2>&1
	avail=$(grep -a "GR: ANYAVAIL" "$log" | tr -d '\r' | awk '{print $3}')
	listed=$(grep -c '^[a-z_0-9]*:[a-z_0-9]* ' "$tmp/events.out")
	# tracefs listed before the host defined its 2 probes
	[ "$listed" -gt 0 ] && [ "$listed" = $((avail + 2)) ] &&
		grep -q '^guestrelay:gropen ' "$tmp/events.out" &&
		ok "guestrelay events lists every event tracefs lists and the 2 probes ($listed)" ||
		fail "guestrelay events lists every event tracefs lists and the 2 probes" \
			"$listed listed, tracefs $avail + 2" "$(head -n 5 "$tmp/events.out")"
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
	# what GR_F_DYNARR (spec 1.11) lets the guest record: events with
	# several strings or a dynamic array, and every refusal by reason
	/usr/bin/python3 - "$tmp/events.out" <<'PY' || true
import collections, re, sys
evs = []
for line in open(sys.argv[1], errors="replace"):
    w = re.split(r"  +", line.rstrip("\n"), maxsplit=2)
    if len(w) >= 2 and re.match(r"^[a-z0-9_]+:[a-z0-9_]+$", w[0]):
        evs.append((w[1], w[2].split("; ") if len(w) > 2 else [], w[0]))
def dyn(fields):
    loc = [f.split(" ", 1)[1] for f in fields
           if f.startswith(("__data_loc ", "__rel_loc "))]
    return len(loc) > 1 or any(not d.startswith("char[]") for d in loc)
st = collections.Counter(s for s, f, e in evs if dyn(f))
why = collections.Counter(s for s, f, e in evs if s.startswith("refused"))
left = sorted(e for s, f, e in evs if dyn(f) and s.startswith("refused"))
print("# %d events with several strings or a dynamic array: %s" %
      (sum(st.values()), ", ".join("%s %d" % kv for kv in sorted(st.items()))))
print("# of those still refused: %s" % " ".join(left))
print("# every event refused, by reason: %s" %
      ", ".join("%s %d" % kv for kv in sorted(why.items())))
PY
	# the guest lists its kprobe_events once ftrace is done; then the
	# host deletes its probes (spec 18.4 P6)
	if wait_console "$vm" "GR: ANYPROBES " 600; then
		out=$(gr probe "$vm" '-:gropen' 2>&1 &&
			gr probe "$vm" '-:gropenr' 2>&1)
		rc=$?
		[ "$rc" = 0 ] && ok "probe -:NAME deletes the host's probes" ||
			fail "probe -:NAME deletes the host's probes" "exit $rc" "$out"
		out=$(gr probe "$vm" 2>&1)
		! grep -q "gropen" <<<"$out" &&
			ok "the agent lists no deleted probe" ||
			fail "the agent lists no deleted probe" "$out"
	else
		fail "the guest listed its kprobe_events" "$(tail -n 20 "$log")"
	fi
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
[ "$nrt" = 13 ] && ! grep -aq "GR: ANYRT timeout" "$log" &&
	ok "the guest has the 13 events the host added at run time" ||
	fail "the guest has the 13 events the host added at run time" \
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
grep -aq "GR: ANYPROBES 2" "$log" &&
	grep -aq "GR: ANYPROBE p[0-9]*:guestrelay/gropen do_sys_openat2" "$log" &&
	grep -aq "GR: ANYPROBE r[0-9]*:guestrelay/gropenr do_sys_openat2" "$log" &&
	ok "both probes are in the guest's kprobe_events while alive" ||
	fail "both probes are in the guest's kprobe_events while alive" \
		"$(grep -a 'GR: ANYPROBE' "$log")"
grep -aq "GR: ANYPROBES gone" "$log" &&
	ok "the host's probes are gone from kprobe_events after -:NAME" ||
	fail "the host's probes are gone from kprobe_events after -:NAME" \
		"$(grep -a 'GR: ANYPROBES' "$log")"
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
babeltrace2 "$dir" 2>/dev/null | grep -a 'gropen' >"$tmp/probes.txt"
n=$(grep -a 'gropen[^r]' "$tmp/probes.txt" | grep -c 'path = "/gr/e2e-common"')
[ "$n" -ge 1 ] && ok "the entry probe recorded the path the guest opened ($n)" ||
	fail "the entry probe recorded the path the guest opened" \
		"$(grep -a 'gropen[^r]' "$tmp/probes.txt" | head -n 5)"
# two strings in a record (spec 1.11): babeltrace2 shows both as strings
n=$(grep -a 'gropen[^r]' "$tmp/probes.txt" |
	grep -c 'path = "/gr/e2e-common", comm = "[^"][^"]*" }')
[ "$n" -ge 1 ] && ok "babeltrace2 shows the entry probe's two strings, path and comm ($n)" ||
	fail "babeltrace2 shows the entry probe's two strings" \
		"$(grep -a 'gropen[^r]' "$tmp/probes.txt" | head -n 5)"
n=$(grep -a 'gropenr' "$tmp/probes.txt" | grep -c 'ret = ')
[ "$n" -ge 1 ] && ok "the return probe recorded return values ($n records)" ||
	fail "the return probe recorded return values" \
		"$(grep -a 'gropenr' "$tmp/probes.txt" | head -n 5)"
/usr/bin/python3 "$(dirname "$0")/anyevent_check.py" "$log" "$dir" \
	>"$tmp/compare.out" 2>&1
take_checks "$tmp/compare.out" $? "the comparison"
# v1.15 (spec 20): more than 16 fields, a name of 32 characters
n=$(grep -c "^ok - \(net:netif_rx_entry\|net:net_dev_start_xmit\|filemap:mm_filemap_delete_from_page_cache\): ftrace's records" \
	"$tmp/compare.out")
[ "$n" = 3 ] &&
	ok "the events with 19 and 17 fields and a name of 32 characters are compared with ftrace" ||
	fail "the events that need a descriptor's extension are compared with ftrace" \
		"$(grep "netif_rx_entry\|net_dev_start_xmit\|delete_from_page_cache" "$tmp/compare.out")"
finish
