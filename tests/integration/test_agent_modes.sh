#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_agent_modes.sh - stream mode against flight-recorder mode, snapshots
#
# One real agent, small rings (8 sub-buffers of 16 KiB per CPU), fake
# guests writing fast (2 CPUs, 20000-30000 ticks/s each):
#   stream    (VM S) nothing is overwritten, the trace holds every event
#             the guest wrote, each once
#   flight    (VM F, added with `vm-add --mode flight`) nothing is stored,
#             the guest overwrites (overwritten > 0); once the guest has
#             written its last event, `guestrelay snapshot F` returns a
#             directory that babeltrace2 reads, holding the last n - 1
#             sub-buffers of each ring: per CPU one run of consecutive
#             fake_seq ending at the last number written
#   recent    (VM G, flight) a snapshot taken while the guest writes ends
#             with events of the last moments (its last event within
#             0.5 s before the command, on the host clock the trace maps
#             to); SIGKILL of the guest makes the agent take a snapshot
#             on disconnect: a new snapshot-* directory, readable, later
#             than the first
#   switch    (VM M) `guestrelay mode M flight` while streaming stops
#             storing and the guest overwrites; `mode M stream` resumes;
#             the trace stays readable and every sub-buffer the guest
#             produced is accounted for: stored + skipped + invalid

set -u
. "$(dirname "$0")/lib_agent.sh"
la_init test_agent_modes

la_vm S mds
la_vm F mdf
la_vm G mdg
la_vm M mdm
SB=16384
NSB=8
GEOM="--subbuf-size $SB --subbufs $NSB"

# py EXPR JSON: evaluate EXPR on the status object s
py() {
	"$PY" -c "import json,sys; s=json.loads(sys.argv[1]); print($1)" "$2"
}

la_agent_start --events all $GEOM --vm "$S" --vm "$G" --mode flight \
	--vm "$M" || { bad agent-starts "see the log"; la_show_logs; la_finish; }
ok agent-starts
if gr vm-add "$F" --mode flight --events all $GEOM; then
	ok "vm-add-flight"
else
	bad "vm-add-flight" "exit $rc: $err"
fi

# ---- stream (S) and flight (F), at the same time ---------------------
t_bg fs 40 "$la_tmp/fg-$S.log" "$FG" --socket "$RUN/$S.sock" --cpus 2 \
	--rate 20000 --duration 2 --stats "$la_tmp/$S.stats"
t_bg ff 60 "$la_tmp/fg-$F.log" "$FG" --socket "$RUN/$F.sock" --cpus 2 \
	--rate 30000 --count 30000 --linger 30 --stats "$la_tmp/$F.stats"

# F: writers done (final flush, state STOPPED), nothing consumed
if la_wait_status "$F" "s['guest_state'] == 'stopped'" 20; then
	ok "flight-guest-wrote-all"
else
	bad "flight-guest-wrote-all" "status: $out"
fi
la_status "$F"
st=$out
ow=$(py "s['stats']['overwritten']" "$st")
pk=$(py "s['stats']['packets']" "$st")
check "flight-overwrites (overwritten $ow sub-buffers, stored $pk)" \
	"[ '${ow:-0}' -gt 0 ] && [ '$pk' = 0 ]" "overwritten '$ow', packets '$pk'"
if gr snapshot "$F"; then
	snap=$(tail -n1 <<<"$out")
	ok "snapshot-command"
else
	snap=
	bad "snapshot-command" "exit $rc: $out $err"
fi
case "$snap" in
"$STORE/$F"/snapshot-*) ok "snapshot-path-in-vm-dir" ;;
*) bad "snapshot-path-in-vm-dir" "'$snap'" ;;
esac
t_term_job "$ff"	# ends its linger: statistics
la_wait_fg "$ff" 20
rc=$?
check "flight-fakeguest-exits-0" "[ $rc -eq 0 ]" "exit $rc"
la_wait_fg "$fs" 30
rc=$?
check "stream-fakeguest-exits-0" "[ $rc -eq 0 ]" "exit $rc"

if [ -n "$snap" ] && [ -d "$snap" ]; then
	if la_bt "$snap"; then
		ok "snapshot-readable"
	else
		bad "snapshot-readable" "$bt_out"
	fi
	# n - 1 whole sub-buffers per ring; events per tick <= 64 + 184 bytes
	minrun=$(( (NSB - 2) * (SB - 72) / 248 ))
	if la_btcheck "$snap" --stats "$la_tmp/$F.stats" --expect recent \
		--min-run $minrun; then
		ok "snapshot-holds-the-last-events ($(grep '^cpu 0' <<<"$bt_out" | sed 's/ in the trace (\([0-9.]*\)).*/: \1/'))"
	else
		bad "snapshot-holds-the-last-events" "bt_check" "$bt_out"
	fi
	if la_pktcheck "$snap" --content-only --subbuf-size $SB --min-packets $((2 * (NSB - 1))); then
		ok "snapshot-n-1-packets-per-ring"
	else
		bad "snapshot-n-1-packets-per-ring" "packets_check" "$pkt_out"
	fi
fi

# S: stream mode lost nothing to overwriting, stored what was written
la_wait_status "$S" "s['state'] == 'waiting'" 10
ow=$(awk '$1 ~ /^ring\.[0-9]+\.overwritten$/ { n += $2 } END { print n + 0 }' \
	"$la_tmp/$S.stats")
check "stream-no-overwrite" "[ '$ow' = 0 ]" "guest overwrote $ow"
sess=$(la_sessions "$S")
if la_btcheck $sess --stats "$la_tmp/$S.stats" --expect written; then
	ok "stream-trace-holds-all-written"
else
	bad "stream-trace-holds-all-written" "bt_check" "$bt_out"
fi
if la_pktcheck $sess --content-only --subbuf-size $SB; then
	ok "stream-packets-consecutive"
else
	bad "stream-packets-consecutive" "packets_check" "$pkt_out"
fi
la_wait_status "$F" "s['state'] == 'waiting'" 10
n=$(ls -d "$STORE/$F"/snapshot-* 2>/dev/null | wc -l)
check "flight-snapshot-on-guest-exit ($n snapshots)" "[ $n -ge 2 ]" \
	"$n snapshot directories"

# ---- recent snapshot and snapshot on SIGKILL (G), switch (M) -----------
t_bg fg 40 "$la_tmp/fg-$G.log" "$FG" --socket "$RUN/$G.sock" --cpus 2 \
	--rate 20000 --duration 8
fg_pid=$(t_child "$fg")
t_bg fm 40 "$la_tmp/fg-$M.log" "$FG" --socket "$RUN/$M.sock" --cpus 2 \
	--rate 20000 --duration 4 --stats "$la_tmp/$M.stats"
la_wait_status "$G" "s['state'] == 'attached' and s['stats']['overwritten'] > 0" 10 ||
	bad "flight-attached" "$out"
la_wait_status "$M" "s['state'] == 'attached' and s['stats']['packets'] > 0" 10 ||
	bad "stream-attached" "$out"
sleep 0.5

t0=$(date +%s%N)
gr snapshot "$G"
rc=$?
t1=$(date +%s%N)
snap=$(tail -n1 <<<"$out")
if [ $rc -eq 0 ] && [ -d "$snap" ] && la_btcheck "$snap" --expect none; then
	last=$(awk '$1 == "first_ns" { print $4 }' <<<"$bt_out")
	lag=$(( (${last:-0} - t0) / 1000000 ))
	# the snapshot's last event: at most 0.5 s before the command
	if [ -n "$last" ] && [ "$last" -ge $((t0 - 500000000)) ] &&
	   [ "$last" -le "$t1" ]; then
		ok "snapshot-while-writing-is-recent (last event at $lag ms from the command, which took $(( (t1 - t0) / 1000000 )) ms)"
	else
		bad "snapshot-while-writing-is-recent" \
			"last event at ${last:-?}, command at $t0..$t1" "$bt_out"
	fi
else
	bad "snapshot-while-writing-is-recent" "snapshot exit $rc '$snap'" \
		"$err" "$bt_out"
fi
gr_last=${last:-0}

# SIGKILL the fake guest itself: QEMU gone, the agent snapshots
before=$(ls -d "$STORE/$G"/snapshot-* 2>/dev/null | wc -l)
kill -KILL "$fg_pid"
la_wait_fg "$fg" 5
snap=
for i in $(seq 100); do
	n=$(ls -d "$STORE/$G"/snapshot-* 2>/dev/null | wc -l)
	if [ "$n" -gt "$before" ] &&
	   la_wait_status "$G" "s['state'] == 'waiting'" 0; then
		snap=$(ls -d "$STORE/$G"/snapshot-* | sort | tail -n1)
		break
	fi
	sleep 0.1
done
if [ -n "$snap" ]; then
	ok "snapshot-on-sigkill-appears"
	if la_bt "$snap"; then
		ok "snapshot-on-sigkill-readable"
	else
		bad "snapshot-on-sigkill-readable" "$bt_out"
	fi
	if la_btcheck "$snap" --expect none; then
		last=$(awk '$1 == "first_ns" { print $4 }' <<<"$bt_out")
		ev=$(head -n1 <<<"$bt_out" | cut -d' ' -f1)
		check "snapshot-on-sigkill-events ($ev events, newer than the first)" \
			"[ '$ev' -gt 0 ] && [ '${last:-0}' -gt '$gr_last' ]" \
			"$bt_out"
	else
		bad "snapshot-on-sigkill-events" "bt_check" "$bt_out"
	fi
else
	bad "snapshot-on-sigkill-appears" "no new snapshot-* in $STORE/$G" \
		"$(ls "$STORE/$G")"
fi

# M: stream -> flight -> stream while writing
if gr mode "$M" flight; then
	ok "mode-switch-to-flight"
else
	bad "mode-switch-to-flight" "exit $rc: $err"
fi
sleep 0.3
la_status "$M"
ow0=$(py "s['stats']['overwritten']" "$out")
pk0=$(py "s['stats']['packets']" "$out")
sleep 0.7
la_status "$M"
ow1=$(py "s['stats']['overwritten']" "$out")
pk1=$(py "s['stats']['packets']" "$out")
check "flight-stops-storing (packets $pk0 -> $pk1, overwritten $ow0 -> $ow1)" \
	"[ '$pk0' = '$pk1' ] && [ '$ow1' -gt '$ow0' ]" \
	"packets $pk0 -> $pk1, overwritten $ow0 -> $ow1"
if gr snapshot "$M" && la_bt "$(tail -n1 <<<"$out")"; then
	ok "snapshot-in-switched-flight-readable"
else
	bad "snapshot-in-switched-flight-readable" "exit $rc: $err $bt_out"
fi
if gr mode "$M" stream; then
	ok "mode-switch-back-to-stream"
else
	bad "mode-switch-back-to-stream" "exit $rc: $err"
fi
sleep 0.5
la_status "$M"
pk2=$(py "s['stats']['packets']" "$out")
check "stream-resumes-storing (packets $pk1 -> $pk2)" "[ '$pk2' -gt '$pk1' ]" \
	"packets $pk1 -> $pk2"
la_wait_fg "$fm" 30
la_wait_status "$M" "s['state'] == 'waiting'" 10
la_status "$M"
acc=$(py "s['stats']['packets'] + s['stats']['skipped'] + s['stats']['invalid']" "$out")
det=$(py "'stored %d + skipped %d + invalid %d' % (s['stats']['packets'], s['stats']['skipped'], s['stats']['invalid'])" "$out")
prod=$(la_stat "$la_tmp/$M.stats" total.produced)
check "switch-every-subbuffer-accounted ($det = produced $prod)" \
	"[ '$acc' = '$prod' ]" "$det, guest produced $prod"
sess=$(la_sessions "$M")
if la_bt $sess; then
	ok "switched-trace-readable"
else
	bad "switched-trace-readable" "$bt_out"
fi
if la_btcheck $sess --stats "$la_tmp/$M.stats" --expect subset; then
	ok "switched-trace-no-duplicate"
else
	bad "switched-trace-no-duplicate" "bt_check" "$bt_out"
fi
if la_pktcheck $sess --content-only --subbuf-size $SB --allow-gaps; then
	ok "switched-trace-whole-packets"
else
	bad "switched-trace-whole-packets" "packets_check" "$pkt_out"
fi

la_agent_alive && ok agent-alive || bad agent-alive "no ping"
[ "$t_failed" -gt 0 ] && la_show_logs
la_finish
