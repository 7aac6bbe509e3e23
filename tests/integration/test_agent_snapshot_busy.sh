#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_agent_snapshot_busy.sh - a big snapshot of one VM does not stall
# another VM's stream (issue 13: nothing blocks the loop)
#
# One agent, two VMs, each fed by a real fake guest:
#   A  flight-recorder mode, 256 MiB of shared memory (2 rings of 120
#      sub-buffers of 1 MiB), written until its rings wrapped; then, in
#      each of 3 rounds, `guestrelay snapshot A`, and in the last one
#      SIGKILL of A's guest right after (QEMU leaving: the agent takes
#      one more snapshot on disconnect)
#   B  stream mode, 2 CPUs at a steady rate, its switch timer at 10 ms,
#      on the same store disk
# Each snapshot copies, writes and fsyncs about 240 MiB. latwatch
# (tests/bench/latwatch.c) times B's events from the guest's clock to
# the stored stream file, in each round first without a snapshot, then
# while A snapshots. The checks:
#   - every snapshot completes, holds whole packets, the reply names it
#   - B lost nothing: its guest dropped no event (lost_full 0), its trace
#     holds exactly what it wrote (fake_seq without gap), its packets are
#     consecutive, and the agent's counters agree
#   - B's event-to-disk latency while A snapshots (p99 and max) is not
#     above the same measure without a snapshot by more than the poll
#     period of a doorbell VM (GR_POLL_DOORBELL_NS, 20 ms), in the best
#     round (other work on a shared machine is noise in some rounds; a
#     blocked loop shows in all)
# About 50 s; 1 GiB of snapshots on the store's disk.

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
ROUNDS=3
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
	--rate 3000 --size 64 --duration 34 --stats "$la_tmp/$B.stats" --quiet

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

# ROUNDS rounds: B timed without a snapshot (A writing), then while A
# snapshots; the last round's window holds two snapshots: the command,
# then QEMU leaving
lat() {	# lat OUT SECS: B's latency over SECS seconds into OUT
	"$LATW" --session "$sessB" --rings 2 --seconds "$2" --poll-us 500 \
		>"$1" 2>&1
}
snap1=
for r in $(seq $ROUNDS); do
	lat "$la_tmp/lat-base-$r.out" 2 ||
		bad "latwatch-base-$r" "$(cat "$la_tmp/lat-base-$r.out")"
	secs=3
	[ "$r" -eq $ROUNDS ] && secs=6
	lat "$la_tmp/lat-snap-$r.out" $secs &
	lw=$!
	sleep 0.3
	t0=$(date +%s%N)
	if gr snapshot "$A"; then
		snap1=$(tail -n1 <<<"$out")
		ok "snapshot-command-$r ($(( ($(date +%s%N) - t0) / 1000000 )) ms)"
	else
		bad "snapshot-command-$r" "exit $rc: $out $err"
	fi
	if [ "$r" -eq $ROUNDS ]; then
		kill -KILL "$fa_pid" 2>/dev/null
		la_wait_status "$A" "s['state'] == 'waiting' and not s.get('session')" 30 ||
			bad "A-session-closed" "status: $out"
	fi
	wait "$lw"
	rc=$?
	[ $rc -eq 0 ] || bad "latwatch-snapshot-$r" "exit $rc: $(cat "$la_tmp/lat-snap-$r.out")"
done
t_reap "$fa"

snaps=$(ls -d "$STORE/$A"/snapshot-* 2>/dev/null)
n=$(grep -c . <<<"$snaps")
check "snapshots ($n)" "[ $n -eq $((ROUNDS + 1)) ]" "$snaps"
# whole, checked packets (babeltrace2 reading snapshots is test_agent_modes')
for d in $snaps; do
	sz=$(cat "$d"/stream_* | wc -c)
	if la_pktcheck "$d" --content-only --subbuf-size $((1 << 20)) --min-packets 100; then
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
if la_pktcheck "$sessB" --content-only --subbuf-size $SB; then
	ok "B-packets-consecutive"
else
	bad "B-packets-consecutive" "packets_check failed" "$pkt_out"
fi
la_status "$B"
pk=$("$PY" -c 'import json,sys; s=json.loads(sys.argv[1])["stats"]; print(s["packets"], s["invalid"], s["skipped"], s["write_errors"])' "$out")
prod=$(la_stat "$la_tmp/$B.stats" total.produced)
check "B-agent-counters" "[ '$pk' = '$prod 0 0 0' ]" \
	"packets invalid skipped write_errors = $pk, guest produced $prod"

# B's latency: no rise beyond the poll period. A loop blocked by a
# snapshot delays B in every round (the agent before issue 13: 1.3 to
# 1.6 s each time); other work on the machine shows as noise in some
# rounds. So the best round counts; every round is printed.
val() { la_stat "$1" "$2" | cut -d. -f1; }
best=
for r in $(seq $ROUNDS); do
	worst=0
	line=
	for k in p99_us max_us; do
		b=$(val "$la_tmp/lat-base-$r.out" $k)
		s=$(val "$la_tmp/lat-snap-$r.out" $k)
		if [ -z "$b" ] || [ -z "$s" ]; then
			worst=999999999
			continue
		fi
		[ $((s - b)) -gt "$worst" ] && worst=$((s - b))
		line="$line $k ${b} -> ${s} us"
	done
	echo "# round $r:$line (rise $worst us)"
	{ [ -z "$best" ] || [ "$worst" -lt "$best" ]; } && best=$worst
done
check "B-latency-no-rise (best round: +$best us, allowed +$((POLL_MS * 1000)) us)" \
	"[ '${best:-999999999}' -le $((POLL_MS * 1000)) ]" \
	"B's p99 or max latency rose by $best us in the best of $ROUNDS rounds"

la_end
