#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_agent_restart.sh - the agent killed with SIGKILL mid-stream and
# restarted resumes the trace: nothing lost that the guest did not count
# as lost, nothing twice
#
# One agent serves two VMs, each fed by a fake guest for 8 s:
#   R  doorbell device, 3000 ticks/s per CPU. After a restart the socket
#      is new and the fake guest keeps its old connection's eventfds: the
#      agent polls.
#   P  plain device (the fake guest maps /dev/shm), 8000 ticks/s per CPU
# The agent is killed (SIGKILL) GR_FAULT_ROUNDS times (default 3; a long
# run: GR_FAULT_ROUNDS=50; the guests write until the last round is over,
# at least 8 s, however long the rounds take on a loaded machine) at
# a random moment (0.1-0.9 s after the previous restart) and restarted
# with the same run and store directories and the same --vm options; the
# rounds take these three kinds in turn:
#   1. after 1 s down;
#   2. after a crash's leftovers were added to the stream files: a torn
#      last packet (half a packet of garbage), and a packet written after
#      a hole, as io_uring may complete the later of two writes in flight
#      first (crash_tail.py copies packet C + 1 from the ring, C being the
#      ring's cons.consumed, past a hole where packet C goes);
#   3. at once, while the dead agent's sockets still accept connections
#      (stale_listener.py): the kernel tears a killed process's io_uring
#      down asynchronously and its pending polls hold the listening
#      sockets for a moment (seen for up to 0.5 s on a loaded machine).
# The guests then finish.
#
# For each VM: one session (resumed, not a new one); every stream file is
# whole packets with packet_seq_num going up by one (packets_check.py);
# babeltrace2 reads the trace; every fake_seq the guest wrote (it counts
# what it dropped while nobody consumed) is there exactly once, and the
# count of each event id equals the guest's (bt_check.py --expect
# written); the agent counted nothing invalid.

set -u
. "$(dirname "$0")/lib_agent.sh"
la_init test_agent_restart

la_vm R rsd
la_vm P rsp
SB=16384
ROUNDS=${GR_FAULT_ROUNDS:-3}
DUR=8			# the guests write at least this long
# bt_check reads every event back: about 2.5 M per VM in 50 rounds
LA_BT_SECS=$((60 + ROUNDS * 6))
LA_AGENT_SECS=$((DUR + 120 + 2 * LA_BT_SECS))
echo "# $ROUNDS rounds; the guests write until they are over (>= $DUR s)"
AGENT_ARGS=(--events all --subbuf-size $SB --subbufs 16 --vm "$R"
	--vm "$P" --plain)

la_agent_start "${AGENT_ARGS[@]}" ||
	{ bad agent-starts "see the log"; la_show_logs; la_finish; }
ok agent-starts

# until SIGTERM after the rounds: a guest that ended before the last
# round would leave that round's crash leftovers to no agent to trim them
t_guests=$(date +%s)
t_bg fr $((ROUNDS * 10 + 60)) "$la_tmp/fg-$R.log" "$FG" --socket "$RUN/$R.sock" \
	--cpus 2 --rate 3000 --linger 12 \
	--stats "$la_tmp/$R.stats"
t_bg fp $((ROUNDS * 10 + 60)) "$la_tmp/fg-$P.log" "$FG" --shm "guestrelay-$P" \
	--cpus 2 --rate 8000 --linger 12 \
	--stats "$la_tmp/$P.stats"
la_wait_status "$R" "s['stats']['packets'] > 10" 10 || bad "R-streams" "$out"
la_wait_status "$P" "s['stats']['packets'] > 10" 10 || bad "P-streams" "$out"
sleep 1
sessR=$(basename "$(la_sessions "$R")")
sessP=$(basename "$(la_sessions "$P")")

# refused PATH...: wait (3 s at most) until nobody accepts on the
# sockets; prints how long that took
refused() {
	timeout 10 "$PY" - "$@" <<'PYEOF'
import socket, sys, time
t0 = time.time()
for path in sys.argv[1:]:
    while time.time() - t0 < 3:
        s = socket.socket(socket.AF_UNIX)
        try:
            s.connect(path)
        except OSError:
            break
        finally:
            s.close()
        time.sleep(0.01)
print("%.2f" % (time.time() - t0))
PYEOF
}

t_start=$(date +%s)
for round in $(seq "$ROUNDS"); do
	kind=$(((round - 1) % 3 + 1))
	[ "$round" -gt 1 ] && sleep "0.$((RANDOM % 9 + 1))"
	la_agent_kill9
	t=$(refused "$RUN/agent.sock" "$RUN/$R.sock")
	[ "$t" != 0.00 ] &&
		echo "# round $round: the killed agent's sockets accepted for $t s"
	case $kind in
	1)
		sleep 1
		;;
	2)
		d=$(la_sessions "$R" | tail -n1)
		head -c $((SB / 2)) /dev/urandom >>"$d/stream_0"
		sleep 0.05
		for x in "$R:$d/stream_1:1" \
			 "$P:$(la_sessions "$P" | tail -n1)/stream_0:0"; do
			IFS=: read -r vm f ring <<<"$x"
			msg=$(timeout 20 "$PY" "$LA_HERE/crash_tail.py" \
			      "/dev/shm/guestrelay-$vm" "$f" "$ring")
			case $? in
			0) ok "crash-leftovers-$vm (${msg#crash_tail: })" ;;
			3) skip_check "crash-leftovers-$vm" "$msg" ;;
			*) bad "crash-leftovers-$vm" "$msg" ;;
			esac
		done
		;;
	3)
		t_bg holder 30 "$la_tmp/stale.$round.log" "$PY" \
			"$LA_HERE/stale_listener.py" 20 "$RUN/agent.sock" \
			"$RUN/$R.sock"
		for i in $(seq 100); do
			grep -q ready "$la_tmp/stale.$round.log" && break
			sleep 0.05
		done
		;;
	esac
	if la_agent_start "${AGENT_ARGS[@]}"; then
		ok "restart-$round"
	else
		bad "restart-$round" "the agent did not start again"
		la_show_logs
		la_finish
	fi
	# both VMs served again and their sessions resumed
	for i in $(seq 50); do
		grep -q "$R: attached: .*trace $STORE/$R/$sessR\$" \
			"$LA_AGENT_LOG" &&
			grep -q "$P: attached: .*trace $STORE/$P/$sessP\$" \
			"$LA_AGENT_LOG" && break
		sleep 0.1
	done
	if [ "$i" -lt 50 ]; then
		ok "resumed-$round"
	else
		bad "resumed-$round" "$R and $P not both resumed" \
			"$(cat "$LA_AGENT_LOG")"
	fi
	if [ $kind = 3 ]; then
		t_term_job "$holder"
		la_wait_fg "$holder" 5
	fi
done
echo "# $ROUNDS kill -9 rounds in $(($(date +%s) - t_start)) s"
while [ $(($(date +%s) - t_guests)) -lt "$DUR" ]; do
	sleep 0.5
done
t_term_job "$fr"
t_term_job "$fp"

la_wait_fg "$fr" 40
rc=$?
check "fakeguest-$R-exits-0" "[ $rc -eq 0 ]" "exit $rc"
la_wait_fg "$fp" 40
rc=$?
check "fakeguest-$P-exits-0" "[ $rc -eq 0 ]" "exit $rc"

for vm in "$R" "$P"; do
	stats=$la_tmp/$vm.stats
	la_wait_status "$vm" "s['state'] == 'waiting'" 10 ||
		bad "$vm-session-closed" "$out"
	la_status "$vm" || out='{}'
	st=$out
	lost=$(la_stat "$stats" total.seq_dropped)
	sessions=$(la_sessions "$vm")
	n=$(grep -c . <<<"$sessions")
	if [ "$n" -eq 1 ]; then
		ok "$vm-one-resumed-session"
	else
		bad "$vm-one-resumed-session" "$n sessions" "$sessions"
	fi
	if la_pktcheck $sessions --content-only --subbuf-size $SB; then
		ok "$vm-packets-continuous ($(tail -n2 <<<"$pkt_out" | head -n1))"
	else
		bad "$vm-packets-continuous" "packets_check" "$pkt_out"
	fi
	if la_bt $sessions; then
		ok "$vm-babeltrace2-reads"
	else
		bad "$vm-babeltrace2-reads" "$bt_out"
	fi
	if la_btcheck $sessions --stats "$stats" --expect written; then
		ok "$vm-every-written-event-once ($(head -n1 <<<"$bt_out" | cut -d' ' -f1) events; the guest dropped ${lost:-?} fake_seq while nobody consumed)"
	else
		bad "$vm-every-written-event-once" "bt_check" "$bt_out"
	fi
	inv=$("$PY" -c 'import json,sys; print(json.loads(sys.argv[1]).get("stats", {}).get("invalid", "?"))' "$st")
	check "$vm-nothing-invalid" "[ '$inv' = 0 ]" "invalid $inv"
done

la_agent_alive && ok agent-alive || bad agent-alive "no ping"
[ "$t_failed" -gt 0 ] && la_show_logs
la_finish
