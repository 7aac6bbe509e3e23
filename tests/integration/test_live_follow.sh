#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_live_follow.sh - live viewers across a quiet minute and an
# `enable` that adds events, and `guestrelay report --follow` (issue 23)
#
# One real agent (--live, switch timer 100 ms, fake_seq enabled) serves
# two VMs fed by real fake guests that run until the end: Q goes quiet
# and comes back, O records steadily. Followed by one real `babeltrace2
# -i lttng-live` each and, for Q, by `guestrelay report --follow`:
#   - a quiet minute: `disable Q all`, LIVE_QUIET_S (60) seconds without
#     an event while the guest runs: Q's viewer and follower keep going;
#     when the guest records again, the ring that stores first lets the
#     server send the other a beacon, and that ring's next packet begins
#     when it went quiet: the viewer must not see time go back (it did,
#     and failed, before the server raised such a packet's begin);
#   - then `enable Q all` adds events that were never recorded before:
#     the viewer and the follower print them while the guest records
#     (the delay is shown as a note, not judged: benchmarks measure);
#   - `stop Q` ends the session: Q's viewer ends and printed, line for
#     line, what babeltrace2 prints of the stored session (the events
#     the enable added included); `start Q` opens a new session, which
#     the follower follows; after `stop Q` the follower's output is,
#     byte for byte, `guestrelay report` of the first session then of
#     the second; it exits 0 on SIGTERM;
#   - O's viewer printed exactly its stored trace, and O's trace holds
#     every event its guest wrote (bt_check --expect exact): Q's quiet
#     minute, enable and restarts did not disturb it.

set -u
. "$(dirname "$0")/lib_agent.sh"
la_init test_live_follow
command -v curl >/dev/null || la_skip "curl is needed"
QUIET=${LIVE_QUIET_S:-60}
export LA_AGENT_SECS=900	# the agent outlives the quiet minute

la_vm Q livq		# 2 CPUs: quiet minute, enable, stop and start
la_vm O livo		# 1 CPU, steady

read -r PORT MPORT < <(la_free_ports 2)
host=$(hostname)

la_agent_start --events fake_seq --switch-timer-ms 100 --subbuf-size 16384 \
	--subbufs 32 --live "127.0.0.1:$PORT" --metrics "127.0.0.1:$MPORT" \
	--vm "$Q" --vm "$O" ||
	{ bad agent-starts "see the log"; la_show_logs; la_finish; }
ok agent-starts

# the guests run until SIGTERM
t_bg fq 600 "$la_tmp/fg-$Q.log" "$FG" --socket "$RUN/$Q.sock" --cpus 2 \
	--rate 200 --events 6 --stats "$la_tmp/$Q.stats"
t_bg fo 600 "$la_tmp/fg-$O.log" "$FG" --socket "$RUN/$O.sock" --cpus 1 \
	--rate 300 --events 4 --stats "$la_tmp/$O.stats"
for vm in "$Q" "$O"; do
	la_wait_status "$vm" "s['state'] == 'attached' and s.get('session')" 20 ||
		{ bad "attached-$vm" "$out"; la_show_logs; la_finish; }
done
s1=$(la_field "$Q" session)

follow() {	# VAR VM: a babeltrace2 following VM until its session ends
	t_bg "$1" 600 "$la_tmp/live-$2.txt" babeltrace2 --clock-cycles \
		-i lttng-live "net://127.0.0.1:$PORT/host/$host/$2" \
		--params 'session-not-found-action="end"'
}
follow vq "$Q"
follow vo "$O"
# the follower: its output alone in follow.txt
t_bg rf 600 "$la_tmp/follow.err" bash -c 'exec "$0" --run-dir "$1" report --follow "$2" >"$3"' \
	"$GR" "$RUN" "$Q" "$la_tmp/follow.txt"

alive() { kill -0 "$1" 2>/dev/null; }
metric() {
	curl -s --max-time 10 "http://127.0.0.1:$MPORT/metrics" |
		sed -n "s/^$1 //p"
}

la_wait_grep "$la_tmp/live-$Q.txt" fake_seq 30
check viewer-prints-live "[ $? -eq 0 ]" "nothing from Q's viewer in 30 s"
la_wait_grep "$la_tmp/follow.txt" fake_seq 30
check follower-prints-live "[ $? -eq 0 ]" "$(cat "$la_tmp/follow.err")"

# the quiet minute
gr disable "$Q" all
check disable-all "[ $rc -eq 0 ]" "$err"
la_wait_status "$Q" "not s.get('pending') and not s.get('events')" 20 ||
	bad quiet-acknowledged "$out"
note "quiet for $QUIET s"
sleep "$QUIET"
for v in "viewer-$Q:$vq" "viewer-$O:$vo" "follower:$rf" "guest-$Q:$fq"; do
	check "${v%%:*}-alive-after-quiet-minute" "alive ${v#*:}" \
		"ended: $(tail -n 3 "$la_tmp/follow.err" "$la_tmp/live-$Q.txt" 2>/dev/null)"
done

# an enable that adds events: printed while the guest records
t_en=$(date +%s.%N)
gr enable "$Q" all
check enable-all "[ $rc -eq 0 ]" "$err"
la_wait_grep "$la_tmp/live-$Q.txt" fake_ev2 60
check viewer-prints-enabled-events-live "[ $? -eq 0 ]" \
	"no fake_ev2 from Q's viewer 60 s after the enable"
note "Q's viewer printed the first enabled event $(echo "$(date +%s.%N) $t_en" |
	awk '{ printf "%.1f", $1 - $2 }') s after the enable (at most)"
note "inactivity beacons so far: $(metric guestrelay_live_beacons_total)"
la_wait_grep "$la_tmp/follow.txt" fake_ev2 60
check follower-prints-enabled-events-live "[ $? -eq 0 ]" \
	"no fake_ev2 from the follower 60 s after the enable"
sleep 2

# the session ends: the viewer ends; a new one: the follower goes on
gr stop "$Q"
check stop-q "[ $rc -eq 0 ]" "$err"
la_wait_fg "$vq" 60
rc=$?
check "viewer-$Q-ends-0" "[ $rc -eq 0 ]" "exit $rc: $(tail -n 5 "$la_tmp/live-$Q.txt")"
gr start "$Q"
check start-q "[ $rc -eq 0 ]" "$err"
la_wait_status "$Q" "s.get('session') and s['session'] != '$s1'" 20 ||
	bad new-session "$out"
s2=$(la_field "$Q" session)
t_new=$(date +%s)
while [ "$(grep -c '^# guestrelay trace of' "$la_tmp/follow.txt")" -lt 2 ]; do
	[ $(($(date +%s) - t_new)) -gt 30 ] && break
	sleep 0.2
done
sleep 3
n2=$(awk '/^# guestrelay trace of/ { n++ } n == 2 && /fake_seq/ { c++ } END { print c + 0 }' \
	"$la_tmp/follow.txt")
check follower-follows-new-session "[ $n2 -gt 0 ]" \
	"$(grep -c '^# guestrelay' "$la_tmp/follow.txt") preambles, $n2 events after the second"
gr stop "$Q"
check stop-q-again "[ $rc -eq 0 ]" "$err"

# once both sessions ended, the follower printed exactly what is stored
expected=$la_tmp/follow-expected.txt
{ "$GR" report "$s1"; "$GR" report "$s2"; } >"$expected" 2>"$la_tmp/report.err"
la_same_soon "$expected" "$la_tmp/follow.txt"
n=$(grep -c 'fake_' "$expected")
check "follower-equals-report ($n events, 2 sessions)" "[ -n '$same' ]" \
	"$(diff "$expected" "$la_tmp/follow.txt" | head -n 8)"
check follower-alive-after-sessions "alive $rf" "it ended: $(cat "$la_tmp/follow.err")"
t_term_job "$rf"
la_wait_fg "$rf" 10
rc=$?
check follower-exits-0-on-sigterm "[ $rc -eq 0 ]" "exit $rc: $(cat "$la_tmp/follow.err")"

# the guests end: O's viewer ends with its session
for v in "$Q:$fq" "$O:$fo"; do
	t_term_job "${v#*:}"
	la_wait_fg "${v#*:}" 60
	rc=$?
	check "fakeguest-${v%%:*}-exits-0" "[ $rc -eq 0 ]" "exit $rc"
done
la_wait_status "$O" "s['state'] == 'waiting' and not s.get('session')" 20 ||
	bad "session-$O-closed" "$out"
la_wait_fg "$vo" 40
rc=$?
check "viewer-$O-ends-0" "[ $rc -eq 0 ]" "exit $rc: $(tail -n 5 "$la_tmp/live-$O.txt")"

# each viewer printed exactly its stored session
for v in "$Q:$s1" "$O:$(la_sessions "$O")"; do
	vm=${v%%:*} s=${v#*:}
	if [ "$(grep -c . <<<"$s")" -ne 1 ]; then
		bad "one-session-$vm" "$s"
		continue
	fi
	stored=$la_tmp/stored-$vm.txt
	timeout 60 babeltrace2 --clock-cycles "$s" >"$stored" 2>&1
	n=$(grep -c . "$stored")
	check "viewer-$vm-equals-store ($n events)" \
		"[ $n -gt 1000 ] && cmp -s '$stored' '$la_tmp/live-$vm.txt'" \
		"$(diff "$stored" "$la_tmp/live-$vm.txt" | head -n 5)"
done
check "viewer-$Q-has-enabled-events" "grep -q fake_ev2 '$la_tmp/live-$Q.txt'" \
	"no fake_ev2 in Q's viewer output"
if la_btcheck "$(la_sessions "$O")" --stats "$la_tmp/$O.stats" --expect exact; then
	ok "events-exact-$O"
else
	bad "events-exact-$O" "bt_check failed" "$bt_out"
fi

la_end
