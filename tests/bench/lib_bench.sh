# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154  # globals of the sourcing script
# Shared by bench_guest.sh and bench_workload.sh (sourced). Uses the
# caller's bench_name, top, build, gr, tmp, vm, shm_size and qemu_timeout;
# sets agent_pid, launch_pid and console. The caller installs cleanup() as
# its EXIT trap once tmp exists.

say() { echo "$bench_name: $*" >&2; }
die() { say "$*"; exit 1; }
skip() { say "skipped: $*"; exit 77; }

# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	local rc=$? pid

	trap - EXIT INT TERM HUP
	if [ -n "$launch_pid" ]; then
		pid=$(cat "$tmp/qemu.pid" 2>/dev/null || true)
		if [ -n "$pid" ] && grep -qa "$vm" "/proc/$pid/cmdline" 2>/dev/null; then
			kill "$pid" 2>/dev/null || true
		fi
		wait "$launch_pid" 2>/dev/null || true
	fi
	if [ -n "$agent_pid" ]; then
		kill "$agent_pid" 2>/dev/null || true
		wait "$agent_pid" 2>/dev/null || true
	fi
	rm -f "/dev/shm/guestrelay-$vm"
	if [ -n "$tmp" ] && [ -d "$tmp" ]; then
		if [ "${BENCH_KEEP:-0}" = 1 ]; then
			say "kept $tmp"
		else
			rm -rf "$tmp"
		fi
	fi
	exit "$rc"
}


# bench_guest_image OVERLAY DEST: DEST/vmlinux and DEST/initrd.cpio.gz,
# the test guest's initramfs with OVERLAY appended as a second cpio
# archive (the kernel unpacks concatenated archives; build/guest and
# scripts/mkguest.sh stay as they are)
bench_guest_image() {
	(cd "$1" && find . | LC_ALL=C sort |
		cpio -o -H newc --quiet -R 0:0) | gzip -1 >"$tmp/overlay.cpio.gz"
	cat "$build/guest/initrd.cpio.gz" "$tmp/overlay.cpio.gz" \
		>"$2/initrd.cpio.gz"
	ln -sf "$build/guest/vmlinux" "$2/vmlinux"
}

# bench_start_agent: a private agent, sockets in $tmp/run, traces in
# $tmp/store
bench_start_agent() {
	mkdir -p "$tmp/run" "$tmp/store"
	"$gr" agent --run-dir "$tmp/run" --store "$tmp/store" \
		>"$tmp/agent.log" 2>&1 </dev/null &
	agent_pid=$!
	for _ in $(seq 100); do
		"$gr" --run-dir "$tmp/run" --timeout 5 ping >/dev/null 2>&1 && break
		kill -0 "$agent_pid" 2>/dev/null || break
		sleep 0.1
	done
	"$gr" --run-dir "$tmp/run" --timeout 5 ping >/dev/null 2>&1 ||
		die "the agent did not start: $(tail -n 5 "$tmp/agent.log")"
}

# bench_boot GUEST_DIR SCRIPT APPEND EVENTS MARKER STATUS_JSON CONSOLE_COPY:
# boot one guest running /gr/SCRIPT with the given kernel command line and
# guestrelay events; when it prints "GR: MARKER done", save guestrelay's
# counters (status --json) while the guest lingers; keep the console.
bench_boot() {
	local gdir=$1 script=$2 append=$3 events=$4 marker=$5 status=$6
	local copy=$7 rc=0

	console=$tmp/console.log
	: >"$console"
	timeout -k 5 "$qemu_timeout" "$top/scripts/launch-guest.sh" \
		--name "$vm" --run-dir "$tmp/run" --store "$tmp/store" \
		--guest "$gdir" --no-agent --size "$shm_size" --run "$script" \
		--append "$append" \
		--vm-args "--events $events --mode stream --switch-timer-ms 100" \
		--log "$console" -- -pidfile "$tmp/qemu.pid" \
		>"$tmp/launch.log" 2>&1 </dev/null &
	launch_pid=$!
	while kill -0 "$launch_pid" 2>/dev/null; do
		grep -qaE "^GR: $marker (done|error)" "$console" && break
		sleep 0.2
	done
	if grep -qa "^GR: $marker done" "$console"; then
		"$gr" --run-dir "$tmp/run" --timeout 10 status --json "$vm" \
			>"$status" 2>"$tmp/status.err" ||
			die "guestrelay status failed: $(cat "$tmp/status.err")"
	fi
	wait "$launch_pid" || rc=$?
	launch_pid=""
	cp "$console" "$copy"
	if ! grep -qa "^GR: $marker done" "$console"; then
		grep -a "^GR: $marker error" "$console" >&2 || true
		tail -n 20 "$console" >&2
		die "the guest did not finish (QEMU exit $rc; console in $copy)"
	fi
}
