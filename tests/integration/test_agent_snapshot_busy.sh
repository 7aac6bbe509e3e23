#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_agent_snapshot_busy.sh - a big snapshot of one VM does not stall
# another VM's stream (issue 13: nothing blocks the loop)
#
# One agent, two VMs, each fed by a real fake guest:
#   A  flight-recorder mode, 256 MiB of shared memory (2 rings of 1 MiB
#      sub-buffers), written until its rings wrapped; then
#      `guestrelay snapshot A` and, right after, SIGKILL of A's guest
#      (QEMU leaving: the agent takes a second snapshot on disconnect)
#   B  stream mode, 2 CPUs at a steady high rate, on the same store disk
# While A's snapshots (about 2 x 240 MiB, written and fsynced) are taken,
# latwatch (tests/bench/latwatch.c) times B's events from the guest's
# clock to the stored stream file. The checks:
#   - both snapshots complete and babeltrace2 reads them
#   - B lost nothing: its guest dropped no event (lost_full 0), its trace
#     holds exactly what it wrote (fake_seq without gap), its packets are
#     consecutive, and the agent's counters agree
#   - B's event-to-disk latency while A snapshots (p99 and max) is not
#     above the same measure without a snapshot by more than the poll
#     period of a doorbell VM (GR_POLL_DOORBELL_NS, 20 ms); the measure
#     without is taken just before and just after (A writing, then A
#     gone), and the higher of the two counts, so that a change in the
#     machine's load from other work is not blamed on the snapshots
# About 40 s.

set -u
. "$(dirname "$0")/lib_agent.sh"
la_init test_agent_snapshot_busy

command -v cc >/dev/null || la_skip "cc is needed to build latwatch"
LATW=$la_tmp/latwatch
cc -O2 -std=gnu11 -D_GNU_SOURCE -I "$LA_TOP/spec" -o "$LATW" \
	"$LA_TOP/tests/bench/latwatch.c" 2>"$la_tmp/latwatch.cc.log" ||
	la_skip "cannot build latwatch: $(cat "$la_tmp/latwatch.cc.log")"

la_vm A snf		# flight, 256 MiB, snapshots
la_vm B sns		# stream, timed
POLL_MS=20		# GR_POLL_DOORBELL_NS of agent/vm.c
SB=65536

la_agent_start || { bad agent-starts "see the log"; la_show_logs; la_finish; }
ok agent-starts
gr vm-add "$A" --mode flight --size 256M --events all \
	--subbuf-size 1M --subbufs 120 || bad "vm-add-A" "exit $rc: $err"
gr vm-add "$B" --events all --subbuf-size $SB --subbufs 64 \
	--switch-timer-ms 10 || bad "vm-add-B" "exit $rc: $err"

# A: 2 x 1000 ticks/s of 32 KiB events: 64 MiB/s, its 240 MiB wrap in 4 s
t_bg fa 90 "$la_tmp/fg-$A.log" "$FG" --socket "$RUN/$A.sock" --cpus 2 \
	--rate 1000 --size 32768 --duration 80 --quiet
fa_pid=$(t_child "$fa")
# B: 2 x 3000 ticks/s, a 64 KiB packet per ring every 10 ms at least
# (switch timer): 13 MB/s to disk; each ring holds 640 ms (4 MiB): a
# stall of the loop shows as late packets before B's guest has to drop
t_bg fb 90 "$la_tmp/fg-$B.log" "$FG" --socket "$RUN/$B.sock" --cpus 2 \
	--rate 3000 --size 64 --duration 28 --stats "$la_tmp/$B.stats" --quiet

for vm in "$A" "$B"; do
	la_wait_status "$vm" "s['state'] == 'attached'" 15 &&
		ok "attached-$vm" || bad "attached-$vm" "status: $out"
done
if la_wait_status "$A" "s['stats']['overwritten'] > 0" 30; then
	ok "flight-buffer-full ($(la_field "$A" stats.produced) sub-buffers produced)"
else
	bad "flight-buffer-full" "status: $out"
fi
sessB=$(la_sessions "$B" | tail -n1)
[ -n "$sessB" ] || { bad "session-B" "none"; la_show_logs; la_finish; }

# baseline: A writes, nothing is snapshotted
"$LATW" --session "$sessB" --rings 2 --seconds 3 --poll-us 500 \
	>"$la_tmp/lat-base.out" 2>&1 || bad "latwatch-base" "$(cat "$la_tmp/lat-base.out")"

# while A snapshots twice: the command, then QEMU leaving
"$LATW" --session "$sessB" --rings 2 --seconds 6 --poll-us 500 \
	>"$la_tmp/lat-snap.out" 2>&1 &
lw=$!
sleep 0.5
t0=$(date +%s%N)
if gr snapshot "$A"; then
	snap1=$(tail -n1 <<<"$out")
	ok "snapshot-command ($(( ($(date +%s%N) - t0) / 1000000 )) ms)"
else
	snap1=
	bad "snapshot-command" "exit $rc: $out $err"
fi
kill -KILL "$fa_pid" 2>/dev/null
la_wait_status "$A" "s['state'] == 'waiting' and not s.get('session')" 30 ||
	bad "A-session-closed" "status: $out"
wait "$lw"
rc=$?
[ $rc -eq 0 ] || bad "latwatch-snapshot" "exit $rc: $(cat "$la_tmp/lat-snap.out")"
t_reap "$fa"

# and again without a snapshot (A is gone)
"$LATW" --session "$sessB" --rings 2 --seconds 3 --poll-us 500 \
	>"$la_tmp/lat-after.out" 2>&1 || bad "latwatch-after" "$(cat "$la_tmp/lat-after.out")"

snaps=$(ls -d "$STORE/$A"/snapshot-* 2>/dev/null)
n=$(grep -c . <<<"$snaps")
check "two-snapshots ($n)" "[ $n -eq 2 ]" "$snaps"
# whole, checked packets (babeltrace2 reading snapshots is test_agent_modes')
for d in $snaps; do
	sz=$(cat "$d"/stream_* | wc -c)
	if la_pktcheck "$d" --subbuf-size $((1 << 20)) --min-packets 100; then
		ok "snapshot-whole-packets ($(basename "$d"): $((sz >> 20)) MiB)"
	else
		bad "snapshot-whole-packets" "$d" "$pkt_out"
	fi
done
[ -n "$snap1" ] && check "snapshot-reply-names-a-snapshot" \
	"grep -qxF '$snap1' <<<'$snaps'" "'$snap1' not in $snaps"

la_wait_fg "$fb" 60
rc=$?
check "fakeguest-B-exits-0" "[ $rc -eq 0 ]" "exit $rc"
la_wait_status "$B" "s['state'] == 'waiting' and not s.get('session')" 15 ||
	bad "B-session-closed" "status: $out"

# B lost nothing
lost=$(awk '$1 ~ /^ring\.[0-9]+\.lost_full$/ { n += $2 } END { print n + 0 }' \
	"$la_tmp/$B.stats")
check "B-guest-dropped-nothing" "[ '$lost' = 0 ]" "lost_full $lost"
if la_btcheck "$sessB" --stats "$la_tmp/$B.stats" --expect exact; then
	ok "B-events-exact ($(head -n1 <<<"$bt_out" | cut -d" " -f1) events)"
else
	bad "B-events-exact" "bt_check failed" "$bt_out"
fi
if la_pktcheck "$sessB" --subbuf-size $SB; then
	ok "B-packets-consecutive"
else
	bad "B-packets-consecutive" "packets_check failed" "$pkt_out"
fi
la_status "$B"
pk=$("$PY" -c 'import json,sys; s=json.loads(sys.argv[1])["stats"]; print(s["packets"], s["invalid"], s["skipped"], s["write_errors"])' "$out")
prod=$(la_stat "$la_tmp/$B.stats" total.produced)
check "B-agent-counters" "[ '$pk' = '$prod 0 0 0' ]" \
	"packets invalid skipped write_errors = $pk, guest produced $prod"

# B's latency: no rise beyond the poll period
val() { la_stat "$1" "$2" | cut -d. -f1; }
for k in p99_us max_us; do
	b=$(val "$la_tmp/lat-base.out" $k)
	a=$(val "$la_tmp/lat-after.out" $k)
	[ -n "$a" ] && [ -n "$b" ] && [ "$a" -gt "$b" ] && b=$a
	s=$(val "$la_tmp/lat-snap.out" $k)
	if [ -z "$b" ] || [ -z "$s" ]; then
		bad "B-latency-$k" "no measure: $(cat "$la_tmp/lat-base.out" "$la_tmp/lat-snap.out")"
		continue
	fi
	check "B-latency-$k (without ${b} us, during snapshots ${s} us, allowed +$((POLL_MS * 1000)) us)" \
		"[ $s -le $((b + POLL_MS * 1000)) ]" \
		"$s us during the snapshots against $b us without"
done
echo "latency before: $(tr '\n' ' ' <"$la_tmp/lat-base.out")"
echo "latency after:  $(tr '\n' ' ' <"$la_tmp/lat-after.out")"
echo "latency during: $(tr '\n' ' ' <"$la_tmp/lat-snap.out")"

la_end
