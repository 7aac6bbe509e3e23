#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_host_chunks.sh - the host stream (host-agent/agent/hosttrace.c) of
# a session kept in chunks: it follows the chunks
#
# A real agent and a fake "QEMU" (fakeguest --vcpu-threads 2: two spinning
# threads named "CPU 0/TCG" and "CPU 1/TCG"), as test_host_steal.sh. The
# VM has no rotation option: its session is one directory with host/
# until `guestrelay rotate` makes it chunk 0 (host/ moves with the root
# files); a second rotate closes chunk 1, and the session's end chunk 2.
# Then
#   - the session's root holds no host/ any more, each closed chunk a
#     host/ with metadata, .guestrelay and stream files that babeltrace2
#     reads alone, all three with the same trace UUID
#   - babeltrace2 reads the three host/ together as one trace, without a
#     warning (no discarded packets: packet_seq_num goes on across the
#     seams) when the kernel lost no event
#   - the scheduler's events of the chunks, per host CPU, follow each
#     other in time across the seams, and their sum is the one reading's
#     and the count the agent logs for the session (none lost or stored
#     twice); each chunk has a state dump of QEMU's threads
#   - `guestrelay steal CHUNK` and `guestrelay report --host CHUNK` read
#     one chunk (its guest trace and host/); on the whole session
#     directory they say to name a chunk
# Needs what test_host_steal.sh needs (root, tracefs, 2 CPUs).

set -u
. "$(dirname "$0")/lib_agent.sh"
la_init test_host_chunks
la_host_stream_needs

la_agent_start || { bad agent-starts "see the log"; la_show_logs; la_finish; }
la_vm vm hch
gr vm-add "$vm" --events all || bad vm-add "exit $rc: $err"
t_bg fg 60 "$la_tmp/fg.log" "$FG" --socket "$RUN/$vm.sock" --cpus 1 \
	--rate 100 --duration 60 --linger 3 --vcpu-threads 2
if ! la_wait_status "$vm" "s['state'] == 'attached' and len(s['host']['vcpus']) == 2" 20; then
	bad vcpus-found "status: $out"
	la_end
fi
ok vcpus-found
sess=$(la_sessions "$vm" | tail -n 1)
for _ in $(seq 50); do
	[ -s "$sess/host/metadata" ] && break
	sleep 0.1
done
check host-stream-before-chunks "[ -s '$sess/host/metadata' ]" "$(ls -a "$sess")"
if la_wait_status "$vm" "s['host_stream']['state'] == 'on' and s['host_stream']['events'] > 0" 10; then
	ok host-stream-on-status
else
	bad host-stream-on-status "status: $out"
fi
sleep 1.5
gr rotate "$vm"
check rotate-makes-chunk-0 "[ $rc -eq 0 ] && grep -q '/archives/.*-0\$' <<<\"\$out\"" \
	"rc $rc: $out $err"
sleep 1.5
gr rotate "$vm"
check rotate-closes-chunk-1 "[ $rc -eq 0 ] && grep -q '/archives/.*-1\$' <<<\"\$out\"" \
	"rc $rc: $out $err"
sleep 1.5
kill -TERM "$(t_child "$fg")" 2>/dev/null
la_wait_fg "$fg" 30
la_wait_status "$vm" "s['state'] == 'waiting'" 15

mapfile -t ch < <(ls -d "$sess"/archives/*-*-* 2>/dev/null |
	awk -F- '{ print $NF " " $0 }' | sort -n | cut -d" " -f2-)
check three-chunks "[ ${#ch[@]} = 3 ] && [ ! -e '$sess/host' ]" \
	"$(ls -a "$sess" "$sess/archives" 2>&1)"
nbad=0
for c in "${ch[@]}"; do
	if ! [ -s "$c/host/metadata" ] || ! [ -s "$c/host/.guestrelay" ] ||
	   ! ls "$c/host"/stream_* >/dev/null 2>&1 || ! la_bt "$c/host"; then
		bad "chunk-host-alone $(basename "$c")" "$(ls -a "$c/host" 2>&1) ${bt_out:-}"
		nbad=$((nbad + 1))
	fi
done
check each-chunk-host-read-alone "[ $nbad = 0 ]" "$nbad of ${#ch[@]}"
n=$(for c in "${ch[@]}"; do grep -o 'uuid = "[^"]*"' "$c/host/metadata" | head -n 1; done | sort -u | wc -l)
check same-uuid-in-every-chunk "[ '$n' = 1 ]" "$n UUIDs"

read -r events lost < <(sed -n "s/.*$vm: host stream closed: \([0-9]*\) events, \([0-9]*\) lost.*/\1 \2/p" \
	"$LA_AGENT_LOG" | tail -n 1)
hosts=()
for c in "${ch[@]}"; do hosts+=("$c/host"); done
if [ "${lost:-1}" = 0 ]; then
	if la_bt_clean "${hosts[@]}"; then ok chunks-read-as-one; else bad chunks-read-as-one "$bt_out"; fi
elif la_bt "${hosts[@]}"; then
	ok "chunks-read-as-one (the kernel lost ${lost:-?} events: not checked silent)"
else
	bad chunks-read-as-one "$bt_out"
fi

verdict=$("$PY" - "${events:-x}" "${hosts[@]}" <<'PYEOF'
import re, subprocess, sys
line = re.compile(r"^\[(\d+)\] (?:\S+ )?(\w+): \{ cpu_id = (\d+) \}")
def read(*dirs):
    out = subprocess.run(["babeltrace2", "--clock-cycles", "--no-delta",
                          *dirs], capture_output=True, text=True,
                         timeout=60).stdout
    ev = []
    for l in out.splitlines():
        m = line.match(l)
        if m:
            ev.append((int(m.group(3)), int(m.group(1)), m.group(2), l))
    return ev
chunks = [read(d) for d in sys.argv[2:]]
one = read(*sys.argv[2:])
sched = lambda ev: [e for e in ev if e[2].startswith("sched_")]
n = [len(sched(ev)) for ev in chunks]
dumps = [sum(1 for e in ev if e[2] == "lttng_statedump_process_state")
         for ev in chunks]
print("# scheduler events per chunk %s (one reading %d, the agent %s); "
      "state dumps per chunk %s" % (n, len(sched(one)), sys.argv[1], dumps))
print("OK" if sum(n) == len(sched(one)) and str(sum(n)) == sys.argv[1]
      and all(n) else "FAIL counts %s, one reading %d, agent %s" %
      (n, len(sched(one)), sys.argv[1]))
# per host CPU, the chunks' events in time order across the seams; none
# of a chunk's last events repeated at the next one's start
last, back, again = {}, [], []
for k, ev in enumerate(chunks):
    for cpu, ts, name, text in ev:
        if cpu in last and ts < last[cpu][0]:
            back.append((k, cpu, last[cpu][0], ts))
        if (cpu in last and last[cpu][2] != k and text == last[cpu][1]
                and name.startswith("sched_")):
            again.append((k, text))
        last[cpu] = (ts, text, k)
print("OK" if not back and not again
      else "FAIL backwards %s, repeated %s" % (back[:3], again[:3]))
print("OK" if all(dumps) else "FAIL state dumps per chunk %s" % dumps)
PYEOF
)
grep '^#' <<<"$verdict"
mapfile -t res < <(grep -v '^#' <<<"$verdict")
check sched-events-each-once "[ \"\${res[0]:-}\" = OK ]" "${res[0]:-}"
check seams-in-time-order "[ \"\${res[1]:-}\" = OK ]" "${res[1]:-}"
check state-dump-per-chunk "[ \"\${res[2]:-}\" = OK ]" "${res[2]:-}"

# one chunk is a whole trace: steal and report --host read it
for k in 0 1; do
	gr steal --json "${ch[$k]}"
	v=$("$PY" -c 'import json,sys; print(sorted(x["vcpu"] for x in json.loads(sys.argv[1])["vcpus"]))' "$out" 2>/dev/null)
	check "steal-chunk-$k" "[ $rc = 0 ] && [ '$v' = '[0, 1]' ]" "rc $rc, vCPUs $v: $err"
done
gr report --host --summary "${ch[1]}"
check report-host-chunk "[ $rc = 0 ] && grep -q '^  vCPU 0 ' <<<\"\$out\"" "rc $rc: $out $err"
gr steal "$sess"
check steal-session-names-chunks "[ $rc = 1 ] && grep -q 'kept in chunks' <<<\"\$err\"" "rc $rc: $err"
gr report --host "$sess"
check report-host-session-names-chunks "[ $rc = 1 ] && grep -q 'kept in chunks' <<<\"\$err\"" "rc $rc: $err"

# --host-stream off: the same fake QEMU, no host/ and nothing logged; its
# vCPU threads are still found and their steal still counted (vcpu.c)
la_vm off hoff
gr vm-add "$off" --events all --host-stream off || bad vm-add-host-stream-off "exit $rc: $err"
t_bg fg2 30 "$la_tmp/fg2.log" "$FG" --socket "$RUN/$off.sock" --cpus 1 \
	--rate 100 --duration 3 --linger 1 --vcpu-threads 2
if la_wait_status "$off" "s['state'] == 'attached' and len(s['host']['vcpus']) == 2 and s['host_stream']['state'] == 'off'" 20; then
	ok host-stream-off-status
else
	bad host-stream-off-status "status: $out"
fi
sess2=$(la_sessions "$off" | tail -n 1)
gr status "$off"
check host-stream-off-text "grep -q '^  host stream   off\$' <<<\"\$out\"" "$out"
la_wait_fg "$fg2" 30
check host-stream-off-no-dir "[ -n '$sess2' ] && [ -s '$sess2/metadata' ] && [ ! -e '$sess2/host' ]" \
	"$(ls -a "$sess2" 2>&1)"
check host-stream-off-not-logged "! grep -q '$off: .*host stream' '$LA_AGENT_LOG'" \
	"$(grep "$off: .*host stream" "$LA_AGENT_LOG")"
la_end
