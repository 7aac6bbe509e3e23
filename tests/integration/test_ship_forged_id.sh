#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_ship_forged_id.sh - someone claims the message id of a packet the
# agent has not shipped yet (issue 19)
#
# A real `nats-server -js`, an agent shipping a fake guest's trace, a
# collector. Mid-run, ship_forge publishes (through JetStream, so that
# the server keeps the ids in its duplicate window) 3 garbage messages
# carrying the Nats-Msg-Id of packets of stream_0 that are still to
# come, made with the agent's own key (<store>/.ship/id.key: the ids are
# unguessable without it). Checks: the server takes each real packet as
# a duplicate, the agent counts it (guestrelay_ship_id_conflicts_total
# 3), logs each once and republishes it under a fresh id; the collector
# rejects the 3 forgeries and says it saw 3 republished packets; nothing
# is lost: the collected tree equals the store and every event the guest
# wrote is in it once.

set -u
. "$(dirname "$0")/lib_agent.sh"
. "$LA_HERE/lib_ship.sh"
ls_init test_ship_forged_id

FORGE=$BUILD/tests/ship_forge
[ -x "$FORGE" ] || la_skip "no $FORGE (make -C tests integration)"
N=3

nats_start_single "$la_tmp/nats" || { bad nats-starts "see above"; la_finish; }
ok nats-starts

la_vm V sfi
MPORT=$(nats_free_ports 1)
LA_BT_SECS=${LA_BT_SECS:-180}
LA_AGENT_SECS=300
ls_ship_start "$V" --metrics "127.0.0.1:$MPORT"
KEY=$STORE/.ship/id.key
check "agent-key-made-owner-only ($(stat -c %a "$KEY" 2>/dev/null))" \
	"[ \"\$(stat -c %a '$KEY')\" = 600 ] && [ \"\$(stat -c %s '$KEY')\" = 16 ]"

ls_guest_start fv "$V" 2000 20
S=$(basename "$(la_field "$V" session)")
if out=$("$FORGE" "$NATS_URL" GUESTRELAY "$HOST" "$V" "$S" "$KEY" \
	"$STORE/$V/$S/stream_0" 15 $N 2>&1); then
	ok "ids-claimed-ahead ($out)"
else
	bad ids-claimed-ahead "$out"
fi

la_wait_fg "$fv" 80 || bad fakeguest-exits "exit $?"
la_wait_status "$V" "s['state'] == 'waiting'" 20 || bad session-closed "$out"
if ls_wait_equal 120; then
	ok "collected-tree-equals-store ($(du -sb "$COL/$HOST" | cut -f1) bytes)"
else
	bad collected-tree-equals-store "after 120 s" "$diff_out"
fi
sessions=$(ls_collected "$V")
# shellcheck disable=SC2086 # one directory per line
if la_btcheck $sessions --stats "$la_tmp/$V.stats" --expect written; then
	ok "every-written-event-once ($(head -n1 <<<"$bt_out" | cut -d' ' -f1) events)"
else
	bad every-written-event-once "bt_check" "$bt_out"
fi
c=$(ls_metric "$MPORT" guestrelay_ship_id_conflicts_total)
check "agent-counts-the-conflicts (${c:-none})" "[ '${c:-0}' = $N ]" \
	"$(grep -h "ship:" "$la_tmp"/agent.*.log)"
n=$(ls_log_count "was already taken by another publisher")
check "agent-logs-each-once ($n lines)" "[ $n -eq $N ]" \
	"$(grep -h "ship:" "$la_tmp"/agent.*.log)"
check "collector-says-it-saw-them ($(ls_cstat conflicts))" \
	"[ $(ls_cstat conflicts) -eq $N ]" "$(cat "$la_tmp"/collect.*.log)"
n=$(grep -c "was republished by its agent" "$la_tmp"/collect.*.log)
check "collector-logs-them ($n lines)" "[ $n -eq $N ]" \
	"$(cat "$la_tmp"/collect.*.log)"
check "forgeries-rejected ($(ls_cstat rejected))" \
	"[ $(ls_cstat rejected) -eq $N ]" "$(cat "$COL"/.collect/stats.*)"
bl=$(la_field "$V" ship.backlog_packets)
check "backlog-empty ($bl)" "[ '${bl:-x}' = 0 ]" "$out"

ls_collect_stop c1
la_end
