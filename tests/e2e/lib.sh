# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2015,SC2034 # "A && ok || fail": ok always succeeds; globals used by tests/lib/lib.sh
#
# lib.sh - shared code of guestrelay's end-to-end tests (sourced, not run)
#
# The end-to-end tests boot the real test guest (build/guest: Debian's
# kernel, a busybox initramfs and guestrelay.ko) under QEMU TCG, wired to
# the real agent (build/host-agent/guestrelay), and check what the agent
# stored against an independent view (babeltrace2, ftrace in the guest,
# the guest console).
#
# A test sources this file, calls e2e_init [bt2], then:
#   start_agent [AGENT OPTIONS]          agent with this test's run/store dirs
#   vm=$(vm_name SUFFIX)                 a VM name unique to this run
#   boot_guest VM [launch-guest.sh OPTIONS]   QEMU in the background
#   wait_console VM REGEX SECONDS        wait for a line on VM's serial log
#   wait_guest VM / guest_ran VM SCRIPT  wait for QEMU to leave
#   qemu_pid VM                          VM's QEMU, if still running
#   gr ARGS / json_get VM EXPR           the CLI; a `status --json` value
#   mark_time VM WHAT                    guest time of "GR: MARK WHAT NS"
#   trace_dirs VM / newest_trace VM / snapshot_dirs VM   what was stored
#   check_console VM [UNTIL_REGEX]       no WARNING:/BUG:/Oops/Call Trace
#   check_trace DIR LABEL                babeltrace2 reads it, counts agree
#   check_no_loss DIR LABEL              no lost packet, discard, damage
#   count_events DIR EVENT [CPU] / event_times DIR EVENT [--host-time]
#   check_workload_trace VM              the checks after /gr/e2e-workload
#   ok NAME / fail NAME WHY [DETAIL...] / skip_check NAME WHY / note TEXT
#   take_checks OUT RC WHAT              count the ok/FAIL lines a helper
#                                        (python3) printed to OUT
#   finish                               closing line and exit status
# Every process started here is recorded by PID and stopped by cleanup()
# (an EXIT trap), which also removes the VMs' /dev/shm/guestrelay-* files
# and the temporary directory (kept with GR_KEEP=1).
#
# Environment: BUILD (default TOP/build), GUESTRELAY (the agent binary),
# GR_GUEST (vmlinux + initrd.cpio.gz), GR_KEEP=1, GR_BOOT_TIMEOUT (seconds
# a guest may take to be ready, default 240), GR_QEMU_TIMEOUT (seconds
# one QEMU may run, default GR_BOOT_TIMEOUT + 75).

set -u

# shellcheck source=tests/lib/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/lib.sh"

E2E_NAME=$(basename "$0" .sh)
E2E_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${BUILD:-$E2E_TOP/build}
GR=${GUESTRELAY:-$BUILD/host-agent/guestrelay}
GUEST_DIR=${GR_GUEST:-$BUILD/guest}
LAUNCH=$E2E_TOP/scripts/launch-guest.sh
# a TCG boot on a loaded host: up to BOOT_TIMEOUT s before the guest is
# ready (0: wait_console counts from its call), then the test's own bounds
BOOT_TIMEOUT=${GR_BOOT_TIMEOUT:-240}
QEMU_TIMEOUT=${GR_QEMU_TIMEOUT:-$((BOOT_TIMEOUT + 75))}

tmp=""
RUN=""
STORE=""
AGENT_PID=""
E2E_VMS=()
declare -A LAUNCH_PID=()

# e2e_skip WHY: the whole test cannot run here
e2e_skip() {
	t_skip "$@"
}

# ---- set-up and clean-up -------------------------------------------------

# e2e_init [bt2]: check what the tests need, make the temporary dirs,
# install the clean-up trap. "bt2" also requires python3's bt2 module.
e2e_init() {
	local need_bt2=${1:-}

	t_init "$E2E_NAME"
	command -v qemu-system-x86_64 >/dev/null ||
		e2e_skip "qemu-system-x86_64 not found (scripts/deps.sh guest)"
	command -v timeout >/dev/null || e2e_skip "timeout(1) not found"
	command -v babeltrace2 >/dev/null ||
		e2e_skip "babeltrace2 not found (scripts/deps.sh)"
	command -v python3 >/dev/null || e2e_skip "python3 not found"
	[ -x "$GR" ] || e2e_skip "no agent binary at $GR (make host)"
	[ -s "$GUEST_DIR/vmlinux" ] && [ -s "$GUEST_DIR/initrd.cpio.gz" ] ||
		e2e_skip "no test guest in $GUEST_DIR (make guest)"
	[ -d /dev/shm ] && [ -w /dev/shm ] || e2e_skip "/dev/shm is not writable"
	if [ "$need_bt2" = bt2 ]; then
		/usr/bin/python3 -c 'import bt2' 2>/dev/null ||
			e2e_skip "python3-bt2 not installed"
	fi
	t_tmpdir "gr-$E2E_NAME"
	tmp=$T_TMP
	# the agent and the CLI from a private copy: a rebuild of the tree
	# while the test runs must not pull the binary away under it
	cp "$GR" "$tmp/guestrelay" || e2e_skip "cannot copy $GR"
	GR=$tmp/guestrelay
	RUN=$tmp/run
	STORE=$tmp/store
	T_AGENT_LOGFILE=$tmp/agent.log
	mkdir -p "$RUN" "$STORE"
	t_defer e2e_cleanup
}

# is_our_qemu PID VM: PID is a QEMU process serving VM (pids get reused)
is_our_qemu() {
	local cmd

	[ -r "/proc/$1/cmdline" ] || return 1
	cmd=$(tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null)
	case "$cmd" in
	qemu-system-*"$2"*) return 0 ;;
	esac
	return 1
}

# qemu_pid VM: the PID of VM's QEMU (from its -pidfile), empty if gone
qemu_pid() {
	local f=$tmp/$1.qemu.pid pid

	[ -s "$f" ] || return 0
	pid=$(cat "$f" 2>/dev/null)
	is_our_qemu "$pid" "$1" && echo "$pid"
	return 0
}

# shellcheck disable=SC2317 # run at exit (t_defer)
e2e_cleanup() {
	local vm pid

	for vm in "${E2E_VMS[@]}"; do
		pid=$(qemu_pid "$vm")
		[ -n "$pid" ] && stop_pid "$pid" 3
		pid=${LAUNCH_PID[$vm]:-}
		if [ -n "$pid" ]; then
			stop_pid "$pid" 3
			wait "$pid" 2>/dev/null
		fi
	done
	t_agent_stop
	for vm in "${E2E_VMS[@]}"; do
		rm -f "/dev/shm/guestrelay-$vm"
	done
}

# ---- the agent ------------------------------------------------------------

# gr ARGS...: the CLI against this test's agent (30 s at most)
gr() {
	timeout 30 "$GR" --run-dir "$RUN" --timeout 20 "$@"
}

# host_tracefs: the host stream (hosttrace.c) reads the sched events' id
# and format from tracefs; where the host has it mounted in neither of
# its usual places, mount it on $RUN/tracefs, where the agent looks
# first (unmounted at exit). Before start_agent.
host_tracefs() {
	local d

	for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		[ -r "$d/events/sched/sched_switch/id" ] && return 0
	done
	mkdir -p "$RUN/tracefs"
	if mount -t tracefs nodev "$RUN/tracefs" 2>/dev/null; then
		t_defer "umount -l '$RUN/tracefs'"
	else
		note "cannot mount tracefs: no host stream"
	fi
}

# start_agent [OPTIONS]: start `guestrelay agent` for this test
start_agent() {
	if ! t_agent_start "$@"; then
		fail "agent starts" "no answer to ping" \
			"$(tail -n 20 "$tmp/agent.log")"
		finish
	fi
	AGENT_PID=$T_AGENT_PID
}

agent_alive() {
	t_agent_alive
}

# vm_name SUFFIX: a name no other test or run uses; registered for clean-up
vm_name() {
	echo "e2e$$$1"
}

# json_get VM EXPR: evaluate the python expression EXPR over the VM's
# `status --json` object `v` (e.g. 'v["stats"]["packets"]'); lists are
# printed comma separated
json_get() {
	gr status --json "$1" 2>/dev/null | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
v = d["vms"][0] if "vms" in d else d
r = eval(sys.argv[1])
print(",".join(map(str, r)) if isinstance(r, list) else r)
' "$2"
}

# ---- guests -----------------------------------------------------------------

# boot_guest VM [OPTIONS]: boot the test guest in the background through
# scripts/launch-guest.sh (OPTIONS are its options, not "--"), under
# timeout(1); the serial console goes to $tmp/VM.console. The VM is
# added to the agent by launch-guest.sh (pass --vm-args for vm-add).
# QEMU_EXTRA (an array, empty by default) adds QEMU arguments, such as a
# -qmp socket.
QEMU_EXTRA=()
# Single-threaded TCG, for a reason that is QEMU's (issue 27): under
# multi-threaded TCG a vCPU can keep executing a stale translation of
# kernel text another vCPU patched (jump labels, kprobes), and loops on an
# int3 that is no longer in memory; it froze 1 boot in 110 under load,
# once before guestrelay.ko was even loaded (README, Known limits).
# Single-threaded TCG froze none in 100. GR_E2E_TCG=multi boots as QEMU's
# default does (tests/stress measures both).
GR_E2E_TCG=${GR_E2E_TCG:-single}
boot_guest() {
	local vm=$1

	shift
	[ "$GR_E2E_TCG" = single ] && set -- --single-thread "$@"
	E2E_VMS+=("$vm")
	: >"$tmp/$vm.console"
	rm -f "$tmp/$vm.qemu.pid"
	timeout -k 5 "$QEMU_TIMEOUT" "$LAUNCH" --name "$vm" --run-dir "$RUN" \
		--store "$STORE" --guest "$GUEST_DIR" --no-agent \
		--log "$tmp/$vm.console" "$@" -- -pidfile "$tmp/$vm.qemu.pid" \
		"${QEMU_EXTRA[@]}" >"$tmp/$vm.launch.log" 2>&1 </dev/null &
	LAUNCH_PID[$vm]=$!
}

# boot_plain VM SHM HOST CMDLINE: boot the test guest on ivshmem-plain
# over the 16 MiB region file SHM, without launch-guest.sh or an agent:
# the script HOST plays the host on SHM (hist_host.py, byname_host.py),
# `HOST SHM init` writes its control block first (false if that fails);
# CMDLINE after the console options; TCG as GR_E2E_TCG says
boot_plain() {
	local vm=$1 shm=$2 accel=tcg

	python3 "$3" "$shm" init || return 1
	[ "$GR_E2E_TCG" = single ] && accel=tcg,thread=single
	E2E_VMS+=("$vm")
	: >"$tmp/$vm.console"
	timeout -k 5 "$QEMU_TIMEOUT" qemu-system-x86_64 \
		-name "$vm,debug-threads=on" -accel "$accel" -cpu max -m 256 \
		-smp 2 -display none -monitor none \
		-serial "file:$tmp/$vm.console" -no-reboot -net none \
		-kernel "$GUEST_DIR/vmlinux" -initrd "$GUEST_DIR/initrd.cpio.gz" \
		-append "console=ttyS0 panic=-1 quiet no_timer_check $4" \
		-object "memory-backend-file,id=grmem,share=on,mem-path=$shm,size=16M" \
		-device ivshmem-plain,memdev=grmem -pidfile "$tmp/$vm.qemu.pid" \
		>"$tmp/$vm.launch.log" 2>&1 </dev/null &
	LAUNCH_PID[$vm]=$!
}

# console VM: path of VM's serial log
console() {
	echo "$tmp/$1.console"
}

# wait_console VM REGEX SECONDS: wait until the serial log has a line
# matching the extended REGEX; 1 if it did not come or QEMU left first
# wait_state VM PYEXPR T0: poll status --json of VM until PYEXPR (on v,
# the VM's object) is "active", for at most 5 s from T0 (date +%s%N);
# sets $state (the last value) and $ms (ms since T0)
wait_state() {
	state=""
	while [ "$(($(date +%s%N) - $3))" -lt 5000000000 ]; do
		state=$(json_get "$1" "$2")
		[ "$state" = active ] && break
		sleep 0.02
	done
	ms=$((($(date +%s%N) - $3) / 1000000))
}

# wait_guest_pid VM WORD WHAT WHY: the guest's "GR: WORD pid N" (its
# ftrace comparison's task) into $guest_pid; the test ends when it never
# comes, or is skipped (check WHAT, because WHY) when the guest prints
# "GR: FTRACE unavailable"
wait_guest_pid() {
	local log

	log=$(console "$1")
	if ! wait_console "$1" "GR: $2 pid [0-9]+|GR: FTRACE unavailable" 90; then
		fail "the guest printed the pid to follow" "$(tail -n 15 "$log")"
		finish
	fi
	if grep -qa "GR: FTRACE unavailable" "$log"; then
		skip_check "$3" "$4"
		finish
	fi
	guest_pid=$(grep -ao "GR: $2 pid [0-9]*" "$log" | head -n1 |
		awk '{ print $4 }')
}

wait_console() {
	local vm=$1 re=$2 secs=$3 end pid=${LAUNCH_PID[$1]:-} ready=0 now
	local log=$tmp/$1.console

	# SECS count from the guest's "GR: guest ready" (from now if it came
	# already): on a loaded host a TCG boot alone takes from 20 s to more
	# than 80 s (issue 27, tests/stress), up to BOOT_TIMEOUT s
	end=$(($(date +%s%N) + (BOOT_TIMEOUT > secs ? BOOT_TIMEOUT : secs) * 1000000000))
	while now=$(date +%s%N) && [ "$now" -lt "$end" ]; do
		grep -qaE -- "$re" "$log" 2>/dev/null && return 0
		if [ "$ready" = 0 ] && { [ "$BOOT_TIMEOUT" = 0 ] ||
		   grep -qa "GR: guest ready" "$log" 2>/dev/null; }; then
			ready=1
			end=$((now + secs * 1000000000))
		fi
		if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
			grep -qaE -- "$re" "$log" 2>/dev/null
			return
		fi
		sleep 0.05
	done
	return 1
}

# wait_guest VM: wait for VM's QEMU to leave (bounded by its timeout);
# the exit status is QEMU's (124 if the timeout killed it)
wait_guest() {
	local pid=${LAUNCH_PID[$1]:-} rc

	[ -n "$pid" ] || return 1
	wait "$pid" 2>/dev/null
	rc=$?
	unset "LAUNCH_PID[$1]"
	return "$rc"
}

# guest_ran VM SCRIPT: the guest booted, ran /gr/SCRIPT and powered off
# with status 0 (one check)
guest_ran() {
	local vm=$1 script=$2 rc

	wait_guest "$vm"
	rc=$?
	if [ "$rc" -eq 0 ] &&
	   grep -qa "GR: run $script exit 0" "$tmp/$vm.console"; then
		ok "guest $vm ran $script and powered off"
		return 0
	fi
	fail "guest $vm ran $script and powered off" "QEMU exit $rc" \
		"$(tail -n 15 "$tmp/$vm.console")" \
		"$(tail -n 5 "$tmp/$vm.launch.log")"
	return 1
}

# check_console VM [UNTIL_REGEX]: the serial log (up to the first line
# matching UNTIL_REGEX, when given) holds no sign of a kernel problem
check_console() {
	local vm=$1 until=${2:-} log=$tmp/$1.console bad
	# base64 lines a guest prints ("B ...", e2e-anyevent's ftrace pages)
	# may spell "Oops"
	local b64=$'^B [A-Za-z0-9+/]+=*\r?$'

	if [ -n "$until" ]; then
		bad=$(awk -v re="$until" '$0 ~ re { exit } { print }' "$log" |
		      grep -avE "$b64" |
		      grep -naE 'WARNING:|BUG:|Oops|Call Trace|Kernel panic|general protection fault')
	else
		bad=$(grep -avE "$b64" "$log" |
		      grep -naE 'WARNING:|BUG:|Oops|Call Trace|Kernel panic|general protection fault')
	fi
	if [ -n "$bad" ]; then
		fail "console of $vm is clean" "kernel problem on the console" \
			"$bad" "$(grep -naE -A12 'WARNING:|BUG:|Oops' "$log" | head -n 30)"
		return 1
	fi
	if ! grep -qa "GR: guest ready" "$log"; then
		fail "console of $vm is clean" "the guest never said it was ready" \
			"$(tail -n 20 "$log")"
		return 1
	fi
	if grep -qa "GR: insmod failed" "$log"; then
		fail "console of $vm is clean" "insmod guestrelay.ko failed" \
			"$(tail -n 20 "$log")"
		return 1
	fi
	ok "console of $vm is clean (no WARNING:, BUG:, Oops, Call Trace)"
}

# ---- traces ------------------------------------------------------------------

# trace_dirs VM: the VM's stream sessions, oldest first (no snapshots)
trace_dirs() {
	local d

	for d in "$STORE/$1"/*/; do
		[ -d "$d" ] || continue
		case "$(basename "$d")" in
		snapshot-*) continue ;;
		esac
		echo "${d%/}"
	done | sort
}

# snapshot_dirs VM: the VM's flight-recorder snapshots, oldest first
snapshot_dirs() {
	local d

	for d in "$STORE/$1"/snapshot-*/; do
		[ -d "$d" ] && echo "${d%/}"
	done | sort
}

newest_trace() {
	trace_dirs "$1" | tail -n 1
}

# summary_total DIR: the event total of `guestrelay report --summary`
summary_total() {
	"$GR" report --summary "$1" 2>/dev/null |
		sed -n 's/^total: \([0-9][0-9]*\) events.*/\1/p'
}

# summary_field DIR WHAT: "lost packets", "discarded events" or "damaged
# spots" from the summary's total line
summary_field() {
	"$GR" report --summary "$1" 2>/dev/null |
		sed -n "s/^total: .*$2 \\([0-9][0-9]*\\).*/\\1/p"
}

# check_trace DIR LABEL: babeltrace2 reads the trace (exit 0) and prints
# as many events as `guestrelay report --summary` counts; the count is
# left in TRACE_EVENTS
check_trace() {
	local dir=$1 label=$2 rc n total

	TRACE_EVENTS=0
	if [ -z "$dir" ] || [ ! -f "$dir/metadata" ]; then
		fail "babeltrace2 reads $label" "no trace at '$dir'"
		return 1
	fi
	timeout 60 babeltrace2 "$dir" >"$tmp/bt.out" 2>"$tmp/bt.err"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		fail "babeltrace2 reads $label" "exit $rc" \
			"$(tail -n 20 "$tmp/bt.err")"
		return 1
	fi
	ok "babeltrace2 reads $label"
	n=$(grep -c '^\[' "$tmp/bt.out")
	total=$(summary_total "$dir")
	if [ -n "$total" ] && [ "$n" -eq "$total" ]; then
		ok "babeltrace2 and report --summary count the same events in $label ($n)"
	else
		fail "babeltrace2 and report --summary count the same events in $label" \
			"babeltrace2 $n, report '${total:-no total}'" \
			"$("$GR" report --summary "$dir" 2>&1 | tail -n 8)"
		TRACE_EVENTS=$n
		return 1
	fi
	TRACE_EVENTS=$n
	rm -f "$tmp/bt.out" "$tmp/bt.err"
	return 0
}

# take_checks OUT RC WHAT: print OUT, the "ok - "/"FAIL - " lines a
# helper wrote in lib.sh's format, and count them; RC, the helper's exit
# status, must be 0 (WHAT names the helper in that check)
take_checks() {
	cat "$1"
	[ "$2" -eq 0 ] || fail "$3 ran" "exit $2"
	t_passed=$((t_passed + $(grep -c '^ok - ' "$1")))
	t_failed=$((t_failed + $(grep -c '^FAIL - ' "$1")))
}

# check_no_loss DIR LABEL: the summary reports no lost packet, no
# discarded event, no damage
check_no_loss() {
	local lp de ds

	lp=$(summary_field "$1" "lost packets")
	de=$(summary_field "$1" "discarded events")
	ds=$(summary_field "$1" "damaged spots")
	if [ "${lp:-x}" = 0 ] && [ "${de:-x}" = 0 ] && [ "${ds:-x}" = 0 ]; then
		ok "$2: no lost packet, no discarded event, no damage"
		return 0
	fi
	fail "$2: no lost packet, no discarded event, no damage" \
		"lost packets ${lp:-?}, discarded ${de:-?}, damaged ${ds:-?}" \
		"$("$GR" report --summary "$1" 2>&1 | tail -n 8)"
	return 1
}

# The lines of `guestrelay report` this file understands: an event's CPU
# in brackets, then its time as seconds with 9 decimals, then its name:
# "[001]     2.166622941: sched_switch: ..." (what may come before the
# CPU, such as the TID, is skipped).
REPORT_LINE='\[[0-9]+\] +[0-9]+\.[0-9]{9}: '

# report_ts: the times in ns of the `guestrelay report` lines on stdin
report_ts() {
	sed -nE 's/^.*\[[0-9]+\] +([0-9]+)\.([0-9]{9}): [a-z0-9_]+:.*/\1\2/p' |
		sed 's/^0*\([0-9]\)/\1/'
}

# count_events DIR EVENT [CPU]: how many EVENT the trace holds (on CPU)
count_events() {
	"$GR" report ${3:+--cpu "$3"} --events "$2" "$1" 2>/dev/null |
		grep -cE "$REPORT_LINE$2: "
}

# event_times DIR EVENT [--host-time]: the timestamps of EVENT, in order,
# in ns (guest clock, or host CLOCK_REALTIME with --host-time)
event_times() {
	"$GR" report ${3:+"$3"} --events "$2" "$1" 2>/dev/null |
		grep -E "$REPORT_LINE$2: " | report_ts
}

# mark_time VM WHAT: the guest time (ns) of the console's "GR: MARK WHAT"
mark_time() {
	sed -n "s/^GR: MARK $2 \([0-9][0-9]*\).*/\1/p" "$tmp/$1.console" |
		head -n 1
}

# check_workload_trace VM: what a guest that ran /gr/e2e-workload (or
# /gr/workload) must have left: a clean console, one readable trace with
# babeltrace2's count equal to report's, no loss, sched_switch from every
# CPU, the workload's kinds of events (exec, block, net), its exec of
# /gr/workload decoded alike by report and babeltrace2, and no sub-buffer
# dropped by the agent.
check_workload_trace() {
	local vm=$1 dir cpu n ev inv ncpu

	check_console "$vm"
	dir=$(newest_trace "$vm")
	if [ -n "$dir" ] && [ -s "$dir/metadata" ] && [ -s "$dir/stream_0" ]; then
		ok "$vm: a trace with metadata and streams arrived"
	else
		fail "$vm: a trace with metadata and streams arrived" \
			"trace '$dir'" "$(ls -la "$dir" 2>&1)" \
			"$(tail -n 20 "$tmp/agent.log")"
		return 1
	fi
	[ "$(trace_dirs "$vm" | wc -l)" -eq 1 ] &&
		ok "$vm: one boot is one session" ||
		fail "$vm: one boot is one session" "$(trace_dirs "$vm" | tr '\n' ' ')"
	check_trace "$dir" "$vm's trace"
	note "$vm: $TRACE_EVENTS events stored"
	check_no_loss "$dir" "$vm's trace"
	ncpu=$(sed -n 's/^[[:space:]]*guest_nr_rings = \([0-9]*\);/\1/p' "$dir/metadata")
	for cpu in $(seq 0 $((${ncpu:-1} - 1))); do
		n=$(count_events "$dir" sched_switch "$cpu")
		[ "$n" -gt 100 ] &&
			ok "$vm: sched_switch events from CPU $cpu ($n)" ||
			fail "$vm: sched_switch events from CPU $cpu" "only $n"
	done
	for ev in sched_process_exec block_rq_issue block_rq_complete netif_receive_skb; do
		n=$(count_events "$dir" "$ev")
		[ "$n" -gt 0 ] && ok "$vm: $ev events arrived ($n)" ||
			fail "$vm: $ev events arrived" "none"
	done
	"$GR" report --events sched_process_exec "$dir" 2>/dev/null |
		grep -q 'filename=/gr/workload$' &&
		ok "$vm: report shows the exec of /gr/workload" ||
		fail "$vm: report shows the exec of /gr/workload" "not found"
	timeout 60 babeltrace2 "$dir" 2>/dev/null |
		grep -q 'sched_process_exec: .*filename = "/gr/workload"' &&
		ok "$vm: babeltrace2 shows the exec of /gr/workload" ||
		fail "$vm: babeltrace2 shows the exec of /gr/workload" "not found"
	inv=$(json_get "$vm" 'v["stats"]["invalid"] + v["stats"]["bad_region"] + v["stats"]["write_errors"]')
	[ "$inv" = 0 ] &&
		ok "$vm: the agent dropped no sub-buffer and had no write error" ||
		fail "$vm: the agent dropped no sub-buffer and had no write error" \
			"invalid + bad_region + write_errors = '$inv'"
}
