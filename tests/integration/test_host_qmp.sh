#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_host_qmp.sh - QEMU's vCPU threads asked of its QMP monitor
# (host-agent/agent/vcpu_qmp.c) when QEMU names none, with a real
# qemu-system-x86_64 and a real agent
#
# QEMU runs without -name ...,debug-threads=on (its threads have no vCPU
# names), stopped (-S: no guest code runs), multi-threaded TCG with 2
# vCPUs, a QMP monitor on a unix socket, and the VM's ivshmem-doorbell
# device (`guestrelay qemu-args`) on the agent's socket, so the agent
# takes its pid for the VM's QEMU (SO_PEERCRED). Then
#   - status --json lists 2 vCPUs, "vcpus_from": "qmp", threading
#     "multi", and their thread ids are those QEMU itself answers to
#     query-cpus-fast (asked by this test after the agent's exchange:
#     QMP serves one client at a time, a second waits for the first)
#   - the text status says "from QMP"; the agent's log says it once
# This test then holds the monitor (a client of its own) and hot-plugs a
# third vCPU through it: the agent's next scan sees a new thread, asks
# QMP, gets no greeting within its budget: status says "qmp_error"
# (timed out), the 2 vCPUs stay, the log says why once; the test lets
# the monitor go and the agent's retry finds 3 vCPUs, QEMU's own.
# QEMU is then quit (QMP "quit") and started again without a QMP
# monitor on the same VM: the new pid is followed, no vCPU is listed,
# threading "unnamed", "qmp_error" set, and the log says once that this
# QEMU has no QMP monitor.
# Needs qemu-system-x86_64 with ivshmem-doorbell; otherwise skipped.

set -u
. "$(dirname "$0")/lib_agent.sh"
la_init test_host_qmp

QEMU=${QEMU:-qemu-system-x86_64}
command -v "$QEMU" >/dev/null || la_skip "no $QEMU"
"$QEMU" -device help 2>/dev/null | grep -q '"ivshmem-doorbell"' ||
	la_skip "$QEMU has no ivshmem-doorbell"

# qmp_ask SOCK COMMAND [ARGUMENTS [HOLD]]: QEMU's "return" to COMMAND
# (ARGUMENTS: a JSON object), as JSON on stdout; the monitor is held HOLD
# seconds more
qmp_ask() {
	"$PY" - "$@" <<'EOF'
import json, socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.settimeout(10)
s.connect(sys.argv[1])
f = s.makefile("rw")
def answer():
    while True:
        m = json.loads(f.readline())
        if "return" in m or "error" in m:
            return m
json.loads(f.readline())		# the greeting
f.write('{"execute": "qmp_capabilities"}\n'); f.flush()
answer()
cmd = {"execute": sys.argv[2]}
if len(sys.argv) > 3:
    cmd["arguments"] = json.loads(sys.argv[3])
f.write(json.dumps(cmd) + "\n"); f.flush()
print(json.dumps(answer()), flush=True)
if len(sys.argv) > 4:
    time.sleep(float(sys.argv[4]))
EOF
}

# same_tids STATUS ANSWER: the status' vCPU tids are QEMU's answer to
# query-cpus-fast
same_tids() {
	"$PY" - "$1" "$2" <<'EOF'
import json, sys
a = {str(v["vcpu"]): v["tid"] for v in json.loads(sys.argv[1])["host"]["vcpus"]}
q = {str(c["cpu-index"]): c["thread-id"] for c in json.loads(sys.argv[2])["return"]}
print("agent", a, "qemu", q)
sys.exit(0 if a == q and len(set(q.values())) == len(q) else 1)
EOF
}

la_agent_start || { bad agent-starts "see the log"; la_show_logs; la_finish; }
la_vm vm hqmp
gr vm-add "$vm" || bad vm-add "exit $rc: $err"
read -r -a dev <<<"$("$GR" --run-dir "$RUN" qemu-args "$vm")"
qmp=$la_tmp/qmp.sock
base=(-S -nodefaults -display none -m 64 -accel tcg,thread=multi
      -smp 2,maxcpus=3,sockets=3,cores=1,threads=1 "${dev[@]}")
t_bg q1 60 "$la_tmp/qemu1.log" "$QEMU" "${base[@]}" \
	-qmp "unix:$qmp,server=on,wait=off"
if ! la_wait_status "$vm" "len(s['host']['vcpus']) == 2" 20; then
	bad vcpus-found "status: $out; qemu: $(cat "$la_tmp/qemu1.log")"
	la_end
fi
ok vcpus-found
status=$out
agent=$(echo "$out" | "$PY" -c 'import json,sys; h=json.load(sys.stdin)["host"]; print(json.dumps({"pid": h["qemu_pid"], "from": h["vcpus_from"], "threading": h["threading"]}))')
qpid=$("$PY" -c 'import json,sys; print(json.loads(sys.argv[1])["pid"])' "$agent")
check qemu-pid "[ \"\$(readlink /proc/$qpid/exe)\" = \"\$(readlink -f \"\$(command -v \"$QEMU\")\")\" ]" \
	"pid $qpid is not $QEMU"
check from-qmp "\"$PY\" -c 'import json,sys; a=json.loads(sys.argv[1]); sys.exit(a[\"from\"] != \"qmp\" or a[\"threading\"] != \"multi\")' '$agent'" \
	"$agent"
# no thread is named as a vCPU: the names did not find them
names=$(cat /proc/"$qpid"/task/*/comm 2>/dev/null | grep -c '^CPU ')
check no-vcpu-names "[ \"$names\" = 0 ]" "$names threads named CPU n/..."

cpus=$(qmp_ask "$qmp" query-cpus-fast) || bad qmp-ask "no answer"
if same_tids "$status" "$cpus"; then
	ok tids-are-qemus
else
	bad tids-are-qemus "agent $status, QEMU $cpus"
fi
gr status "$vm" || bad status-text "exit $rc: $err"
check status-text "grep -q 'from QMP' <<<\"\$out\"" "$out"
n=$(grep -c 'from QMP query-cpus-fast' "$LA_AGENT_LOG")
check said-once "[ \"$n\" = 1 ]" "said $n times"

# a third vCPU hot-plugged while this test holds the monitor 8 s
cpu2='{"driver": "qemu64-x86_64-cpu", "id": "cpu2", "socket-id": 2, "core-id": 0, "thread-id": 0}'
t_bg holder 30 "$la_tmp/holder.log" bash -c \
	"$(declare -f qmp_ask); PY=$PY; qmp_ask $qmp device_add '$cpu2' 8"
if la_wait_status "$vm" "s['host']['qmp_error'] and len(s['host']['vcpus']) == 2" 12; then
	ok busy-said
else
	bad busy-said "status: $out; holder: $(cat "$la_tmp/holder.log")"
fi
t_wait_pid "$holder" 20
check hotplugged "grep -q '\"return\": {}' '$la_tmp/holder.log'" \
	"holder: $(cat "$la_tmp/holder.log")"
if la_wait_status "$vm" "not s['host']['qmp_error'] and len(s['host']['vcpus']) == 3" 30; then
	ok hotplug-found
else
	bad hotplug-found "status: $out"
fi
status=$out
cpus=$(qmp_ask "$qmp" query-cpus-fast) || bad qmp-ask "no answer"
if same_tids "$status" "$cpus"; then
	ok hotplug-tids-are-qemus
else
	bad hotplug-tids-are-qemus "agent $status, QEMU $cpus"
fi
n=$(grep -c 'did not answer within' "$LA_AGENT_LOG")
check busy-said-once "[ \"$n\" = 1 ]" "said $n times"

# QEMU quits; another starts without QMP: the new pid, nothing listed
qmp_ask "$qmp" quit >/dev/null || bad quit "no answer"
t_wait_pid "$q1" 10 || bad quit "QEMU still runs"
t_bg q2 60 "$la_tmp/qemu2.log" "$QEMU" "${base[@]}"
if la_wait_status "$vm" "s['host']['qemu_pid'] not in (0, $qpid) and s['host']['threading'] == 'unnamed'" 20; then
	ok restart-unnamed
else
	bad restart-unnamed "status: $out; qemu: $(cat "$la_tmp/qemu2.log")"
fi
check restart-no-vcpus "\"$PY\" -c 'import json,sys; h=json.loads(sys.argv[1])[\"host\"]; sys.exit(bool(h[\"vcpus\"]) or not h[\"qmp_error\"])' '$out'" \
	"$out"
sleep 6		# another scan: said once only
n=$(grep -c 'has no QMP monitor' "$LA_AGENT_LOG")
check no-qmp-said-once "[ \"$n\" = 1 ]" "said $n times"
t_term_job "$q2"
la_end
