#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_bench_smoke.sh - the benchmark programs run, at the smallest sizes
#
# Not a benchmark: no time is judged. It checks that
#   - tests/bench/grwl.c builds static and both workloads run and report;
#   - tests/bench/latwatch.c builds and refuses bad usage;
#   - bench_host.sh (BENCH_TINY=1: 0.3 s runs, one repetition, 1 and 2
#     VMs) runs every part against the real agent and fake guests and
#     writes host.md with every table, numbers in them, and the SVG plots;
#   - tcgcount.so (tests/bench/tcgcount) counts known instruction
#     sequences exactly (its own test, under qemu-x86_64);
#   - count_table.py turns a console and the plugin's lines into the
#     counts table, and marks counts that differ between rounds INVALID;
#   - anyevent_table.py (bench_anyevent.sh) makes its rows, native probe
#     and anyevent= path, and marks a variant with other probes INVALID;
#   - hist_table.py (bench_hist.sh) makes its rows, ftrace's hist trigger
#     against guestrelay's hist request, and marks a variant with other
#     probes INVALID;
#   - client_table.py (bench_client.sh) checks a made-up boot's stored
#     channels against what the guest wrote (ok when they match, FAIL for
#     a missing record) and makes its table with the ratios;
#   - launch-guest.sh --accel auto boots the test guest, on this machine's
#     accelerator or, where KVM is not a hardware KVM (kvm-pvm here), on
#     TCG after exactly one line saying why; --accel kvm then refuses;
#   - allevents_table.py (bench_allevents.sh) takes each tracer's time
#     per event written from a made-up boot;
#   - bench_workload.sh boots the test guest once with tiny runs and
#     writes its table (skipped without QEMU or a built test guest), with
#     BENCH_LTTNG=0: make check does not install or build LTTng (its
#     modules take minutes to build); make bench runs the LTTng variant.
# Output goes to a temporary directory (KEEP=1 keeps it).
# Prints "N passed, N failed"; exit 0 if none failed, 77 if nothing could
# run here.

set -u
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
BUILD=${BUILD:-$TOP/build}
BENCH=$TOP/tests/bench
passed=0 failed=0 skipped=0
tmp=$(mktemp -d /tmp/test_bench_smoke.XXXXXX) || exit 1

# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	if [ "${KEEP:-0}" = 1 ]; then
		echo "kept $tmp"
	else
		rm -rf "$tmp"
	fi
}
trap cleanup EXIT

ok() { echo "ok - $1"; passed=$((passed + 1)); }
bad() {
	echo "FAIL - $1: $2"
	[ -n "${3:-}" ] && tail -n 30 "$3" | sed 's/^/    | /'
	failed=$((failed + 1))
}
skip() { echo "skip - $1: $2"; skipped=$((skipped + 1)); }

CC=${CC:-cc}

# grwl: static, both workloads
if "$CC" -static -O2 -Wall -Wextra -Werror -o "$tmp/grwl" "$BENCH/grwl.c" \
	>"$tmp/grwl.log" 2>&1; then
	ok grwl-builds-static
	for w in pingpong getppid; do
		if "$tmp/grwl" "$w" 200 >"$tmp/$w.out" 2>&1 &&
		   grep -qE "^workload=$w ops=200 ns=[0-9]+ ops_per_s=[0-9.]+$" \
			"$tmp/$w.out"; then
			ok "grwl-$w-reports"
		else
			bad "grwl-$w-reports" "unexpected output" "$tmp/$w.out"
		fi
	done
	if "$tmp/grwl" nosuch 1 >/dev/null 2>&1; then
		bad grwl-rejects-unknown-workload "exit 0"
	else
		ok grwl-rejects-unknown-workload
	fi
else
	skip grwl-builds-static "no static libc here" 
fi

# relay_ir (bench_core.sh's program): builds from the guest's sources and
# runs every path (natively: callgrind is the benchmark's business)
if "$CC" -std=gnu11 -O2 -D_GNU_SOURCE -Wall -Wextra -Werror \
	-I"$TOP/spec" -I"$TOP/tests/shim" -I"$TOP/guest-module" \
	-o "$tmp/relay_ir" "$BENCH/relay_ir.c" "$TOP/guest-module/gr_relay.c" \
	"$TOP/guest-module/gr_ctf_packet.c" "$TOP/guest-module/gr_record.c" \
	"$TOP/guest-module/gr_relay_client.c" \
	"$TOP/guest-module/gr_layout.c" "$TOP/guest-module/gr_filter.c" \
	"$TOP/guest-module/gr_hist.c" \
	-pthread >"$tmp/relay_ir.log" 2>&1; then
	ok relay-ir-builds
	for p in clock floor rec keep drop fkeep fdrop write reserve hrec hagg; do
		if "$tmp/relay_ir" "$p" 56 1000 >"$tmp/ri.out" 2>&1 &&
		   grep -q "^path=$p payload=56 n=1000 " "$tmp/ri.out"; then
			ok "relay-ir-runs-$p"
		else
			bad "relay-ir-runs-$p" "$(cat "$tmp/ri.out")"
		fi
	done
else
	bad relay-ir-builds "build failed" "$tmp/relay_ir.log"
fi

# latwatch: builds, usage
if "$CC" -O2 -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror \
	-I"$TOP/spec" -o "$tmp/latwatch" "$BENCH/latwatch.c" \
	>"$tmp/latwatch.log" 2>&1; then
	ok latwatch-builds
	"$tmp/latwatch" --rings 1 >/dev/null 2>&1
	[ $? = 2 ] && ok latwatch-needs-session ||
		bad latwatch-needs-session "not exit 2"
	mkdir -p "$tmp/empty"
	if "$tmp/latwatch" --session "$tmp/empty" --rings 1 --seconds 0.1 \
		>"$tmp/lw.out" 2>&1; then
		bad latwatch-fails-without-events "exit 0" "$tmp/lw.out"
	elif grep -q '^events 0$' "$tmp/lw.out"; then
		ok latwatch-fails-without-events
	else
		bad latwatch-fails-without-events "output" "$tmp/lw.out"
	fi
else
	bad latwatch-builds "cc failed" "$tmp/latwatch.log"
fi

# tcgcount.so: its own test (skipped without qemu-x86_64)
bash "$BENCH/tcgcount/test_tcgcount.sh" >"$tmp/tcgcount.log" 2>&1
rc=$?
if [ "$rc" = 77 ]; then
	skip tcgcount-counts-exactly "$(grep -i skip "$tmp/tcgcount.log" | tail -n 1)"
elif [ "$rc" = 0 ] && grep -q '^[0-9]* passed, 0 failed' "$tmp/tcgcount.log"; then
	ok tcgcount-counts-exactly
else
	bad tcgcount-counts-exactly "exit $rc" "$tmp/tcgcount.log"
fi

# count_table.py on a made-up count boot: none and guestrelay on
# sched_switch, two rounds; then the second round's counts changed
count_files() {
	local r k=0 v f p insns
	: >"$tmp/cnt.console"
	: >"$tmp/cnt.txt"
	for r in 1 2; do
		for v in none gr; do
			k=$((k + 1))
			f="" p=0 insns=27
			[ "$v" = gr ] && f="gr_probe_sched_switch [guestrelay]" p=1 insns=187
			[ "$v" = gr ] && [ "$r" = 2 ] && insns=$((insns + $1))
			echo "GR: BENCH count variant=$v rep=$r target=sched_switch calls=100 count=$k ns=1 cpu=0 changed=0 probes=$p funcs=$f" >>"$tmp/cnt.console"
			echo "tcgcount run=$k segs=100 mode_segs=100 insns=$insns mem=17 atomics=0 local_rmw=0 reps=0 rep_execs=0 mean_insns=$insns.00 mean_mem=17.00 mean_atomics=0.000 mean_rep_execs=0.00 min_insns=$insns max_insns=$insns dropped=0 unpaired=0" >>"$tmp/cnt.txt"
		done
	done
}
count_files 0
# (exit 1: the other tracepoints' counts are missing; the row matters here)
python3 "$BENCH/count_table.py" --console "$tmp/cnt.console" \
	--counts "$tmp/cnt.txt" >"$tmp/cnt.md" 2>&1
if grep -qF '| sched_switch | 27/17/0/0 | - | 160 / 0 / 0 / 0 (160.0) |' "$tmp/cnt.md" &&
   grep -qF '| 40-80 |' "$tmp/cnt.md"; then
	ok count-table-row
else
	bad count-table-row "no row with counts over none and cycles" "$tmp/cnt.md"
fi
count_files 3
python3 "$BENCH/count_table.py" --console "$tmp/cnt.console" \
	--counts "$tmp/cnt.txt" >"$tmp/cnt2.md" 2>&1
if grep -q 'INVALID: gr/sched_switch: the counts differ between rounds' "$tmp/cnt2.md"; then
	ok count-table-rounds-must-agree
else
	bad count-table-rounds-must-agree "no INVALID line" "$tmp/cnt2.md"
fi

# anyevent_table.py (bench_anyevent.sh's table) on a made-up count boot:
# none, guestrelay, ftrace and both on softirq_entry (native probe) and
# softirq_raise (anyevent=), perf's stage alone on softirq_raise, two
# rounds; $1 is guestrelay's probe on softirq_raise
ae_files() {
	local r k=0 t v f p insns
	: >"$tmp/ae.console"
	: >"$tmp/ae.txt"
	for r in 1 2; do
		for t in softirq_entry softirq_raise; do
			for v in none gr ftrace both perf; do
				[ "$v.$t" = perf.softirq_entry ] && continue
				k=$((k + 1))
				f="" p=0 insns=20
				case $v.$t in
				gr.softirq_entry) f="gr_probe_softirq_entry [guestrelay]" p=1 insns=120 ;;
				gr.softirq_raise) f=$1 p=1 insns=420 ;;
				ftrace.*) f="trace_event_raw_event_softirq" p=1 insns=220 ;;
				perf.*) f="perf_trace_softirq" p=1 insns=320 ;;
				both.softirq_entry) f="trace_event_raw_event_softirq,gr_probe_softirq_entry [guestrelay]" p=2 insns=300 ;;
				both.softirq_raise) f="trace_event_raw_event_softirq,$1" p=2 insns=600 ;;
				esac
				echo "GR: BENCH count variant=$v rep=$r target=$t calls=100 count=$k ns=1 cpu=0 changed=0 probes=$p funcs=$f" >>"$tmp/ae.console"
				echo "tcgcount run=$k segs=100 mode_segs=100 insns=$insns mem=9 atomics=0 local_rmw=0 reps=0 rep_execs=0 mean_insns=$insns.00 mean_mem=9.00 mean_atomics=0.000 mean_rep_execs=0.00 min_insns=$insns max_insns=$insns dropped=0 unpaired=0" >>"$tmp/ae.txt"
			done
		done
	done
}
ae_files perf_trace_softirq
if python3 "$BENCH/anyevent_table.py" --console "$tmp/ae.console" \
	--counts "$tmp/ae.txt" >"$tmp/ae.md" 2>&1 &&
   grep -qF '| softirq_raise | anyevent= (perf) | 400 / 0 / 0 / 0 (400.0) | 200 / 0 / 0 / 0 (200.0) |' "$tmp/ae.md" &&
   grep -qF '+300 instructions' "$tmp/ae.md" &&
   grep -qF "| guestrelay's handler (anyevent= - perf) | 100 |" "$tmp/ae.md" &&
   ! grep -q INVALID "$tmp/ae.md"; then
	ok anyevent-table-rows
else
	bad anyevent-table-rows "no row for each path, or no difference" "$tmp/ae.md"
fi
ae_files "gr_probe_softirq_raise [guestrelay]"
if ! python3 "$BENCH/anyevent_table.py" --console "$tmp/ae.console" \
	--counts "$tmp/ae.txt" >"$tmp/ae2.md" 2>&1 &&
   grep -q 'INVALID: gr/softirq_raise: probes' "$tmp/ae2.md"; then
	ok anyevent-table-checks-probes
else
	bad anyevent-table-checks-probes "no INVALID line" "$tmp/ae2.md"
fi

# hist_table.py (bench_hist.sh's table) on a made-up count boot of
# bench-hist: none, ftrace recording and its three hist triggers,
# guestrelay recording and its three hist requests, two rounds, with the
# hists and statuses the host saves; $1 is guestrelay's probe, $2 (if
# any) how many instructions the cheapest call of gr-hist is below its
# common path
hist_files() {
	local r k=0 v f p insns ft low
	: >"$tmp/h.console"
	: >"$tmp/h.txt"
	printf 'GR: BENCH info %s\n' "kernel 6.1.0-test" "prev_pid 80" >>"$tmp/h.console"
	for v in none ftrace ft-hist ft-hist-vals ft-hist-log2 gr gr-hist gr-hist-vals gr-hist-log2; do
		for r in 1 2; do
			k=$((k + 1))
			f="" p=0 insns=30 ft="" low=0
			case $v in
			ftrace) f=trace_event_raw_event_sched_switch p=1 insns=530 ft="ft_entries=100 ft_overrun=0 " ;;
			ft-*) f=trace_event_raw_event_sched_switch p=1 insns=430 ft="ft_entries=0 ft_overrun=0 " ;;
			gr*) f=$1 p=1 insns=130 ;;
			esac
			[ "$v" = gr-hist ] && low=${2:-0}
			echo "GR: BENCH count variant=$v rep=$r ${ft}target=sched_switch calls=100 count=$k ns=1 cpu=0 changed=0 probes=$p funcs=$f" >>"$tmp/h.console"
			echo "tcgcount run=$k segs=100 mode_segs=100 insns=$insns mem=$((insns / 3)) atomics=0 local_rmw=0 reps=0 rep_execs=0 mean_insns=$insns.00 mean_mem=$((insns / 3)).00 mean_atomics=0.000 mean_rep_execs=0.00 min_insns=$((insns - low)) max_insns=$insns dropped=0 unpaired=0" >>"$tmp/h.txt"
		done
		case $v in
		ft-*)
			printf 'GR: BENCH fthist %s %s\n' "$v" "{ prev_pid: 80 } hitcount: 205" "$v" "Totals:" "$v" "    Hits: 205" "$v" "    Entries: 1" "$v" "    Dropped: 0" >>"$tmp/h.console" ;;
		gr-*)
			echo '{"vm": "v", "hists": [{"name": "sched_switch", "event": "sched_switch", "state": "running", "entries": [{"key": {"prev_tid": 80}, "hitcount": 201, "vals": {}}], "totals": {"hits": 203, "dropped": 0}}]}' >"$tmp/h-$v.json"
			echo "{\"stats\": {\"guest_events\": 500}}" >"$tmp/h-$v-status.json" ;;
		esac
	done
	echo '{"stats": {"guest_events": 499}}' >"$tmp/h-disable-status.json"
	echo '{"stats": {"guest_events": 520}}' >"$tmp/h-status.json"
}
hist_files "gr_probe_sched_switch [guestrelay]"
if python3 "$BENCH/hist_table.py" --console "$tmp/h.console" \
	--counts "$tmp/h.txt" --status "$tmp/h-status.json" --saved "$tmp/h-" \
	--calls 100 >"$tmp/h.md" 2>&1 &&
   grep -qF '| hist keys=prev_pid | 400 / 133 / 0 / 0 (400.0) | 100 / 33 / 0 / 0 (100.0) | 100-200 | 25-50 | 0.25 | 0.25 | yes |' "$tmp/h.md" &&
   grep -qF '| recording the event (reference) | 500 / 166 / 0 / 0 (500.0) |' "$tmp/h.md" &&
   ! grep -q INVALID "$tmp/h.md"; then
	ok hist-table-rows
else
	bad hist-table-rows "no row per aggregation with the ratios" "$tmp/h.md"
fi
hist_files "trace_event_raw_event_sched_switch"
if ! python3 "$BENCH/hist_table.py" --console "$tmp/h.console" \
	--counts "$tmp/h.txt" --calls 100 >"$tmp/h2.md" 2>&1 &&
   grep -q 'INVALID: gr-hist/sched_switch: probes' "$tmp/h2.md"; then
	ok hist-table-checks-probes
else
	bad hist-table-checks-probes "no INVALID line" "$tmp/h2.md"
fi
hist_files "gr_probe_sched_switch [guestrelay]" 90
if ! python3 "$BENCH/hist_table.py" --console "$tmp/h.console" \
	--counts "$tmp/h.txt" --calls 100 >"$tmp/h3.md" 2>&1 &&
   grep -qF 'INVALID: gr-hist: calls of [40, 40] instructions, below the common path' "$tmp/h3.md"; then
	ok hist-table-every-call-counted
else
	bad hist-table-every-call-counted "no INVALID line" "$tmp/h3.md"
fi

# client_table.py on a made-up boot of bench-client: the stored channels
# match what grcbench wrote; then one record is missing on the host
client_files() {
	local r t ft
	mkdir -p "$tmp/cl/s/channels/grcbench" "$tmp/cl/s/channels/klog"
	head -c $((3 * 64)) /dev/zero >"$tmp/cl/s/channels/grcbench/grcbench_0"
	head -c $((1 * 64)) /dev/zero >"$tmp/cl/s/channels/grcbench/grcbench_1"
	printf '1.0 grcbench: record 0 of 2\n2.0 grcbench: record 1 of 2\n' \
		>"$tmp/cl/s/channels/klog/klog_0.txt"
	echo '{"channels": [{"name": "grcbench", "lost_full": 0}]}' >"$tmp/cl/st.json"
	: >"$tmp/cl/c.console"
	for r in 1 2; do
		# TARGET:NS for 10 writes
		for t in none:100 klog_off:110; do
			echo "GR: CLB run phase=off rep=$r target=${t%:*} calls=10 ns=${t#*:} cpu=0"
		done
		for t in none:100 gr_write:300 relay_write:200 __gr_write:300 \
			 __relay_write:200 gr_reserve:300 relay_reserve:200 \
			 gr_klog:500 trace_printk:900; do
			ft=""
			[ "${t%:*}" = trace_printk ] && ft="ft_entries=10 ft_overrun=0 "
			echo "GR: CLB run phase=on rep=$r ${ft}target=${t%:*} calls=10 ns=${t#*:} cpu=0"
		done
	done >>"$tmp/cl/c.console"
	echo "GR: CLB stats gr_ok=$1 gr_dropped=0 relay_calls=2 relay_bytes=128 klog_calls=2 tp_calls=2 rec=64" >>"$tmp/cl/c.console"
}
client_files 4
python3 "$BENCH/client_table.py" --check "$tmp/cl/c.console" \
	--status "$tmp/cl/st.json" --session "$tmp/cl/s" --rec 64 \
	>"$tmp/cl/check.out" 2>&1
if [ "$(grep -c '^GR: CLB check [a-z-]* ok ' "$tmp/cl/check.out")" = 6 ]; then
	ok client-check-all-ok
else
	bad client-check-all-ok "not 6 checks ok" "$tmp/cl/check.out"
fi
cat "$tmp/cl/check.out" >>"$tmp/cl/c.console"
if python3 "$BENCH/client_table.py" --console "$tmp/cl/c.console" \
	--calls 10 --reps 2 >"$tmp/cl/t.md" 2>&1 &&
   grep -qE '^\| gr_write \| .* \| 30\.0 \[30\.0-30\.0\] \| 20\.0 \| relay_write \| 2\.00 \| 2\.00 \|$' "$tmp/cl/t.md" &&
   grep -qE '^\| gr_klog \| .* \| 40\.0 \| trace_printk \| 0\.50 \| 0\.50 \|$' "$tmp/cl/t.md"; then
	ok client-table-ratios
else
	bad client-table-ratios "no gr_write/relay_write or gr_klog/trace_printk ratio" "$tmp/cl/t.md"
fi
client_files 5
python3 "$BENCH/client_table.py" --check "$tmp/cl/c.console" \
	--status "$tmp/cl/st.json" --session "$tmp/cl/s" --rec 64 \
	>"$tmp/cl/check2.out" 2>&1
if grep -q '^GR: CLB check gr-stored FAIL host stored 256 bytes, written 5 x 64 = 320' "$tmp/cl/check2.out"; then
	ok client-check-finds-missing-record
else
	bad client-check-finds-missing-record "no FAIL line" "$tmp/cl/check2.out"
fi

# launch-guest.sh --accel auto: boots, after one line naming the
# accelerator (TCG with the reason where KVM is no hardware KVM)
if ! command -v qemu-system-x86_64 >/dev/null; then
	skip accel-auto-boots "no qemu-system-x86_64"
elif [ ! -s "$BUILD/guest/vmlinux" ] || [ ! -x "$BUILD/host-agent/guestrelay" ]; then
	skip accel-auto-boots "test guest or agent not built (make guest host)"
else
	avm=accel$$
	timeout -k 5 300 "$TOP/scripts/launch-guest.sh" --name "$avm" \
		--run-dir "$tmp/arun" --store "$tmp/astore" --plain --size 4M \
		--accel auto --log "$tmp/accel.console" -- \
		-pidfile "$tmp/accel.pid" >"$tmp/accel.log" 2>&1 </dev/null &
	ajob=$!
	for _ in $(seq 1400); do
		grep -qa 'GR: guest ready' "$tmp/accel.console" 2>/dev/null && break
		kill -0 "$ajob" 2>/dev/null || break
		sleep 0.2
	done
	booted=0
	grep -qa 'GR: guest ready' "$tmp/accel.console" 2>/dev/null && booted=1
	qpid=$(cat "$tmp/accel.pid" 2>/dev/null)
	[ -n "$qpid" ] && kill "$qpid" 2>/dev/null
	wait "$ajob" 2>/dev/null
	# the agent launch-guest.sh started for this run directory
	"$BUILD/host-agent/guestrelay" --run-dir "$tmp/arun" vm-remove "$avm" \
		>/dev/null 2>&1
	apid=$(pgrep -f "agent --run-dir $tmp/arun" | head -n 1)
	[ -n "$apid" ] && kill "$apid" 2>/dev/null
	rm -f "/dev/shm/guestrelay-$avm"
	nl=$(grep -c '^launch-guest.sh: accelerator ' "$tmp/accel.log")
	if [ "$booted" = 1 ] && [ "$nl" = 1 ] &&
	   grep -qE '^launch-guest.sh: accelerator (kvm$|tcg \(.+\)$)' "$tmp/accel.log"; then
		ok accel-auto-boots
	else
		bad accel-auto-boots "booted=$booted, $nl accelerator lines" "$tmp/accel.log"
	fi
	if grep -q '^launch-guest.sh: accelerator tcg' "$tmp/accel.log"; then
		if GR_ACCEL=kvm "$TOP/scripts/launch-guest.sh" --name "$avm" \
			--run-dir "$tmp/arun2" --plain >"$tmp/kvm.log" 2>&1 </dev/null; then
			bad accel-kvm-refuses "exit 0 where auto fell back to TCG"
		elif grep -q '^launch-guest.sh: KVM requested but ' "$tmp/kvm.log"; then
			ok accel-kvm-refuses
		else
			bad accel-kvm-refuses "no reason" "$tmp/kvm.log"
		fi
	fi
fi

# bench_host.sh, tiny
if [ ! -x "$BUILD/host-agent/guestrelay" ] || [ ! -x "$BUILD/tests/fakeguest" ]; then
	skip bench-host-runs "agent or fake guest not built"
else
	BENCH_NO_BUILD=1 BENCH_TINY=1 BENCH_OUT="$tmp/host" timeout -k 5 400 \
		"$BENCH/bench_host.sh" >"$tmp/host.log" 2>&1
	rc=$?
	if [ "$rc" = 0 ]; then
		ok bench-host-runs
		for s in "## 1. Host ingest" "## 2a. Doorbells" "## 2b. Event-to-disk" \
			 "## 2c. Bytes stored per event" \
			 "## 3. Scale" "## 3b. Scale at a fixed aggregate rate" \
			 "## 4. Loss" "## Conditions"; do
			if grep -qF "$s" "$tmp/host/host.md"; then
				ok "host-md-has '$s'"
			else
				bad "host-md-has '$s'" "missing" "$tmp/host/host.md"
			fi
		done
		for k in "agent, verify, --io fixed" \
			 "agent, verify, --io writev" \
			 "agent, --verify off, --io fixed" \
			 "agent, --verify off, --io writev" \
			 "copy consumer" "dd tmpfs -> tmpfs"; do
			if grep -E "^\| 64 KiB x [0-9]+ \| $k \| [0-9.]+ \[" \
				"$tmp/host/host.md" >/dev/null; then
				ok "host-ingest-row '$k'"
			else
				bad "host-ingest-row '$k'" "no numbers" "$tmp/host/host.md"
			fi
		done
		if grep -qE '^\| 2 \| [0-9.]+ \[' "$tmp/host/host.md"; then
			ok host-scale-row-2-vms
		else
			bad host-scale-row-2-vms "no row" "$tmp/host/host.md"
		fi
		if grep -qE '^\| 2000 \| 8 \| [0-9.]+ \[.*\| ([0-9.]+|-) \| [0-9]+ \|$' "$tmp/host/host.md"; then
			ok host-fixrate-row
		else
			bad host-fixrate-row "no row" "$tmp/host/host.md"
		fi
		if grep -qE '^\| 10 ms \| [0-9.]+ \[.*\| [0-9.]+ \[' "$tmp/host/host.md"; then
			ok host-latency-row
		else
			bad host-latency-row "no row" "$tmp/host/host.md"
		fi
		for p in ingest scale_gbps scale_rss; do
			if grep -q '<svg' "$tmp/host/$p.svg" 2>/dev/null &&
			   grep -q '<rect x' "$tmp/host/$p.svg"; then
				ok "host-plot-$p"
			else
				bad "host-plot-$p" "no SVG with bars"
			fi
		done
		if ls /dev/shm/bench_host.* >/dev/null 2>&1 &&
		   [ -n "$(find /dev/shm -maxdepth 1 -name 'bench_host.*' -newer "$tmp/grwl.log" 2>/dev/null)" ]; then
			bad host-cleans-dev-shm "a store is left in /dev/shm"
		else
			ok host-cleans-dev-shm
		fi
	else
		bad bench-host-runs "exit $rc" "$tmp/host.log"
	fi
fi

# the tables' LTTng parts, on a made-up console (no guest, no LTTng): the
# LTTng column and ratios, a discard warning, a run of the lttng variant
# with another tracer's probe attached made INVALID
# bench_console LTTNG_FUNCS: a console of bench-probes with one round of
# every variant; the lttng variant's runs called LTTNG_FUNCS
bench_console() {
	local v t f p
	echo "GR: BENCH info kernel smoke"
	for v in none gr ftrace both lttng; do
		for t in sched_switch sys_enter irq_handler_exit sched_process_exec; do
			case $v in
			none) f="" p=0 ;;
			gr) f="gr_probe_$t [guestrelay]" p=1 ;;
			ftrace) f="trace_event_raw_event_$t" p=1 ;;
			both) f="trace_event_raw_event_$t,gr_probe_$t [guestrelay]" p=2 ;;
			lttng) f=$1 p=$(($(tr -cd , <<<"$1" | wc -c) + 1)) ;;
			esac
			echo "GR: BENCH run variant=$v rep=1 target=$t calls=1000 ns=$((p * 500000 + 4000)) cpu=0 changed=0 probes=$p funcs=$f"
		done
	done
	# the filter phases, on sched_switch
	for v in gr-fkeep gr-fdrop ftrace-fkeep ftrace-fdrop; do
		case $v in
		gr-*) f="gr_probe_sched_switch [guestrelay]" ;;
		*) f="trace_event_raw_event_sched_switch" ;;
		esac
		echo "GR: BENCH run variant=$v rep=1 target=sched_switch calls=1000 ns=754000 cpu=0 changed=0 probes=1 funcs=$f"
	done
	# the floor and the clocks, in the rounds bench-probes runs them
	for t in sched_switch sys_enter irq_handler_exit sched_process_exec; do
		echo "GR: BENCH run variant=none rep=1 target=floor_$t calls=1000 ns=404000 cpu=0 changed=0 probes=1 funcs=grb_floor_$t [grbench]"
	done
	for v in none gr; do
		for t in clock_none clock_mono_fast clock_tsc_ordered; do
			echo "GR: BENCH run variant=$v rep=1 target=$t calls=1000 ns=50000 cpu=0 changed=0 probes=0 funcs="
		done
	done
	for t in clock_mono_fast clock_raw_fast clock_local clock_local_clock \
		 clock_tsc_ordered clock_tsc clock_none; do
		echo "GR: BENCH run variant=clock rep=1 target=$t calls=1000 ns=50000 cpu=0 changed=0 probes=0 funcs="
	done
	echo "GR: BENCH info gr_clock tsc"
	echo "GR: BENCH info lttng_discarded 7"
	echo "GR: BENCH info lttng_trace_bytes 1000000"
}
bench_console "__event_probe__x [lttng_probe_sched]" >"$tmp/lt.console"
if python3 "$BENCH/guest_table.py" --console "$tmp/lt.console" --calls 1000 \
	--reps 1 --lttng 1 >"$tmp/lt.md" 2>&1 &&
	grep -qE '^\| tracepoint .*\| LTTng \(ns\) \|.*\| guestrelay/LTTng \|' "$tmp/lt.md" &&
	grep -qE '^\| sched_switch \| 56/56/56 \|( [^|]+ \|){5} 1\.00 \(min 1\.00\) \| 1\.00 \(min 1\.00\) \|' "$tmp/lt.md" &&
	grep -q 'WARNING: LTTng discarded 7 events' "$tmp/lt.md" &&
	grep -qF '| guestrelay | 500.0: 504.0 [504.0-504.0] | 750.0: 754.0 [754.0-754.0] | 750.0: 754.0 [754.0-754.0] | 1.50 | 1.50 |' "$tmp/lt.md"; then
	ok guest-table-lttng-column
else
	bad guest-table-lttng-column "no LTTng column, ratio or warning" "$tmp/lt.md"
fi
bench_console "gr_probe_x [guestrelay],__event_probe__x [lttng_probe_sched]" \
	>"$tmp/lt2.console"
if python3 "$BENCH/guest_table.py" --console "$tmp/lt2.console" --calls 1000 \
	--reps 1 --lttng 1 >"$tmp/lt2.md" 2>&1; then
	bad guest-table-lttng-alone "exit 0 with guestrelay's probe in lttng runs" "$tmp/lt2.md"
elif grep -q "INVALID: lttng/sched_switch rep 1: 2 probe(s) attached, not LTTng's alone" "$tmp/lt2.md"; then
	ok guest-table-lttng-alone
else
	bad guest-table-lttng-alone "no INVALID line" "$tmp/lt2.md"
fi

{
	echo "GR: WL info lttng_discarded 0"
	echo "GR: WL info lttng_trace_bytes 1000000"
	for v in none:100 ftrace:50 lttng:40 gr:80; do
		for w in pingpong getppid; do
			echo "GR: WL run variant=${v%:*} rep=1 workload=$w ops=10 ns=1 ops_per_s=${v#*:}"
		done
	done
} >"$tmp/wl.console"
echo '{"stats": {"guest_events": 1000}}' >"$tmp/wl-status.json"
if python3 "$BENCH/workload_table.py" --console "$tmp/wl.console" \
	--status "$tmp/wl-status.json" --pp 10 --sc 10 --reps 1 --lttng 1 \
	--host-cores 2 --host-cpu x --qemu x --load x --seconds 1 \
	>"$tmp/wlt.md" 2>&1 &&
	grep -qE '^\| getppid\(\) .*\| 40\.0 \[40\.0-40\.0\] \|.*\| 0\.50 \| 0\.40 \| 0\.80 \| 1\.60 \| 2\.00 \|$' \
		"$tmp/wlt.md"; then
	ok workload-table-lttng-column
else
	bad workload-table-lttng-column "no LTTng column or ratios" "$tmp/wlt.md"
fi

# allevents_table.py (bench_allevents.sh): every run's time, warm-up
# included, against the events each tracer wrote: ftrace 2 runs x 2
# workloads x 3000 ns more than none over 6 events = 2000 ns an event,
# guestrelay 2 x 2 x 1000 ns over 4 = 1000
{
	echo "GR: WL info ftrace_enabled 628"
	echo "GR: WL info ftrace_entries 2"
	echo "GR: WL info ftrace_overrun 4"
	for v in none:1000:100 ftrace:4000:50 gr:2000:80; do
		for w in pingpong getppid; do
			for r in 0 1; do
				t=${v#*:}
				echo "GR: WL run variant=${v%%:*} rep=$r workload=$w ops=10 ns=${t%:*} ops_per_s=${v##*:}"
			done
		done
	done
} >"$tmp/all.console"
echo '{"stats": {"guest_events": 4}}' >"$tmp/all-status.json"
echo "8 events named: 8 added" >"$tmp/all-enable.txt"
if python3 "$BENCH/allevents_table.py" --console "$tmp/all.console" \
	--status "$tmp/all-status.json" --enable "$tmp/all-enable.txt" \
	--pp 10 --sc 10 --reps 1 --host-cores 2 --host-cpu x --qemu x \
	--load x --seconds 1 >"$tmp/allt.md" 2>&1 &&
	grep -qE '^\| getppid\(\) \(calls/s\) \| 100 .*\| 0\.50 \| 0\.80 \| 1\.60 \|$' "$tmp/allt.md" &&
	grep -qE '^\| ftrace \| 628 events .*\| 6 \| .*\| 2000 \|$' "$tmp/allt.md" &&
	grep -qE '^\| guestrelay \| `enable .\*.`: 8 events named: 8 added.*\| 4 \| .*\| 1000 \|$' "$tmp/allt.md"; then
	ok allevents-table-per-event
else
	bad allevents-table-per-event "no ratios or ns per event" "$tmp/allt.md"
fi

# bench_workload.sh, tiny, one boot
if ! command -v qemu-system-x86_64 >/dev/null; then
	skip bench-workload-runs "no qemu-system-x86_64"
elif [ ! -s "$BUILD/guest/vmlinux" ] || [ ! -x "$BUILD/host-agent/guestrelay" ]; then
	skip bench-workload-runs "test guest or agent not built (make guest host)"
else
	BENCH_NO_BUILD=1 BENCH_LTTNG=0 BENCH_PP=200 BENCH_SC=2000 BENCH_REPS=1 \
	BENCH_TIMEOUT=540 BENCH_OUT="$tmp/wl" timeout -k 5 600 \
		"$BENCH/bench_workload.sh" >"$tmp/wl.log" 2>&1
	rc=$?
	if [ "$rc" = 77 ]; then
		skip bench-workload-runs "$(tail -n1 "$tmp/wl.log")"
	elif [ "$rc" = 0 ]; then
		ok bench-workload-runs
		for w in "pipe ping-pong" "getppid()"; do
			if grep -E "^\| $(sed 's/[()]/\\&/g' <<<"$w").* \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \|$" \
				"$tmp/wl/workload.md" >/dev/null; then
				ok "workload-row '$w'"
			else
				bad "workload-row '$w'" "no ratios" "$tmp/wl/workload.md"
			fi
		done
	else
		bad bench-workload-runs "exit $rc" "$tmp/wl.log"
	fi
fi

line="$passed passed, $failed failed"
[ "$skipped" -gt 0 ] && line="$line, $skipped skipped"
echo "$line"
[ "$failed" -gt 0 ] && exit 1
[ "$passed" = 0 ] && exit 77
exit 0
