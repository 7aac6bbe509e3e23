#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_ship_payload.sh - packets larger than the server's max_payload are
# shipped in parts and put together again, up to the largest sub-buffer
# the spec allows (issue 9)
#
# A real `nats-server -js` with max_payload 64 KiB; one agent, two VMs
# with names that look like the subject encoding and hold dots:
#   M  1 MiB sub-buffers, 2 CPUs, a fake guest at a steady rate (packets
#      of 100 KiB to 1 MiB: 2 to 17 parts each)
#   X  16 MiB sub-buffers (GR_MAX_SUBBUF_SIZE), 1 CPU, no switch timer,
#      a fake guest at 30000 ticks/s for 5 s: one packet of the whole
#      16 MiB (257 parts), then the rest at the flush
# and a collector. The collected tree equals the store, babeltrace2
# reads it, every event the guests wrote is there exactly once, and the
# stream holds more messages than packets (they were cut).

set -u
. "$(dirname "$0")/lib_agent.sh"
. "$LA_HERE/lib_ship.sh"
ls_init test_ship_payload

echo "max_payload: 65536" >"$la_tmp/small.conf"
nats_start_single "$la_tmp/nats" "$la_tmp/small.conf" ||
	{ bad nats-starts "see above"; la_finish; }
mp=$(nats_varz 0 varz | sed -n 's/.*"max_payload": *\([0-9]*\).*/\1/p')
check "nats-max-payload-64k ($mp)" "[ '$mp' = 65536 ]" "$mp"

la_vm M pl_2E.m.
la_vm X px..x-
LA_BT_SECS=${LA_BT_SECS:-180}
LA_AGENT_SECS=400
la_agent_start --ship "$NATS_URLS" --events all \
	--vm "$M" --subbuf-size 1048576 --subbufs 4 --size 16777216 \
	--switch-timer-ms 200 \
	--vm "$X" --subbuf-size 16777216 --subbufs 2 --size 67108864 --plain ||
	{ bad agent-starts "see the log"; la_show_logs; la_finish; }
ok agent-starts
ls_collect_start c1

t_bg fm 120 "$la_tmp/fg-$M.log" "$FG" --socket "$RUN/$M.sock" --cpus 2 \
	--rate 4000 --duration 6 --linger 15 --stats "$la_tmp/$M.stats"
t_bg fx 120 "$la_tmp/fg-$X.log" "$FG" --shm "guestrelay-$X" --cpus 1 \
	--rate 30000 --duration 5 --linger 30 --stats "$la_tmp/$X.stats"
for j in "$fm" "$fx"; do
	la_wait_fg "$j" 100 || bad fakeguest-exits "exit $?"
done
for vm in "$M" "$X"; do
	la_wait_status "$vm" "s['state'] == 'waiting'" 20 ||
		bad "$vm-session-closed" "$out"
done

if ls_wait_equal 120; then
	ok "collected-tree-equals-store ($(du -sb "$COL/$HOST" | cut -f1) bytes)"
else
	bad collected-tree-equals-store "after 120 s" "$diff_out"
fi
for vm in "$M" "$X"; do
	s=$(la_sessions "$vm")
	big=$("$PY" - $s/stream_* <<'EOF'
import struct, sys
m = 0
for p in sys.argv[1:]:
    d = open(p, "rb").read()
    off = 0
    while off + 72 <= len(d):
        ps = struct.unpack_from("<Q", d, off + 40)[0] // 8
        m = max(m, ps)
        off += ps
print(m)
EOF
)
	check "$vm-packets-above-max-payload (largest $big bytes)" \
		"[ ${big:-0} -gt 65536 ]" "largest $big"
	[ "$vm" = "$X" ] && check "$X-a-full-16MiB-packet" \
		"[ ${big:-0} -gt $(((16 << 20) - 4096)) ]" "largest $big"
	sessions=$(ls_collected "$vm")
	la_bt $sessions && ok "$vm-babeltrace2-reads-collected" ||
		bad "$vm-babeltrace2-reads-collected" "$bt_out"
	if la_btcheck $sessions --stats "$la_tmp/$vm.stats" --expect written; then
		ok "$vm-every-written-event-once ($(head -n1 <<<"$bt_out" | cut -d' ' -f1) events)"
	else
		bad "$vm-every-written-event-once" "bt_check" "$bt_out"
	fi
done
msgs=$(nats_varz 0 "jsz?streams=1" | sed -n 's/.*"messages": *\([0-9]*\).*/\1/p' | head -n1)
pk=$(ls_cstat packets)
check "stream-holds-parts ($msgs messages for $pk packets)" \
	"[ ${msgs:-0} -gt $((pk + 10)) ]" "$msgs messages, $pk packets"
check nothing-rejected "[ $(ls_cstat rejected) -eq 0 ]" \
	"$(cat "$COL"/.collect/stats.*)"

ls_collect_stop c1
la_end
