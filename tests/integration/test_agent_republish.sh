#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_agent_republish.sh - a stopped VM whose guest comes back with
# another layout is a new guest: the agent never writes into the new
# layout through its old view (spec H7)
#
# A plain-device VM is attached to a fake guest with 8 sub-buffers of
# 16 KiB per ring, then `stop`ped. The guest leaves (withdraws) and a new
# one publishes with 4 sub-buffers of 64 KiB. Before H7, `start` stored
# `consumed` at the old layout's ring offsets and opened a session from
# the old view. Now:
#   - the agent leaves the stopped state on its own (the layout changed),
#     and `start` is refused or unnecessary, never applied to the old view;
#   - the new guest is attached as a new session with the new geometry;
#   - its trace is whole: every fake_seq it wrote once (bt_check), and
#     nothing invalid was counted (no packet read through a wrong view).

set -u
. "$(dirname "$0")/lib_agent.sh"
la_init test_agent_republish

la_vm V rp
la_agent_start || { bad agent-starts "see the log"; la_show_logs; la_finish; }
gr vm-add "$V" --plain --size 4M --events all || bad vm-add "exit $rc: $err"

t_bg f1 30 "$la_tmp/fg1.log" "$FG" --shm "guestrelay-$V" --cpus 2 \
	--rate 500 --duration 2 --linger 1 --subbuf-size 16384 --subbufs 8 \
	--stats "$la_tmp/fg1.stats"
la_wait_status "$V" "s['state'] == 'attached' and s['stats']['packets'] > 0" 10 ||
	bad first-attached "$out"
if gr stop "$V"; then ok "stop"; else bad stop "exit $rc: $err"; fi
la_wait_status "$V" "s['state'] == 'stopped'" 5 && ok "stopped" ||
	bad stopped "$out"
la_wait_fg "$f1" 20
first=$(la_sessions "$V")

# the same VM, a new guest with another layout
t_bg f2 30 "$la_tmp/fg2.log" "$FG" --shm "guestrelay-$V" --cpus 2 \
	--rate 500 --duration 2 --linger 3 --subbuf-size 65536 --subbufs 4 \
	--stats "$la_tmp/fg2.stats"
if la_wait_status "$V" "s['state'] != 'stopped'" 10; then
	ok "the stopped VM noticed the new layout ($(la_field "$V" state))"
else
	bad left-stopped "still stopped: $out"
fi
gr start "$V"
echo "# start after the re-publication: exit $rc: $out$err"
la_wait_status "$V" "s['state'] == 'attached' and s.get('subbuf_size') == 65536" 10 &&
	ok "the new guest is attached with its own geometry (4 x 64 KiB)" ||
	bad new-attached "$out"
la_wait_fg "$f2" 25
la_wait_status "$V" "s['state'] == 'waiting'" 10 || bad closed "$out"

la_new_guest_exact "$V" "$first" "$la_tmp/fg2.stats"
la_agent_stop || bad agent-exit "exit status $?"
la_finish
