#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_ship_basic.sh - an agent ships its store to a real `nats-server
# -js`; two collectors sharing one durable consumer rebuild it byte for
# byte, one of them killed with SIGKILL mid-stream and restarted; then a
# hostile publisher's garbage on the stream's subjects is rejected and
# counted, and the honest traces stay intact (issue 9)
#
# Two VMs with hostile-looking names (a '.' and '_'), fed by fake guests
# for 6 s (one doorbell device, one plain), and one in flight mode whose
# snapshot is taken mid-way. Checks: the collected tree
# equals the store (cmp of every file, no file missing or extra);
# babeltrace2 and `guestrelay report` read every collected trace; every
# fake_seq the guest wrote is in it exactly once (bt_check.py --expect
# written); the hostile messages are all rejected (the collector's count)
# and nothing outside DIR/<host>/ was made.

set -u
. "$(dirname "$0")/lib_agent.sh"
. "$LA_HERE/lib_ship.sh"
ls_init test_ship_basic

HOSTILE=$BUILD/tests/ship_hostile
JSDEL=$BUILD/tests/js_delete_consumer
[ -x "$HOSTILE" ] && [ -x "$JSDEL" ] ||
	la_skip "no $HOSTILE or $JSDEL (make -C tests integration)"

nats_start_single "$la_tmp/nats" || { bad nats-starts "see above"; la_finish; }
ok nats-starts

la_vm A sb.a.
la_vm B sb_b-
la_vm C sb-flight
SB=16384
DUR=6
LA_BT_SECS=${LA_BT_SECS:-180}
LA_AGENT_SECS=400
la_agent_start --ship "$NATS_URLS" --events all --subbuf-size $SB \
	--subbufs 16 --vm "$A" --vm "$B" --plain \
	--vm "$C" --plain --mode flight ||
	{ bad agent-starts "see the log"; la_show_logs; la_finish; }
ok agent-starts

ls_collect_start c1
ls_collect_start c2
t_bg fa $((DUR + 60)) "$la_tmp/fg-$A.log" "$FG" --socket "$RUN/$A.sock" \
	--cpus 2 --rate 3000 --duration "$DUR" --linger 10 \
	--stats "$la_tmp/$A.stats"
t_bg fb $((DUR + 60)) "$la_tmp/fg-$B.log" "$FG" --shm "guestrelay-$B" \
	--cpus 2 --rate 3000 --duration "$DUR" --linger 10 \
	--stats "$la_tmp/$B.stats"

t_bg fc $((DUR + 60)) "$la_tmp/fg-$C.log" "$FG" --shm "guestrelay-$C" \
	--cpus 2 --rate 3000 --duration "$DUR" --linger 10 \
	--stats "$la_tmp/$C.stats"

# one collector killed mid-stream, restarted a second later
sleep 2
ls_collect_kill9 c1
ok "collector-1-killed (at $(ls_cstat packets) packets collected)"
sleep 1
ls_collect_start c1
# a flight-recorder snapshot: shipped once it is whole
gr snapshot "$C"
check "snapshot-taken" "[ $rc -eq 0 ]" "exit $rc: $err"
# the durable consumer taken away under both collectors (an operator, a
# server back without its state): they bind it again and miss nothing
dout=$(timeout 20 "$JSDEL" "$NATS_URL" GUESTRELAY guestrelay-collect 2>&1)
check "consumer-deleted" "[ $? -eq 0 ]" "$dout"

for j in "$fa" "$fb" "$fc"; do
	la_wait_fg "$j" $((DUR + 40)) || bad fakeguest-exits "exit $?"
done
for vm in "$A" "$B"; do
	la_wait_status "$vm" "s['state'] == 'waiting'" 15 ||
		bad "$vm-session-closed" "$out"
done

if ls_wait_equal 90; then
	ok "collected-tree-equals-store ($(find "$COL/$HOST" -type f | wc -l) files, $(du -sb "$COL/$HOST" | cut -f1) bytes)"
else
	bad collected-tree-equals-store "after 90 s" "$diff_out"
fi

for vm in "$A" "$B"; do
	sessions=$(ls_collected "$vm")
	n=$(grep -c . <<<"$sessions")
	check "$vm-one-collected-session" "[ $n -eq 1 ]" "$n sessions"
	if la_bt $sessions; then
		ok "$vm-babeltrace2-reads-collected"
	else
		bad "$vm-babeltrace2-reads-collected" "$bt_out"
	fi
	if la_btcheck $sessions --stats "$la_tmp/$vm.stats" --expect written; then
		ok "$vm-every-written-event-once ($(head -n1 <<<"$bt_out" | cut -d' ' -f1) events)"
	else
		bad "$vm-every-written-event-once" "bt_check" "$bt_out"
	fi
	gr report --summary $sessions
	check "$vm-report-reads-collected" "[ $rc -eq 0 ]" "exit $rc: $err"
done
snap=$(ls -d "$COL/$HOST/$C"/snapshot-* 2>/dev/null | head -n1)
if [ -n "$snap" ] && la_bt "$snap"; then
	ok "snapshot-collected-and-read ($(du -sb "$snap" | cut -f1) bytes)"
else
	bad snapshot-collected-and-read "${snap:-no snapshot collected}: ${bt_out:-}"
fi
check nothing-rejected "[ $(ls_cstat rejected) -eq 0 ]" \
	"$(cat "$COL"/.collect/stats.*)"
check "collectors-bound-the-consumer-again ($(ls_cstat rebinds))" \
	"[ $(ls_cstat rebinds) -ge 1 ]" "$(cat "$la_tmp"/collect.*.log)"

# the hostile publisher, on the honest session's own subjects too
sessA=$(basename "$(ls_collected "$A")")
first=$(la_sessions "$A")/stream_0
hout=$(timeout 30 "$HOSTILE" "$NATS_URL" GUESTRELAY "$HOST" "$A" "$sessA" \
	"$first" 2>&1)
want=$(sed -n 's/^rejectable //p' <<<"$hout")
if [ -n "$want" ]; then
	ok "hostile-publisher-published ($want to reject)"
else
	bad hostile-publisher-published "$hout"
	want=1
fi
for i in $(seq 60); do
	[ "$(ls_cstat rejected)" -ge "$want" ] && break
	sleep 0.5
done
got=$(ls_cstat rejected)
check "hostile-messages-rejected-and-counted ($got)" "[ $got -eq $want ]" \
	"rejected $got, expected $want: $(cat "$COL"/.collect/stats.*)"
sleep 2
if diff_out=$(ls_tree_diff); then
	ok honest-traces-intact
else
	bad honest-traces-intact "$diff_out"
fi
check no-directory-for-garbage \
	"[ \"\$(ls -A "$COL" | sort | tr '\n' ' ')\" = '.collect $HOST ' ]" \
	"$(ls -A "$COL")"
extra=$(find "$COL/$HOST" -mindepth 1 -maxdepth 1 | sort)
check only-the-three-vms "[ \$(grep -c . <<<\"$extra\") -eq 3 ]" "$extra"
la_bt $(ls_collected "$A") && ok "$A-babeltrace2-reads-after-garbage" ||
	bad "$A-babeltrace2-reads-after-garbage" "$bt_out"
grep -h "rejected a message" "$la_tmp"/collect.*.log | head -n 2 |
	sed 's/^/# /'

ls_collect_stop c1
ls_collect_stop c2
la_end
