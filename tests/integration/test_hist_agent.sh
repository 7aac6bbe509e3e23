#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_hist_agent.sh - aggregation in the guest (spec 17), the agent's
# side: `guestrelay hist` writes requests into the hist area, reads the
# guest's maps in place and prints them as ftrace's hist file, and
# /metrics serves them
#
# The real agent serves a plain VM; the guest is build/tests/hist_guest
# (tests/integration/hist_guest.c), which publishes a layout with
# GR_F_HIST and a hist area in the VM's real /dev/shm file, reads the
# requests the agent writes there and answers them with a state and
# maps written by hand. Checks:
#   - a request given before the guest published waits ([waiting]),
#     and reaches the guest once it publishes: event 0, one key, the
#     field prev_tid (payload offset 16, 4 bytes), a gen
#   - `hist VM` prints the merged table of both CPUs as ftrace's hist
#     file does ({ prev_tid: v } hitcount: n, sorted by hitcount, then
#     Totals: Hits, Entries, Dropped, and Nested, Torn, Bad maps); the
#     entry the guest was writing (odd seq) is left out and counted
#   - --json has the same entries and totals
#   - a request the guest refuses shows [refused] and its reason
#   - --latency runq: a log2 latency table ({ delta: ~ 2^3 }); /metrics
#     serves it as a Prometheus histogram (cumulative le buckets in
#     seconds, +Inf, _count), the plain table as counters by key, per
#     table counters; promtool accepts the page
#   - status --json's latency: the runq table only (count, p50_s and
#     p99_s as the le of their log2 bucket, dropped), status's row;
#     none while requests wait
#   - --clear gives the request a new gen; a new publication of the
#     guest gets every request again under new gens, and they run again
#   - a CPU map whose count goes back is refused (Bad maps), counted in
#     guestrelay_vm_hist_bad_maps_total, and not served
#   - --remove removes one; a bad request is refused with a caret under
#     the token; bad combinations of options are usage errors (exit 2)
#   - vm-add --hist and --hist-latency: requests that wait for the guest
# Every process runs under a time limit and is stopped at exit.

set -u
# shellcheck source=tests/integration/lib_agent.sh
. "$(dirname "$0")/lib_agent.sh"
la_init test_hist_agent
out='' err='' rc=0 hg=''	# set by gr and t_bg

HG=$BUILD/tests/hist_guest
[ -x "$HG" ] || la_skip "no $HG (make -C tests integration)"
command -v curl >/dev/null || la_skip "curl is needed (scripts/deps.sh metrics)"

# gen_of SLOT N: the gen of the Nth answer (1 = first) to SLOT
gen_of() {
	awk -v s="$1" -v n="$2" '$1 == "answered" && $2 == s && ++c == n { print $3 }' \
		"$HGLOG"
}

la_vm A hist
la_vm B histadd
read -r MPORT < <(la_free_ports 1)
MURL=http://127.0.0.1:$MPORT/metrics
HGLOG=$la_tmp/hist_guest.log

la_agent_start --metrics "127.0.0.1:$MPORT" ||
	{ bad agent-starts "see the log"; la_show_logs; la_finish; }
gr vm-add "$A" --plain --size 1M
check vm-add "[ $rc -eq 0 ]" "exit $rc: $err"

# ---- before the guest: the request waits ------------------------------------
gr hist "$A" sched_switch 'keys=prev_tid'
check "hist-set-before-publication" \
	"[ $rc -eq 0 ] && grep -q 'hist sched_switch requested' <<<\"\$out\"" \
	"exit $rc: $out $err"
gr hist "$A"
check "hist-waits-for-the-guest" \
	"grep -q '^# trigger info: hist:keys=prev_tid \[waiting\]' <<<\"\$out\"" \
	"$out"

# ---- the guest publishes; the request reaches it ------------------------------
t_bg hg 120 "$HGLOG" "$HG" "/dev/shm/guestrelay-$A" 110
if la_wait_grep "$HGLOG" '^answered 0 [0-9]* running' 15; then
	ok "guest-runs-the-request"
else
	bad "guest-runs-the-request" "no answer" "$(cat "$HGLOG")"
fi
check "request-is-prev_tid-of-sched_switch" \
	"grep -Eq '^request 0 gen [1-9][0-9]* kind 0 event 0 end 0 keys 1 vals 0 entries [0-9]+ key0 1/16/4/0$' '$HGLOG'" \
	"$(cat "$HGLOG")"
g1=$(gen_of 0 1)

# ---- the table, as ftrace prints it -------------------------------------------
sleep 0.2
gr hist "$A" sched_switch
cat >"$la_tmp/want.txt" <<'EOF'
{ prev_tid:          7 } hitcount:          1
{ prev_tid:          9 } hitcount:          4
{ prev_tid:         42 } hitcount:          5

Totals:
    Hits: 10
    Entries: 3
    Dropped: 2
    Nested: 0
EOF
printf '%s\n' "$out" >"$la_tmp/got.txt"
check "hist-prints-as-ftrace-header" \
	"head -n 5 '$la_tmp/got.txt' | grep -q '^# trigger info: hist:keys=prev_tid:vals=hitcount:sort=hitcount:size=[0-9]* \[active\]$' &&
	 [ \"\$(head -n 1 '$la_tmp/got.txt')\" = '# event histogram' ]" "$out"
check "hist-prints-as-ftrace-entries-and-totals" \
	"sed -n '/^{/,/Nested/p' '$la_tmp/got.txt' | diff - '$la_tmp/want.txt' >/dev/null" \
	"$(sed -n '/^{/,/Nested/p' "$la_tmp/got.txt" | diff - "$la_tmp/want.txt")"
check "torn-entry-left-out-and-counted" \
	"grep -Eq '^    Torn: [1-9]' '$la_tmp/got.txt' && ! grep -q 'prev_tid: *99 ' '$la_tmp/got.txt'" \
	"$out"

gr --json hist "$A" sched_switch
if "$PY" - "$out" <<'EOF'
import json, sys
d = json.loads(sys.argv[1])
h = d["hists"][0]
rows = {e["key"]["prev_tid"]: e["hitcount"] for e in h["entries"]}
assert h["state"] == "running", h
assert rows == {7: 1, 9: 4, 42: 5}, rows
t = h["totals"]
assert (t["hits"], t["entries"], t["dropped"]) == (10, 3, 2), t
assert t["torn"] >= 1, t
EOF
then
	ok "hist-json-has-the-same-table"
else
	bad "hist-json-has-the-same-table" "$out"
fi

# ---- refused by the guest -------------------------------------------------------
gr hist "$A" sched_switch 'keys=prev_tid:vals=prev_prio:name=prio'
check "second-request-set" "[ $rc -eq 0 ]" "exit $rc: $err"
la_wait_grep "$HGLOG" '^answered 1 [0-9]* refused' 15
gr hist "$A" prio
check "guest-refusal-shown" \
	"grep -q '\[refused\]' <<<\"\$out\" && grep -q 'by the guest: bad value 0' <<<\"\$out\"" \
	"$out"

# ---- a latency histogram, and /metrics --------------------------------------------
gr hist "$A" --latency runq
if [ "$rc" -ne 0 ]; then
	bad "latency-runq-set" "exit $rc: $err"
else
	ok "latency-runq-set"
	la_wait_grep "$HGLOG" '^answered 2 [0-9]* running' 15
	check "latency-request-is-a-pair" \
		"grep -Eq '^request 2 gen [0-9]+ kind 1 event 1 end 0 ' '$HGLOG'" \
		"$(grep '^request 2' "$HGLOG")"
	sleep 0.2
	gr hist "$A" runq
	check "latency-table-prints-log2-keys" \
		"grep -q '^{ delta: ~ 2^3  } hitcount:          2$' <<<\"\$out\" &&
		 grep -q '^{ delta: ~ 2^10 } hitcount:          5$' <<<\"\$out\" &&
		 grep -q '^    Unmatched: 3$' <<<\"\$out\"" "$out"
fi
curl -sS -m 10 -o "$la_tmp/metrics.txt" "$MURL"
m=$(cat "$la_tmp/metrics.txt")
check "metrics-plain-table-counters" \
	"grep -q '^guestrelay_vm_hist_sched_switch_hits_total{vm=\"$A\",key_prev_tid=\"42\"} 5$' <<<\"\$m\"" \
	"$(grep sched_switch_hits <<<"$m")"
check "metrics-table-counters" \
	"grep -q '^guestrelay_vm_hist_dropped_total{vm=\"$A\",hist=\"sched_switch\"} 2$' <<<\"\$m\" &&
	 grep -q '^guestrelay_vm_hist_running{vm=\"$A\",hist=\"prio\"} 0$' <<<\"\$m\" &&
	 grep -Eq '^guestrelay_vm_hist_torn_entries_total\{vm=\"$A\"\} [1-9]' <<<\"\$m\"" \
	"$(grep 'guestrelay_vm_hist_[a-z]*_total{\|hist_running' <<<"$m")"
check "metrics-latency-histogram" \
	"grep -q '^# TYPE guestrelay_vm_hist_runq_seconds histogram$' <<<\"\$m\" &&
	 grep -q '^guestrelay_vm_hist_runq_seconds_bucket{vm=\"$A\",le=\"8e-09\"} 2$' <<<\"\$m\" &&
	 grep -q '^guestrelay_vm_hist_runq_seconds_bucket{vm=\"$A\",le=\"1.024e-06\"} 7$' <<<\"\$m\" &&
	 grep -q '^guestrelay_vm_hist_runq_seconds_bucket{vm=\"$A\",le=\"+Inf\"} 7$' <<<\"\$m\" &&
	 grep -q '^guestrelay_vm_hist_runq_seconds_count{vm=\"$A\"} 7$' <<<\"\$m\"" \
	"$(grep runq <<<"$m" | grep -v '_bucket' ; grep -c runq_seconds_bucket <<<"$m")"
if command -v promtool >/dev/null; then
	e=$(promtool check metrics <"$la_tmp/metrics.txt" 2>&1)
	check "promtool-accepts-the-page" "[ $? -eq 0 ]" "$e"
else
	skip_check "promtool-accepts-the-page" "no promtool (scripts/deps.sh metrics)"
fi

# ---- status: the running latency tables summed up ----------------------------------
# runq merged {2^3: 2} {2^10: 5}: 7 events, the 4th (p50) and the 7th
# (p99) in bucket 2^10, le 1.024e-06 s; sched_switch (not a latency
# table) and prio (refused) are not in it
gr --json hist "$A" runq
hj=$out
gr --json status "$A"
if "$PY" - "$out" "$hj" <<'EOF'
import json, sys
st = json.loads(sys.argv[1])["vms"][0]
h = json.loads(sys.argv[2])["hists"][0]
lat = st["latency"]
assert [t["name"] for t in lat] == ["runq"], lat
t = lat[0]
assert t["preset"] == "runq", t
assert t["count"] == 7, t
assert t["p50_s"] == 1.024e-06 and t["p99_s"] == 1.024e-06, t
assert t["dropped"] == h["totals"]["dropped"], (t, h["totals"])
EOF
then
	ok "status-json-latency-summary"
else
	bad "status-json-latency-summary" "$out"
fi
gr status "$A"
check "status-text-latency-row" \
	"grep -q '^  latency       runq: 7 events, p50 1.0us, p99 1.0us, [0-9]* dropped$' <<<\"\$out\"" \
	"$out"

# ---- clear: a new gen; a new publication: all again ---------------------------------
gr hist "$A" sched_switch --clear
check "clear-accepted" "[ $rc -eq 0 ] && grep -q 'cleared' <<<\"\$out\"" "$out $err"
for _ in $(seq 50); do
	[ "$(grep -c '^answered 0 ' "$HGLOG")" -ge 2 ] && break
	sleep 0.1
done
if [ "$(grep -c '^answered 0 ' "$HGLOG")" -ge 2 ] &&
   [ "$(gen_of 0 2)" -gt "$g1" ]; then
	ok "clear-gives-a-new-gen ($g1 -> $(gen_of 0 2))"
else
	bad "clear-gives-a-new-gen" "$(grep '^answered 0' "$HGLOG")"
fi
n0=$(grep -c '^answered ' "$HGLOG")
kill -USR1 "$(t_child "$hg")" 2>/dev/null
if la_wait_grep "$HGLOG" '^published 2' 5 &&
   la_wait_status "$A" "s['state'] == 'attached'" 10 &&
   la_wait_grep "$HGLOG" '^answered 2 [0-9]* running' 5; then
	sleep 0.5
	gr hist "$A" sched_switch
	g3=$(awk '$1 == "answered" && $2 == 0 { g = $3 } END { print g }' "$HGLOG")
	check "republication-rewrites-requests" \
		"[ \$(grep -c '^answered ' '$HGLOG') -ge $((n0 + 3)) ] &&
		 [ '$g3' -gt '$(gen_of 0 2)' ] &&
		 grep -q '\[active\]' <<<\"\$out\" &&
		 grep -q '^    Hits: 10$' <<<\"\$out\"" \
		"$(cat "$HGLOG")" "$out"
else
	bad "republication-rewrites-requests" "no new publication answered" \
		"$(cat "$HGLOG")"
fi

# ---- a map that goes back is refused and counted ----------------------------------
kill -USR2 "$(t_child "$hg")" 2>/dev/null
if la_wait_grep "$HGLOG" '^backwards' 5; then
	gr hist "$A" sched_switch
	curl -sS -m 10 -o "$la_tmp/metrics2.txt" "$MURL"
	check "backwards-map-refused-and-counted" \
		"grep -q '^    Bad maps: [1-9]' <<<\"\$out\" &&
		 ! grep -q '^{ prev_tid:         42 } hitcount:          5$' <<<\"\$out\" &&
		 grep -q '^guestrelay_vm_hist_bad_maps_total{vm=\"$A\"} [1-9]' '$la_tmp/metrics2.txt'" \
		"$out" "$(grep bad_maps "$la_tmp/metrics2.txt")"
else
	bad "backwards-map-refused-and-counted" "the guest did not change its map"
fi

# ---- remove, errors ------------------------------------------------------------------
gr hist "$A" prio --remove
check "remove-accepted" "[ $rc -eq 0 ] && grep -q 'removed' <<<\"\$out\"" "$out $err"
gr hist "$A" prio
check "removed-is-gone" "[ $rc -eq 1 ] && grep -q \"no hist request 'prio'\" <<<\"\$err\"" \
	"exit $rc: $out $err"
gr hist "$A" sched_switch 'keys=nosuch'
check "bad-request-has-a-caret" "[ $rc -eq 1 ] && grep -q '\^' <<<\"\$err\"" \
	"exit $rc: $err"
for args in "--latency runq --clear" "sched_switch --filter x" \
	    "--clear --remove" "x y z w"; do
	# shellcheck disable=SC2086 # the words are the options
	gr hist "$A" $args
	check "usage-error '$args'" "[ $rc -eq 2 ]" "exit $rc: $err"
done

# ---- vm-add --hist ---------------------------------------------------------------------
gr vm-add "$B" --plain --size 1M --hist 'sched_switch:keys=prev_tid.hex:name=bytid if prev_tid > 1' \
	--hist-latency irq
check "vm-add-hist" "[ $rc -eq 0 ]" "exit $rc: $err"
gr hist "$B"
check "vm-add-hist-requests-wait" \
	"grep -q '^# trigger info: hist:keys=prev_tid.hex:name=bytid if prev_tid > 1 \[waiting\]' <<<\"\$out\" &&
	 grep -q '^# trigger info: hist:irq:latency=irq \[waiting\]' <<<\"\$out\"" "$out"
gr --json status "$B"
check "status-json-latency-empty-while-waiting" \
	"$PY -c 'import json, sys; assert json.loads(sys.argv[1])[\"vms\"][0][\"latency\"] == []' \"\$out\"" \
	"$out"
gr vm-add "$B-2" --hist-latency nap
check "vm-add-bad-preset" "[ $rc -ne 0 ] && grep -q 'runq, syscall, block or irq' <<<\"\$err\"" \
	"exit $rc: $err"

t_term_job "$hg"
la_wait_fg "$hg" 10 >/dev/null
la_end
