#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_ship_fleet_faults.sh - four VMs shipping through every fault of
# issue 19 at once, ending byte-identical
#
# A real 3-node JetStream cluster (R3 stream), one agent serving 4 VMs
# (fake guests writing for 100 s), two collectors sharing one durable.
# One after the other, each with its recovery:
#   the agent's node hung 8 s (SIGSTOP); the agent's node killed 6 s;
#   quorum lost 8 s (the two other nodes killed); 2 message ids of VM 1
#   claimed ahead (ship_forge); collector 1 killed (kill -9) and
#   restarted; the node of collector 2 hung 8 s.
# Checks: the collected tree equals the store byte for byte, babeltrace2
# reads every VM's collected trace with every event its guest wrote once,
# the agent counted 3 outages or more and 2 id conflicts, the collectors
# rejected exactly the 2 forgeries and reported 2 republished packets.

set -u
. "$(dirname "$0")/lib_agent.sh"
. "$LA_HERE/lib_ship.sh"
ls_init test_ship_fleet_faults

FORGE=$BUILD/tests/ship_forge
[ -x "$FORGE" ] || la_skip "no $FORGE (make -C tests integration)"

nats_start_cluster "$la_tmp/nats" 3 ||
	{ bad nats-cluster-starts "see above"; la_finish; }
ok "nats-cluster-starts ($NATS_URLS)"

VMS=()
for i in 1 2 3 4; do
	la_vm name "sff$i."
	VMS+=("$name")
done
MPORT=$(nats_free_ports 1)
LA_BT_SECS=${LA_BT_SECS:-300}
LA_AGENT_SECS=600
args=()
for v in "${VMS[@]}"; do
	args+=(--vm "$v" --plain)
done
la_agent_start --ship "$NATS_URLS" --ship-replicas 3 \
	--metrics "127.0.0.1:$MPORT" --events all --subbuf-size 16384 \
	--subbufs 16 "${args[@]}" ||
	{ bad agent-starts "see the log"; la_show_logs; la_finish; }
ok agent-starts
ls_collect_start c1
ls_collect_start c2

fgs=()
for v in "${VMS[@]}"; do
	t_bg job 300 "$la_tmp/fg-$v.log" "$FG" --shm "guestrelay-$v" \
		--cpus 2 --rate 300 --duration 100 --linger 60 \
		--stats "$la_tmp/$v.stats"
	fgs+=("$job")
done
for v in "${VMS[@]}"; do
	la_wait_status "$v" "s['stats']['packets'] > 4" 30 || bad "$v-streams" "$out"
done
# recovered WHAT N: caught up, and the N-th outage said over (10 s after
# acknowledgements came back), so that the next fault is an outage of its own
recovered() {
	local i

	ls_caught_up "${VMS[0]}" 60 &&
		ok "$1-recovered" || bad "$1-recovered" "$out"
	for i in $(seq 150); do
		[ "$(ls_log_count "ship: NATS reachable again")" -ge "$2" ] && break
		sleep 0.2
	done
}

k=$(ls_agent_node)
ls_hang "$k"
sleep 8
ls_unhang "$k"
ok "agent-node-n$k-hung-8s"
nats_wait_all 30
recovered hang 1

k=$(ls_agent_node)
nats_kill "$k"
sleep 6
nats_restart "$k" 60 || bad "n$k-restarts" "see above"
ok "agent-node-n$k-killed-6s"
recovered kill 2

k=$(ls_agent_node)
a=$(((k + 1) % 3))
b=$(((k + 2) % 3))
nats_kill "$a"
nats_kill "$b"
sleep 8
nats_restart "$a" 60 || bad "n$a-restarts" "see above"
nats_restart "$b" 60 || bad "n$b-restarts" "see above"
ok "quorum-lost-8s (n$a, n$b)"
recovered quorum 3

S=$(basename "$(la_field "${VMS[0]}" session)")
if o=$("$FORGE" "$NATS_URLS" GUESTRELAY "$HOST" "${VMS[0]}" "$S" \
	"$STORE/.ship/id.key" "$STORE/${VMS[0]}/$S/stream_0" 8 2 2>&1); then
	ok "ids-claimed-ahead ($o)"
else
	bad ids-claimed-ahead "$o"
fi

ls_collect_kill9 c1
sleep 2
ls_collect_start c1
ok collector-1-killed-and-restarted

c=$(ls_node_of guestrelay-collect)
[[ $c =~ ^[0-2]$ ]] || c=0
ls_hang "$c"
sleep 8
ls_unhang "$c"
ok "collector-node-n$c-hung-8s"

for j in "${fgs[@]}"; do
	la_wait_fg "$j" 200 || bad fakeguest-exits "exit $?"
done
for v in "${VMS[@]}"; do
	la_wait_status "$v" "s['state'] == 'waiting'" 30 || bad "$v-closed" "$out"
done
if ls_wait_equal 240; then
	ok "collected-tree-equals-store ($(du -sb "$COL/$HOST" | cut -f1) bytes, 4 VMs)"
else
	bad collected-tree-equals-store "after 240 s" "$diff_out"
fi
for v in "${VMS[@]}"; do
	sessions=$(ls_collected "$v")
	# shellcheck disable=SC2086 # one directory per line
	if la_btcheck $sessions --stats "$la_tmp/$v.stats" --expect written; then
		ok "$v-every-written-event-once ($(head -n1 <<<"$bt_out" | cut -d' ' -f1) events)"
	else
		bad "$v-every-written-event-once" "bt_check" "$bt_out"
	fi
done
o=$(ls_metric "$MPORT" guestrelay_ship_outages_total)
check "outages-counted (${o:-none})" "[ ${o:-0} -ge 3 ]" \
	"$(grep -h "ship:" "$la_tmp"/agent.*.log)"
c=$(ls_metric "$MPORT" guestrelay_ship_id_conflicts_total)
check "id-conflicts-counted (${c:-none})" "[ '${c:-0}' = 2 ]" \
	"$(grep -h "ship:" "$la_tmp"/agent.*.log)"
check "collectors-rejected-the-forgeries ($(ls_cstat rejected))" \
	"[ $(ls_cstat rejected) -eq 2 ]" "$(cat "$COL"/.collect/stats.*)"
check "collectors-saw-the-republished ($(ls_cstat conflicts))" \
	"[ $(ls_cstat conflicts) -eq 2 ]" "$(cat "$COL"/.collect/stats.*)"
grep -h "ship:" "$la_tmp"/agent.*.log | sed 's/^/# /'

ls_collect_stop c1
ls_collect_stop c2
la_end
