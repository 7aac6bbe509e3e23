#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2015,SC2119 # "A && ok || fail": ok always succeeds
#
# test_anyevent_all.sh - `guestrelay enable VM '*'`: every event of the
# guest's kernel at once (issue 25, spec 18)
#
# One boot (single-threaded TCG, 2 CPUs): /gr/e2e-anyall waits until the
# host added events by name, then runs 10 s of the workload with CPU 1
# taken offline and back once in the middle. The host runs `guestrelay
# enable VM '*'` once the guest listed its events. Checks:
#   - enable '*' succeeds within the host's 5 s answer bound (timed) and
#     prints a summary (added, known, refused by reason), not a line per
#     event;
#   - every tracepoint event the guest lists (628 on the test guest;
#     its system call events excepted, which the families record, and
#     the host's kprobe events included) is recorded at once: its state
#     in `events --json` is "native" or "by name" and the guest's
#     enabled bits (the wide area, spec 19, v1.13) name it, or it is
#     refused with a reason that is not ENOSPC (the ids reach far enough:
#     GR_WIDE_MAX_EVENTS), each reason tallied;
#   - v1.15 (spec 20, GR_F_LONG_DESC): the events whose names or fields
#     do not fit a 576-byte descriptor (names over 31 characters,
#     systems over 15, more than 16 fields, a field name over 23) are
#     recorded, not refused (neigh:neigh_update excepted: its u8 arrays
#     are another change's);
#   - the guest answers afterwards (`guestrelay events VM 'sched:'`);
#   - losses are counted by cause (status: lost_full, lost_too_big,
#     lost_nested; report --summary: lost packets, discarded events);
#   - babeltrace2 reads the trace and counts what `report --summary`
#     counts; `guestrelay report` prints it; the trace holds records of
#     more than 50 events added by name;
#   - no event added fails to attach (the one event the kernel refuses
#     to sample, irq_vectors:irq_work_exit, is recorded by the module's
#     table since spec 1.14);
#   - the console has no WARNING:, BUG:, Oops, Call Trace or "sleeping
#     function" line.
# The guest stays up for the host's questions after the workload until
# the host deletes a probe it defined before enable '*' (grhold, one of
# the events by name), not for a fixed time.
# GR_ALL_FIRST=PATTERNS enables those first (before 1.13 the slots
# reached the first 225 events of available_events only, and this gave
# the others their turn).

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

e2e_init bt2
start_agent
vm=$(vm_name all)
boot_guest "$vm" --run e2e-anyall --append "gr.secs=10 gr.rt=100" \
	--vm-args "--switch-timer-ms 100"
log=$(console "$vm")
if ! wait_console "$vm" "GR: ALLAVAIL" 120; then
	fail "the guest listed its events" "$(tail -n 15 "$log")"
	finish
fi
# an enable before the agent attached would only be remembered for it
for _ in $(seq 600); do
	[ "$(json_get "$vm" 'v["state"]')" = attached ] && break
	sleep 0.1
done
# GR_ALL_FIRST=PATTERNS: enabled first, so that the events past the
# slots in available_events' order get them (the others' turn)
if [ -n "${GR_ALL_FIRST:-}" ]; then
	gr enable "$vm" "$GR_ALL_FIRST" 2>&1 | tail -n 3 | sed 's/^/# first: /'
fi
# the guest holds after the workload until this probe is deleted (then
# the host is done asking); it is an event by name like the others
out=$(gr probe "$vm" 'p:grhold do_sys_openat2' 2>&1) &&
	ok "the host defines its probe grhold" ||
	fail "the host defines its probe grhold" "$out"
t0=$(date +%s%N)
out=$(gr enable "$vm" '*' 2>&1)
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
printf '%s\n' "$out" | sed 's/^/# enable: /' | head -n 30
note "enable '*' took $ms ms (exit $rc)"
[ "$rc" = 0 ] && [ "$ms" -lt 5000 ] &&
	ok "enable '*' succeeds within 5 s ($ms ms)" ||
	fail "enable '*' succeeds within 5 s" "exit $rc, $ms ms" "$out"
lines=$(printf '%s\n' "$out" | grep -c .)
[ "$lines" -le 12 ] && grep -q "added" <<<"$out" &&
	grep -q "refused" <<<"$out" &&
	ok "enable '*' prints a summary ($lines lines)" ||
	fail "enable '*' prints a summary, not a line per event" \
		"$lines lines" "$(head -n 5 <<<"$out")"
if ! wait_console "$vm" "GR: ALLRT" 180; then
	fail "the guest saw the events added" "$(tail -n 15 "$log")"
	finish
fi
grep -a "GR: ALLRT" "$log" | sed 's/^/# /'
grep -qa "GR: ALLRT [0-9]" "$log" &&
	ok "the guest has the events added ($(grep -ao 'GR: ALLRT [0-9]*' "$log"))" ||
	fail "the guest has the events added" "$(grep -a 'GR: ALLRT' "$log")"
if ! wait_console "$vm" "GR: MARK end" 240; then
	fail "the workload ran" "$(tail -n 15 "$log")"
	finish
fi
grep -qa "GR: cpu1 online" "$log" &&
	ok "CPU 1 went offline and came back with every event enabled" ||
	fail "CPU 1 went offline and came back" "$(grep -a 'GR: cpu1' "$log")"
out=$(gr events "$vm" 'sched:' 2>&1)
rc=$?
[ "$rc" = 0 ] && grep -q "^sched:sched_switch " <<<"$out" &&
	ok "the guest answers afterwards (events 'sched:')" ||
	fail "the guest answers afterwards" "exit $rc" "$(head -n 5 <<<"$out")"
# every event's state now, the refusals by reason (the LIST is complete),
# against the events the guest says it records (status: enabled bits)
gr events "$vm" --json >"$tmp/events.json" 2>&1
gr status --json "$vm" >"$tmp/status.json" 2>&1
tally=$(/usr/bin/python3 -c '
import collections, json, sys
d = json.load(open(sys.argv[1]))
ev = d["events"] if isinstance(d, dict) else d
s = json.load(open(sys.argv[2]))
v = s["vms"][0] if "vms" in s else s
on = set(v["events"])
tp = [e for e in ev if e["system"] != "syscalls"]
rec = [e for e in tp if e["state"] in ("native", "by name")]
refused = [e for e in tp if e["state"] not in ("native", "by name")]
miss = [e["system"] + ":" + e["name"] for e in rec if e["name"] not in on]
why = collections.Counter(e.get("reason") or e["state"] for e in refused)
nospc = sum(n for r, n in why.items() if "No space" in r)
print("%d events listed, %d of them tracepoint and kprobe events: %d "
      "recorded (%d by name), %d refused (%s); %d enabled in all; "
      "not enabled: %d %s; refused for want of a slot: %d" %
      (len(ev), len(tp), len(rec), sum(e["state"] == "by name" for e in rec),
       len(refused), ", ".join("%s %d" % kv for kv in why.most_common()),
       len(on), len(miss), " ".join(miss[:5]), nospc))
print("refused: " + "; ".join("%s:%s %s" % (e["system"], e["name"],
                                             e.get("reason") or e["state"])
                                for e in refused))
print("OK" if tp and rec and not miss and not nospc and
      all(e["state"] == "refused" and e.get("reason") for e in refused)
      else "BAD")
' "$tmp/events.json" "$tmp/status.json" 2>&1)
# v1.15: the events that need a descriptor's extension (spec 20)
long=$(/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["events"] if isinstance(d, dict) else d
want = ("hyperv:hyperv_nested_flush_guest_mapping_range "
        "sched:sched_kthread_work_execute_start "
        "filemap:mm_filemap_delete_from_page_cache "
        "vmscan:mm_vmscan_memcg_softlimit_reclaim_begin "
        "vmscan:mm_vmscan_memcg_softlimit_reclaim_end "
        "compaction:mm_compaction_try_to_compact_pages "
        "compaction:mm_compaction_isolate_migratepages "
        "regulator:regulator_bypass_disable_complete "
        "regulator:regulator_bypass_enable_complete "
        "devlink:devlink_health_reporter_state_update "
        "context_tracking:user_enter context_tracking:user_exit "
        "thermal_power_allocator:thermal_power_allocator "
        "thermal_power_allocator:thermal_power_allocator_pid "
        "net:netif_rx_entry net:netif_receive_skb_entry "
        "net:netif_receive_skb_list_entry net:napi_gro_receive_entry "
        "net:napi_gro_frags_entry net:net_dev_start_xmit mce:mce_record "
        "io_uring:io_uring_req_failed writeback:bdi_dirty_ratelimit").split()
state = {e["system"] + ":" + e["name"]: e["state"] for e in ev}
listed = [w for w in want if w in state]
bad = [w + " " + state[w] for w in listed
       if state[w] not in ("native", "by name")]
print("%d of the %d events that need the extension listed, %d recorded%s"
      % (len(listed), len(want), len(listed) - len(bad),
         (": not " + ", ".join(bad)) if bad else ""))
print("OK" if len(listed) > 15 and not bad else "BAD")
' "$tmp/events.json" 2>&1)
note "$(head -n 1 <<<"$tally")"
note "$(sed -n 2p <<<"$tally")"
[ "$(tail -n 1 <<<"$tally")" = OK ] &&
	ok "every tracepoint event the guest lists is recorded at once, or refused with a reason other than ENOSPC" ||
	fail "every tracepoint event the guest lists is recorded at once" "$tally"
note "$(head -n 1 <<<"$long")"
[ "$(tail -n 1 <<<"$long")" = OK ] &&
	ok "events with long names or more than 16 fields are recorded (spec 20)" ||
	fail "events with long names or more than 16 fields are recorded" "$long"
nrec=$(sed -n 's/.*events: \([0-9]*\) recorded.*/\1/p' <<<"$tally")
[ "${nrec:-0}" -gt 256 ] &&
	ok "more events recorded at once than the 256 of GR_MAX_EVENTS ($nrec)" ||
	fail "more events recorded at once than the 256 of GR_MAX_EVENTS" "${nrec:-?}"
loss=""
for k in lost_full lost_too_big lost_nested desc_added desc_refused; do
	v=$(json_get "$vm" "v[\"stats\"][\"$k\"]" 2>/dev/null)
	loss="$loss $k=${v:-?}"
done
note "status:$loss"
grep -q "lost_full=[0-9]" <<<"$loss" && grep -q "lost_nested=[0-9]" <<<"$loss" &&
	grep -q "desc_refused=0" <<<"$loss" &&
	ok "losses counted by cause, no descriptor refused by the host" ||
	fail "losses counted by cause, no descriptor refused" "$loss"
out=$(gr probe "$vm" '-:grhold' 2>&1) ||
	fail "the host deletes its probe grhold" "$out"
guest_ran "$vm" e2e-anyall
grep -qa "GR: ALLHOLD released" "$log" &&
	ok "the guest held until the host deleted grhold" ||
	fail "the guest held until the host deleted grhold" "$(grep -a 'GR: ALLHOLD' "$log")"
check_console "$vm"
if grep -qa "sleeping function\|INFO: task\|rcu_sched self-detected\|soft lockup" "$log"; then
	fail "the console has no sleeping-function, hung-task or lockup line" \
		"$(grep -a "sleeping function\|INFO: task\|self-detected\|soft lockup" "$log" | head -n 5)"
else
	ok "the console has no sleeping-function, hung-task or lockup line"
fi
grep -a "GR: ALLMEM\|GR: ALLCAT\|GR: DMESG" "$log" | sed 's/^/# /'
if grep -qa "not recorded" "$log"; then
	fail "every event added is recorded (none refused at attach)" \
		"$(grep -a "not recorded" "$log")"
else
	ok "every event added is recorded (none refused at attach)"
fi

dir=$(newest_trace "$vm")
check_trace "$dir" "the trace" || finish
"$GR" report --summary "$dir" 2>&1 | tail -n 6 | sed 's/^/# /'
for k in "lost packets" "discarded events" "damaged spots"; do
	note "$k: $(summary_field "$dir" "$k")"
done
"$GR" report "$dir" >"$tmp/report.out" 2>"$tmp/report.err"
rc=$?
n=$(grep -c . "$tmp/report.out")
[ "$rc" = 0 ] && [ "$n" -gt 0 ] &&
	ok "guestrelay report prints the trace ($n lines)" ||
	fail "guestrelay report prints the trace" "exit $rc, $n lines" \
		"$(head -n 5 "$tmp/report.err")"
# distinct events with records, from report's lines ("TID [CPU] TIME:
# EVENT: ..."; check_trace compared its count with babeltrace2's)
awk '{ for (i = 1; i < NF - 1; i++) if ($i ~ /^\[[0-9]+\]$/) {
	sub(/:$/, "", $(i + 2)); print $(i + 2); break } }' "$tmp/report.out" |
	sort | uniq -c | sort -rn >"$tmp/per_event"
kinds=$(grep -c . "$tmp/per_event")
note "$kinds events have records; the most: $(head -n 5 "$tmp/per_event" | awk '{ printf "%s %s, ", $2, $1 }')"
[ "$kinds" -gt 50 ] && ok "records of more than 50 events ($kinds)" ||
	fail "records of more than 50 events" "$kinds" "$(head -n 5 "$tmp/per_event")"
finish
