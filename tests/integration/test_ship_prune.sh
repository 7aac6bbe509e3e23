#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_ship_prune.sh - --ship-prune (issue 23): a closed chunk is deleted
# locally only once the collectors' durable consumer has acknowledged all
# its messages (written and fsynced them), never because JetStream alone
# has it
#
# An agent with --ship --ship-prune guestrelay-collect --rotate-interval 2
# (no --keep-*), a real `nats-server -js`, a fake guest writing 2 CPUs x
# 1500 events/s for GR_PRUNE_SECS (default 10 s). No collector runs for
# the first 6 s: JetStream acknowledges the chunks but none is deleted.
# Then a collector starts: the chunks go, and a watcher that lists the
# local archives every 0.1 s finds every chunk that disappeared already
# in the collector's tree (.guestrelay, metadata and every stream file).
# At the end no closed chunk is left locally, babeltrace2 reads each
# collected chunk, and the collected chunks side by side hold every
# fake_seq the guest wrote exactly once (bt_check.py --expect written).

set -u
. "$(dirname "$0")/lib_agent.sh"
. "$LA_HERE/lib_ship.sh"
ls_init test_ship_prune

SECS=${GR_PRUNE_SECS:-10}
read -r MPORT < <(la_free_ports 1)
LA_AGENT_SECS=$((SECS + 200))

ls_nats_single
la_vm R prune
la_agent_start --ship "$NATS_URLS" --ship-prune guestrelay-collect \
	--metrics "127.0.0.1:$MPORT" --events all --subbuf-size 16384 \
	--subbufs 16 --vm "$R" --plain --rotate-interval 2 ||
	{ bad agent-starts "see the log"; la_show_logs; la_finish; }
ok agent-starts


# the watcher: a chunk gone locally must be whole in the collected tree
# (the files it had when last seen, same sizes)
watch_chunks() {
	local c rel f seen=$la_tmp/seen
	: >"$la_tmp/violations"
	mkdir -p "$seen"
	: >"$seen/list"
	while :; do
		for c in $(ls_chunks "$STORE" "$R"); do
			rel=${c#"$STORE"/}
			(cd "$c" && find . -name index -prune -o -type f \
				-printf '%P %s\n') >"$seen/${rel//\//_}.tmp" 2>/dev/null &&
				[ -s "$seen/${rel//\//_}.tmp" ] &&
				mv "$seen/${rel//\//_}.tmp" "$seen/${rel//\//_}"
			echo "$rel" >>"$seen/list"
		done
		sort -u -o "$seen/list" "$seen/list" 2>/dev/null
		while read -r rel; do
			[ -d "$STORE/$rel" ] && continue
			[ -f "$seen/${rel//\//_}.done" ] && continue
			while read -r f sz; do
				[ "$(stat -c %s "$COL/$HOST/$rel/$f" 2>/dev/null)" = "$sz" ] ||
					echo "$rel/$f deleted before collected" >>"$la_tmp/violations"
			done <"$seen/${rel//\//_}"
			: >"$seen/${rel//\//_}.done"
		done <"$seen/list"
		sleep 0.1
	done
}
watch_chunks &
watcher=$!

ls_guest_start fg "$R" 1500 "$SECS"
sleep 6
mapfile -t LC < <(ls_chunks "$STORE" "$R")
la_status "$R"
cp=$(la_field "$R" chunks.collected_pruned)
check "kept-without-collector (${#LC[@]} chunks, ${cp:-?} deleted)" \
	"[ ${#LC[@]} -ge 2 ] && [ \"$cp\" = 0 ]" "$out"
ls_collect_start c1
la_wait_fg "$fg" $((SECS + 150)) || bad fakeguest-exits "exit $?"
la_wait_status "$R" "s['state'] == 'waiting'" 30 || bad session-closed "$out"
la_wait_status "$R" "s['chunks']['closed'] == 0" 60 ||
	bad all-chunks-deleted-once-collected "$out"
la_status "$R"
cp=$(la_field "$R" chunks.collected_pruned)
mapfile -t LC < <(ls_chunks "$STORE" "$R")
mapfile -t CC < <(ls_chunks "$COL/$HOST" "$R")
check "collected-chunks-deleted (${cp:-?} deleted, ${#LC[@]} left, ${#CC[@]} collected)" \
	"[ ${#LC[@]} -eq 0 ] && [ \"${cp:-0}\" -eq ${#CC[@]} ] && [ ${#CC[@]} -ge 3 ]" "$out"
m=$(ls_metric "$MPORT" guestrelay_vm_chunks_collected_pruned_total)
check "metric-collected-pruned ($m)" "[ \"$m\" = \"$cp\" ]" "$m"
sleep 0.5
kill "$watcher" 2>/dev/null
wait "$watcher" 2>/dev/null
watched=$(find "$la_tmp/seen" -name '*.done' | wc -l)
check "never-deleted-before-collected ($watched deletions watched)" \
	"[ ! -s $la_tmp/violations ] && [ $watched -ge 1 ]" \
	"$(head -n 5 "$la_tmp/violations")"
nbad=0
for c in "${CC[@]}"; do
	la_bt "$c" || { nbad=$((nbad + 1)); bad "collected-chunk-reads $c" "$bt_out"; }
done
check "babeltrace2-reads-each-collected-chunk (${#CC[@]})" "[ $nbad -eq 0 ]"
if la_btcheck "${CC[@]}" --stats "$la_tmp/$R.stats" --expect written; then
	ok "collected-union-holds-every-written-event-once ($(head -n1 <<<"$bt_out" | cut -d' ' -f1) events)"
else
	bad collected-union-holds-every-written-event-once "$bt_out"
fi
check nothing-rejected "[ $(ls_cstat rejected) -eq 0 ]" \
	"$(cat "$COL"/.collect/stats.*)"
ls_collect_stop c1
la_end
