#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_ship_cluster.sh - shipping to a 3-node JetStream cluster with an
# R3 stream, one node killed with kill -9 mid-stream (issue 9)
#
# A real 3-node `nats-server` cluster on loopback (tests/lib/nats.sh); the
# agent creates the stream with --ship-replicas 3 and is given every
# node's URL, as is the collector. A fake guest writes for 20 s; 5 s in,
# the node the stream's leader is on is killed (kill -9), and started
# again 10 s later. The collected tree equals the store byte for byte,
# babeltrace2 reads it, and every fake_seq the guest wrote is in it once.

set -u
. "$(dirname "$0")/lib_agent.sh"
. "$LA_HERE/lib_ship.sh"
ls_init test_ship_cluster

nats_start_cluster "$la_tmp/nats" 3 ||
	{ bad nats-cluster-starts "see above"; la_finish; }
ok "nats-cluster-starts ($NATS_URLS)"

la_vm V scl
LA_BT_SECS=${LA_BT_SECS:-180}
LA_AGENT_SECS=400
la_agent_start --ship "$NATS_URLS" --ship-replicas 3 --events all \
	--subbuf-size 16384 --subbufs 16 --vm "$V" --plain ||
	{ bad agent-starts "see the log"; la_show_logs; la_finish; }
ok agent-starts
ls_collect_start c1

t_bg fv 120 "$la_tmp/fg-$V.log" "$FG" --shm "guestrelay-$V" --cpus 2 \
	--rate 2000 --duration 20 --linger 20 --stats "$la_tmp/$V.stats"
la_wait_status "$V" "s['stats']['packets'] > 10" 15 || bad streams "$out"

# the stream: R3, and where its leader is
info=""
for i in $(seq 50); do
	info=$(nats_varz 0 "jsz?streams=1&config=1")
	grep -q '"num_replicas": *3' <<<"$info" && break
	sleep 0.2
done
check stream-is-R3 "grep -q '\"num_replicas\": *3' <<<\"\$info\"" \
	"$(head -c 2000 <<<"$info")"
leader=$(sed -n 's/.*"cluster": *{[^}]*"leader": *"\(n[0-9]\)".*/\1/p' <<<"$(tr -d '\n' <<<"$info")" | head -n1)
k=${leader#n}
[[ $k =~ ^[0-2]$ ]] || k=0
sleep 3
nats_kill "$k"
ok "node-n$k-killed (the stream's leader: ${leader:-unknown}) at $(la_field "$V" stats.packets) packets"
sleep 10
nats_restart "$k" 60 && ok "node-n$k-restarted" || bad "node-n$k-restarted" "see above"

la_wait_fg "$fv" 80 || bad fakeguest-exits "exit $?"
la_wait_status "$V" "s['state'] == 'waiting'" 20 || bad session-closed "$out"
ls_check_collected "$V"
grep -h "ship:" "$la_tmp"/agent.*.log | sed 's/^/# /'

ls_collect_stop c1
la_end
