#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_sync_tsc.sh - the exact clock mapping on KVM hosts (spec 9.5,
# v1.10, GR_F_SYNC_TSC), without KVM: a real agent, fake guests that
# answer each clock sync 2 ms late (a round trip of 2 ms or more) with
# this host's TSC as KVM would give them (--sync-tsc OFFSET,
# --sync-tsc-ratio RATIO:FRAC), and debugfs trees of KVM's shape
# (--kvm-debugfs) named after each fake guest's pid (the agent's QEMU
# pid: SO_PEERCRED of the doorbell socket):
#   - kvm:      offset -123456789, no scaling: env clock_sync "kvm-tsc",
#               precision < 1 us, the clock's offset = the agent's
#               realtime - monotonic within 1 us (the fake guest's clock
#               is the host's CLOCK_MONOTONIC: that is the true offset)
#   - ratio:    scaling 1.5 (VMX's 48 fraction bits), offset 777: the same
#   - recorded: the tree recorded from this sandbox's KVM
#               (tests/data/kvm-debugfs/pvm-2vcpu: offset 0): the same
#   - rtt:      no tree for its pid: "round-trip", precision >= 1 ms
#   - liar:     a TSC 10^9 ticks off: refused and counted
#               (sync_tsc_refused > 0), "round-trip"
#   - vcpus:    two vCPUs with different offsets: "round-trip"
# Needs x86-64 with a constant-rate TSC; no root (the trees are files).

set -u
. "$(dirname "$0")/lib_agent.sh"
la_init test_sync_tsc
[ "$(uname -m)" = x86_64 ] || la_skip "needs x86-64 (the TSC)"
grep -qw constant_tsc /proc/cpuinfo || la_skip "needs a constant-rate TSC"

dbg=$la_tmp/kvm
mkdir -p "$dbg"
LA_AGENT_SECS=90
la_agent_start --kvm-debugfs "$dbg" ||
	{ bad agent-starts "see the log"; la_show_logs; la_finish; }

# tpl NAME VCPU OFFSET [RATIO BITS]: one vCPU of template NAME
tpl() {
	local d=$la_tmp/tpl-$1/vcpu$2

	mkdir -p "$d"
	echo "$3" >"$d/tsc-offset"
	if [ $# -ge 5 ]; then
		echo "$4" >"$d/tsc-scaling-ratio"
		echo "$5" >"$d/tsc-scaling-ratio-frac-bits"
	fi
}
tpl kvm 0 -123456789
tpl kvm 1 -123456789
tpl ratio 0 777 $((3 << 47)) 48
tpl liar 0 -123456789
tpl vcpus 0 1000
tpl vcpus 1 2000
cp -r "$LA_TOP/tests/data/kvm-debugfs/pvm-2vcpu/5720-8" "$la_tmp/tpl-recorded"

# case NAME FAKEGUEST-OPTIONS...: a VM whose fake guest copies template
# NAME (if any) to <debugfs>/<its pid>-9 before it becomes the fake guest
declare -A vmof
start_case() {
	local name=$1 vm
	shift
	la_vm vm "st$name"
	vmof[$name]=$vm
	gr vm-add "$vm" --events all || bad "vm-add-$name" "exit $rc: $err"
	t_bg "fg_$name" 60 "$la_tmp/fg-$name.log" bash -c \
		'[ ! -d "$1" ] || cp -r "$1" "$2/$$-9" || exit 1; shift 2; exec "$@"' \
		_ "$la_tmp/tpl-$name" "$dbg" "$FG" --socket "$RUN/$vm.sock" \
		--cpus 1 --rate 20 --duration 40 --linger 3 \
		--sync-delay-us 2000 "$@"
}
start_case kvm --sync-tsc -123456789
start_case ratio --sync-tsc 777 --sync-tsc-ratio $((3 << 47)):48
start_case recorded --sync-tsc 0
start_case rtt --sync-tsc -123456789
start_case liar --sync-tsc -123456789 --sync-tsc-skew 1000000000
start_case vcpus --sync-tsc 1000

want() {
	local vm=${vmof[$1]}

	if la_wait_status "$vm" "s['state'] == 'attached' and s.get('sync_error_ns', 0) > 0 and s.get('sync_method') == '$2'" 20; then
		ok "$1-$2"
	else
		la_status "$vm"
		bad "$1-$2" "status: $out"
	fi
}
want kvm kvm-tsc
want ratio kvm-tsc
want recorded kvm-tsc
want rtt round-trip
want liar round-trip
want vcpus round-trip
refused=$(la_field "${vmof[liar]}" stats.sync_tsc_refused)
check liar-refused-counted "[ '${refused:-0}' -gt 0 ]" "sync_tsc_refused '$refused'"
refused=$(la_field "${vmof[kvm]}" stats.sync_tsc_refused)
check honest-none-refused "[ '${refused:-1}' = 0 ]" "sync_tsc_refused '$refused'"
# a series more (1 s after the first) for each, then the sessions end
sleep 2
for name in kvm ratio recorded rtt liar vcpus; do
	eval "job=\$fg_$name"
	la_fg_stop_session "$job" "${vmof[$name]}"
	eval "sess_$name=\$sess"
done

# clock NAME: the session's metadata clock and env, its .guestrelay's
# realtime - monotonic, as "method precision_ns offset_error_ns"
clock() {
	local s

	eval "s=\$sess_$1"
	"$PY" - "$s" <<'EOF'
import re, struct, sys
d = sys.argv[1]
meta = open(d + "/metadata").read()
def num(key):
    return int(re.search(r"\b%s = (-?\d+);" % key, meta).group(1))
method = re.search(r'clock_sync = "([^"]*)"', meta).group(1)
freq = num("freq")
origin = num("offset_s") * 10**9 + num("offset") * 10**9 // freq
info = open(d + "/.guestrelay", "rb").read()
flags, = struct.unpack_from("<I", info, 28)
m2r, = struct.unpack_from("<q", info, 128)
err = abs(origin - m2r) if flags & 2 else -1
print(method, num("precision") * 10**9 // freq, err)
EOF
}

# kvm-tsc: exact within 1 us; round-trip: the 2 ms answer's half at least
for name in kvm ratio recorded rtt liar vcpus; do
	read -r method prec err <<<"$(clock "$name")"
	echo "# $name: clock_sync $method, precision $prec ns, offset error $err ns"
	case $name in
	kvm | ratio | recorded) want=kvm-tsc cond="[ '${prec:-1000000}' -lt 1000 ] && [ '${err:--1}' -ge 0 ] && [ '$err' -lt 1000 ]" ;;
	*) want=round-trip cond="[ '${prec:-0}' -ge 1000000 ]" ;;
	esac
	check "$name-env-$want" "[ '$method' = $want ]" "clock_sync '$method'"
	check "$name-bound-and-offset" "$cond" "precision $prec ns, offset error $err ns"
done
if la_bt "$sess_kvm"; then ok kvm-trace-babeltrace2; else bad kvm-trace-babeltrace2 "$bt_out"; fi
grep -q "KVM's TSC relation" "$LA_AGENT_LOG" && ok agent-says-why ||
	bad agent-says-why "no line about KVM's TSC relation in the log"
la_end
