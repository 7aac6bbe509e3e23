#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_ship_drain.sh - a backlog is drained in batches: one fdatasync per
# batch of messages, not one per message, also when fetches give up
# part-way and the rest of their answer comes late
#
# An agent ships a fake guest's trace (2 CPUs x 3000 events/s for
# GR_DRAIN_SECS, default 8 s) to a real `nats-server -js` while no
# collector runs. Then one collector drains the stream under strace,
# which slows each of its recv() calls by 20 ms (a loaded machine): a
# fetch of 128 messages (2 MiB) then times out after about 1 s with
# part of them, and the rest are held by its subscription when the next
# fetch starts. Checks: the collected tree equals the store, nothing
# rejected, no message delivered twice (the consumer's num_redelivered),
# and fewer fdatasync calls than a tenth of the messages (about 16 for
# 500 messages; taking each held message as its own batch made 143).

set -u
. "$(dirname "$0")/lib_agent.sh"
. "$LA_HERE/lib_ship.sh"
ls_init test_ship_drain

command -v strace >/dev/null || la_skip "strace is needed"
strace -f -o /dev/null -e trace=none true 2>/dev/null ||
	la_skip "strace cannot trace here (ptrace not permitted)"

SECS=${GR_DRAIN_SECS:-8}
fv='' cj=''	# t_bg jobs: the fake guest, the collector under strace
LA_AGENT_SECS=$((SECS + 300))
ls_nats_single
la_vm V drain
la_agent_start --ship "$NATS_URLS" --events all --subbuf-size 16384 \
	--subbufs 16 --vm "$V" --plain ||
	{ bad agent-starts "see the log"; la_show_logs; la_finish; }
ok agent-starts

t_bg fv $((SECS + 120)) "$la_tmp/fg-$V.log" "$FG" --shm "guestrelay-$V" \
	--cpus 2 --rate 3000 --duration "$SECS" --linger 5 \
	--stats "$la_tmp/$V.stats"
la_wait_fg "$fv" $((SECS + 60)) || bad fakeguest-exits "exit $?"
la_wait_status "$V" "s['state'] == 'waiting'" 30 || bad session-closed "$out"
ls_caught_up "$V" 60 || bad shipped "$out"
msgs=$(ls_stream_msgs 0)
check "backlog-in-stream ($msgs messages)" "[ ${msgs:-0} -ge 200 ]"

t0=$(date +%s%N)
t_bg cj 400 "$la_tmp/collect.log" strace -f -c -o "$la_tmp/strace.txt" \
	-e trace=fdatasync,recvfrom -e inject=recvfrom:delay_exit=20000 \
	"$GR" collect "$NATS_URLS" --store "$COL"
if ls_wait_equal 300; then
	ok "drained ($((($(date +%s%N) - t0) / 1000000)) ms for $msgs messages)"
else
	bad drained "after 300 s" "$diff_out"
fi
check nothing-rejected "[ $(ls_cstat rejected) -eq 0 ]" \
	"$(cat "$COL"/.collect/stats.*)"
redel=$(nats_varz 0 "jsz?consumers=true" | "$PY" -c '
import json, sys
n = 0
for a in json.load(sys.stdin).get("account_details") or []:
    for s in a.get("stream_detail") or []:
        for c in s.get("consumer_detail") or []:
            n += c.get("num_redelivered", 0)
print(n)')
check "no-redelivery (${redel:-?})" "[ '${redel:-x}' = 0 ]" "$(ls_js_state)"

# the collector itself (strace's child) stops; strace then writes its count
sp=$(t_child "$cj")
kill -TERM "$(ps -o pid= --ppid "$sp" | head -n1)" 2>/dev/null
t_wait_pid "$cj" 15 || t_term_job "$cj" KILL
t_reap "$cj"
syncs=$(awk '$NF == "fdatasync" { print $4 }' "$la_tmp/strace.txt")
check "one-fdatasync-per-batch (${syncs:-none} for $msgs messages)" \
	"[ -n '$syncs' ] && [ $((syncs * 10)) -lt $msgs ]" \
	"$(cat "$la_tmp/strace.txt")"
la_end
