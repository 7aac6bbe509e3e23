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

# qmp_ask SOCK COMMAND: QEMU's "return" to COMMAND, as JSON, on stdout
qmp_ask() {
	"$PY" - "$1" "$2" <<'EOF'
import json, socket, sys
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
f.write(json.dumps({"execute": sys.argv[2]}) + "\n"); f.flush()
print(json.dumps(answer().get("return")))
EOF
}

la_agent_start || la_skip "agent did not start"
la_vm vm hqmp
gr vm-add "$vm" || bad vm-add "exit $rc: $err"
read -r -a dev <<<"$("$GR" --run-dir "$RUN" qemu-args "$vm")"
qmp=$la_tmp/qmp.sock
base=(-S -nodefaults -display none -m 64 -accel tcg,thread=multi -smp 2
      "${dev[@]}")
t_bg q1 60 "$la_tmp/qemu1.log" "$QEMU" "${base[@]}" \
	-qmp "unix:$qmp,server=on,wait=off"
if ! la_wait_status "$vm" "len(s['host']['vcpus']) == 2" 20; then
	bad vcpus-found "status: $out; qemu: $(cat "$la_tmp/qemu1.log")"
	la_end
fi
ok vcpus-found
agent=$(echo "$out" | "$PY" -c 'import json,sys; h=json.load(sys.stdin)["host"]; print(json.dumps({"pid": h["qemu_pid"], "from": h["vcpus_from"], "threading": h["threading"], "tids": {str(v["vcpu"]): v["tid"] for v in h["vcpus"]}}))')
qpid=$("$PY" -c 'import json,sys; print(json.loads(sys.argv[1])["pid"])' "$agent")
check qemu-pid "[ \"\$(readlink /proc/$qpid/exe)\" = \"\$(readlink -f \"\$(command -v \"$QEMU\")\")\" ]" \
	"pid $qpid is not $QEMU"
check from-qmp "\"$PY\" -c 'import json,sys; a=json.loads(sys.argv[1]); sys.exit(a[\"from\"] != \"qmp\" or a[\"threading\"] != \"multi\")' '$agent'" \
	"$agent"
# no thread is named as a vCPU: the names did not find them
names=$(cat /proc/"$qpid"/task/*/comm 2>/dev/null | grep -c '^CPU ')
check no-vcpu-names "[ \"$names\" = 0 ]" "$names threads named CPU n/..."

cpus=$(qmp_ask "$qmp" query-cpus-fast) || bad qmp-ask "no answer"
if "$PY" - "$agent" "$cpus" <<'EOF'
import json, sys
a = json.loads(sys.argv[1])["tids"]
q = {str(c["cpu-index"]): c["thread-id"] for c in json.loads(sys.argv[2])}
print("agent", a, "qemu", q)
sys.exit(0 if a == q and len(q) == 2 and len(set(q.values())) == 2 else 1)
EOF
then
	ok tids-are-qemus
else
	bad tids-are-qemus "agent $agent, QEMU $cpus"
fi
gr status "$vm" || bad status-text "exit $rc: $err"
check status-text "grep -q 'from QMP' <<<\"\$out\"" "$out"
n=$(grep -c 'from QMP query-cpus-fast' "$LA_AGENT_LOG")
check said-once "[ \"$n\" = 1 ]" "said $n times"

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
