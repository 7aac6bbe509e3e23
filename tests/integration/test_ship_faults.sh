#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_ship_faults.sh - shipping through faults, nothing lost, nothing
# twice (issue 9): a fake guest writes for 30 s into an agent that ships
# to a real `nats-server -js` while
#   1. the server is killed (kill -9) and stays down for 15 s: the agent
#      keeps storing (its packet count grows, the guest loses nothing),
#      says so once in its log, shows the backlog in `status` and
#      /metrics, and catches up once the server is back;
#   2. the agent is killed (kill -9) mid-shipping and restarted: it
#      resumes its session and its shipping cursor;
# and a collector runs throughout. At the end the collected tree equals
# the store byte for byte, babeltrace2 reads it, and every fake_seq the
# guest wrote is in it exactly once.

set -u
. "$(dirname "$0")/lib_agent.sh"
. "$LA_HERE/lib_ship.sh"
ls_init test_ship_faults

nats_start_single "$la_tmp/nats" || { bad nats-starts "see above"; la_finish; }
ok nats-starts

la_vm V sf.v
SB=16384
DUR=30
DOWN=15
LA_BT_SECS=${LA_BT_SECS:-180}
LA_AGENT_SECS=400
MPORT=$(nats_free_ports 1)
AGENT_ARGS=(--ship "$NATS_URLS" --metrics "127.0.0.1:$MPORT" --events all
	--subbuf-size $SB --subbufs 16 --vm "$V" --plain)
la_agent_start "${AGENT_ARGS[@]}" ||
	{ bad agent-starts "see the log"; la_show_logs; la_finish; }
ok agent-starts
ls_collect_start c1

t_bg fv $((DUR + 90)) "$la_tmp/fg-$V.log" "$FG" --shm "guestrelay-$V" \
	--cpus 2 --rate 2000 --duration "$DUR" --linger 20 \
	--stats "$la_tmp/$V.stats"
la_wait_status "$V" "s['stats']['packets'] > 10" 15 || bad streams "$out"
sleep 2

# 1. the server down
nats_kill 0
ok "nats-killed (at $(la_field "$V" stats.packets) packets stored)"
sleep 3
p0=$(la_field "$V" stats.packets)
la_status "$V" && st_down=$out
sleep $((DOWN - 3))
p1=$(la_field "$V" stats.packets)
check "stores-while-nats-down ($p0 -> $p1 packets)" "[ ${p1:-0} -gt ${p0:-0} ]" \
	"$p0 -> $p1"
bl=$(la_field "$V" ship.backlog_bytes)
check "status-shows-backlog ($bl bytes)" "[ ${bl:-0} -gt 0 ]" "$out"
con=$(la_field "$V" ship.connected)
check "status-says-disconnected" "[ '$con' = False ]" "$out"
page=$(curl -sS -m 5 "http://127.0.0.1:$MPORT/metrics" 2>&1)
mb=$(awk '/^guestrelay_vm_ship_backlog_bytes\{/ { print $2 }' <<<"$page" | head -n1)
check "metrics-show-backlog ($mb bytes)" "[ '${mb:-0}' != 0 ]" \
	"$(grep ship <<<"$page")"
nats_restart 0 30 || bad nats-restarts "see above"
ok "nats-restarted after ${DOWN} s"

# the outage's end line comes once JetStream has answered for 10 s
# without a failure (ship_outage_settle()); 30 s at most
for _ in $(seq 60); do
	grep -q "NATS reachable again" "$la_tmp"/agent.1.log && break
	sleep 0.5
done
grep -q "NATS reachable again" "$la_tmp"/agent.1.log &&
	ok catch-up-logged || bad catch-up-logged \
	"$(grep -h "ship:" "$la_tmp"/agent.*.log)"

# 2. the agent killed mid-shipping
la_agent_kill9
ok "agent-killed (shipping cursor $(od -A n -t u8 -j 64 -N 8 "$STORE"/.ship/"$V"/* 2>/dev/null | tr -d ' ') of stream_0)"
sleep 1
la_agent_start "${AGENT_ARGS[@]}" && ok agent-restarts ||
	{ bad agent-restarts "see the log"; la_show_logs; la_finish; }

la_wait_fg "$fv" $((DUR + 60))
rc=$?
check fakeguest-exits-0 "[ $rc -eq 0 ]" "exit $rc"
la_wait_status "$V" "s['state'] == 'waiting'" 20 || bad session-closed "$out"
n=$(grep -c . <<<"$(la_sessions "$V")")
check one-resumed-session "[ $n -eq 1 ]" "$n sessions"

ls_check_collected "$V"
n=$(cat "$la_tmp"/agent.*.log | grep -c "NATS unreachable")
check "outage-logged-once ($n)" "[ $n -eq 1 ]" \
	"$(grep -h "ship:" "$la_tmp"/agent.*.log)"
la_wait_status "$V" "s.get('ship', {}).get('backlog_bytes') == 0" 20 &&
	ok backlog-back-to-0 || bad backlog-back-to-0 "$out"
ls_collect_stop c1
la_end
