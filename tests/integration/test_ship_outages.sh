#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_ship_outages.sh - one outage is one start line, one end line and
# one count, whatever its cause (issue 19)
#
# A real 3-node JetStream cluster (R3 stream), an agent with --metrics
# shipping a fake guest's trace, a collector. Three faults, one after the
# other, each followed by its recovery:
#   1. hung node: the node holding the agent's connection is stopped
#      (SIGSTOP) for 8 s;
#   2. killed node: that node (found again) is killed (kill -9) and
#      started again 6 s later;
#   3. quorum loss: the two nodes the agent is not connected to are
#      killed, so the agent's server answers but the stream has no
#      quorum, for 8 s (status must say not connected), then restarted.
# After each: exactly one more "NATS unreachable" line, one more "NATS
# reachable again" line and guestrelay_ship_outages_total one higher (a
# stream electing its leader after the failover is the same outage).
# At the end the collected tree equals the store byte for byte.

set -u
. "$(dirname "$0")/lib_agent.sh"
. "$LA_HERE/lib_ship.sh"
ls_init test_ship_outages

nats_start_cluster "$la_tmp/nats" 3 ||
	{ bad nats-cluster-starts "see above"; la_finish; }
ok "nats-cluster-starts ($NATS_URLS)"

la_vm V sou
MPORT=$(nats_free_ports 1)
LA_BT_SECS=${LA_BT_SECS:-180}
LA_AGENT_SECS=400
ls_ship_start "$V" --ship-replicas 3 --metrics "127.0.0.1:$MPORT"

ls_guest_start fv "$V" 300 80
ls_caught_up "$V" 30 ||
	bad ships "$out"

outages() { ls_metric "$MPORT" guestrelay_ship_outages_total; }

# after_fault N WHAT: the N-th outage was said and counted once, and over
# (its end line comes once JetStream answered for 10 s)
after_fault() {
	local n=$1 what=$2 s e o i

	ls_caught_up "$V" 60 || bad "$what-recovers" "$out"
	for i in $(seq 150); do
		[ "$(ls_log_count "ship: NATS reachable again")" -ge "$n" ] && break
		sleep 0.2
	done
	sleep 2
	s=$(ls_log_count "ship: NATS unreachable")
	e=$(ls_log_count "ship: NATS reachable again")
	o=$(outages)
	check "$what-one-start-line ($s in all)" "[ $s -eq $n ]" \
		"$(grep -h "ship:" "$la_tmp"/agent.*.log)"
	check "$what-one-end-line ($e in all)" "[ $e -eq $n ]" \
		"$(grep -h "ship:" "$la_tmp"/agent.*.log)"
	check "$what-counted-once (outages ${o:-none})" "[ '${o:-x}' = $n ]" \
		"$(grep -h "ship:" "$la_tmp"/agent.*.log)"
}

check "no-outage-yet ($(outages))" "[ '$(outages)' = 0 ]"

# 1. hung node
k=$(ls_agent_node)
ls_hang "$k"
ok "n$k-hung (the agent's)"
sleep 8
ls_unhang "$k"
nats_wait_all 30 || bad nats-ready "see above"
after_fault 1 hung-node

# 2. killed node
k=$(ls_agent_node)
nats_kill "$k"
ok "n$k-killed (the agent's)"
sleep 6
nats_restart "$k" 60 || bad "n$k-restarts" "see above"
after_fault 2 killed-node

# 3. quorum loss: the agent's node stays, the two others die
k=$(ls_agent_node)
a=$(((k + 1) % 3))
b=$(((k + 2) % 3))
nats_kill "$a"
nats_kill "$b"
ok "n$a-and-n$b-killed (quorum lost; the agent stays on n$k)"
sleep 5
con=$(la_field "$V" ship.connected)
check "quorum-loss-not-connected (connected $con)" "[ '$con' = False ]" "$out"
mc=$(ls_metric "$MPORT" 'guestrelay_vm_ship_connected')
check "quorum-loss-metric-not-connected ($mc)" "[ '$mc' = 0 ]"
sleep 3
nats_restart "$a" 60 || bad "n$a-restarts" "see above"
nats_restart "$b" 60 || bad "n$b-restarts" "see above"
after_fault 3 quorum-loss

la_wait_fg "$fv" 150 || bad fakeguest-exits "exit $?"
la_wait_status "$V" "s['state'] == 'waiting'" 20 || bad session-closed "$out"
ls_check_collected "$V" 150
grep -h "ship:" "$la_tmp"/agent.*.log | sed 's/^/# /'

ls_collect_stop c1
la_end
