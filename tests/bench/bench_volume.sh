#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench_volume.sh - what a follow filter and aggregation in the guest
# save: events and bytes guestrelay stores for the demo workload
# (/gr/workload: fork/exec, pipes, block I/O, ping) with no filter, with
# the follow filter on one long-running "service", with only the eight
# events the four latency histograms need, and with those histograms
# instead of a trace (recording off), in ONE guest boot
#
#   tests/bench/bench_volume.sh        (make bench runs it)
#
# Boots the test guest (build/guest, scripts/launch-guest.sh, TCG, 2 CPUs,
# ivshmem-doorbell, stream mode, switch timer 100 ms) running
# /gr/bench-volume (scripts/guest/bench-volume) with the events of
# $events; at each of the guest's marks the host flushes and takes
# guestrelay's counters (`status --json`: events the guest recorded,
# bytes stored; at hist0 and hist1 also `--json hist VM` and the VM's
# histogram lines of /metrics); on the guest's requests it sets the follow filter,
# then the phase need (the follow filter cleared, every event disabled
# but the eight of $need), then the phase hist (every event disabled,
# `hist VM --latency runq|syscall|block|irq`). The table
# (tests/bench/volume_table.py) compares the phases' deltas; also written
# to build/bench/volume.md.
#
# Environment: BENCH_QUICK=1 (2 s of workload per phase instead of 5),
# BENCH_TIMEOUT=S, BENCH_NO_BUILD=1, BENCH_KEEP=1, BENCH_OUT=DIR (default
# build/bench), GUEST_KVER, KDIR. Exit: 0 table written; 1 failed; 77
# QEMU or /dev/shm missing.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
bench_name=bench_volume
# shellcheck source=tests/bench/lib_bench.sh
. "$top/tests/bench/lib_bench.sh"
bench_setup
out=${BENCH_OUT:-$build/bench}
events='sched_*,irq_*,softirq_*,sys_enter,sys_exit,block_rq_*'
events=$events,net_dev_xmit,netif_receive_skb
need=sched_wakeup,sched_switch,sys_enter,sys_exit,block_rq_issue
need=$need,block_rq_complete,irq_handler_entry,irq_handler_exit
marks="none0 none1 follow0 follow1 need0 need1 hist0 hist1"
secs=5
[ "${BENCH_QUICK:-0}" = 1 ] && secs=2
qemu_timeout=${BENCH_TIMEOUT:-$((600 + 4 * secs))}
vm=benchvol$$

mkdir -p "$out"
bench_build_guest "$out"
bench_need_guest
bench_init gr-bench-volume
mport=$(python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])')
bench_start_agent --metrics "127.0.0.1:$mport"
load_before=$(bench_load)
console=$tmp/console.log
: >"$console"
say "booting one guest: $secs s of workload per phase"
timeout -k 5 "$qemu_timeout" "$top/scripts/launch-guest.sh" \
	--name "$vm" --run-dir "$tmp/run" --store "$tmp/store" \
	--guest "$build/guest" --no-agent --size "$shm_size" --accel "$bench_accel" \
	--run bench-volume --append "gr.secs=$secs" \
	--vm-args "--events $events --mode stream --switch-timer-ms 100" \
	--log "$console" -- -pidfile "$tmp/qemu.pid" \
	>"$tmp/launch.log" 2>&1 </dev/null &
launch_pid=$!
done_marks="" asked=0 set_need=0 set_hist=0
grc() { "$gr" --run-dir "$tmp/run" --timeout 10 "$@"; }
# grq WHAT ARGS...: a phase's set-up command, said if it fails
grq() {
	local what=$1
	shift
	grc "$@" >/dev/null 2>"$tmp/setup.err" ||
		say "$what: guestrelay $* failed: $(cat "$tmp/setup.err")"
}
while kill -0 "$launch_pid" 2>/dev/null; do
	grep -qaE "^GR: VOL (done|error)" "$console" && break
	for m in $marks; do
		case " $done_marks " in *" $m "*) continue ;; esac
		grep -qa "^GR: VOL mark $m" "$console" || continue
		# a flush makes the guest publish its counts (spec 6.11)
		grc flush "$vm" >/dev/null 2>&1 || say "flush at $m failed"
		grc status --json "$vm" >"$tmp/$m.json" ||
			die "status at $m failed"
		case $m in
		hist*)
			grc --json hist "$vm" >"$tmp/$m-hist.json" ||
				die "hist at $m failed"
			curl -sS -m 10 "http://127.0.0.1:$mport/metrics" |
				grep -a "^guestrelay_vm_hist.*vm=\"$vm\"" \
				>"$tmp/$m-metrics.txt" ||
				die "/metrics at $m failed"
			;;
		esac
		done_marks="$done_marks $m"
	done
	if [ "$set_need" = 0 ] && grep -qa "^GR: VOL host need" "$console"; then
		set_need=1
		grq need filter "$vm" --clear
		grq need disable "$vm" all
		# shellcheck disable=SC2086 # one word per event
		grq need enable "$vm" ${need//,/ }
	fi
	if [ "$set_hist" = 0 ] && grep -qa "^GR: VOL host hist" "$console"; then
		set_hist=1
		grq hist disable "$vm" all
		for l in runq syscall block irq; do
			grq hist hist "$vm" --latency "$l"
		done
	fi
	while read -r req; do
		asked=$((asked + 1))
		# shellcheck disable=SC2086 # the guest's words: --pid S
		grc filter "$vm" $req >/dev/null 2>"$tmp/filter.err" ||
			say "guestrelay filter $req failed: $(cat "$tmp/filter.err")"
	done < <(grep -a "^GR: VOL host filter " "$console" | tr -d '\r' |
		 sed 's/^GR: VOL host filter //' | tail -n +$((asked + 1)))
	sleep 0.2
done
wait "$launch_pid" || true
launch_pid=""
cp "$console" "$out/volume.console"
grep -qa "^GR: VOL done" "$console" ||
	die "the guest did not finish: $(grep -a 'GR: VOL error' "$console" || tail -n 5 "$console")"
for m in $marks; do
	[ -s "$tmp/$m.json" ] || die "no counters at mark $m"
done
rc=0
python3 "$top/tests/bench/volume_table.py" --dir "$tmp" --secs "$secs" \
	--events "$events" --need "$need" --load "$load_before / $(bench_load)" \
	--console "$console" --accel "$(bench_accel_used)" \
	>"$out/volume.md" || rc=$?
bench_report "$out/volume.md" "$rc"
