#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_events_byname.sh - events by name (spec 18, GR_F_ANYEVENT): the
# agent asks a fake guest (--anyevent: a catalogue of its own, 8 free
# descriptor slots) for its events and adds them by name
#
#   - `guestrelay events VM` lists the whole catalogue, over several
#     pages (--catalogue 40), with states and fields; `events VM 'fsys:*'
#     --json` the three fsys events with their fields
#   - `enable VM fake:fake_seq` (a table event, by system:name) answers
#     "known"
#   - `enable VM 'fsys:ev*' other:thing` adds four events; their records
#     are in the trace with their fields (babeltrace2, python3-bt2)
#   - a pattern naming nothing fails with the guest's reason (ENOENT);
#     an event that cannot be recorded is refused with its reason
#   - vm-add --events names events beyond the table: asked at attach,
#     and again from a new guest (re-publication, M6); so are enable and
#     disable given while the first guest ran, in their order ('!'
#     turns an event off within an enable list, as in ftrace's set_event)
#   - hostile answers (--names-hostile len, next, garbage) are refused
#     with a clear message; an answer under another seq, or none, ends
#     in ETIMEDOUT after 5 s; an added descriptor that breaks 7.4 and a
#     desc_live beyond desc_capacity are refused (M2); the agent lives on
#   - a guest without the feature: a clear error

set -u
. "$(dirname "$0")/lib_agent.sh"
la_init test_events_byname


# fake guest on VM $1 with options $2...; job id into the variable fgjob_$1
fg_start() {
	local vm=$1 job

	shift
	t_bg job 60 "$la_tmp/fg-$vm.log" "$FG" --shm "guestrelay-$vm" \
		--cpus 1 --rate 50 --duration 40 --linger 1 "$@"
	printf -v "fgjob_$vm" '%s' "$job"
	la_wait_status "$vm" "s['state'] == 'attached'" 10 ||
		bad "attached-$vm" "$out"
}

fg_stop() {
	local v="fgjob_$1"

	t_term_job "${!v}"
	la_wait_fg "${!v}" 10 >/dev/null
}

la_agent_start || { bad agent-starts "see the log"; la_show_logs; la_finish; }

# ---- the catalogue --------------------------------------------------------
la_vm V ev
gr vm-add "$V" --plain --size 1M --events fake_seq || bad vm-add "exit $rc: $err"
fg_start "$V" --anyevent --catalogue 40 --stats "$la_tmp/fg.stats"

gr events "$V"
if [ "$rc" -eq 0 ] && grep -q '^EVENT  *STATE  *FIELDS' <<<"$out" &&
   grep -q '^fake:fake_seq  *native  *u32 cpu; u64 seq; char tag\[16\]' <<<"$out" &&
   grep -q '^fsys:ev_ints  *available  *u8 a; s16 b; u32 c; s64 d$' <<<"$out" &&
   grep -q '^other:no_rec  *refused: Operation not supported' <<<"$out" &&
   grep -q '^other:fake_seq  *refused: File exists' <<<"$out" &&
   grep -q '^bulk:ev39 ' <<<"$out" && grep -q '^50 events$' <<<"$out"; then
	ok "events VM lists the whole catalogue (50 events, several pages) with states and fields"
else
	bad events-table "exit $rc: $err" "$out"
fi

gr --json events "$V" 'fsys:*'
if [ "$rc" -eq 0 ] && "$PY" - "$out" <<'EOF'
import json, sys
d = json.loads(sys.argv[1])
names = [e["event"] for e in d]
assert names == ["fsys:ev_ints", "fsys:ev_comm", "fsys:ev_msg"], names
ints, comm, msg = d
assert all(e["state"] == "available" and e["system"] == "fsys" for e in d)
assert [(f["name"], f["offset"], f["size"], f["signed"]) for f in ints["fields"]] == \
    [("a", 8, 1, False), ("b", 9, 2, True), ("c", 11, 4, False), ("d", 15, 8, True)]
assert comm["fields"][1]["decl"] == "char name[16]"
assert msg["fields"][2] == {"decl": "__data_loc char[] msg", "name": "msg",
                            "offset": 20, "size": 4, "signed": False}
EOF
then
	ok "events VM 'fsys:*' --json: three events, every field's decl, offset, size, sign"
else
	bad events-json "exit $rc: $err" "$out"
fi

gr events "$V" 'no[thing'
[ "$rc" -eq 0 ] && grep -q 'no event of the guest matches' <<<"$out" &&
	ok "a glob that names nothing lists nothing" ||
	bad events-none "exit $rc: $err" "$out"

# ---- enable by name ---------------------------------------------------------
gr enable "$V" fake:fake_seq
[ "$rc" -eq 0 ] && [ "$out" = "fake:fake_seq known" ] &&
	ok "enable VM fake:fake_seq: a table event by system:name is known" ||
	bad enable-known "exit $rc: $err" "$out"

gr --json enable "$V" 'fake:fake_*'
[ "$rc" -eq 0 ] && "$PY" - "$out" "$V" <<'EOF' &&
import json, sys
d = json.loads(sys.argv[1])
assert d["vm"] == sys.argv[2], d
r = {e["event"]: e["result"] for e in d["events"]}
assert r == {"fake:fake_seq": "known", "fake:fake_str": "known",
             "fake:fake_ev2": "known", "fake:fake_ev3": "known"}, r
EOF
	ok "enable --json: the guest's answer per event" ||
	bad enable-json "exit $rc: $err" "$out"

gr enable "$V" 'nothing:here*'
[ "$rc" -ne 0 ] && grep -q "'nothing:here\*' names no event" <<<"$err" &&
	grep -q 'nothing:here\*: no such event in the guest (No such file or directory)' <<<"$err" &&
	ok "a pattern naming nothing fails with the guest's reason" ||
	bad enable-none "exit $rc: $out" "$err"

gr enable "$V" other:no_rec
[ "$rc" -ne 0 ] && grep -q 'other:no_rec refused: Operation not supported' <<<"$err" &&
	ok "an event that cannot be recorded is refused with the guest's reason" ||
	bad enable-refused "exit $rc: $out" "$err"

gr enable "$V" 'fsys:ev*' other:thing
first_rc=$rc first_out=$out
gr events "$V" 'fsys:'
grep -q '^fsys:ev_msg  *by name' <<<"$out" &&
	ok "the guest added the events asked for (state 'by name')" ||
	bad added-by-name "$out"
gr enable "$V" 'fsys:ev*' other:thing
[ "$first_rc" -eq 0 ] && grep -q '^fsys:ev_ints added$' <<<"$first_out" &&
	grep -q '^fsys:ev_msg added$' <<<"$first_out" &&
	[ "$rc" -eq 0 ] && grep -q '^fsys:ev_ints known$' <<<"$out" &&
	grep -q '^other:thing known$' <<<"$out" &&
	ok "enable VM 'fsys:ev*' other:thing: added, then known" ||
	bad enable-adds "exit $rc: $err" "$out"
sleep 1
gr flush "$V" || bad flush "exit $rc: $err"
sess=$(la_sessions "$V" | tail -n 1)
if bt_out=$(timeout -k 5 60 "$PY" - "$sess" 2>&1 <<'EOF'
import sys, bt2
seen = {}
for m in bt2.TraceCollectionMessageIterator(sys.argv[1]):
    if type(m) is not bt2._EventMessageConst:
        continue
    e = m.event
    name = e.name.split(":")[-1]
    if name not in ("ev_ints", "ev_comm", "ev_msg", "thing"):
        continue
    p = e.payload_field
    seen[name] = seen.get(name, 0) + 1
    if name == "ev_ints":
        assert {"a", "b", "c", "d"} <= set(p.keys()), list(p.keys())
    elif name == "ev_comm":
        assert str(p["name"]).startswith("ev-0-"), str(p["name"])
    elif name == "ev_msg":
        assert str(p["msg"]).startswith("fakeguest cpu 0 n "), str(p["msg"])
    else:
        assert int(p["y"]) == int(p["x"]) << 20 or int(p["x"]) >= 1 << 32
assert set(seen) == {"ev_ints", "ev_comm", "ev_msg", "thing"}, seen
print(seen)
EOF
); then
	ok "the added events' records are in the trace with their fields ($bt_out)"
else
	bad trace-has-added "$bt_out"
fi
la_bt "$(la_sessions "$V" | tail -n 1)" &&
	ok "babeltrace2 reads the session" || bad bt-reads "$bt_out"
fg_stop "$V"

# ---- --events beyond the table, at attach and after a re-publication (M6) --
la_vm A at
gr vm-add "$A" --plain --size 1M --events 'fake_seq,fsys:ev_ints,none:x' ||
	bad vm-add-events "exit $rc: $err"
for round in 1 2; do
	fg_start "$A" --anyevent
	ok=
	for _ in $(seq 30); do
		gr events "$A" fsys:ev_ints
		grep -q '^fsys:ev_ints  *by name' <<<"$out" && { ok=1; break; }
		sleep 0.2
	done
	[ -n "$ok" ] &&
		ok "--events fsys:ev_ints is asked for at attach (guest $round)" ||
		bad "attach-asks-$round" "$out"
	la_wait_status "$A" "'ev_ints' in s.get('events', '')" 5 &&
		ok "and recorded (guest $round)" ||
		bad "attach-enables-$round" "$out"
	if [ "$round" = 1 ]; then
		# run-time changes, to be asked again of the next guest
		gr enable "$A" fsys:ev_msg || bad enable-msg "exit $rc: $err"
		gr disable "$A" fake_seq || bad disable-seq "exit $rc: $err"
		gr enable "$A" 'fsys:*,!fsys:ev_comm' ||
			bad enable-neg "exit $rc: $err"
		la_wait_status "$A" "all(x in s.get('events', []) for x in ('ev_msg', 'ev_ints')) and not any(x in s.get('events', []) for x in ('fake_seq', 'ev_comm'))" 5 &&
			ok "enable, disable and enable 'fsys:*,!fsys:ev_comm' at run time: ev_ints, ev_msg on; fake_seq, ev_comm off" ||
			bad runtime-changes "$out"
	else
		la_wait_status "$A" "all(x in s.get('events', []) for x in ('ev_msg', 'ev_ints')) and not any(x in s.get('events', []) for x in ('fake_seq', 'ev_comm'))" 5 &&
			ok "a new guest is asked the run-time changes again, in their order" ||
			bad runtime-changes-kept "$out"
	fi
	fg_stop "$A"
done
grep -q "$A: events by name of --events .*'none:x' names no event the host adopted; none:x: no such event in the guest" \
	"$LA_AGENT_LOG" &&
	ok "a pattern of --events naming nothing is logged with the guest's reason" ||
	bad attach-logs-none "$(grep 'events by name' "$LA_AGENT_LOG")"

# ---- hostile answers ------------------------------------------------------
hostile() {
	local kind=$1 cmd=$2 want=$3 vm

	la_vm vm "h$kind"
	gr vm-add "$vm" --plain --size 1M --events fake_seq ||
		bad "vm-add-$kind" "exit $rc: $err"
	fg_start "$vm" --anyevent --names-hostile "$kind"
	if [ "$kind" = silent ]; then
		# while the guest is silent, status says what is pending
		timeout -k 5 20 "$GR" --run-dir "$RUN" --timeout 15 events \
			"$vm" >"$la_tmp/bg.out" 2>&1 &
		local bg=$!
		la_wait_status "$vm" "'events by name (list)' in s.get('pending', '')" 4 &&
			ok "status shows the unanswered request as pending" ||
			bad pending "$out"
		wait "$bg"
	fi
	# shellcheck disable=SC2086 # $cmd: the command and its patterns
	gr $cmd "$vm" 'fsys:*'
	if [ "$rc" -ne 0 ] && grep -q -- "$want" <<<"$err" &&
	   ! grep -q $'\x1b' <<<"$err"; then
		ok "--names-hostile $kind: $cmd refused: $(cut -c1-100 <<<"$err")"
	else
		bad "hostile-$kind" "exit $rc, wanted '$want'" "$out" "$err"
	fi
	la_agent_alive && ok "the agent lives on after --names-hostile $kind" ||
		bad "alive-$kind" "no ping"
	fg_stop "$vm"
}

hostile len events 'was refused: its text is longer than 1984 bytes'
hostile next events 'was refused: its next page is outside'
hostile garbage enable 'was refused: a line of its text is not'
hostile seq events 'did not answer the request for events by name in 5 s'
hostile silent enable 'did not answer the request for events by name in 5 s'
hostile desc enable 'descriptors the guest of .* added were refused'
hostile live enable 'names no event the host adopted\|descriptors the guest of .* added were refused'

# ---- a guest without the feature --------------------------------------------
la_vm N no
gr vm-add "$N" --plain --size 1M || bad vm-add-plain "exit $rc: $err"
fg_start "$N"
gr events "$N"
[ "$rc" -ne 0 ] && grep -q 'does not take requests for events by name' <<<"$err" &&
	ok "events VM on a guest without GR_F_ANYEVENT: a clear error" ||
	bad no-feature "exit $rc: $out" "$err"
gr enable "$N" 'fsys:ev_ints'
[ "$rc" -ne 0 ] && grep -q "unknown event 'fsys:ev_ints'" <<<"$err" &&
	ok "enable without the feature: unknown names as before" ||
	bad no-feature-enable "exit $rc: $out" "$err"
fg_stop "$N"

la_end
