#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_agent_exact.sh - what a fake guest writes comes out of babeltrace2
# exactly
#
# The real agent serves three VMs at once, each fed by a real fake guest
# (tests/fakeguest) for a few seconds at a moderate rate:
#   - doorbell device (the agent's ivshmem socket), 3 CPUs, per-CPU rings
#   - doorbell device, 2 CPUs sharing one global ring (--global), written
#     with --io fixed (two write_fixed per packet from registered
#     buffers; the others use the default, one writev)
#   - plain device (the fake guest maps /dev/shm; the agent polls), 4 CPUs
# and for each trace checks (bt_check.py --expect exact, packets_check.py):
# babeltrace2 reads it; the event count equals the guest's written
# counts, in all and per event id; per CPU the fake_seq numbers are
# exactly seq_first..seq_last, each once; cpu = N, tag = "cpuN", data
# and fake_str text right; time never goes back per CPU; the stream files
# hold whole packets with consecutive packet_seq_num; the agent's counters
# agree (packets stored = guest's sub-buffers, nothing invalid or skipped).

set -u
. "$(dirname "$0")/lib_agent.sh"
la_init test_agent_exact

la_vm A exa		# doorbell, per-CPU
la_vm B exg		# doorbell, global ring
la_vm C exp		# plain
SUBBUF=16384

la_agent_start --events all --subbuf-size $SUBBUF --subbufs 32 \
	--vm "$A" --vm "$B" --io fixed --vm "$C" --plain ||
	{ bad agent-starts "see the log"; la_show_logs; la_finish; }
ok agent-starts

t_bg fa 40 "$la_tmp/fg-$A.log" "$FG" --socket "$RUN/$A.sock" --cpus 3 \
	--rate 1500 --duration 3 --events 6 --stats "$la_tmp/$A.stats"
t_bg fb 40 "$la_tmp/fg-$B.log" "$FG" --socket "$RUN/$B.sock" --cpus 2 \
	--global --rate 1500 --duration 3 --events 4 --stats "$la_tmp/$B.stats"
t_bg fc 40 "$la_tmp/fg-$C.log" "$FG" --shm "guestrelay-$C" --cpus 4 \
	--rate 1000 --duration 3 --events 5 --size 80 \
	--stats "$la_tmp/$C.stats"

for v in "$A:$fa" "$B:$fb" "$C:$fc"; do
	vm=${v%%:*}
	la_wait_fg "${v#*:}" 40
	rc=$?
	check "fakeguest-$vm-exits-0" "[ $rc -eq 0 ]" "exit $rc"
done
# the guests withdrew their layouts: every session is closed
for vm in "$A" "$B" "$C"; do
	la_wait_status "$vm" "s['state'] == 'waiting' and not s.get('session')" 10 ||
		bad "session-$vm-closed" "still open: $out"
done

# exact: bt_check against the guest's statistics
for vm in "$A" "$B" "$C"; do
	stats=$la_tmp/$vm.stats
	glob=
	[ "$vm" = "$B" ] && glob=--global
	sessions=$(la_sessions "$vm")
	n=$(echo "$sessions" | grep -c .)
	if [ "$n" -ne 1 ]; then
		bad "one-session-$vm" "$n sessions: $sessions"
		continue
	fi
	ok "one-session-$vm"
	if la_bt_clean "$sessions"; then
		ok "babeltrace2-reads-$vm"
	else
		bad "babeltrace2-reads-$vm" "$bt_out"
	fi
	if la_btcheck "$sessions" --stats "$stats" --expect exact $glob; then
		ok "events-exact-$vm ($(grep -c "^cpu" <<<"$bt_out") CPUs, $(head -n1 <<<"$bt_out" | cut -d" " -f1) events)"
	else
		bad "events-exact-$vm" "bt_check failed" "$bt_out"
	fi
	if la_pktcheck "$sessions" --content-only --subbuf-size $SUBBUF $glob; then
		ok "packets-consecutive-$vm"
	else
		bad "packets-consecutive-$vm" "packets_check failed" "$pkt_out"
	fi
	# the agent's counters against the guest's
	la_status "$vm"
	st=$out
	prod=$(la_stat "$stats" total.produced)
	pk=$("$PY" -c 'import json,sys; s=json.loads(sys.argv[1])["stats"]; print(s["packets"], s["invalid"], s["skipped"], s["write_errors"])' "$st")
	io=$("$PY" -c 'import json,sys; print(json.loads(sys.argv[1])["io"])' "$st")
	want=writev
	[ "$vm" = "$B" ] && want=fixed
	check "writes-$vm-$want" "[ '$io' = $want ]" "io $io"
	# registering the buffers of --io fixed did not fall back to writev
	[ "$vm" = "$B" ] && check "writes-$vm-no-fallback" \
		"! grep -q 'cannot register buffers' '$LA_AGENT_LOG'" \
		"$(grep 'cannot register' "$LA_AGENT_LOG")"
	if [ "$pk" = "$prod 0 0 0" ]; then
		ok "agent-counters-$vm (packets $prod = guest's sub-buffers)"
	else
		bad "agent-counters-$vm" "packets invalid skipped write_errors = $pk, guest produced $prod"
	fi
done

la_end
