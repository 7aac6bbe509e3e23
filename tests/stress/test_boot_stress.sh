#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2015,SC2119 # "A && ok || fail": ok always succeeds
#
# test_boot_stress.sh - boot the test guest many times and load
# guestrelay.ko in each, under host load, and count the guests that never
# get past the load (issue 27: a TCG guest froze at insmod)
#
# Each boot runs /gr/stress (scripts/guest/stress) beside a real agent
# that serves the VM (the module gets its host, its control block and its
# events, as in the e2e tests), in one of these modes:
#   none:    no module at all (gr.mod=0): the baseline;
#   boot:    /init loads the module, as every e2e test does;
#   insmod:  /init does not (gr.mod=0); the guest keeps both vCPUs busy
#            (two spinning shells and the fork/exec/block workload) and
#            loads it under that load;
#   tpflip:  as insmod, but the module is tests/stress/tpflip (empty
#            probes on the same tracepoints: the kernel's code patching
#            without guestrelay; built here and added to the initramfs).
# Either way the guest then runs its workload for 3 s (the agent's own
# events are attached in that time, under load) and says it is done.
# and with one of two TCG flavours:
#   mttcg:   multi-threaded TCG, -smp 2 (what the e2e tests use);
#   single:  -accel tcg,thread=single, -smp 2 (one host thread for both).
# A boot hangs when "GR: STRESS done" is not on its console within
# GR_STRESS_BOUND seconds of QEMU's start. Then tests/stress/vcpu_where.py
# asks QEMU's monitor where every vCPU is, symbolized against the guest's
# own /proc/kallsyms (one extra boot takes it, before the first report
# that needs it, with the host load paused; every boot
# runs with nokaslr, so the addresses hold), and the report goes to the
# output and $GR_STRESS_LOGS (if set).
#
# While the boots run, GR_STRESS_HOGS busy loops (default: one per host
# CPU) load the host. No boot is ever retried: a hang is a hang.
#
# Environment:
#   GR_STRESS_BOOTS    boots per mode and flavour (default 4)
#   GR_STRESS_MODES    "boot insmod" (default; none and tpflip on demand)
#   GR_STRESS_ACCELS   "single" (default: the e2e suite's configuration;
#                      "mttcg single" compares both)
#   GR_STRESS_BOUND    seconds to "GR: STRESS done" (default 300)
#   GR_STRESS_SLOW     a boot not done after this many seconds (default
#                      75, the e2e tests' QEMU timeout) is counted slow,
#                      with one look at where its vCPUs are
#   GR_STRESS_HOGS     host busy loops (default: nproc)
#   GR_STRESS_VM_ARGS  vm-add options (default: test_flight_panic's)
#   GR_STRESS_LOGS     a directory that keeps the console and vCPU
#                      report of every hung boot
# Checks: per mode and flavour, that no boot hung (the bar is 0; `make
# check` runs 4 + 4 boots on single-threaded TCG, the suite's own
# configuration, `make check-stress` as many as GR_STRESS_BOOTS says);
# the last lines give every rate.

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

boots=${GR_STRESS_BOOTS:-4}
modes=${GR_STRESS_MODES:-boot insmod}
accels=${GR_STRESS_ACCELS:-single}
bound=${GR_STRESS_BOUND:-300}
slow_at=${GR_STRESS_SLOW:-75}
hogs=${GR_STRESS_HOGS:-$(nproc)}
vm_args=${GR_STRESS_VM_ARGS:---mode flight --subbufs 4 --subbuf-size 65536 --switch-timer-ms 100}
keep=${GR_STRESS_LOGS:-}
where=$(dirname "$0")/vcpu_where.py

# a hung QEMU is killed by us, after the report; its timeout(1) is a
# backstop only
QEMU_TIMEOUT=$((bound + 120))
# bounds here count from QEMU's start, boot included
BOOT_TIMEOUT=0
T_AGENT_SECS=$((boots * 4 * (bound + 30) + 600))
export T_AGENT_SECS

e2e_init
[ -x /usr/bin/python3 ] || e2e_skip "/usr/bin/python3 not found"
for m in $modes; do
	case "$m" in none|boot|insmod|tpflip) ;; *) e2e_skip "unknown mode '$m'" ;; esac
done
for a in $accels; do
	case "$a" in mttcg|single) ;; *) e2e_skip "unknown flavour '$a'" ;; esac
done
[ -z "$keep" ] || mkdir -p "$keep" || e2e_skip "cannot create $keep"

if [[ " $modes " == *" tpflip "* ]]; then
	stress_tpflip_guest
fi
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
# $tmp/kallsyms, once, when a report first needs them (with the hogs
# paused: it is not a stress boot; a run where no boot is slow does
# without)
take_kallsyms() {
	local vm

	[ -e "$tmp/kallsyms" ] && return 0
	hogs_stop
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
	hogs_start
}

# report_hang VM LABEL: where its vCPUs are, its console and agent lines
report_hang() {
	local vm=$1 label=$2 out=$tmp/$1.where

	take_kallsyms
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

# one_boot MODE FLAVOUR N: 0 if the guest got past the load and its
# workload, 1 if it hung (reported), 2 if it failed otherwise; the
# seconds to "done" in $secs
one_boot() {
	local mode=$1 accel=$2 vm pid t0 append="nokaslr gr.stress=$1" rc=0 log
	local opts=()

	vm=$(vm_name "${mode:0:1}${accel:0:1}$3")
	log=$(console "$vm")
	[ "$mode" = boot ] || append="$append gr.mod=0"
	[ "$mode" = tpflip ] && opts=(--modargs "tps=$STRESS_TPS")
	QEMU_EXTRA=(-qmp "unix:$tmp/$vm.qmp,server=on,wait=off")
	t0=$(date +%s%N)
	# the flavour is ours to set, not the e2e suite's GR_E2E_TCG
	# shellcheck disable=SC2046 # accel_opts prints whole options
	GR_E2E_TCG=multi boot_guest "$vm" --run stress --append "$append" \
		--vm-args "$vm_args" $(accel_opts "$accel") "${opts[@]}"
	QEMU_EXTRA=()
	# not done when the e2e tests' QEMU timeout would have killed it:
	# slow, or hung? One look at the vCPUs, then wait on to the bound
	slow=0
	if ! wait_console "$vm" "GR: STRESS done" "$slow_at" &&
	   [ -n "$(qemu_pid "$vm")" ]; then
		slow=1
		take_kallsyms
		echo "# $mode/$accel boot $3: not done after ${slow_at} s ($(grep -ac 'GR: STRESS loaded' "$log") loaded); vCPUs:"
		"$where" "$tmp/$vm.qmp" "$tmp/kallsyms" 1 2>&1 | grep -v '^sample' |
			sed 's/^/    | /'
	fi
	if wait_console "$vm" "GR: STRESS done" $((bound - slow_at)); then
		secs=$((($(date +%s%N) - t0) / 1000000))
		wait_guest "$vm" && grep -qa "GR: run stress exit 0" "$log" ||
			rc=2
		grep -qaE 'WARNING:|BUG:|Oops|Call Trace|GR: insmod failed' "$log" &&
			rc=2
		if [ "$rc" -ne 0 ]; then
			echo "# $mode/$accel boot $3: done, then:"
			tail -n 12 "$log" | sed 's/^/    | /'
		fi
	else
		secs=-1
		pid=$(qemu_pid "$vm")
		if [ -n "$pid" ]; then
			if grep -qa "GR: STRESS loaded" "$log"; then
				echo "# $mode/$accel boot $3: loaded, not done after ${bound} s; vCPUs:"
			else
				echo "# $mode/$accel boot $3: not loaded after ${bound} s; vCPUs:"
			fi
			report_hang "$vm" "$mode/$accel boot $3"
			stop_pid "$pid" 3
			rc=1
		else
			echo "# $mode/$accel boot $3: QEMU left before it was done:"
			tail -n 12 "$log" | sed 's/^/    | /'
			rc=2
		fi
		wait_guest "$vm"
	fi
	gr vm-remove "$vm" >/dev/null 2>&1
	rm -f "$tmp/$vm.qmp" "/dev/shm/guestrelay-$vm"
	return "$rc"
}

hogs_start
note "host load: $hogs busy loops on $(nproc) CPUs; bound ${bound} s; $boots boots per mode and flavour"
# the modes take turns, so that a run cut short still compares them
declare -A hung other times slows
for accel in $accels; do
	for mode in $modes; do
		hung[$mode/$accel]=0 other[$mode/$accel]=0 times[$mode/$accel]=""
		slows[$mode/$accel]=0
	done
	for i in $(seq "$boots"); do
		for mode in $modes; do
			k=$mode/$accel
			one_boot "$mode" "$accel" "$i"
			case $? in
			0) times[$k]="${times[$k]} $secs"
			   slows[$k]=$((slows[$k] + slow)) ;;
			1) hung[$k]=$((hung[$k] + 1)) ;;
			*) other[$k]=$((other[$k] + 1)) ;;
			esac
		done
	done
done
rates=()
for accel in $accels; do
	for mode in $modes; do
		k=$mode/$accel
		# shellcheck disable=SC2086 # a list of numbers
		med=$(printf '%s\n' ${times[$k]} | sort -n |
		      awk 'NF { a[++n] = $1 } END { if (n) printf "%.1f", a[int((n + 1) / 2)] / 1000; else print "-" }')
		rates+=("$k: ${hung[$k]} of $boots hung, ${other[$k]} failed otherwise, ${slows[$k]} done only after ${slow_at} s (median ${med} s to done)")
		[ "${hung[$k]}" -eq 0 ] && ok "$k: no boot of $boots hung" ||
			fail "$k: no boot of $boots hung" "${hung[$k]} hung"
		[ "${other[$k]}" -eq 0 ] && ok "$k: every other boot ran clean and powered off" ||
			fail "$k: every other boot ran clean and powered off" "${other[$k]} did not"
	done
done
hogs_stop
for r in "${rates[@]}"; do
	note "$r"
done
finish
