#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2015 # "A && ok || fail": ok always succeeds
#
# test_libvirt.sh - a real libvirtd starts real domains; the guestrelay
# hook switches tracing on and off.
#
# The test starts its own virtlogd and libvirtd in a private mount
# namespace where /etc/libvirt, /run/libvirt, /var/lib/libvirt,
# /var/log/libvirt and /var/cache/libvirt are directories of this test:
# the system's libvirt configuration and state are never touched. The
# hook is installed there as /etc/libvirt/hooks/qemu.d/guestrelay (the
# three-line wrapper, with --config naming the test's hook.conf). The
# agent runs as an unprivileged user (nobody) with kvm as supplementary
# group and CAP_PERFMON, as the systemd unit runs it, and QEMU runs as
# libvirt-qemu.
# Domains: TCG, 256 MiB, direct kernel boot of build/guest (the module
# loads at boot), no disk, serial console to a file.
#
#   (a) an opted-in domain (guestrelay libvirt-define, doorbell device)
#       starts, events arrive, the agent (as the unit runs it: nobody,
#       CAP_PERFMON only, the unit's ExecStartPre copy of the tracepoints'
#       id and format files) records the host stream of its QEMU's
#       threads, `virsh destroy` finalizes the trace, babeltrace2 reads
#       it and its host stream
#   (b) a domain without the metadata runs untouched (no shm, no socket,
#       no hook log line)
#   (c) agent stopped: an opted-in plain-device domain starts untraced;
#       with required="yes" it is refused; a doorbell domain is refused
#       with the hook's message
#   (d) libvirtd killed and started again while the domain runs (then the
#       agent too): the reconnect hook ran and packets keep growing
#   (e) every hook run takes less than 2 s
#   (f) the hook run directly on hostile XML: never trusted, nothing on
#       stdout, the right exit status
#
# Ends with "N passed, N failed"; exit 77 (with the reason) when libvirt
# cannot run here. Environment: BUILD, GUESTRELAY, GR_GUEST, GR_KEEP=1.

set -u

NAME=test_libvirt
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$TOP/build}
GR=${GUESTRELAY:-$BUILD/host-agent/guestrelay}
GUEST_DIR=${GR_GUEST:-$BUILD/guest}
AGENT_USER=65534		# nobody: the agent is not root, as under systemd

T=""
DOMS=()
MADE_DIRS=()

# shellcheck source=tests/lib/lib.sh
. "$TOP/tests/lib/lib.sh"
t_init "$NAME"

skip_all() {
	t_skip "$@"
}

# ---- what the test needs ----------------------------------------------------

[ "$(id -u)" -eq 0 ] || skip_all "needs root (libvirtd, mount namespace)"
"$TOP/scripts/deps.sh" libvirt trace >/dev/null ||
	skip_all "scripts/deps.sh libvirt could not install libvirt"
for c in libvirtd virtlogd virsh unshare setpriv qemu-system-x86_64 \
	 babeltrace2 timeout; do
	command -v "$c" >/dev/null || skip_all "$c not found"
done
[ -x "$GR" ] || skip_all "no agent binary at $GR (make host)"
[ -s "$GUEST_DIR/vmlinux" ] && [ -s "$GUEST_DIR/initrd.cpio.gz" ] ||
	skip_all "no test guest in $GUEST_DIR (make guest)"
getent passwd libvirt-qemu >/dev/null || skip_all "no user libvirt-qemu"
KVM_GID=$(getent group kvm | cut -d: -f3)
[ -n "$KVM_GID" ] || skip_all "no group kvm"
unshare --mount --propagation private true 2>/dev/null ||
	skip_all "cannot create a mount namespace (unshare --mount)"

t_tmpdir gr-libvirt		# 0755: QEMU (libvirt-qemu) walks through it
T=$T_TMP
URI="qemu+unix:///system?socket=$T/run/libvirt-sock"
RUN=$T/agent
STORE=$T/store
HOOKLOG=$T/hook.log

virsh_() {
	timeout 90 virsh -q -c "$URI" "$@"
}

gr() {
	timeout 20 "$GR" --run-dir "$RUN" --timeout 10 "$@"
}

pid_of() {
	[ -s "$1" ] && cat "$1" 2>/dev/null
}

# shellcheck disable=SC2317 # run at exit (t_defer)
libvirt_cleanup() {
	local d pid

	if [ -n "$(pid_of "$T/libvirtd.pid")" ]; then
		for d in "${DOMS[@]}"; do
			virsh_ destroy "$d" >/dev/null 2>&1
			virsh_ undefine "$d" >/dev/null 2>&1
		done
	fi
	stop_pid "$(pid_of "$T/libvirtd.pid")" 10
	stop_pid "$(pid_of "$T/virtlogd.pid")" 5
	# QEMUs of this test that outlived libvirtd (their -name is unique)
	for d in "${DOMS[@]}"; do
		for pid in $(pgrep -f "^/usr/bin/qemu-system-x86_64 -name guest=$d," 2>/dev/null); do
			stop_pid "$pid" 3
		done
	done
	t_agent_stop
	for d in "${DOMS[@]}"; do
		rm -f "/dev/shm/guestrelay-$d"
	done
	for d in "${MADE_DIRS[@]}"; do
		rmdir "$d" 2>/dev/null
	done
}
t_defer libvirt_cleanup

# ---- libvirt in a private mount namespace -------------------------------------

mkdir -p "$T/etc/hooks/qemu.d" "$T/run" "$T/lib" "$T/log" "$T/cache" \
	"$T/guest" "$T/console" "$RUN" "$STORE"
chown "$AGENT_USER:$AGENT_USER" "$RUN" "$STORE"
chmod 0755 "$RUN"
chmod 0777 "$T/console"
# libvirt relabels the kernel and initrd for QEMU: give it copies
cp "$GUEST_DIR/vmlinux" "$GUEST_DIR/initrd.cpio.gz" "$T/guest/"
cat >"$T/etc/libvirtd.conf" <<EOF
unix_sock_group = "root"
unix_sock_rw_perms = "0700"
auth_unix_rw = "none"
auth_unix_ro = "none"
log_outputs = "3:file:/var/log/libvirt/libvirtd.log"
EOF
: >"$T/etc/qemu.conf"		# libvirt's defaults: QEMU as libvirt-qemu
cat >"$T/hook.conf" <<EOF
# the test's agent and a log of every hook run
run-dir = $RUN
log = $HOOKLOG
EOF
cat >"$T/etc/hooks/qemu.d/guestrelay" <<EOF
#!/bin/sh
# guestrelay: trace domains that opt in with <gr:guestrelay> metadata
exec $GR libvirt-hook --config $T/hook.conf "\$@"
EOF
chmod 0755 "$T/etc/hooks/qemu.d/guestrelay"
cat >"$T/ns.sh" <<EOF
set -e
mount --bind $T/etc /etc/libvirt
mount --bind $T/run /run/libvirt
mount --bind $T/lib /var/lib/libvirt
mount --bind $T/log /var/log/libvirt
mount --bind $T/cache /var/cache/libvirt
[ -n "\${1:-}" ] && virtlogd -d -p $T/virtlogd.pid
exec libvirtd -d -p $T/libvirtd.pid
EOF
# the mount points: libvirtd would create these itself on its first
# start; the ones this test creates (empty) are removed at exit
for d in /etc/libvirt /run/libvirt /var/lib/libvirt /var/log/libvirt \
	 /var/cache/libvirt; do
	[ -d "$d" ] && continue
	mkdir "$d" || skip_all "cannot create the mount point $d"
	MADE_DIRS+=("$d")
done

# start_libvirtd [virtlogd]: libvirtd (and virtlogd) in a new namespace
start_libvirtd() {
	rm -f "$T/libvirtd.pid"
	unshare --mount --propagation private sh "$T/ns.sh" "${1:-}" \
		>>"$T/daemons.log" 2>&1 </dev/null || return 1
	for _ in $(seq 300); do
		virsh_ version >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}

if ! start_libvirtd virtlogd; then
	note "$(tail -n 5 "$T/daemons.log" "$T/log/libvirtd.log" 2>/dev/null)"
	skip_all "libvirtd does not start here (see above)"
fi
ok "libvirtd and virtlogd started by hand (pids $(pid_of "$T/libvirtd.pid"), $(pid_of "$T/virtlogd.pid"))"

# the agent as the systemd unit runs it (scripts/guestrelay-agent.service):
# unprivileged, kvm group, CAP_PERFMON as its only capability (bounding,
# inheritable and ambient, as CapabilityBoundingSet= and
# AmbientCapabilities= give it), and the tracepoints' id and format files
# copied into its run directory by the unit's own ExecStartPre command,
# taken from the unit file (paths: this test's run directory and a tracefs
# mount of its own where /sys/kernel/tracing is not mounted)
# shellcheck disable=SC2054 # the commas are setpriv's capability lists
T_AGENT_WRAP=(setpriv "--reuid=$AGENT_USER" "--regid=$AGENT_USER"
	      --groups="$KVM_GID" --bounding-set=-all,+perfmon
	      --inh-caps=-all,+perfmon --ambient-caps=+perfmon)
HOST_STREAM=""			# why the host stream is not checked, if so
tfs=/sys/kernel/tracing
if [ ! -e "$tfs/events/sched/sched_switch/id" ]; then
	tfs=$T/tracefs
	mkdir -p "$tfs"
	if mount -t tracefs nodev "$tfs" 2>/dev/null; then
		t_defer "umount '$tfs'"
	else
		HOST_STREAM="cannot mount tracefs here"
	fi
fi
pre=$(sed -n 's/^ExecStartPre=+//p' "$TOP/scripts/guestrelay-agent.service")
pre=${pre//\$\$/\$}
pre=${pre//guestrelay: /$(id -nu "$AGENT_USER"): }
pre=${pre//\/run\/guestrelay/$RUN}
pre=${pre//\/sys\/kernel\/tracing/$tfs}
if [ -z "$HOST_STREAM" ] && { [ -z "$pre" ] || ! eval "$pre" ||
	[ ! -s "$RUN/tracefs/events/sched/sched_switch/format" ]; }; then
	HOST_STREAM="the unit's ExecStartPre copied no sched tracepoint: '$pre'"
fi
T_AGENT_LOGFILE=$T/agent.log

start_agent() {
	t_agent_start "$@" 2>/dev/null
}

stop_agent() {
	t_agent_stop
}

# domain_xml NAME [EXTRA_DEVICE_XML]: a guest without our settings
domain_xml() {
	cat <<EOF
<domain type='qemu'>
  <name>$1</name>
  <memory unit='MiB'>256</memory>
  <vcpu>1</vcpu>
  <os>
    <type arch='x86_64' machine='pc'>hvm</type>
    <kernel>$T/guest/vmlinux</kernel>
    <initrd>$T/guest/initrd.cpio.gz</initrd>
    <cmdline>console=ttyS0 panic=-1 quiet</cmdline>
  </os>
  <cpu mode='custom' match='exact'><model>qemu64</model></cpu>
  <on_poweroff>destroy</on_poweroff>
  <on_reboot>destroy</on_reboot>
  <on_crash>destroy</on_crash>
  <devices>
    <emulator>/usr/bin/qemu-system-x86_64</emulator>
    <serial type='file'>
      <source path='$T/console/$1.log'/>
      <target port='0'/>
    </serial>
    <memballoon model='none'/>
    ${2:-}
  </devices>
</domain>
EOF
}

define_domain() {
	DOMS+=("$1")
	domain_xml "$@" >"$T/$1.xml"
	virsh_ define "$T/$1.xml" >/dev/null
}

# wait_console DOM REGEX SECONDS
wait_console() {
	local end=$(($(date +%s) + $3))

	while [ "$(date +%s)" -lt "$end" ]; do
		grep -qaE -- "$2" "$T/console/$1.log" 2>/dev/null && return 0
		sleep 0.2
	done
	return 1
}

# packets DOM: sub-buffers the agent stored for DOM this session
packets() {
	gr status --json "$1" 2>/dev/null | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
v = d["vms"][0] if "vms" in d else d
print(v["stats"]["packets"])' 2>/dev/null || echo 0
}

# wait_packets DOM MIN SECONDS: until DOM's packets exceed MIN; prints them
wait_packets() {
	local end=$(($(date +%s) + $3)) p=0

	while [ "$(date +%s)" -lt "$end" ]; do
		p=$(packets "$1")
		[ "$p" -gt "$2" ] && break
		sleep 0.5
	done
	echo "$p"
}

# hook_line DOM OP SUBOP: the last log line of that hook run
hook_line() {
	grep -a "^$1 $2 $3: " "$HOOKLOG" 2>/dev/null | tail -n 1
}

# wait_hook DOM OP SUBOP SECONDS
wait_hook() {
	local end=$(($(date +%s) + $4))

	while [ "$(date +%s)" -lt "$end" ]; do
		[ -n "$(hook_line "$1" "$2" "$3")" ] && return 0
		sleep 0.2
	done
	return 1
}

start_agent || { fail "agent starts" "no answer to ping" "$(tail -n 20 "$T/agent.log")"; finish; }
ok "agent runs as uid $AGENT_USER with supplementary group kvm ($KVM_GID)"

# ---- (b) a domain without the metadata -----------------------------------------

B=grlvb$$
define_domain "$B"
if virsh_ start "$B" >"$T/start-b.log" 2>&1 &&
   wait_console "$B" "GR: guest ready" 60; then
	ok "(b) a domain without guestrelay metadata starts and boots"
else
	fail "(b) a domain without guestrelay metadata starts and boots" \
		"virsh start or boot failed" "$(cat "$T/start-b.log")" \
		"$(tail -n 5 "$T/console/$B.log" 2>/dev/null)"
fi
[ ! -e "/dev/shm/guestrelay-$B" ] && [ ! -e "$RUN/$B.sock" ] &&
	[ -z "$(grep -a "^$B " "$HOOKLOG" 2>/dev/null)" ] &&
	ok "(b) untouched: no shm, no socket, no hook action" ||
	fail "(b) untouched: no shm, no socket, no hook action" "found some" \
		"$(ls -l "/dev/shm/guestrelay-$B" "$RUN/$B.sock" 2>&1)" \
		"$(grep -a "^$B " "$HOOKLOG" 2>/dev/null)"
virsh_ destroy "$B" >/dev/null 2>&1

# ---- (a) an opted-in domain: libvirt-define, start, trace, destroy -------------

A=grlva$$
define_domain "$A"
if GUESTRELAY_RUN_DIR=$RUN timeout 60 "$GR" libvirt-define "$A" \
	--connect "$URI" --events 'sched_*,irq_*' --switch-timer-ms 100 \
	>"$T/define-a.log" 2>&1 &&
   virsh_ dumpxml "$A" | grep -q "guestrelay.example/xmlns/1.0" &&
   virsh_ dumpxml "$A" | grep -q "<server path='$RUN/$A.sock'/>"; then
	ok "(a) guestrelay libvirt-define adds the metadata and the doorbell <shmem>"
else
	fail "(a) guestrelay libvirt-define adds the metadata and the doorbell <shmem>" \
		"not in the definition" "$(cat "$T/define-a.log")" \
		"$(virsh_ dumpxml "$A" 2>&1 | grep -A3 -E 'metadata|shmem')"
fi
if virsh_ start "$A" >"$T/start-a.log" 2>&1; then
	ok "(a) the opted-in domain starts"
else
	fail "(a) the opted-in domain starts" "virsh start failed" \
		"$(cat "$T/start-a.log")" "$(cat "$HOOKLOG" 2>/dev/null)"
fi
line=$(hook_line "$A" prepare begin)
case "$line" in
*"vm-add: served"*) ok "(a) prepare hook: $line" ;;
*) fail "(a) prepare hook served the VM" "log: '$line'" "$(cat "$HOOKLOG" 2>/dev/null)" ;;
esac
own=$(stat -c '%u:%g %a' "/dev/shm/guestrelay-$A" 2>/dev/null)
sown=$(stat -c '%u:%g %a' "$RUN/$A.sock" 2>/dev/null)
[ "$own" = "$AGENT_USER:$KVM_GID 660" ] && [ "$sown" = "$AGENT_USER:$KVM_GID 660" ] &&
	ok "(a) shm and socket: agent's user, group kvm, 0660 (no CAP_CHOWN needed)" ||
	fail "(a) shm and socket: agent's user, group kvm, 0660" "shm '$own', socket '$sown'"
wait_console "$A" "GR: guest ready" 60 ||
	fail "(a) the guest boots" "no 'GR: guest ready'" "$(tail -n 10 "$T/console/$A.log" 2>/dev/null)"
p1=$(wait_packets "$A" 2 60)
[ "$p1" -gt 2 ] && ok "(a) events arrive: $p1 packets stored" ||
	fail "(a) events arrive" "packets: $p1" "$(gr status "$A" 2>&1)" "$(tail -n 10 "$T/agent.log")"

# the agent, as the unit runs it, records the host stream of the domain's
# QEMU threads (README "The host stream and `guestrelay steal`")
if [ -n "$HOST_STREAM" ]; then
	skip_check "(a) host stream under the unit's user and CAP_PERFMON" "$HOST_STREAM"
else
	hs=""
	for _ in $(seq 100); do
		hs=$(find "$STORE/$A" -path '*/host/stream_*' -size +0 2>/dev/null | head -n 1)
		[ -n "$hs" ] && break
		sleep 0.2
	done
	why=$(grep 'no host stream' "$T/agent.log")
	[ -n "$hs" ] && [ -z "$why" ] &&
		ok "(a) the agent as the unit runs it (nobody, CAP_PERFMON only) records the host stream: $(dirname "$hs")" ||
		fail "(a) the agent as the unit runs it records the host stream" \
			"no host/stream_* under $STORE/$A" "$why" "$(tail -n 10 "$T/agent.log")"
fi

# ---- (d) libvirtd restarted while the domain runs -------------------------------

stop_pid "$(pid_of "$T/libvirtd.pid")" 10
sleep 1
p_before=$(packets "$A")
if start_libvirtd && wait_hook "$A" reconnect begin 30; then
	ok "(d) libvirtd restarted; reconnect hook: $(hook_line "$A" reconnect begin)"
else
	fail "(d) libvirtd restarted and ran the reconnect hook" "no reconnect" \
		"$(tail -n 5 "$T/log/libvirtd.log")" "$(cat "$HOOKLOG")"
fi
st=$(virsh_ domstate "$A" 2>&1)
[ "$st" = running ] && ok "(d) the domain still runs after the restart" ||
	fail "(d) the domain still runs after the restart" "domstate: $st"
p2=$(wait_packets "$A" "$p_before" 30)
[ "$p2" -gt "$p_before" ] &&
	ok "(d) tracing goes on: packets $p_before -> $p2" ||
	fail "(d) tracing goes on" "packets $p_before -> $p2"

# the agent too: the reconnect hook must serve the VM again
stop_agent
stop_pid "$(pid_of "$T/libvirtd.pid")" 10
start_agent || fail "(d) the agent starts again" "no ping" "$(tail -n 10 "$T/agent.log")"
sed -i "/^$A reconnect begin: /d" "$HOOKLOG"
if start_libvirtd && wait_hook "$A" reconnect begin 30; then
	line=$(hook_line "$A" reconnect begin)
	case "$line" in
	*"served again"*) ok "(d) agent and libvirtd restarted; reconnect hook: $line" ;;
	*) fail "(d) reconnect hook serves the VM again" "log: '$line'" ;;
	esac
else
	fail "(d) reconnect hook after an agent restart" "no reconnect" "$(cat "$HOOKLOG")"
fi
p3=$(wait_packets "$A" 1 40)
[ "$p3" -gt 1 ] && ok "(d) the new agent resumes on the running guest: $p3 packets" ||
	fail "(d) the new agent resumes on the running guest" "packets $p3" \
		"$(gr status "$A" 2>&1)" "$(tail -n 10 "$T/agent.log")"

# ---- (a) destroy: finalized, readable -------------------------------------------

virsh_ destroy "$A" >"$T/destroy-a.log" 2>&1 ||
	fail "(a) virsh destroy" "failed" "$(cat "$T/destroy-a.log")"
wait_hook "$A" stopped end 20
line=$(hook_line "$A" stopped end)
case "$line" in
*"vm-remove: done"*) ok "(a) stopped hook: $line" ;;
*) fail "(a) stopped hook finalizes and removes the VM" "log: '$line'" "$(cat "$HOOKLOG")" ;;
esac
[ ! -e "/dev/shm/guestrelay-$A" ] && [ ! -e "$RUN/$A.sock" ] &&
	ok "(a) shm and socket removed after the domain stopped" ||
	fail "(a) shm and socket removed after the domain stopped" "still there" \
		"$(ls -l "/dev/shm/guestrelay-$A" "$RUN/$A.sock" 2>&1)"
n=0
for d in "$STORE/$A"/*/; do
	[ -f "$d/metadata" ] || continue
	n=$((n + 1))
	timeout 120 babeltrace2 "$d" >"$T/bt.out" 2>"$T/bt.err"
	rc=$?
	ev=$(wc -l <"$T/bt.out")
	if [ "$rc" -eq 0 ] && [ "$ev" -gt 0 ]; then
		ok "(a) babeltrace2 reads session $(basename "$d"): $ev events"
	else
		fail "(a) babeltrace2 reads session $(basename "$d")" \
			"exit $rc, $ev events" "$(head -n 10 "$T/bt.err")"
	fi
	[ -n "$HOST_STREAM" ] && continue
	# the host stream: the host scheduler's view of this QEMU's threads
	timeout 120 babeltrace2 "$d/host" >"$T/bth.out" 2>"$T/bth.err"
	rc=$?
	ev=$(grep -c 'sched_switch' "$T/bth.out")
	vc=$(grep -c 'CPU 0/TCG' "$T/bth.out")
	if [ "$rc" -eq 0 ] && [ "$ev" -gt 0 ] && [ "$vc" -gt 0 ]; then
		ok "(a) babeltrace2 reads the host stream of session $(basename "$d"): $ev sched_switch, $vc of vCPU 0's thread"
	else
		fail "(a) babeltrace2 reads the host stream of session $(basename "$d")" \
			"exit $rc, $ev sched_switch, $vc naming 'CPU 0/TCG'" "$(head -n 10 "$T/bth.err")"
	fi
done
[ "$n" -ge 1 ] || fail "(a) trace sessions stored" "none in $STORE/$A"

# ---- (c) the agent stopped -------------------------------------------------------

stop_agent
C=grlvc$$
define_domain "$C"
GUESTRELAY_RUN_DIR=$RUN timeout 60 "$GR" libvirt-define "$C" --connect "$URI" \
	--plain --size 1M >/dev/null 2>"$T/define-c.log" ||
	fail "(c) libvirt-define --plain" "failed" "$(cat "$T/define-c.log")"
if virsh_ start "$C" >"$T/start-c.log" 2>&1 &&
   wait_console "$C" "GR: guest ready" 60; then
	ok "(c) agent down: an opted-in plain-device domain starts untraced"
else
	fail "(c) agent down: an opted-in plain-device domain starts untraced" \
		"start failed" "$(cat "$T/start-c.log")"
fi
line=$(hook_line "$C" prepare begin)
case "$line" in
*"starts untraced: no agent"*) ok "(c) prepare hook: $line" ;;
*) fail "(c) the prepare hook says why it is untraced" "log: '$line'" ;;
esac
virsh_ destroy "$C" >/dev/null 2>&1
rm -f "/dev/shm/guestrelay-$C"	# QEMU's own file (libvirt leaves it)

GUESTRELAY_RUN_DIR=$RUN timeout 60 "$GR" libvirt-define "$C" --connect "$URI" \
	--plain --size 1M --required >/dev/null 2>&1
if virsh_ start "$C" >"$T/start-c2.log" 2>&1; then
	fail "(c) required=\"yes\" and agent down: libvirt refuses the domain" \
		"it started"
	virsh_ destroy "$C" >/dev/null 2>&1
elif grep -q "tracing is required" "$T/start-c2.log"; then
	ok "(c) required=\"yes\" and agent down: refused: $(grep -o 'guestrelay: refusing[^;]*' "$T/start-c2.log" | head -n 1)"
else
	fail "(c) required=\"yes\" refusal carries the hook's message" \
		"other error" "$(cat "$T/start-c2.log")"
fi
if virsh_ start "$A" >"$T/start-a2.log" 2>&1; then
	fail "(c) doorbell domain, agent down: refused by the hook" "it started"
	virsh_ destroy "$A" >/dev/null 2>&1
elif grep -q "needs the agent's socket" "$T/start-a2.log"; then
	ok "(c) doorbell domain, agent down: refused with the hook's reason"
else
	fail "(c) doorbell domain, agent down: refused with the hook's reason" \
		"other error" "$(cat "$T/start-a2.log")"
fi

# ---- (f) the hook never trusts the XML (run directly, no libvirt) ------------

U=https://guestrelay.example/xmlns/1.0
printf 'run-dir = %s\n' "$T/nowhere" >"$T/hostile.conf"
# hostile NAME EXPECTED_RC XML: run the prepare hook on XML
hostile() {
	local out rc

	printf '%s' "$3" | timeout 20 "$GR" libvirt-hook --config \
		"$T/hostile.conf" d1 prepare begin - >"$T/h.out" 2>"$T/h.err"
	rc=$?
	out=$(wc -c <"$T/h.out")
	[ "$rc" -eq "$2" ] && [ "$out" -eq 0 ] &&
		ok "(f) $1: exit $rc, nothing on stdout" ||
		fail "(f) $1" "exit $rc (want $2), $out bytes on stdout" "$(cat "$T/h.err")"
}
hostile "no metadata: nothing done" 0 "<domain><name>d1</name></domain>"
hostile "DOCTYPE with entities: refused, starts untraced" 0 \
	"<!DOCTYPE domain [<!ENTITY a '$U'><!ENTITY b '&a;&a;&a;'>]><domain><name>d1</name><metadata><gr:guestrelay xmlns:gr='$U'/></metadata></domain>"
hostile "not well-formed: starts untraced" 0 \
	"<domain><name>d1</name><metadata><gr:guestrelay xmlns:gr='$U'/></metad"
hostile "required='maybe': refused to start" 1 \
	"<domain><name>d1</name><metadata><gr:guestrelay xmlns:gr='$U' required='maybe'/></metadata></domain>"
hostile "XML of another domain: not traced" 0 \
	"<domain><name>d2</name><metadata><gr:guestrelay xmlns:gr='$U' required='yes'/></metadata></domain>"
hostile "doorbell socket elsewhere than the agent's: refused" 1 \
	"<domain><name>d1</name><metadata><x:guestrelay xmlns:x='$U'/></metadata><devices><shmem name='guestrelay-d1'><model type='ivshmem-doorbell'/><server path='/tmp/evil.sock'/></shmem></devices></domain>"

# ---- (e) hook run times ----------------------------------------------------------

max=0
while read -r l; do
	ms=$(sed -n 's/.*(\([0-9][0-9]*\) ms)$/\1/p' <<<"$l")
	[ -n "$ms" ] || continue
	note "hook: $l"
	[ "$ms" -gt "$max" ] && max=$ms
done <"$HOOKLOG"
[ "$max" -lt 2000 ] && ok "(e) every hook run took less than 2 s (max $max ms)" ||
	fail "(e) every hook run took less than 2 s" "max $max ms"

finish
