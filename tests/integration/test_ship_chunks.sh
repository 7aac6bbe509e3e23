#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_ship_chunks.sh - a session kept in chunks, shipped (issue 23): an
# agent with --ship, --rotate-interval 2 and --keep-chunks 2 under load,
# a real `nats-server -js` and a real collector
#
# Timeline: a fake guest writes 2 CPUs x 1500 events/s for GR_SHIPCH_SECS
# (default 14 s); NATS is killed 3 s in and restarted 8 s later, so that
# while it is down the closed chunks cannot ship. Checks:
#  - while NATS is down, retention holds the chunks it would delete
#    (status chunks.held > 0, /metrics guestrelay_vm_chunks_held, more
#    than 2 closed chunks kept) and nothing unshipped is deleted;
#  - once it is back and the session closed: every closed chunk kept
#    locally is rebuilt by the collector as <session>/archives/<chunk>/
#    byte for byte (index/ is not shipped); babeltrace2 reads every
#    collected chunk alone; the collected chunks side by side hold every
#    fake_seq the guest wrote exactly once (bt_check.py --expect
#    written), although the agent deleted some of them locally;
#  - retention deleted the shipped chunks beyond 2 (chunks.pruned > 0,
#    chunks.held 0, 2 kept), and the collector rejected nothing.

set -u
. "$(dirname "$0")/lib_agent.sh"
. "$LA_HERE/lib_ship.sh"
ls_init test_ship_chunks

SECS=${GR_SHIPCH_SECS:-14}
read -r MPORT < <(la_free_ports 1)
LA_AGENT_SECS=$((SECS + 200))

ls_nats_single
la_vm R shipch
ls_ship_start "$R" --metrics "127.0.0.1:$MPORT" --rotate-interval 2 \
	--keep-chunks 2


ls_guest_start fg "$R" 1500 "$SECS"
sleep 2
nats_kill 0
ok "nats-killed (at $(ls_cstat packets) packets collected)"
# three rotations or more while it is down
sleep 8
la_status "$R"
held=$(la_field "$R" chunks.held)
mapfile -t LC < <(ls_chunks "$STORE" "$R")
# held: the chunks beyond the 2 kept that retention would have deleted
check "held-while-nats-down (held $held, ${#LC[@]} kept)" \
	"[ ${held:-0} -gt 0 ] && [ ${#LC[@]} -gt 2 ] && [ $held -le $((${#LC[@]} - 2)) ]" "$out"
m=$(ls_metric "$MPORT" guestrelay_vm_chunks_held)
check "metric-held ($m)" "[ \"${m:-0}\" -gt 0 ]" \
	"$(curl -s "http://127.0.0.1:$MPORT/metrics" | grep chunks)"
nats_restart 0 30 || bad nats-restarts "see above"

la_wait_fg "$fg" $((SECS + 150)) || bad fakeguest-exits "exit $?"
la_wait_status "$R" "s['state'] == 'waiting'" 30 || bad session-closed "$out"
# the last chunk closed with the session; everything ships, then a
# rotation of nothing is not needed: retention ran at that close, and
# runs again at the next rotation; wait until nothing is held
la_wait_status "$R" "s['ship']['backlog_packets'] == 0" 90 ||
	bad backlog-empty "$out"

# every closed chunk kept locally equals the collected one
cmp_chunks() {
	local c rel f n=0

	for c in $(ls_chunks "$STORE" "$R"); do
		rel=${c#"$STORE"/}
		while IFS= read -r -d '' f; do
			f=${f#"$c"/}
			cmp -s "$c/$f" "$COL/$HOST/$rel/$f" ||
				{ echo "differs $rel/$f"; n=$((n + 1)); }
		done < <(find "$c" -name index -prune -o -type f -printf '%P\0')
		[ -z "$(find "$COL/$HOST/$rel" -name index 2>/dev/null)" ] ||
			{ echo "index shipped $rel"; n=$((n + 1)); }
	done
	[ "$n" -eq 0 ]
}
for i in $(seq 120); do
	diff_out=$(cmp_chunks) && break
	sleep 0.5
done
mapfile -t LC < <(ls_chunks "$STORE" "$R")
mapfile -t CC < <(ls_chunks "$COL/$HOST" "$R")
check "kept-chunks-collected-byte-for-byte (${#LC[@]} kept, ${#CC[@]} collected)" \
	"[ -z \"\$diff_out\" ] && [ ${#LC[@]} -ge 1 ]" \
	"$diff_out${diff_out:+
$(ls_js_state)
collector: $(cat "$COL"/.collect/stats.* | tr '\n' ' ')}"
nbad=0
for c in "${CC[@]}"; do
	la_bt "$c" || { nbad=$((nbad + 1)); bad "collected-chunk-reads $c" "$bt_out"; }
done
check "babeltrace2-reads-each-collected-chunk (${#CC[@]})" \
	"[ $nbad -eq 0 ] && [ ${#CC[@]} -gt ${#LC[@]} ]" "${CC[*]}"
if la_btcheck "${CC[@]}" --stats "$la_tmp/$R.stats" --expect written; then
	ok "collected-union-holds-every-written-event-once ($(head -n1 <<<"$bt_out" | cut -d' ' -f1) events)"
else
	bad collected-union-holds-every-written-event-once "$bt_out"
fi
# no chunk closes any more (the session ended): the held chunks went
# once shipped all the same (retention runs again while some are held)
la_wait_status "$R" "s['chunks']['held'] == 0" 10 || bad held-cleared "$out"
mapfile -t LC < <(ls_chunks "$STORE" "$R")
pr=$(la_field "$R" chunks.pruned)
check "shipped-chunks-pruned (pruned $pr, ${#LC[@]} kept)" \
	"[ ${pr:-0} -gt 0 ] && [ ${#LC[@]} -eq 2 ]" "$out"
# chunk IDs go up by one: the IDs of both trees together have no gap
ids=$({ printf '%s\n' "${CC[@]}"; ls_chunks "$STORE" "$R"; } |
	awk -F- '{ print $NF }' | sort -nu)
check "no-chunk-lost (IDs $(head -n1 <<<"$ids")..$(tail -n1 <<<"$ids"))" \
	"awk 'NR == 1 { f = \$1 } \$1 != f + NR - 1 { gap = 1 } END { exit gap }' <<<\"\$ids\"" \
	"$(tr '\n' ' ' <<<"$ids")"
check nothing-rejected "[ $(ls_cstat rejected) -eq 0 ]" \
	"$(cat "$COL"/.collect/stats.*)"
ls_collect_stop c1
la_end
