#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_agent_throughput.sh - how fast the agent stores a stream, next to a
# plain copying consumer and to dd, on the same machine in the same run
#
# A fake guest writes as fast as it can (--max, 2 CPUs, fake_seq payload
# of 4000 bytes, 64 KiB x 127 sub-buffers per CPU) for 1 s, and a
# consumer stores what it can; the store is a tmpfs, so the figures are
# the consumers' cost, not a disk's. Three runs of each consumer, in turn;
# the table gives the median. Consumers:
#   agent, doorbell   the real agent (io_uring writes of each packet's
#                     content, the agent's defaults), ivshmem-doorbell
#                     device
#   agent, plain      the same, plain device (polling; the agent attaches
#                     at its next poll, up to 100 ms after the guest
#                     published, and the guest records nothing before)
#   copy consumer     copy_consumer.c (built here with cc -O2): polls the
#                     rings, memcpy()s each sub-buffer into a buffer,
#                     write(2)s it, then moves consumed (plain device)
#   dd                the bytes of the doorbell run, copied tmpfs -> tmpfs
#                     with dd bs=64K, no producer running
# MB/s = bytes stored / elapsed, elapsed = from the fake guest's start to
# its exit (it exits once everything it produced is consumed). The guest
# outruns every consumer and the writers share the 2 CPUs with it: what a
# consumer does not take in time is lost in the guest (ring full) and
# counted ("lost").
#
# Environment: GR_THROUGHPUT_SECS (1), GR_THROUGHPUT_REPS (3),
# GR_THROUGHPUT_CPUS (2: the fake guest's writer threads).
#
# It prints a table with the ratios to the copy consumer; it passes or
# fails on correctness only, never on speed: every consumer stored every
# sub-buffer the guest produced (what is lost is lost in the guest, which
# counts it), as whole packets with consecutive packet_seq_num, and
# babeltrace2 reads the agent's trace of the first doorbell run (-o dummy:
# all decoded, nothing printed). Exactness event by event is the job of
# test_agent_exact.sh (python-bt2 would take minutes at these volumes).

set -u
. "$(dirname "$0")/lib_agent.sh"
la_init test_agent_throughput

SECS=${GR_THROUGHPUT_SECS:-1}
REPS=${GR_THROUGHPUT_REPS:-3}
CPUS=${GR_THROUGHPUT_CPUS:-2}
SB=65536
NSB=127
SIZE=4000
la_tmpfs_store 3072 >"$la_tmp/where"
echo "# store: $(cat "$la_tmp/where")"
TMPFS=$(dirname "$STORE")

CC=${CC:-cc}
copy=$la_tmp/copy_consumer
if command -v "$CC" >/dev/null &&
   "$CC" -O2 -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror \
	-I"$LA_TOP/spec" -I"$LA_TOP/host-agent/region" \
	-I"$LA_TOP/host-agent/common" -o "$copy" "$LA_HERE/copy_consumer.c" \
	"$LA_TOP/host-agent/region/validate.c" \
	"$LA_TOP/host-agent/region/validate_desc.c" \
	"$LA_TOP/host-agent/region/validate_packet.c" \
	2>"$la_tmp/cc.log"; then
	ok "copy-consumer-builds"
else
	copy=
	bad "copy-consumer-builds" "$(cat "$la_tmp/cc.log")"
fi

rows=$la_tmp/rows

# row NAME BYTES WALL_NS LOST: one line of the table
row() {
	echo "$1|$2|$3|$4" >>"$rows"
}

# now_ns: the time in ns
now_ns() {
	date +%s%N
}

# agent_run NAME [--plain]
agent_run() {
	local name=$1 vm t0 t1 sess bytes lost prod dev f

	shift
	la_vm vm "tp$name"
	if ! gr vm-add "$vm" --events all --subbuf-size $SB --subbufs $NSB "$@"; then
		bad "$name-vm-add" "exit $rc: $err"
		return
	fi
	if [ "${1:-}" = --plain ]; then
		dev="--shm guestrelay-$vm"
	else
		dev="--socket $RUN/$vm.sock"
	fi
	t0=$(now_ns)
	t_bg f 60 "$la_tmp/fg-$name.log" "$FG" $dev --cpus $CPUS --max \
		--size $SIZE --duration "$SECS" --linger 20 \
		--stats "$la_tmp/$name.stats"
	la_wait_fg "$f" 50
	rc=$?
	t1=$(now_ns)
	check "$name-fakeguest-exits-0" "[ $rc -eq 0 ]" "exit $rc"
	la_wait_status "$vm" "s['state'] == 'waiting'" 10
	sess=$(la_sessions "$vm")
	bytes=$(cat "$sess"/stream_* | wc -c)
	lost=$(la_stat "$la_tmp/$name.stats" total.lost)
	row "agent, $name" "$bytes" $((t1 - t0)) "$lost"
	if la_pktcheck $sess --content-only --subbuf-size $SB --min-packets 10; then
		ok "$name-packets-whole-consecutive ($(tail -n2 <<<"$pkt_out" | head -n1))"
	else
		bad "$name-packets-whole-consecutive" "packets_check" "$pkt_out"
	fi
	# babeltrace2 decodes some 70 MB/s of these: the first doorbell run
	if [ "$name" != doorbell ] || [ "$rep" != 1 ]; then
		:
	elif la_bt -o dummy $sess; then
		ok "$name-babeltrace2-reads"
	else
		bad "$name-babeltrace2-reads" "$bt_out"
	fi
	prod=$(la_stat "$la_tmp/$name.stats" total.produced)
	# the agent stores each packet's content: count the packets
	pk=$(awk '/ packets in all$/ { print $1 }' <<<"$pkt_out")
	check "$name-stored-every-subbuffer (${pk:-?} of $prod)" \
		"[ '${pk:-x}' = '$prod' ]" "stored ${pk:-?}, produced $prod"
	[ "$name" = doorbell ] && dd_row "$sess"
	gr vm-remove "$vm"
	rm -rf "${STORE:?}/$vm"
}

# dd_row DIR: dd the stream files of DIR, tmpfs -> tmpfs
dd_row() {
	local f t0 t1 bytes=0

	t0=$(now_ns)
	for f in "$1"/stream_*; do
		dd if="$f" of="$TMPFS/dd.out" bs=64K status=none
		bytes=$((bytes + $(stat -c %s "$TMPFS/dd.out")))
		rm -f "$TMPFS/dd.out"
	done
	t1=$(now_ns)
	dd_line="dd tmpfs -> tmpfs (no producer)|$bytes|$((t1 - t0))|-"
	echo "$dd_line" >>"$la_tmp/dd_rows"
}

la_agent_start ||
	{ bad agent-starts "see the log"; la_show_logs; la_finish; }
ok agent-starts

# copy_run: the copy consumer, on the plain device it creates itself
copy_run() {
	local cvm shm out t0 t1 bytes prod c f i

	la_vm cvm tpcopy
	shm=guestrelay-$cvm
	out=$TMPFS/copy
	mkdir -p "$out"
	t0=$(now_ns)
	t_bg c 60 "$la_tmp/copy.log" "$copy" --shm "$shm" --out "$out" \
		--subbuf-size $SB --subbufs $NSB --events 4 --seconds 50
	for i in $(seq 100); do
		[ -e "/dev/shm/$shm" ] && break
		sleep 0.02
	done
	t_bg f 60 "$la_tmp/fg-copy.log" "$FG" --shm "$shm" --cpus $CPUS --max \
		--size $SIZE --duration "$SECS" --linger 20 \
		--stats "$la_tmp/copy.stats"
	la_wait_fg "$f" 50
	rc=$?
	t1=$(now_ns)
	check "copy-fakeguest-exits-0" "[ $rc -eq 0 ]" "exit $rc"
	la_wait_fg "$c" 10
	rc=$?
	check "copy-consumer-exits-0" "[ $rc -eq 0 ]" \
		"exit $rc: $(cat "$la_tmp/copy.log")"
	bytes=$(cat "$out"/stream_* | wc -c)
	row "copy consumer (memcpy+write)" "$bytes" $((t1 - t0)) \
		"$(la_stat "$la_tmp/copy.stats" total.lost)"
	if la_pktcheck "$out" --subbuf-size $SB --min-packets 10; then
		ok "copy-packets-whole-consecutive ($(tail -n2 <<<"$pkt_out" | head -n1))"
	else
		bad "copy-packets-whole-consecutive" "packets_check" "$pkt_out"
	fi
	prod=$(la_stat "$la_tmp/copy.stats" total.produced)
	check "copy-stored-every-subbuffer ($((bytes / SB)) of $prod)" \
		"[ $((bytes / SB)) = '$prod' ]" \
		"stored $((bytes / SB)), produced $prod"
	rm -rf "$out"
}

for rep in $(seq "$REPS"); do
	agent_run doorbell
	agent_run plain --plain
	[ -n "$copy" ] && copy_run
done
[ -f "$la_tmp/dd_rows" ] && cat "$la_tmp/dd_rows" >>"$rows"

echo "# throughput: a fake guest writes as fast as it can for $SECS s ($CPUS CPUs, fake_seq"
echo "# of $SIZE bytes), ${SB}-byte sub-buffers x $NSB per CPU, store on tmpfs;"
echo "# MB/s = bytes stored / (guest start .. everything consumed); median of"
echo "# $REPS runs (min..max); lost = events the guest dropped, ring full"
"$PY" - "$rows" <<'PYEOF' | sed 's/^/# /'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    name, b, ns, lost = line.rstrip("\n").split("|")
    runs.setdefault(name, []).append((int(b) / 1e6 / (int(ns) / 1e9),
                                       int(b) / 1e6, lost))
med = {n: statistics.median(r[0] for r in v) for n, v in runs.items()}
base = med.get("copy consumer (memcpy+write)")
print("%-34s %9s %13s %10s %12s %8s" %
      ("consumer", "MB/s", "(min..max)", "MB/run", "lost/run", "vs copy"))
for name, v in runs.items():
    rates = [r[0] for r in v]
    lost = [int(r[2]) for r in v if r[2].isdigit()]
    print("%-34s %9.0f %13s %10.0f %12s %8s" %
          (name, med[name], "(%.0f..%.0f)" % (min(rates), max(rates)),
           statistics.median(r[1] for r in v),
           "%.0f" % statistics.median(lost) if lost else "-",
           "%.2f" % (med[name] / base) if base else "-"))
PYEOF
la_agent_alive && ok agent-alive || bad agent-alive "no ping"
[ "$t_failed" -gt 0 ] && la_show_logs
la_finish
