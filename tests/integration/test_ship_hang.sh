#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_ship_hang.sh - a NATS node that hangs instead of dying (issue 19)
#
# A real 3-node JetStream cluster (R3 stream), an agent and a collector
# given every node's URL, a fake guest writing for 45 s. Then:
#   1. the node that holds the agent's connection is stopped (SIGSTOP: it
#      still accepts TCP, answers nothing) for 15 s: the stream must grow
#      again, through the two healthy nodes, within the bound (the ack
#      timeout, 2 s, plus a connection elsewhere and, if the stopped node
#      led the stream, an election: checked at 10 s);
#   2. it is continued, and the node that holds the collector's connection
#      is stopped for 15 s: the collected tree must grow again within
#      (max pings + 1) x ping interval (3 s) plus a fetch, plus the
#      election of a new consumer or stream leader if the stopped node
#      led them (checked at 15 s; 3.3 to 11 s measured under load).
# At the end the collected tree equals the store byte for byte and every
# event the guest wrote is in it once. The measured delays are printed.

set -u
. "$(dirname "$0")/lib_agent.sh"
. "$LA_HERE/lib_ship.sh"
ls_init test_ship_hang

nats_start_cluster "$la_tmp/nats" 3 ||
	{ bad nats-cluster-starts "see above"; la_finish; }
ok "nats-cluster-starts ($NATS_URLS)"

la_vm V shg
LA_BT_SECS=${LA_BT_SECS:-180}
LA_AGENT_SECS=400
ls_ship_start "$V" --ship-replicas 3

ls_guest_start fv "$V" 800 45
for _ in $(seq 50); do
	[ "$(ls_stream_msgs 0)" -gt 5 ] && [ "$(ls_col_bytes)" -gt 0 ] && break
	sleep 0.2
done

# 1. the agent's node hangs
k=$(ls_node_of guestrelay-agent)
[[ $k =~ ^[0-2]$ ]] || { bad agent-node-found "connz: ${k:-none}"; la_finish; }
h=$(((k + 1) % 3))
ls_hang "$k"
m0=$(ls_stream_msgs "$h")
ok "node-n$k-hung (the agent's; stream at $m0 messages on n$h)"
if d=$(ls_wait_more 10 $((m0 + 5)) ls_stream_msgs "$h"); then
	ok "shipping-resumes-on-the-healthy-nodes (after $d s, bound 10 s)"
else
	bad shipping-resumes-on-the-healthy-nodes "stream at $(ls_stream_msgs "$h") after 10 s" \
		"$(grep -h "ship:" "$la_tmp"/agent.*.log)"
fi
sleep 12
bl=$(la_field "$V" ship.backlog_packets)
check "backlog-small-while-n$k-hangs ($bl packets)" "[ ${bl:-999} -lt 40 ]" "$out"
ls_unhang "$k"
ok "node-n$k-continued"
nats_wait_all 30 || bad nats-ready-again "see above"

# 2. the collector's node hangs
c=$(ls_node_of guestrelay-collect)
[[ $c =~ ^[0-2]$ ]] || { bad collector-node-found "connz: ${c:-none}"; la_finish; }
sleep 1
ls_hang "$c"
b0=$(ls_col_bytes)
ok "node-n$c-hung (the collector's; $b0 bytes collected)"
if d=$(ls_wait_more 15 $((b0 + 16384)) ls_col_bytes); then
	ok "collecting-resumes-on-the-healthy-nodes (after $d s, bound 15 s)"
else
	bad collecting-resumes-on-the-healthy-nodes "$(ls_col_bytes) bytes after 15 s" \
		"$(tail -n 5 "$la_tmp"/collect.1.log)"
fi
sleep 10
ls_unhang "$c"
ok "node-n$c-continued"

la_wait_fg "$fv" 120 || bad fakeguest-exits "exit $?"
la_wait_status "$V" "s['state'] == 'waiting'" 20 || bad session-closed "$out"
ls_check_collected "$V" 150
grep -h "ship:" "$la_tmp"/agent.*.log | sed 's/^/# /'

ls_collect_stop c1
la_end
