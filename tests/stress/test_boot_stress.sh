#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2015 # "A && ok || fail": ok always succeeds
#
# test_boot_stress.sh - boot the test guest many times and load
# guestrelay.ko in each, under host load, and count the guests that never
# get past the load (issue 27: a TCG guest froze at insmod)
#
# Each boot runs /gr/stress (scripts/guest/stress) beside a real agent
# that serves the VM (the module gets its host, its control block and its
# events, as in the e2e tests), in one of two modes:
#   boot:    /init loads the module, as every e2e test does;
#   insmod:  /init does not (gr.mod=0); the guest keeps both vCPUs busy
#            (two spinning shells and the fork/exec/block workload) and
#            loads it under that load.
# and with one of two TCG flavours:
#   mttcg:   multi-threaded TCG, -smp 2 (what the e2e tests use);
#   single:  -accel tcg,thread=single, -smp 2 (one host thread for both).
# A boot hangs when "GR: STRESS loaded" (printed once insmod returned) is
# not on its console within GR_STRESS_BOUND seconds of QEMU's start. Then
# tests/stress/vcpu_where.py asks QEMU's monitor where every vCPU is,
# symbolized against the guest's own /proc/kallsyms (one extra boot at
# the start takes it; every boot runs with nokaslr, so the addresses hold),
# and the report goes to the output and $GR_STRESS_LOGS (if set).
#
# While the boots run, GR_STRESS_HOGS busy loops (default: one per host
# CPU) load the host. No boot is ever retried: a hang is a hang.
#
# Environment:
#   GR_STRESS_BOOTS    boots per mode and flavour (default 10)
#   GR_STRESS_MODES    "boot insmod" (default)
#   GR_STRESS_ACCELS   "mttcg" (default; "mttcg single" compares both)
#   GR_STRESS_BOUND    seconds to "GR: STRESS loaded" (default 60)
#   GR_STRESS_HOGS     host busy loops (default: nproc)
#   GR_STRESS_VM_ARGS  vm-add options (default: test_flight_panic's)
#   GR_STRESS_LOGS     a directory that keeps the console and vCPU
#                      report of every hung boot
# Checks: per mode and flavour, that no boot hung (the bar is 0; `make
# check` runs 10 + 10 boots on MTTCG, `make check-stress` as many as
# GR_STRESS_BOOTS says); the last line gives every rate.

# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
. "$(dirname "$0")/../e2e/lib.sh"

boots=${GR_STRESS_BOOTS:-10}
modes=${GR_STRESS_MODES:-boot insmod}
accels=${GR_STRESS_ACCELS:-mttcg}
bound=${GR_STRESS_BOUND:-60}
hogs=${GR_STRESS_HOGS:-$(nproc)}
vm_args=${GR_STRESS_VM_ARGS:---mode flight --subbufs 4 --subbuf-size 65536 --switch-timer-ms 100}
keep=${GR_STRESS_LOGS:-}
where=$(dirname "$0")/vcpu_where.py

# a hung QEMU is killed by us, after the report; its timeout(1) is a
# backstop only
QEMU_TIMEOUT=$((bound + 120))
T_AGENT_SECS=$((boots * 4 * (bound + 30) + 600))
export T_AGENT_SECS

e2e_init
[ -x /usr/bin/python3 ] || e2e_skip "/usr/bin/python3 not found"
for m in $modes; do
	case "$m" in boot|insmod) ;; *) e2e_skip "unknown mode '$m'" ;; esac
done
for a in $accels; do
	case "$a" in mttcg|single) ;; *) e2e_skip "unknown flavour '$a'" ;; esac
done
[ -z "$keep" ] || mkdir -p "$keep" || e2e_skip "cannot create $keep"
start_agent

# ---- host load ----------------------------------------------------------

hog_jobs=()
hogs_start() {
	local i job

	for i in $(seq "$hogs"); do
		t_bg job "$T_AGENT_SECS" /dev/null sh -c 'while :; do :; done'
		hog_jobs+=("$job")
	done
}

hogs_stop() {
	local job

	for job in "${hog_jobs[@]}"; do
		t_term_job "$job" KILL
		t_reap "$job"
	done
	hog_jobs=()
}

# ---- one boot -----------------------------------------------------------

# accel_opts FLAVOUR: launch-guest.sh options of a TCG flavour
accel_opts() {
	[ "$1" = single ] && echo --single-thread
	return 0
}

# kallsyms: the guest's text symbols with the module loaded, into
# $tmp/kallsyms (before the hogs start: it is not a stress boot)
take_kallsyms() {
	local vm

	vm=$(vm_name k)
	QEMU_EXTRA=(-serial "file:$tmp/kallsyms")
	boot_guest "$vm" --run kallsyms --append nokaslr --vm-args "$vm_args"
	wait_guest "$vm"
	QEMU_EXTRA=()
	if grep -qa "GR: KALLSYMS" "$(console "$vm")" && [ -s "$tmp/kallsyms" ]; then
		note "guest symbols: $(wc -l <"$tmp/kallsyms") text symbols (nokaslr)"
	else
		note "no guest symbols: vCPU reports show raw addresses"
		: >"$tmp/kallsyms"
	fi
	gr vm-remove "$vm" >/dev/null 2>&1
}

# report_hang VM LABEL: where its vCPUs are, its console and agent lines
report_hang() {
	local vm=$1 label=$2 out=$tmp/$1.where

	"$where" "$tmp/$vm.qmp" "$tmp/kallsyms" 3 >"$out" 2>&1 ||
		echo "vcpu_where.py failed" >>"$out"
	{
		echo "== $label: vCPUs"
		cat "$out"
		echo "== $label: console (last 15 lines)"
		tail -n 15 "$(console "$vm")"
		echo "== $label: agent"
		grep -a "$vm:" "$tmp/agent.log" | tail -n 6
	} >"$tmp/$vm.report"
	sed 's/^/    | /' "$tmp/$vm.report"
	[ -z "$keep" ] || cp "$tmp/$vm.report" "$(console "$vm")" "$keep/"
}

# one_boot MODE FLAVOUR N: 0 if the guest got past the load, 1 if it
# hung (reported), 2 if it failed otherwise; the seconds to "loaded" in
# $secs
one_boot() {
	local mode=$1 accel=$2 vm pid t0 append="nokaslr gr.stress=$1" rc=0

	vm=$(vm_name "${mode:0:1}${accel:0:1}$3")
	[ "$mode" = insmod ] && append="$append gr.mod=0"
	QEMU_EXTRA=(-qmp "unix:$tmp/$vm.qmp,server=on,wait=off")
	t0=$(date +%s%N)
	# shellcheck disable=SC2046 # accel_opts prints whole options
	boot_guest "$vm" --run stress --append "$append" --vm-args "$vm_args" \
		$(accel_opts "$accel")
	QEMU_EXTRA=()
	if wait_console "$vm" "GR: STRESS loaded" "$bound"; then
		secs=$((($(date +%s%N) - t0) / 1000000))
		wait_guest "$vm" && grep -qa "GR: run stress exit 0" "$(console "$vm")" ||
			rc=2
		if grep -qaE 'WARNING:|BUG:|Oops|Call Trace|GR: insmod failed' \
			"$(console "$vm")"; then
			rc=2
		fi
		[ "$rc" -eq 0 ] || {
			echo "    | $mode/$accel boot $3: loaded, then:"
			tail -n 12 "$(console "$vm")" | sed 's/^/    | /'
		}
	else
		secs=-1
		pid=$(qemu_pid "$vm")
		if [ -n "$pid" ]; then
			echo "# $mode/$accel boot $3: not loaded after ${bound} s; vCPUs:"
			report_hang "$vm" "$mode/$accel boot $3"
			stop_pid "$pid" 3
			rc=1
		else
			echo "# $mode/$accel boot $3: QEMU left before loading:"
			tail -n 12 "$(console "$vm")" | sed 's/^/    | /'
			rc=2
		fi
		wait_guest "$vm"
	fi
	gr vm-remove "$vm" >/dev/null 2>&1
	rm -f "$tmp/$vm.qmp" "/dev/shm/guestrelay-$vm"
	return "$rc"
}

take_kallsyms
hogs_start
note "host load: $hogs busy loops on $(nproc) CPUs; bound ${bound} s; $boots boots per mode and flavour"
rates=()
for accel in $accels; do
	for mode in $modes; do
		hung=0 other=0 times=()
		for i in $(seq "$boots"); do
			one_boot "$mode" "$accel" "$i"
			case $? in
			0) times+=("$secs") ;;
			1) hung=$((hung + 1)) ;;
			*) other=$((other + 1)) ;;
			esac
		done
		med=$(printf '%s\n' "${times[@]}" | sort -n |
		      awk '{ a[NR] = $1 } END { if (NR) printf "%.1f", a[int((NR + 1) / 2)] / 1000; else print "-" }')
		rate="$mode/$accel: $hung of $boots hung, $other failed otherwise (median ${med} s to loaded)"
		rates+=("$rate")
		[ "$hung" -eq 0 ] && ok "$mode/$accel: no boot of $boots hung loading guestrelay.ko" ||
			fail "$mode/$accel: no boot of $boots hung loading guestrelay.ko" "$hung hung"
		[ "$other" -eq 0 ] && ok "$mode/$accel: every boot that loaded ran clean and powered off" ||
			fail "$mode/$accel: every boot that loaded ran clean and powered off" "$other did not"
	done
done
hogs_stop
for r in "${rates[@]}"; do
	note "$r"
done
finish
