#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_agent_republish_inflight.sh - a guest that re-publishes mid-stream
# while the agent's writes are in flight gets none of the old layout's
# cons.consumed stores (spec H7, 5.5; issue 13)
#
# A plain-device VM streams from fake guest A (2 rings of 8 x 16 KiB) into
# a store on an ext4 file system of its own (a loop device). The store is
# frozen (fsfreeze): the agent's writes stay in flight, A's rings fill.
# A is killed (SIGKILL: no withdrawal) and guest B publishes on the same
# region with another geometry (4 x 64 KiB): it withdraws, reads each
# ring's cons.consumed, continues its counters from there (5.4) and
# publishes a new instance_id. Then the store thaws and the old session's
# writes complete. Before the fix, each completion stored cons.consumed
# for A's ring at the same offset in B's layout: B's rings then claimed
# packets the host never read, and the agent took that value for the new
# session (5.3 step 4), so B's first packets never reached its trace.
# The checks:
#   - A's session ends, B is attached as a new session with its geometry
#   - B's trace holds every fake_seq B wrote exactly once (bt_check),
#     its guest saw no invalid consumed value, the agent counted nothing
#     invalid
# Needs root (mount, losetup, fsfreeze); skipped otherwise.

set -u
. "$(dirname "$0")/lib_agent.sh"
la_init test_agent_republish_inflight

[ "$(id -u)" = 0 ] || la_skip "needs root to mount and freeze a file system"
for c in mkfs.ext4 fsfreeze mount umount; do
	command -v "$c" >/dev/null || la_skip "$c is needed"
done
MNT=$la_tmp/ext4
mkdir -p "$MNT"
truncate -s 128M "$la_tmp/ext4.img"
mkfs.ext4 -q -F "$la_tmp/ext4.img" >/dev/null 2>&1 ||
	la_skip "mkfs.ext4 failed"
mount -o loop "$la_tmp/ext4.img" "$MNT" 2>/dev/null ||
	la_skip "cannot mount a loop device here"
frozen=0
thaw() {
	[ "$frozen" = 1 ] && fsfreeze -u "$MNT"
	frozen=0
}
unmount() {
	thaw
	umount "$MNT" 2>/dev/null || umount -l "$MNT"
}
t_defer unmount
STORE=$MNT/store
mkdir -p "$STORE"

la_vm V ri
la_agent_start || { bad agent-starts "see the log"; la_show_logs; la_finish; }
gr vm-add "$V" --plain --size 4M --events all || bad vm-add "exit $rc: $err"

t_bg fa 60 "$la_tmp/fg-a.log" "$FG" --shm "guestrelay-$V" --cpus 2 \
	--rate 4000 --subbuf-size 16384 --subbufs 8 --keep-layout \
	--stats "$la_tmp/fa.stats"
la_wait_status "$V" "s['state'] == 'attached' and s['stats']['packets'] > 10" 10 ||
	bad a-streams "$out"
first=$(la_sessions "$V")

# pub: "MAGIC INSTANCE_ID" of the region's header (offsets 0 and 32)
pub() {
	od -An -t x8 -j 0 -N 8 "/dev/shm/guestrelay-$V" | tr -d ' \n'
	echo -n " "
	od -An -t u8 -j 32 -N 8 "/dev/shm/guestrelay-$V" | tr -d ' '
}
MAGIC=3159414c45525247	# GR_REGION_MAGIC, "GRRELAY1"

# writes in flight that cannot complete; A's rings fill
fsfreeze -f "$MNT" && frozen=1 || bad freeze "fsfreeze -f failed"
sleep 1
t_term_job "$fa" KILL
t_reap "$fa"
read -r _ inst_a <<<"$(pub)"

# B: another geometry on the same region, while the writes wait
t_bg fb 60 "$la_tmp/fg-b.log" "$FG" --shm "guestrelay-$V" --cpus 2 \
	--rate 500 --duration 3 --linger 10 --subbuf-size 65536 --subbufs 4 \
	--stats "$la_tmp/fb.stats"
for i in $(seq 100); do
	read -r magic inst <<<"$(pub)"
	[ "$magic" = "$MAGIC" ] && [ "$inst" != "$inst_a" ] && break
	sleep 0.1
done
sleep 0.2			# B writes into its rings
thaw
if [ "$magic" = "$MAGIC" ] && [ "$inst" != "$inst_a" ]; then
	ok "B published instance $inst over A's $inst_a while the store was frozen"
else
	bad b-published "magic $magic, instance $inst (A's: $inst_a)"
fi

la_wait_status "$V" "s['state'] == 'attached' and s.get('subbuf_size') == 65536" 20 &&
	ok "B is attached with its own geometry (4 x 64 KiB)" ||
	bad b-attached "$out"
la_wait_fg "$fb" 40 || bad fakeguest-b-exits "$(tail -n 5 "$la_tmp/fg-b.log")"
la_wait_status "$V" "s['state'] == 'waiting'" 10 || bad b-closed "$out"

cerr=$(grep -E '^ring\.[0-9]+\.consumed_errors' "$la_tmp/fb.stats" |
	awk '{ s += $2 } END { print s + 0 }')
[ "$cerr" = 0 ] &&
	ok "B's guest saw no invalid cons.consumed (consumed_errors 0)" ||
	bad b-consumed-errors "$cerr invalid consumed values in B's rings"
la_new_guest_exact "$V" "$first" "$la_tmp/fb.stats"
la_agent_stop || bad agent-exit "exit status $?"
la_finish
