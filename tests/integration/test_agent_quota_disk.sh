#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_agent_quota_disk.sh - a VM's quota, and a full disk, stop its
# stream cleanly
#
# (a) quota: VM Q has --quota 2 MiB and a fake guest writing fast; VM O on
#     the same agent has none and a moderate guest. Q's stream stops with
#     stop_reason "quota" while its guest still writes; its stream files
#     add up to no more than the quota, hold whole packets with
#     consecutive packet_seq_num, and babeltrace2 reads the trace; O goes
#     on storing after Q stopped, and its trace is exact at the end.
#     VM F, in flight mode with the same quota, has a hostile guest that
#     re-publishes ten times a second: each time the agent ends the
#     session and takes a snapshot; all the stream files of F's sessions
#     and snapshots add up to no more than the quota, and every one of
#     them is readable.
# (b) disk full: a second agent whose store is a 4 MiB tmpfs (mounted here,
#     unmounted at exit; needs root). Its VM's stream stops with
#     stop_reason "disk" and write_errors > 0; the agent answers `ping`;
#     the stream files are whole packets (each ends where its last
#     packet's packet_size says: they are stored content-only),
#     packet_seq_num consecutive; the metadata is whole;
#     babeltrace2 reads the trace.

set -u
. "$(dirname "$0")/lib_agent.sh"
la_init test_agent_quota_disk

la_vm Q qdq
la_vm O qdo
la_vm D qdd
la_vm F qdf
SB=65536
QUOTA=$((2 * 1024 * 1024))
GEOM="--subbuf-size $SB --subbufs 16"

# py EXPR JSON: EXPR on the status object s
py() {
	"$PY" -c "import json,sys; s=json.loads(sys.argv[1]); print($1)" "$2"
}

# streams DIR: the sizes of its stream files, and their sum
streams() {
	local f sum=0 sizes=

	for f in "$1"/stream_*; do
		[ -f "$f" ] || continue
		sizes="$sizes $(stat -c %s "$f")"
		sum=$((sum + $(stat -c %s "$f")))
	done
	echo "$sum:$sizes"
}

# whole DIR: every stream file of DIR is whole packets, the last one
# ending at the file's end (packets are stored content-only, so sizes
# vary: packets_check.py walks each file by packet_size)
whole() {
	"$PY" "$PKT_CHECK" --content-only --allow-gaps --subbuf-size $SB "$1" \
		>/dev/null 2>&1
}

# ---- (a) quota ---------------------------------------------------------
la_agent_start --events all $GEOM --vm "$Q" --quota $QUOTA --vm "$O" ||
	{ bad agent-starts "see the log"; la_show_logs; la_finish; }
ok agent-starts

t_bg fq 40 "$la_tmp/fg-$Q.log" "$FG" --socket "$RUN/$Q.sock" --cpus 2 \
	--rate 20000 --duration 4 --linger 2 --stats "$la_tmp/$Q.stats"
t_bg fo 40 "$la_tmp/fg-$O.log" "$FG" --socket "$RUN/$O.sock" --cpus 2 \
	--rate 2000 --duration 4 --stats "$la_tmp/$O.stats"

if la_wait_status "$Q" "s['stop_reason'] == 'quota'" 10; then
	st=$out
	ok "quota-stops-the-stream (usage $(py "s['usage']" "$st") of $(py "s['quota']" "$st") bytes)"
else
	st=$out
	bad "quota-stops-the-stream" "status: $st"
fi
check "quota-usage-within-quota" "[ '$(py "s['usage']" "$st")' -le $QUOTA ]" \
	"usage $(py "s['usage']" "$st")"
check "quota-guest-still-writing" \
	"[ '$(py "s['guest_state']" "$st")' = tracing ]" "$st"
p0=$(la_field "$O" stats.packets)
sleep 1
p1=$(la_field "$O" stats.packets)
check "other-vm-goes-on (packets $p0 -> $p1)" "[ '${p1:-0}' -gt '${p0:-0}' ]" \
	"packets $p0 -> $p1"
la_wait_fg "$fq" 30
la_wait_fg "$fo" 30
la_wait_status "$Q" "s['state'] == 'waiting'" 10
la_wait_status "$O" "s['state'] == 'waiting'" 10

sess=$(la_sessions "$Q")
sz=$(streams "$sess")
check "quota-stream-files-within-quota (${sz%%:*} bytes in stream files, $(du -sb "$STORE/$Q" | cut -f1) in the VM's directory)" \
	"[ ${sz%%:*} -le $QUOTA ] && [ ${sz%%:*} -gt 0 ] && whole '$sess'" \
	"stream files: ${sz#*:}"
if la_bt $sess; then
	ok "quota-trace-readable"
else
	bad "quota-trace-readable" "$bt_out"
fi
if la_pktcheck $sess --content-only --subbuf-size $SB; then
	ok "quota-trace-whole-consecutive-packets"
else
	bad "quota-trace-whole-consecutive-packets" "packets_check" "$pkt_out"
fi
if la_btcheck $sess --stats "$la_tmp/$Q.stats" --expect subset; then
	ok "quota-trace-events-right"
else
	bad "quota-trace-events-right" "bt_check" "$bt_out"
fi
sess=$(la_sessions "$O")
if la_btcheck $sess --stats "$la_tmp/$O.stats" --expect exact; then
	ok "other-vm-trace-exact"
else
	bad "other-vm-trace-exact" "bt_check" "$bt_out"
fi
la_agent_alive && ok agent-alive-after-quota || bad agent-alive-after-quota "no ping"

# flight mode: snapshots are stored data too. A hostile guest that
# re-publishes ten times a second (--hostile magic) makes the agent end
# its session each time, and in flight mode take a snapshot each time.
if gr vm-add "$F" --mode flight --events all $GEOM --quota $QUOTA; then
	t_bg ff 30 "$la_tmp/fg-$F.log" "$FG" --socket "$RUN/$F.sock" \
		--cpus 2 --rate 20000 --duration 2 --linger 1 \
		--hostile magic --hostile-delay 300 --hostile-period 100
	la_wait_fg "$ff" 20
	la_wait_status "$F" "s['state'] == 'waiting'" 5
	sum=0
	for f in "$STORE/$F"/*/stream_*; do
		[ -f "$f" ] && sum=$((sum + $(stat -c %s "$f")))
	done
	nsnap=$(ls -d "$STORE/$F"/snapshot-* 2>/dev/null | wc -l)
	check "flight-snapshots-within-quota ($sum bytes of stream files in $nsnap snapshots and the sessions; quota $QUOTA)" \
		"[ $sum -le $QUOTA ]" \
		"$sum bytes of stream files in $nsnap snapshots and $(la_sessions "$F" | wc -l) sessions, $(du -sb "$STORE/$F" | cut -f1) bytes in all, for a quota of $QUOTA"
	unread=0
	for d in "$STORE/$F"/*; do
		la_bt "$d" || { unread=$((unread + 1)); bad "flight-snapshot-readable" "$d" "$bt_out"; }
	done
	[ $unread -eq 0 ] && ok "flight-snapshots-readable"
else
	bad "vm-add-flight-with-quota" "exit $rc: $err"
fi
la_agent_alive && ok agent-alive-after-snapshots ||
	bad agent-alive-after-snapshots "no ping"
la_agent_stop

# ---- (b) disk full -------------------------------------------------------
small=$la_tmp/small
mkdir -p "$small"
if [ "$(id -u)" -ne 0 ]; then
	skip_check disk-full "mounting a tmpfs needs root"
	la_finish
fi
if ! mount -t tmpfs -o size=4m tmpfs "$small" 2>"$la_tmp/mount.err"; then
	skip_check disk-full "cannot mount a tmpfs: $(cat "$la_tmp/mount.err")"
	la_finish
fi
la_mounts+=("$small")
STORE=$small/store
RUN=$la_tmp/run2
mkdir -p "$RUN"
la_agent_start --events all $GEOM --vm "$D" ||
	{ bad agent-on-small-disk-starts "see the log"; la_show_logs; la_finish; }
ok agent-on-small-disk-starts
t_bg fd 40 "$la_tmp/fg-$D.log" "$FG" --socket "$RUN/$D.sock" --cpus 2 \
	--rate 20000 --duration 3 --linger 2 --stats "$la_tmp/$D.stats"
if la_wait_status "$D" "s['stop_reason'] == 'disk'" 10; then
	st=$out
	ok "disk-full-stops-the-stream (write_errors $(py "s['stats']['write_errors']" "$st"), $(df -k --output=avail "$small" | tail -n1 | tr -d ' ') KiB left)"
else
	st=$out
	bad "disk-full-stops-the-stream" "status: $st"
fi
check "disk-full-write-errors-counted" \
	"[ '$(py "s['stats']['write_errors']" "$st")' -gt 0 ]" "$st"
la_agent_alive && ok agent-alive-on-full-disk || bad agent-alive-on-full-disk "no ping"
la_wait_fg "$fd" 30
la_wait_status "$D" "s['state'] == 'waiting'" 10
la_agent_alive && ok agent-alive-after-guest-left ||
	bad agent-alive-after-guest-left "no ping"

sess=$(la_sessions "$D")
sz=$(streams "$sess")
check "disk-full-whole-packets-only (stream files:${sz#*:})" \
	"[ ${sz%%:*} -gt 0 ] && whole '$sess'" "stream files:${sz#*:}"
check "disk-full-metadata-whole" \
	"head -n1 '$sess/metadata' | grep -q 'CTF 1.8' && grep -q '^event' '$sess/metadata'" \
	"$(head -c 300 "$sess/metadata")"
if la_pktcheck $sess --content-only --subbuf-size $SB; then
	ok "disk-full-packets-consecutive"
else
	bad "disk-full-packets-consecutive" "packets_check" "$pkt_out"
fi
if la_bt $sess; then
	ok "disk-full-trace-readable"
else
	bad "disk-full-trace-readable" "$bt_out"
fi
if la_btcheck $sess --stats "$la_tmp/$D.stats" --expect subset; then
	ok "disk-full-trace-events-right"
else
	bad "disk-full-trace-events-right" "bt_check" "$bt_out"
fi
la_agent_stop
rc=$?
check agent-exits-0 "[ $rc -eq 0 ]" "exit $rc"
[ "$t_failed" -gt 0 ] && la_show_logs
la_finish
