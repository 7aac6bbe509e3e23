# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154,SC2034  # globals of the sourcing script and of tests/lib/lib.sh
# Shared by bench_guest.sh, bench_anyevent.sh, bench_hist.sh,
# bench_workload.sh and bench_volume.sh (sourced). Uses the caller's bench_name, top, vm and
# qemu_timeout; sets build, kver, kdir, gr, shm_size, guest_mem (MiB, the
# caller may raise it) and t0 (bench_setup), tmp (bench_init), agent_pid,
# launch_pid, console, lttng and ltdir (bench_lttng_setup), grbench_ko
# (bench_build_grbench), lt_sub and lt_num (bench_lttng_buffers), out,
# calls and plugin (bench_counted_setup). BENCH_ACCEL=auto|kvm|tcg (default
# auto) is the accelerator of every boot (launch-guest.sh --accel): auto
# takes KVM where it is a hardware KVM, else TCG with one line saying
# why; bench_accel_used gives what a boot ran on.

# shellcheck source=tests/lib/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/lib.sh"

say() { echo "$bench_name: $*" >&2; }
die() { say "$*"; exit 1; }
skip() { t_skip "$@"; }

# bench_setup: the build tree and guest kernel of both benchmarks, the
# start time; skips (77) without QEMU, python3 or a writable /dev/shm
bench_setup() {
	build=${BUILD:-$top/build}
	kver=${GUEST_KVER:-$("$top/scripts/guest-kver.sh")}
	kdir=${KDIR:-/lib/modules/$kver/build}
	gr=$build/host-agent/guestrelay
	shm_size=64M
	guest_mem=256
	tmp=""
	agent_pid=""
	launch_pid=""
	t0=$(date +%s)
	bench_accel=${BENCH_ACCEL:-auto}
	bench_launch_extra=()	# more launch-guest.sh options (bench_boot)
	bench_qemu_extra=()	# more QEMU arguments (bench_boot)
	bench_vm_extra=""	# more vm-add options (bench_boot)
	case "$bench_accel" in
	auto|kvm|tcg) ;;
	*) die "BENCH_ACCEL=$bench_accel: auto, kvm or tcg" ;;
	esac

	command -v qemu-system-x86_64 >/dev/null ||
		skip "qemu-system-x86_64 not found (scripts/deps.sh guest)"
	command -v python3 >/dev/null || skip "python3 not found"
	if [ ! -d /dev/shm ] || [ ! -w /dev/shm ]; then
		skip "/dev/shm is not writable"
	fi
}

# bench_build_guest DIR: make module host guest (log in DIR/build.log),
# unless BENCH_NO_BUILD=1
bench_build_guest() {
	[ "${BENCH_NO_BUILD:-0}" = 1 ] && return 0
	say "building guestrelay.ko, the agent and the test guest"
	make -C "$top" BUILD="$build" GUEST_KVER="$kver" KDIR="$kdir" \
		module host guest >"$1/build.log" 2>&1 ||
		die "make module host guest failed; see $1/build.log"
}

# bench_counted_setup: bench_setup for a benchmark of one boot counted
# under tcgcount.so (bench_anyevent.sh, bench_hist.sh): out, calls
# (BENCH_COUNT_CALLS; default 2000, BENCH_QUICK=1 500), qemu_timeout
# (BENCH_TIMEOUT; 1200, quick 900); builds guestrelay.ko, the agent, the
# test guest, grbench.ko and tcgcount.so (plugin)
bench_counted_setup() {
	bench_setup
	out=$build/bench
	calls=${BENCH_COUNT_CALLS:-2000}
	qemu_timeout=${BENCH_TIMEOUT:-1200}
	if [ "${BENCH_QUICK:-0}" = 1 ]; then
		calls=${BENCH_COUNT_CALLS:-500}
		qemu_timeout=${BENCH_TIMEOUT:-900}
	fi
	mkdir -p "$out"
	bench_build_guest "$out"
	bench_build_grbench "$out" 1
	bench_need_guest
	plugin=$build/bench/tcgcount/tcgcount.so
	[ -s "$plugin" ] || die "no $plugin (run without BENCH_NO_BUILD=1)"
}

# bench_counted_boot COUNTS: the next bench_boot under TCG with one vCPU
# and tcgcount.so writing its lines to COUNTS (emptied first)
bench_counted_boot() {
	rm -f "$1"
	bench_accel=tcg
	bench_launch_extra=(--smp 1)
	bench_qemu_extra=(-plugin "$plugin,out=$1")
}

# bench_need_guest: the agent and the test guest are built
bench_need_guest() {
	[ -x "$gr" ] || die "no agent at $gr (make host)"
	if [ ! -s "$build/guest/vmlinux" ] || [ ! -s "$build/guest/initrd.cpio.gz" ]; then
		die "no test guest in $build/guest (make guest)"
	fi
}

# bench_init PREFIX: the temporary directory ($tmp, kept with
# BENCH_KEEP=1), the exit trap that stops the guest and the agent
bench_init() {
	t_init "$bench_name"
	[ "${BENCH_KEEP:-0}" = 1 ] && KEEP=1
	t_tmpdir "$1"
	tmp=$T_TMP
	t_defer bench_cleanup
}

# shellcheck disable=SC2317 # run at exit (t_defer)
bench_cleanup() {
	local pid

	if [ -n "$launch_pid" ]; then
		pid=$(cat "$tmp/qemu.pid" 2>/dev/null || true)
		if [ -n "$pid" ] && grep -qa "$vm" "/proc/$pid/cmdline" 2>/dev/null; then
			kill "$pid" 2>/dev/null || true
		fi
		wait "$launch_pid" 2>/dev/null || true
	fi
	t_agent_stop
	rm -f "/dev/shm/guestrelay-$vm"
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

# bench_build_grbench OUT COUNT: grbench.ko against the guest kernel, in a
# copy under OUT/grbench so the source tree stays clean, and with COUNT=1
# tcgcount.so (unless BENCH_NO_BUILD=1); logs appended to OUT/build.log
bench_build_grbench() {
	local o=$1

	if [ "${BENCH_NO_BUILD:-0}" != 1 ]; then
		say "building grbench.ko against $kdir"
		mkdir -p "$o/grbench"
		cp -p "$top/tests/bench/grbench/grbench.c" \
			"$top/tests/bench/grbench/Kbuild" "$o/grbench/"
		make -C "$kdir" M="$o/grbench" GR_TOP="$top" modules \
			>>"$o/build.log" 2>&1 ||
			die "grbench.ko failed to build; see $o/build.log"
		if [ "$2" = 1 ]; then
			say "building tcgcount.so"
			make -C "$top/tests/bench/tcgcount" BUILD="$build" \
				>>"$o/build.log" 2>&1 ||
				die "tcgcount.so failed to build; see $o/build.log"
		fi
	fi
	grbench_ko=$o/grbench/grbench.ko
	[ -s "$grbench_ko" ] || die "no $grbench_ko"
}

# bench_lttng_buffers CALLS: LTTng's channel (lt_sub, lt_num): per CPU,
# sub-buffers of 4 MiB, as many (a power of two) as hold one whole run of
# CALLS of the largest event (sched_process_exec, about 300 B with LTTng's
# header) without the consumer daemon's help, so that the benchmark's own
# events are never discarded; with LTTng, memory for the guest to hold
# both CPUs' buffers and the tmpfs trace of the phase (guest_mem)
bench_lttng_buffers() {
	lt_sub=4194304 lt_num=2
	while [ $((lt_sub * lt_num)) -lt $(($1 * 512)) ]; do
		lt_num=$((lt_num * 2))
	done
	[ "$lttng" = 1 ] && guest_mem=$((1024 + 2 * lt_sub * lt_num / 1048576))
	return 0
}

# bench_probes_image DEST: the bench-probes guest in DEST (vmlinux and
# initramfs): build/guest plus an archive holding grbench.ko (bench_build_grbench)
# and, with LTTng, LTTng (bench_lttng_overlay)
bench_probes_image() {
	mkdir -p "$tmp/overlay/lib/modules" "$1"
	cp "$grbench_ko" "$tmp/overlay/lib/modules/"
	[ "$lttng" = 1 ] && bench_lttng_overlay "$tmp/overlay"
	bench_guest_image "$tmp/overlay" "$1"
}

# bench_start_agent [AGENT OPTIONS]: a private agent, sockets in $tmp/run, traces in
# $tmp/store
bench_start_agent() {
	GR=$gr
	RUN=$tmp/run
	STORE=$tmp/store
	mkdir -p "$RUN" "$STORE"
	T_AGENT_LOGFILE=$tmp/agent.log
	t_agent_start "$@" 2>/dev/null ||
		die "the agent did not start: $(tail -n 5 "$tmp/agent.log")"
	agent_pid=$T_AGENT_PID
}

# bench_request REQ: a guest's request, answered with the CLI (a failure
# is said; the guest then waits in vain and says so):
#   filter EVENT EXPR|--clear  guestrelay filter VM EVENT EXPR (bench-probes)
#   disable EVENT              guestrelay disable VM EVENT, then a flush
#                              and status --json into ...disable-status.json
#   hist EVENT SPEC            guestrelay hist VM EVENT SPEC
#   enable PATTERN             guestrelay enable VM PATTERN, its summary
#                              kept in ...enable.txt (bench-workload)
#   hist-remove NAME LABEL     guestrelay hist VM NAME --json into
#                              ${bench_hist_prefix}LABEL.json (default
#                              prefix $tmp/) and status --json (after a
#                              flush) into ...LABEL-status.json, then
#                              guestrelay hist VM NAME --remove (bench-hist)
bench_request() {
	local cmd=${1%% *} rest=${1#* } ev arg
	local c=("$gr" --run-dir "$tmp/run" --timeout 10)
	local saved=${bench_hist_prefix:-$tmp/}

	ev=${rest%% *}
	arg=${rest#* }
	case "$cmd" in
	hist-remove)
		"${c[@]}" hist "$vm" "$ev" --json >"$saved$arg.json" \
			2>"$tmp/req.err" &&
			"${c[@]}" flush "$vm" >/dev/null 2>>"$tmp/req.err" &&
			"${c[@]}" status --json "$vm" >"$saved$arg-status.json" \
				2>>"$tmp/req.err" &&
			"${c[@]}" hist "$vm" "$ev" --remove >/dev/null \
				2>>"$tmp/req.err"
		;;
	enable)
		"${c[@]}" enable "$vm" "$ev" >"${saved}enable.txt" 2>"$tmp/req.err" ;;
	filter | hist)
		"${c[@]}" "$cmd" "$vm" "$ev" "$arg" >/dev/null 2>"$tmp/req.err" ;;
	disable)
		"${c[@]}" disable "$vm" "$ev" >/dev/null 2>"$tmp/req.err" &&
			"${c[@]}" flush "$vm" >/dev/null 2>>"$tmp/req.err" &&
			"${c[@]}" status --json "$vm" >"${saved}disable-status.json" \
				2>>"$tmp/req.err"
		;;
	*) echo "unknown request" >"$tmp/req.err"; false ;;
	esac || say "the guest's request \"$1\" failed: $(cat "$tmp/req.err")"
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
		--mem "$guest_mem" --accel "$bench_accel" \
		--append "$append" "${bench_launch_extra[@]}" \
		--vm-args "--events $events --mode stream --switch-timer-ms 100${bench_vm_extra:+ $bench_vm_extra}" \
		--log "$console" -- -pidfile "$tmp/qemu.pid" \
		"${bench_qemu_extra[@]}" >"$tmp/launch.log" 2>&1 </dev/null &
	launch_pid=$!
	local asked=0 req
	while kill -0 "$launch_pid" 2>/dev/null; do
		grep -qaE "^GR: $marker (done|error)" "$console" && break
		# the guest's requests ("GR: MARKER host ...", in order)
		while read -r req; do
			asked=$((asked + 1))
			bench_request "$req"
		done < <(grep -a "^GR: $marker host " "$console" |
			 tr -d '\r' | sed "s/^GR: $marker host //" |
			 tail -n +$((asked + 1)))
		sleep 0.2
	done
	if grep -qa "^GR: $marker done" "$console"; then
		# a flush makes the guest publish its event counts before it
		# acknowledges (spec 6.11); between ticks they lag
		"$gr" --run-dir "$tmp/run" --timeout 10 flush "$vm" \
			>/dev/null 2>"$tmp/flush.err" ||
			say "guestrelay flush failed: $(cat "$tmp/flush.err")"
		"$gr" --run-dir "$tmp/run" --timeout 10 status --json "$vm" \
			>"$status" 2>"$tmp/status.err" ||
			die "guestrelay status failed: $(cat "$tmp/status.err")"
	fi
	wait "$launch_pid" || rc=$?
	launch_pid=""
	cp "$console" "$copy"
	grep '^launch-guest.sh: accelerator ' "$tmp/launch.log" >&2 || true
	if ! grep -qa "^GR: $marker done" "$console"; then
		grep -a "^GR: $marker error" "$console" >&2 || true
		tail -n 20 "$console" >&2
		die "the guest did not finish (QEMU exit $rc; console in $copy)"
	fi
}

# bench_accel_used: the accelerator of the last boot, with launch-guest.sh's
# reason when auto fell back ("tcg (/dev/kvm is kvm-pvm ...)")
bench_accel_used() {
	local l

	l=$(grep -a '^launch-guest.sh: accelerator ' "$tmp/launch.log" 2>/dev/null |
		tail -n 1)
	if [ -n "$l" ]; then
		echo "${l#launch-guest.sh: accelerator }"
	else
		echo tcg
	fi
}

# bench_host_cpu, bench_qemu_version, bench_load: for the table's header
bench_host_cpu() {
	sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1
}
bench_qemu_version() { qemu-system-x86_64 --version | head -n 1; }
bench_load() { cut -d' ' -f1-3 /proc/loadavg; }

# bench_report TABLE RC: print the table written by the caller and exit RC
bench_report() {
	cat "$1"
	say "table written to $1"
	exit "$2"
}

# ---- grwl, the workload of bench_workload.sh and bench_hoststream.sh --------
# the events both record (the same as ftrace's in bench_workload.sh)
bench_wl_events=sched_switch,sched_wakeup,sched_wakeup_new,sched_process_fork
bench_wl_events=$bench_wl_events,sched_process_exec,sched_process_exit,sched_migrate_task
bench_wl_events=$bench_wl_events,sys_enter,sys_exit

# bench_wl_build DIR: guestrelay.ko, the agent and the test guest (unless
# BENCH_NO_BUILD=1) and DIR/grwl (tests/bench/grwl.c, static); skips (77)
# without a static libc
bench_wl_build() {
	mkdir -p "$1"
	bench_build_guest "$1"
	${CC:-cc} -static -O2 -Wall -Wextra -o "$1/grwl" "$top/tests/bench/grwl.c" \
		>>"$1/build.log" 2>&1 ||
		skip "cannot build a static program (libc6-dev's libc.a?); see $1/build.log"
	bench_need_guest
}

# bench_wl_overlay DIR WDIR: DIR/bin/grwl and DIR/gr/bench-workload (the guest
# side, tests/bench/guest-workload) from bench_wl_build's WDIR
bench_wl_overlay() {
	mkdir -p "$1/bin" "$1/gr"
	cp "$2/grwl" "$1/bin/grwl"
	cp "$top/tests/bench/guest-workload" "$1/gr/bench-workload"
	chmod 755 "$1/bin/grwl" "$1/gr/bench-workload"
}

# ---- LTTng, the third tracer (BENCH_LTTNG=0 leaves it out) ----------------
# bench_lttng_setup: sets lttng (1 or 0) and ltdir; with LTTng, installs
# it (scripts/deps.sh bench) and builds its modules for the guest kernel
# with only the tracepoint probe modules both benchmarks use
# (bench_lttng_probes), cached in $build/bench/lttng/KVER (rebuilt when the
# sources, the kernel or that list change; a build takes about 4 minutes
# here, a reuse none).
# Debian's lttng-modules-dkms 2.13.9 does not build as a whole against the
# 6.1.0-56 guest kernel (its timer probe's hrtimer_start lacks the kernel's
# new was_armed argument), so the copy leaves out every probe module but
# those; the tracer itself and its ring buffer clients are built as they
# are. DKMS is not used: it would build for the host's running kernel.
# bench_lttng_probes=all (bench_allevents.sh): every probe module that
# builds against the guest kernel (make -k), in $build/bench/lttng/KVER-all;
# the ones that do not are listed in its build.log.
bench_lttng_probes="sched irq"
bench_lttng_setup() {
	local src stamp want ko probes=$bench_lttng_probes
	lttng=${BENCH_LTTNG:-1}
	ltdir=$build/bench/lttng/$kver
	[ "$probes" = all ] && ltdir=$ltdir-all
	[ "$lttng" = 1 ] || return 0
	"$top/scripts/deps.sh" bench >&2 ||
		die "LTTng is missing and cannot be installed (scripts/deps.sh bench as root); BENCH_LTTNG=0 runs without it"
	src=$(find /usr/src -maxdepth 1 -name 'lttng-modules-2.13*' | sort -V |
		tail -n 1)
	[ -f "${src:-/nonexistent}/Makefile" ] ||
		die "no /usr/src/lttng-modules-2.13* (package lttng-modules-dkms)"
	want="$(basename "$src") $kver $kdir probes: $probes"
	stamp=$ltdir/stamp
	if [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] && bench_lttng_have; then
		return 0
	fi
	[ "${BENCH_NO_BUILD:-0}" = 1 ] &&
		die "no LTTng modules for $kver in $ltdir (run without BENCH_NO_BUILD=1)"
	say "building LTTng's modules ($(basename "$src"), probes: $probes) for $kver"
	rm -rf "$ltdir"
	mkdir -p "$ltdir"
	cp -a "$src" "$ltdir/src"
	if [ "$probes" = all ]; then
		# every probe that builds: make -k finds the ones that do
		# not, the second build leaves them out
		make -k -C "$ltdir/src" -j"$(nproc)" KERNELDIR="$kdir" \
			CONFIG_LTTNG_CLOCK_PLUGIN_TEST=n modules \
			>"$ltdir/build-k.log" 2>&1 || true
		ko=$(sed -n 's,.*/probes/\(lttng-probe-[a-z0-9_-]*\.o\)\] Error.*,\1,p' \
			"$ltdir/build-k.log" | sort -u | tr '\n' ' ')
		say "LTTng probe modules that do not build for $kver: ${ko:-none}"
		{
			echo ""
			echo "# guestrelay bench (lib_bench.sh): without the probes that do not build"
			echo "obj-m := \$(filter-out $ko,\$(obj-m))"
		} >>"$ltdir/src/src/probes/Kbuild"
		make -C "$ltdir/src" -j"$(nproc)" KERNELDIR="$kdir" \
			CONFIG_LTTNG_CLOCK_PLUGIN_TEST=n modules \
			>"$ltdir/build.log" 2>&1 ||
			die "LTTng's modules failed to build; see $ltdir/build.log"
		bench_lttng_have ||
			die "LTTng's core modules missing; see $ltdir/build.log"
		say "LTTng probe modules built: $(find "$ltdir/src/src/probes" -name 'lttng-probe-*.ko' | wc -l)"
		echo "$want" >"$stamp"
		return 0
	fi
	{
		echo ""
		echo "# guestrelay bench (lib_bench.sh): only these probe modules"
		echo "gr_keep := \$(patsubst %,lttng-probe-%.o,$probes)"
		echo "obj-m := \$(filter-out \$(filter-out \$(gr_keep),\$(filter lttng-probe-%,\$(obj-m))),\$(obj-m))"
	} >>"$ltdir/src/src/probes/Kbuild"
	make -C "$ltdir/src" -j"$(nproc)" KERNELDIR="$kdir" \
		CONFIG_LTTNG_CLOCK_PLUGIN_TEST=n modules >"$ltdir/build.log" 2>&1 ||
		die "LTTng's modules failed to build; see $ltdir/build.log"
	for ko in $probes; do
		[ -s "$ltdir/src/src/probes/lttng-probe-$ko.ko" ] ||
			die "no lttng-probe-$ko.ko; see $ltdir/build.log"
	done
	bench_lttng_have || die "LTTng's core modules missing; see $ltdir/build.log"
	echo "$want" >"$stamp"
}

# bench_lttng_have: the built tree holds the tracer and its clients
bench_lttng_have() {
	local m
	for m in lttng-tracer lttng-ring-buffer-client-discard \
		lttng-ring-buffer-metadata-client lib/lttng-lib-ring-buffer; do
		[ -s "$ltdir/src/src/$m.ko" ] || return 1
	done
}

# bench_lttng_overlay ROOT: LTTng in the overlay archive: lttng,
# lttng-sessiond and lttng-consumerd at their Debian paths with every
# library ldd lists and the dynamic loader; the modules (debug info
# stripped) in lib/modules/KVER/extra with depmod's index, built from the
# kernel's modules.builtin* so libkmod (sessiond's module loader) accepts
# it; sessiond's session.xsd; /gr/bench-lttng (tests/bench/guest-lttng),
# the guest side, sourced by the guest scripts.
bench_lttng_overlay() {
	local root=$1 f lib consumerd=/usr/lib/x86_64-linux-gnu/lttng/libexec/lttng-consumerd
	local mdir=$1/lib/modules/$kver
	mkdir -p "$mdir/extra" "$root/gr"
	for f in /usr/bin/lttng /usr/bin/lttng-sessiond "$consumerd"; do
		mkdir -p "$root$(dirname "$f")"
		cp -L "$f" "$root$f"
		ldd "$f" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\//) print $i }'
	done | sort -u | while read -r lib; do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
	mkdir -p "$root/usr/share/xml/lttng"
	cp /usr/share/xml/lttng/session.xsd "$root/usr/share/xml/lttng/"
	find "$ltdir/src/src" -name '*.ko' ! -path '*/tests/*' | while read -r f; do
		objcopy --strip-debug "$f" "$mdir/extra/$(basename "$f")"
	done
	for f in modules.builtin modules.builtin.modinfo; do
		cp "/lib/modules/$kver/$f" "$mdir/"
	done
	(cd "$mdir" && find extra -name '*.ko' | LC_ALL=C sort) >"$mdir/modules.order"
	depmod -b "$root" "$kver" || die "depmod for the guest's LTTng modules failed"
	cp "$top/tests/bench/guest-lttng" "$root/gr/bench-lttng"
	chmod 644 "$root/gr/bench-lttng"
}
