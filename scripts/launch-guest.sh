#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Boot the test guest wired to a guestrelay agent.
#
#   scripts/launch-guest.sh [options] [-- extra QEMU arguments]
#     --name NAME        VM name (default: guest)
#     --run-dir DIR      agent sockets (default: build/run)
#     --store DIR        traces, if the agent has to be started (build/traces)
#     --guest DIR        vmlinux + initrd.cpio.gz (default: build/guest)
#     --plain            ivshmem-plain (polling) instead of ivshmem-doorbell
#     --size BYTES       shared memory size (default 16M)
#     --accel A          auto, kvm or tcg (default: $GR_ACCEL, else tcg):
#                        auto uses KVM where it is a hardware KVM that
#                        boots a stock kernel, else TCG and says why in one
#                        line; kvm insists (exit 1 with the reason where
#                        it cannot work); tcg never tries KVM
#     --kvm              the same as --accel auto
#     --smp N            CPUs (default 2); --mem MB (default 256)
#     --single-thread    one TCG thread (for attach/detach tests)
#     --run SCRIPT       run /gr/SCRIPT in the guest, then power off
#     --modargs A,B      guestrelay.ko parameters
#     --append TEXT      more kernel command line
#     --log FILE         serial console to FILE (default: stdout)
#     --vm-args "ARGS"   options for `guestrelay vm-add` (events, mode, ...)
#     --uuid UUID        the machine's UUID (QEMU -uuid: its DMI product
#                        UUID, as libvirt gives a domain's UUID)
#     --no-agent         do not start an agent (one must be running)
#
# Starts `guestrelay agent` in the background if none answers on RUN_DIR,
# adds the VM to it (unless already served), then runs QEMU in the
# foreground; its exit status is QEMU's.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
name=guest run_dir=$top/build/run store=$top/build/traces guest=$top/build/guest
plain=0 size=16M accel_want=${GR_ACCEL:-tcg} smp=2 mem=256 single=0 run="" modargs="" append=""
log="" vm_args="" start_agent=1 uuid=""
bin=$top/build/host-agent/guestrelay

die() { echo "launch-guest.sh: $*" >&2; exit 1; }

while [ $# -gt 0 ]; do
	case "$1" in
	--name) name=$2; shift ;;
	--run-dir) run_dir=$2; shift ;;
	--store) store=$2; shift ;;
	--guest) guest=$2; shift ;;
	--plain) plain=1 ;;
	--size) size=$2; shift ;;
	--accel) accel_want=$2; shift ;;
	--kvm) accel_want=auto ;;
	--smp) smp=$2; shift ;;
	--mem) mem=$2; shift ;;
	--single-thread) single=1 ;;
	--run) run=$2; shift ;;
	--modargs) modargs=$2; shift ;;
	--append) append=$2; shift ;;
	--log) log=$2; shift ;;
	--vm-args) vm_args=$2; shift ;;
	--uuid) uuid=$2; shift ;;
	--no-agent) start_agent=0 ;;
	--) shift; break ;;
	*) die "unknown option $1 (see the comment at the top of this script)" ;;
	esac
	shift
done

command -v qemu-system-x86_64 >/dev/null ||
	die "qemu-system-x86_64 not found; run scripts/deps.sh guest"
[ -x "$bin" ] || die "$bin not built; run make host"
[ -s "$guest/vmlinux" ] && [ -s "$guest/initrd.cpio.gz" ] ||
	die "no test guest in $guest; run make guest"

# kvm_unusable: why KVM cannot boot the test guest here (nothing if it can).
# /dev/kvm of a paravirtual KVM (kvm-pvm, the sandbox of some cloud
# machines) runs only guests built for it: a stock kernel fails on MSR
# 0x10a with -cpu max and on an emulation failure (lock cmpxchg16b) with
# -cpu host; a hardware KVM has kvm_intel or kvm_amd loaded.
kvm_unusable() {
	if [ ! -e /dev/kvm ]; then
		echo "no /dev/kvm"
	elif [ ! -r /dev/kvm ] || [ ! -w /dev/kvm ]; then
		echo "/dev/kvm is not read-write for $(id -un)"
	elif [ -d /sys/module/kvm_pvm ]; then
		echo "/dev/kvm is kvm-pvm (a paravirtual KVM that boots only PVM guest kernels)"
	elif [ ! -d /sys/module/kvm_intel ] && [ ! -d /sys/module/kvm_amd ]; then
		echo "neither kvm_intel nor kvm_amd is loaded"
	fi
}

case "$accel_want" in
tcg) accel=tcg ;;
auto|kvm)
	why=$(kvm_unusable)
	if [ -z "$why" ]; then
		accel=kvm
		echo "launch-guest.sh: accelerator kvm" >&2
	elif [ "$accel_want" = kvm ]; then
		die "KVM requested but $why"
	else
		accel=tcg
		echo "launch-guest.sh: accelerator tcg ($why)" >&2
	fi
	;;
*) die "--accel $accel_want: auto, kvm or tcg" ;;
esac
cpu=max
[ "$accel" = kvm ] && cpu=host
[ "$accel" = tcg ] && [ "$single" = 1 ] && accel="tcg,thread=single"

# the agent: reuse a running one, else start one
if ! "$bin" --run-dir "$run_dir" ping >/dev/null 2>&1; then
	[ "$start_agent" = 1 ] || die "no agent answers in $run_dir"
	mkdir -p "$run_dir" "$store"
	"$bin" agent --run-dir "$run_dir" --store "$store" \
		>>"$run_dir/agent.log" 2>&1 </dev/null &
	for _ in $(seq 50); do
		"$bin" --run-dir "$run_dir" ping >/dev/null 2>&1 && break
		sleep 0.1
	done
	"$bin" --run-dir "$run_dir" ping >/dev/null 2>&1 ||
		die "the agent did not start; see $run_dir/agent.log"
fi
if ! "$bin" --run-dir "$run_dir" status "$name" >/dev/null 2>&1; then
	# shellcheck disable=SC2086
	"$bin" --run-dir "$run_dir" vm-add "$name" --size "$size" \
		$([ "$plain" = 1 ] && echo --plain) $vm_args >/dev/null ||
		die "could not add $name to the agent"
fi

if [ "$plain" = 1 ]; then
	dev=(-object "memory-backend-file,id=grmem,share=on,mem-path=/dev/shm/guestrelay-$name,size=$size"
	     -device "ivshmem-plain,memdev=grmem")
else
	dev=(-chardev "socket,path=$run_dir/$name.sock,id=grsock"
	     -device "ivshmem-doorbell,chardev=grsock,vectors=2")
fi

# no_timer_check: on a loaded host the IO-APIC timer check at boot can
# miss its ticks and panic a TCG guest ("IO-APIC + timer doesn't work")
cmdline="console=ttyS0 panic=-1 quiet no_timer_check"
[ -n "$run" ] && cmdline="$cmdline gr.run=$run"
[ -n "$modargs" ] && cmdline="$cmdline gr.modargs=$modargs"
[ -n "$append" ] && cmdline="$cmdline $append"
serial=(-serial stdio)
machine=()
[ -n "$uuid" ] && machine=(-uuid "$uuid")
[ -n "$log" ] && serial=(-serial "file:$log")

# debug-threads=on: QEMU names its vCPU threads "CPU <n>/TCG" (or /KVM),
# which is how the agent finds them for steal per vCPU (as libvirt does)
exec qemu-system-x86_64 -name "$name,debug-threads=on" \
	-accel "$accel" -cpu "$cpu" -m "$mem" -smp "$smp" -display none \
	-monitor none "${serial[@]}" -no-reboot -net none \
	-kernel "$guest/vmlinux" -initrd "$guest/initrd.cpio.gz" \
	-append "$cmdline" "${machine[@]}" "${dev[@]}" "$@"
