#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_cli.sh - every `guestrelay` command against the real agent
#
# Starts `guestrelay agent` with a temporary run directory and store, adds
# VMs, attaches fake guests (tests/fakeguest: the real guest relay code in
# userspace, over a real ivshmem socket or a /dev/shm file), and runs every
# CLI command, including the error cases, checking exit status and output.
# Prints "ok - NAME" or "FAIL - NAME" per case and ends with
# "N passed, N failed"; exits 1 if any case failed, 77 if it cannot run.
# Results, clean-up and the agent's start and stop come from the one shell
# library, tests/lib/lib.sh.
#
# Environment: BUILD (default TOP/build), GUESTRELAY and FAKEGUEST (the
# binaries), KEEP=1 keeps the temporary directory.

set -u

here=$(cd "$(dirname "$0")" && pwd)
for top in "$here/../.." "$here/../../.."; do
	[ -f "$top/host-agent/agent/agent.h" ] && break
done
top=$(cd "$top" && pwd)
BUILD=${BUILD:-$top/build}
GR=${GUESTRELAY:-$BUILD/host-agent/guestrelay}
FG=${FAKEGUEST:-}
if [ -z "$FG" ]; then
	for f in "$BUILD/tests/fakeguest" "$BUILD/tests/fakeguest/fakeguest"; do
		[ -f "$f" ] && [ -x "$f" ] && FG=$f && break
	done
fi

# shellcheck source=tests/lib/lib.sh
. "$top/tests/lib/lib.sh"
t_init test_cli
[ -x "$GR" ] || t_skip "no agent binary at $GR (make -C host-agent)"
[ -n "$FG" ] || t_skip "no fake guest under $BUILD/tests (make -C tests/fakeguest)"
command -v python3 >/dev/null || t_skip "python3 is needed to check JSON"
command -v timeout >/dev/null || t_skip "timeout(1) is needed"

t_tmpdir test_cli		# mode 755: another uid must reach the socket
tmp=$T_TMP
RUN=$tmp/run
STORE=$tmp/store
mkdir -p "$RUN" "$STORE"
chmod 755 "$RUN"
# VM names unique to this run: their shared memory is /dev/shm/guestrelay-VM
A=clia$$
B=clib$$
C=clic$$
agent_pid=
fg_pids=()

# the agent and the temporary directory are lib.sh's to end and remove
cleanup() {
	local p

	for p in "${fg_pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	for p in "${fg_pids[@]}"; do
		wait "$p" 2>/dev/null
	done
	t_agent_stop >/dev/null
	rm -f "/dev/shm/guestrelay-$A" "/dev/shm/guestrelay-$B" \
		"/dev/shm/guestrelay-$C"
}
t_defer cleanup

# bad NAME DETAIL...: a failed case (fail of lib.sh)
bad() {
	local name=$1

	shift
	fail "$name" "${1:-}" "${@:2}"
}

# run CMD...: sets $out, $err and $rc (30 s at most); "gr" is the CLI
# with this test's run directory
run() {
	if [ "$1" = gr ]; then
		shift
		set -- "$GR" --run-dir "$RUN" "$@"
	fi
	out=$(timeout 30 "$@" 2>"$tmp/stderr")
	rc=$?
	err=$(cat "$tmp/stderr")
}

# expect NAME STATUS REGEX CMD...: exit status and stdout+stderr matching
expect() {
	local name=$1 want=$2 re=$3

	shift 3
	run "$@"
	if [ "$rc" -eq "$want" ] && grep -qE -- "$re" <<<"$out$err"; then
		ok "$name"
	else
		bad "$name" "command: $*" "exit $rc, wanted $want" \
			"stdout: $out" "stderr: $err" "wanted: $re"
	fi
}

# expect_err NAME STATUS REGEX CMD...: a failure: nothing on stdout, the
# reason on stderr
expect_err() {
	local name=$1 want=$2 re=$3

	shift 3
	run "$@"
	if [ "$rc" -eq "$want" ] && [ -z "$out" ] &&
	   grep -qE -- "$re" <<<"$err"; then
		ok "$name"
	else
		bad "$name" "command: $*" "exit $rc, wanted $want" \
			"stdout: $out" "stderr: $err" "wanted on stderr: $re"
	fi
}

# check NAME CMD...: CMD succeeds
check() {
	local name=$1

	shift
	if "$@"; then
		ok "$name"
	else
		bad "$name" "failed: $*"
	fi
}

# wait_until SECS CMD...: poll CMD every 0.1 s
wait_until() {
	local i n=$(($1 * 10))

	shift
	for ((i = 0; i < n; i++)); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}

# jget EXPR: evaluate a Python expression over the JSON on stdin (as d)
jget() {
	python3 -c 'import json, sys
d = json.load(sys.stdin)
print(eval(sys.argv[1]))' "$1"
}

json_ok() {
	python3 -c 'import json, sys; json.load(sys.stdin)' 2>/dev/null
}

gr() {
	timeout 30 "$GR" --run-dir "$RUN" "$@"
}

vm_field() {		# vm_field VM FIELD
	gr status --json "$1" 2>/dev/null | jget "d['vms'][0]['$2']" 2>/dev/null
}

vm_is() {		# vm_is VM FIELD VALUE
	[ "$(vm_field "$1" "$2")" = "$3" ]
}

# every agent of this test logs into one file, read at the end
T_AGENT_LOGFILE=$tmp/agent.log

# start_agent [OPTS]: t_agent_start (it waits until the agent answers,
# also over a stale socket file); $agent_pid is the agent
start_agent() {
	t_agent_start "$@" 2>/dev/null
	local rc=$?

	agent_pid=$T_AGENT_PID
	return $rc
}

# stop_agent: SIGTERM; false if it had to be killed after 10 s;
# $agent_rc is its exit status
stop_agent() {
	t_agent_stop
	agent_rc=$?
	agent_pid=
	[ "$agent_rc" -ne 137 ]
}

start_guest() {		# start_guest LOG FAKEGUEST-OPTIONS...
	local log=$1

	shift
	"$FG" "$@" --quiet >"$tmp/$log" 2>&1 &
	fg_pids+=($!)
}

# ---- without an agent ------------------------------------------------------

expect "version" 0 '^guestrelay [0-9]' "$GR" --version
expect "help lists the commands" 0 'vm-add VM \[OPTION\.\.\.\]' "$GR" help
expect "help of one command" 0 '^usage: guestrelay snapshot VM' \
	"$GR" help snapshot
expect "help lists fleet and collect" 0 '^  fleet status URL' "$GR" help
expect "help of a command with its own options" 0 \
	'^usage: guestrelay fleet status' "$GR" help fleet
expect "help collect" 0 '^usage: guestrelay collect URL' "$GR" help collect
# a crash says where it happened (common/crash.c), and is still a crash:
# a collector waiting for a server that is not there takes a SIGSEGV
"$GR" collect nats://127.0.0.1:1 --store "$tmp/crash-col" \
	2>"$tmp/crash.err" &
crash_pid=$!
for i in $(seq 50); do
	grep -q "waiting for the stream" "$tmp/crash.err" && break
	sleep 0.1
done
kill -SEGV "$crash_pid"
wait "$crash_pid"
crash_rc=$?
if [ "$crash_rc" -eq 139 ] &&
	grep -q '^guestrelay: fatal signal 11 (SEGV), the stack that took it:$' \
		"$tmp/crash.err" &&
	grep -q 'guestrelay(collect_main+0x' "$tmp/crash.err"; then
	ok "a fatal signal is said with its stack, then taken (exit $crash_rc)"
else
	bad "a fatal signal is said with its stack, then taken" \
		"exit $crash_rc" "$(cat "$tmp/crash.err")"
fi
expect "--help after a command" 0 '^usage: guestrelay status' \
	"$GR" status --help
expect_err "no command is a usage error" 2 '^usage: guestrelay' "$GR"
expect_err "unknown command" 2 "unknown command 'frobnicate'" \
	"$GR" frobnicate
expect_err "unknown option" 2 "status has no option '--bogus'" \
	"$GR" status --bogus
expect_err "status without agent says how to start it" 1 \
	"cannot reach the agent at $RUN/agent.sock: No such file or directory \(is \`guestrelay agent\` running\?" \
	"$GR" --run-dir "$RUN" status
expect "qemu-args works without agent" 0 \
	"^-chardev socket,id=guestrelay-chr,path=$RUN/$A.sock -device ivshmem-doorbell,id=guestrelay,chardev=guestrelay-chr,vectors=2,ioeventfd=on$" \
	"$GR" --run-dir "$RUN" qemu-args "$A"
expect "qemu-args --plain" 0 \
	"mem-path=/dev/shm/guestrelay-$A,size=4M.*ivshmem-plain" \
	"$GR" qemu-args "$A" --plain --size 4M
run "$GR" qemu-args "$A" --json --id gr0
if [ "$rc" -eq 0 ] && json_ok <<<"$out" &&
   [ "$(jget 'd["args"][3]' <<<"$out")" = \
	"ivshmem-doorbell,id=gr0,chardev=gr0-chr,vectors=2,ioeventfd=on" ]; then
	ok "qemu-args --json"
else
	bad "qemu-args --json" "exit $rc" "$out" "$err"
fi
expect "libvirt-xml doorbell" 0 \
	"<server path='$RUN/$A.sock'/>" "$GR" --run-dir "$RUN" libvirt-xml "$A"
expect "libvirt-xml plain" 0 "<size unit='M'>4</size>" \
	"$GR" libvirt-xml "$A" --plain --size 4M
expect_err "libvirt-xml bad size" 2 "--size must be a power of two" \
	"$GR" libvirt-xml "$A" --plain --size 3M
expect_err "qemu-args bad VM name" 2 "'\.\./x': bad VM name" \
	"$GR" qemu-args ../x
# agent --vm takes vm-add's options through the one VM option parser:
# an out-of-range value is refused at start, not by the guest later
expect_err "agent --vm refuses a switch timer above 10 s at start" 2 \
	"--vm $A: --switch-timer-ms must be a number from 0 \(off\) to 10000, not '20000'" \
	"$GR" agent --run-dir "$tmp/run-bad" --store "$STORE" --vm "$A" \
	--switch-timer-ms 20000
expect_err "... also as a common option before --vm" 2 \
	"--vm $A: --switch-timer-ms must be a number" \
	"$GR" agent --run-dir "$tmp/run-bad" --store "$STORE" \
	--switch-timer-ms 20000 --vm "$A"
# one error, said once (by report.c, on stderr)
run "$GR" report "$tmp/none"
if [ "$rc" -eq 1 ] && [ -z "$out" ] &&
   [ "$err" = "error: $tmp/none: No such file or directory" ]; then
	ok "report of a missing trace says its one error once"
else
	bad "report of a missing trace says its one error once" \
		"exit $rc, wanted 1" "stdout: $out" "stderr: $err"
fi

# ---- the agent ---------------------------------------------------------------

if ! start_agent; then
	bad "agent starts" "$(cat "$tmp/agent.log")"
	finish
fi
ok "agent starts and creates its socket"
check "control socket is mode 0660" \
	test "$(stat -c %a "$RUN/agent.sock")" = 660

expect "ping" 0 "^guestrelay agent [0-9.]+, pid $agent_pid, up [0-9]+ s, 0 VMs$" \
	gr ping
run gr ping --json
if [ "$rc" -eq 0 ] && [ "$(jget 'd["pid"]' <<<"$out")" = "$agent_pid" ] &&
   [ "$(jget 'd["run_dir"]' <<<"$out")" = "$RUN" ]; then
	ok "ping --json"
else
	bad "ping --json" "exit $rc" "$out" "$err"
fi
expect "global options after the command" 0 "^guestrelay agent" \
	"$GR" ping --run-dir "$RUN"
expect "run dir from the environment" 0 "^guestrelay agent" \
	env GUESTRELAY_RUN_DIR="$RUN" "$GR" ping
expect "status without VMs" 0 '^no VMs \(add one with: guestrelay vm-add VM\)$' \
	gr status
expect "status --json without VMs" 0 '"vms": \[\]' gr status --json
expect_err "a second agent on the same run dir is refused" 1 \
	"another agent is listening on $RUN/agent.sock" \
	"$GR" agent --run-dir "$RUN" --store "$STORE"
check "... and the first one still answers" gr ping >/dev/null

# usage errors, found before the agent is asked
expect_err "mode without arguments" 2 "mode needs more arguments" gr mode
expect_err "mode with a bad word" 2 "mode is stream or flight, not 'turbo'" \
	gr mode "$A" turbo
expect_err "enable without events" 2 "enable needs more arguments" \
	gr enable "$A"
expect_err "status of two VMs" 2 "too many arguments" gr status "$A" "$B"
expect_err "vm-add without a name" 2 "vm-add needs a VM name" gr vm-add
expect_err "vm-add with a bad size" 2 \
	"--size must be a power of two from 64K to 1T \(e.g. 16M\), not '3M'" \
	gr vm-add "$A" --size 3M
expect_err "vm-add with an unknown option" 2 "vm-add has no option '--colour'" \
	gr vm-add "$A" --colour red
expect_err "vm-add with an unknown owner" 2 "no user named 'nosuchuser$$'" \
	gr vm-add "$A" --owner "nosuchuser$$"
expect_err "stop with a bad VM name" 2 "bad VM name" gr stop "a/b"

# errors from the agent
expect_err "status of an unknown VM" 1 \
	"^guestrelay: no VM named 'nosuch' \(guestrelay status lists them\)$" \
	gr status nosuch
expect_err "flush of an unknown VM" 1 "no VM named 'nosuch'" gr flush nosuch

# ---- a doorbell VM and its guest -----------------------------------------------

expect "vm-add (doorbell)" 0 \
	"^$A added: doorbell device, 16.0 MiB of shared memory, stream mode" \
	gr vm-add "$A" --events all
check "the VM's ivshmem socket exists" test -S "$RUN/$A.sock"
expect_err "vm-add of an existing VM" 1 \
	"a VM named '$A' exists already \(guestrelay vm-remove $A first\)" \
	gr vm-add "$A"
check "status before the guest: waiting" vm_is "$A" state waiting
expect_err "flush before the guest" 1 "$A has no guest attached" \
	gr flush "$A"

start_guest guest-a.log --socket "$RUN/$A.sock" --cpus 2 --rate 500
check "the guest attaches" wait_until 10 vm_is "$A" state attached
check "the guest records" wait_until 10 vm_is "$A" guest_state tracing

run gr status "$A"
if [ "$rc" -eq 0 ] &&
   grep -qx "$A" <<<"$out" &&
   grep -qE '^  state +attached, guest tracing$' <<<"$out" &&
   grep -qE '^  device +doorbell, QEMU connected$' <<<"$out" &&
   grep -qE '^  buffers +2 CPUs \(rings\) x [0-9]+ sub-buffers of' <<<"$out" &&
   grep -qE '^  mode +stream, records verified \(copy\), writes writev$' <<<"$out" &&
   grep -qE '^  events +fake_seq,fake_str,fake_ev2,fake_ev3$' <<<"$out" &&
   grep -qE '^  lost +full [0-9]+, too_big [0-9]+, nested [0-9]+ events; overwritten [0-9]+ sub-buffers$' <<<"$out" &&
   grep -qE '^  clock sync ' <<<"$out" &&
   grep -qE "^  session +$STORE/$A/" <<<"$out"; then
	ok "status shows the attached VM"
else
	bad "status shows the attached VM" "exit $rc" "$out" "$err"
fi
session1=$(vm_field "$A" session)
check "the session directory exists" test -d "$session1"

run gr status --json
if [ "$rc" -eq 0 ] && json_ok <<<"$out" &&
   [ "$(jget 'd["vms"][0]["connected"]' <<<"$out")" = True ] &&
   [ "$(jget 'd["vms"][0]["nr_rings"]' <<<"$out")" = 2 ] &&
   [ "$(jget 'd["vms"][0]["device"]' <<<"$out")" = doorbell ] &&
   [ "$(jget '",".join(d["vms"][0]["events"])' <<<"$out")" = \
	"fake_seq,fake_str,fake_ev2,fake_ev3" ]; then
	ok "status --json"
else
	bad "status --json" "exit $rc" "$out" "$err"
fi

expect_err "enable an unknown event" 1 \
	"unknown event 'nosuchevent' in $A \(available: .*fake_seq" \
	gr enable "$A" nosuchevent
expect "disable with a glob" 0 "^$A: disable fake_ev\* requested$" \
	gr disable "$A" 'fake_ev*'
check "... the guest applies it" \
	wait_until 5 vm_is "$A" events "['fake_seq', 'fake_str']"
expect "enable all" 0 "^$A: enable all requested$" gr enable "$A" all
check "... the guest applies it" wait_until 5 vm_is "$A" events \
	"['fake_seq', 'fake_str', 'fake_ev2', 'fake_ev3']"
run gr enable "$A" fake_ev2 --json
if [ "$rc" -eq 0 ] && json_ok <<<"$out" &&
   [ "$(jget 'd["enable"]' <<<"$out")" = "['fake_ev2']" ]; then
	ok "enable --json"
else
	bad "enable --json" "exit $rc" "$out" "$err"
fi

expect "flush" 0 "^$A: flush done$" gr flush "$A"
check "... packets are stored" test "$(vm_field "$A" stats | python3 -c \
	'import ast, sys; print(ast.literal_eval(sys.stdin.read())["packets"] > 0)')" = True

expect "mode flight" 0 "^$A: mode flight requested$" gr mode "$A" flight
check "... status shows it" vm_is "$A" mode flight
run gr snapshot "$A"
snap=$out
if [ "$rc" -eq 0 ] && [ -d "$snap" ] && [ -f "$snap/metadata" ]; then
	ok "snapshot prints the snapshot's trace directory"
else
	bad "snapshot prints the snapshot's trace directory" "exit $rc" \
		"$out" "$err"
fi
expect "report --summary of the snapshot" 0 "^total: [0-9]+ events" \
	gr report --summary "$snap"
run gr snapshot "$A" --json
if [ "$rc" -eq 0 ] && [ -d "$(jget 'd["snapshot"]' <<<"$out")" ]; then
	ok "snapshot --json"
else
	bad "snapshot --json" "exit $rc" "$out" "$err"
fi
expect "mode stream --json" 0 '"mode": "stream"' gr mode "$A" stream --json

run gr stop "$A"
trace=$out
if [ "$rc" -eq 0 ] && [ "$trace" = "$session1" ] && [ -f "$trace/metadata" ]
then
	ok "stop prints the finalized trace directory"
else
	bad "stop prints the finalized trace directory" "exit $rc" \
		"$out (session was $session1)" "$err"
fi
check "status: stopped by the user" vm_is "$A" stop_reason user
check "status: state stopped" vm_is "$A" state stopped
expect_err "stop of a stopped VM" 1 \
	"$A is stopped \(guestrelay start $A opens a new session\)" \
	gr stop "$A"

# report, on the finalized trace
run gr report "$trace"
if [ "$rc" -eq 0 ] && grep -qE '^ *[0-9]+ \[00[01]\] +[0-9]+\.[0-9]{9}: fake_seq: ' \
	<<<"$out"; then
	ok "report prints events"
else
	bad "report prints events" "exit $rc" "${out:0:2000}" "$err"
fi
run gr report --cpu 1 --events fake_seq "$trace"
if [ "$rc" -eq 0 ] && [ -n "$out" ] &&
   ! grep -v '^#' <<<"$out" | grep -qvE '^ *[0-9]+ \[001\] .*: fake_seq: '; then
	ok "report --cpu --events filters"
else
	bad "report --cpu --events filters" "exit $rc" "${out:0:2000}" "$err"
fi
expect "report --host-time" 0 '^ *[0-9]+ \[00[01]\] 1[0-9]{9}\.[0-9]{9}: fake_' \
	gr report --host-time "$trace"
expect "report --summary" 0 "^total: [0-9]+ events in [0-9]+ packets" \
	gr report --summary "$trace"
expect_err "report --json is refused" 2 "report prints text only" \
	gr report --json "$trace"
expect_err "report with an unknown event says it once" 1 \
	"^error: no event matches \"nosuchevent\" \(give names, systems or system:event\)\$" \
	gr report --events nosuchevent "$trace"

run gr start "$A"
if [ "$rc" -eq 0 ] && [ -d "$out" ] && [ "$out" != "$trace" ]; then
	ok "start prints the new session's directory"
else
	bad "start prints the new session's directory" "exit $rc" "$out" \
		"$err"
fi
check "... and the VM is attached again" vm_is "$A" state attached
expect_err "start of a running VM" 1 "$A is attached, not stopped" \
	gr start "$A"
run gr stop "$A" --json
if [ "$rc" -eq 0 ] && [ -d "$(jget 'd["trace"]' <<<"$out")" ]; then
	ok "stop --json"
else
	bad "stop --json" "exit $rc" "$out" "$err"
fi

# ---- a plain VM (no doorbells) -----------------------------------------------

expect "vm-add (plain, every option)" 0 \
	"^$B added: plain device, 4.0 MiB of shared memory, flight mode" \
	gr vm-add "$B" --plain --size 4M --mode flight --events fake_seq \
	--subbuf-size 16K --subbufs 8 --switch-timer-ms 200 --quota 64M
check "its /dev/shm file has the size" \
	test "$(stat -c %s "/dev/shm/guestrelay-$B" 2>/dev/null)" = 4194304
# spec 5.1 step 2: the host block is published with magic, then seq + 1
# (ctrl.seq is at GR_CTRL_OFFSET 0x1000 + 24, little-endian)
ctrl_seq=$(od -An -t u8 -j 4120 -N 8 "/dev/shm/guestrelay-$B" | tr -d ' ')
check "vm-add publishes the control block with seq 1 (was $ctrl_seq)" \
	test "$ctrl_seq" = 1
start_guest guest-b.log --shm "guestrelay-$B" --cpus 1 --rate 200
check "the plain guest attaches" wait_until 10 vm_is "$B" state attached
run gr status "$B"
if [ "$rc" -eq 0 ] && grep -qE '^  device +plain \(polled\)' <<<"$out" &&
   grep -qE '^  mode +flight, records verified \(copy\), writes writev$' <<<"$out" &&
   grep -qE '^  buffers +1 CPUs \(rings\) x 8 sub-buffers of 16.0 KiB$' \
	<<<"$out" &&
   grep -qE '^  quota +.* of 64.0 MiB used' <<<"$out"; then
	ok "status of the plain VM"
else
	bad "status of the plain VM" "exit $rc" "$out" "$err"
fi
check "its events are the ones asked for" \
	wait_until 5 vm_is "$B" events "['fake_seq']"
run gr snapshot "$B"
if [ "$rc" -eq 0 ] && [ -d "$out" ]; then
	ok "snapshot of the plain VM"
else
	bad "snapshot of the plain VM" "exit $rc" "$out" "$err"
fi

# ---- a hostile guest's strings ---------------------------------------------------

gr vm-add "$C" >/dev/null
start_guest guest-c.log --socket "$RUN/$C.sock" --cpus 1 --rate 100 \
	--hostile strings --hostile-delay 200 --hostile-period 300
saw_evil=0
all_valid=1
for ((i = 0; i < 40; i++)); do
	j=$(gr status --json "$C")
	json_ok <<<"$j" || { all_valid=0; echo "$j" >"$tmp/bad.json"; }
	t=$(gr status "$C")
	# no control character but newline may reach a terminal
	if LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' <<<"$t"; then
		all_valid=0
		echo "$t" >"$tmp/bad.txt"
	fi
	grep -q 'evil' <<<"$j" && saw_evil=1
	sleep 0.1
done
check "status --json stays valid JSON under hostile strings" \
	test "$all_valid" = 1
check "the hostile nodename was shown, escaped" test "$saw_evil" = 1

# ---- permissions ------------------------------------------------------------------

if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	expect_err "another user cannot use the 0660 socket" 1 \
		"cannot reach the agent at $RUN/agent.sock: Permission denied" \
		setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$GR" --run-dir "$RUN" ping
else
	echo "(skipped the permission case: needs root and setpriv)"
fi

# ---- the raw protocol ---------------------------------------------------------------

raw() {		# raw BYTES-AS-PYTHON-LITERAL: send, print the answer
	python3 - "$RUN/agent.sock" "$1" <<'EOF'
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(10)
s.connect(sys.argv[1])
try:
    s.sendall(eval(sys.argv[2]))
except OSError:
    pass
a = b""
while True:
    try:
        b = s.recv(65536)
    except ConnectionResetError:
        break
    if not b:
        break
    a += b
sys.stdout.write(a.decode("utf-8", "replace"))
EOF
}
check "raw: percent-encoded arguments" \
	test "$(raw "b'text enable $A fake%5Fseq\\n'")" = \
	"$(printf 'ok\n%s: enable fake_seq requested' "$A")"
check "raw: an encoded newline is refused" \
	grep -q '^error EINVAL malformed request: argument 2 after the command' \
	<<<"$(raw "b'text enable $A fake%0Aseq\\n'")"
check "raw: a line over 8 KiB is refused" \
	test "$(raw "b'text status ' + b'a' * 9000 + b'\\n'")" = \
	"error EMSGSIZE request longer than 8192 bytes"
check "raw: unknown format" \
	grep -q "^error EINVAL unknown format 'yaml'" \
	<<<"$(raw "b'yaml ping\\n'")"

# ---- removal, shutdown, restart ------------------------------------------------------

expect "vm-remove" 0 "^$A removed$" gr vm-remove "$A"
check "its ivshmem socket is gone" test ! -e "$RUN/$A.sock"
expect_err "status of the removed VM" 1 "no VM named '$A'" gr status "$A"
run gr vm-remove "$B" --json
if [ "$rc" -eq 0 ] && [ "$(jget 'd["removed"]' <<<"$out")" = True ]; then
	ok "vm-remove --json"
else
	bad "vm-remove --json" "exit $rc" "$out" "$err"
fi

for p in "${fg_pids[@]}"; do
	kill "$p" 2>/dev/null
	wait "$p" 2>/dev/null
done
fg_pids=()
check "SIGTERM stops the agent within 10 s" stop_agent
check "... with status 0" test "${agent_rc:-1}" = 0
check "... and removes its socket" test ! -e "$RUN/agent.sock"

# a socket left behind by a killed agent is replaced
check "a restarted agent starts" start_agent
t_agent_kill9
agent_pid=
check "a killed agent leaves its socket" test -S "$RUN/agent.sock"
check "a new agent replaces the stale socket" start_agent
expect "... and answers" 0 "^guestrelay agent" gr ping
check "... and stops" stop_agent

# an agent built with sanitizers (GUESTRELAY=...) reports into its log
if grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$tmp/agent.log"
then
	bad "the agent's log has no sanitizer report" \
		"$(grep -A20 -E 'Sanitizer|runtime error:' "$tmp/agent.log")"
else
	ok "the agent's log has no sanitizer report"
fi

finish
